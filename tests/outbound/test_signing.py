"""Both signature schemes against their published vectors, and the receiver toolkit."""

from __future__ import annotations

import calendar
import email.message
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hermes_hooks.webhooks import (
    Deduplicator,
    VerificationError,
    github_signature,
    standard_key,
    standard_signature,
    standard_signatures,
    verify,
)
from hermes_hooks.webhooks.wire import build_headers

# GitHub's published example, "Testing the webhook payload validation" in
# https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries
GITHUB_SECRET = "It's a Secret to Everybody"
GITHUB_PAYLOAD = b"Hello, World!"
GITHUB_SIGNATURE = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"

# The Standard Webhooks reference library's signing vector (test_sign_function in
# libraries/python/tests/test_webhooks.py of github.com/standard-webhooks/standard-webhooks).
STANDARD_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
STANDARD_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
STANDARD_TIMESTAMP = 1614265330
STANDARD_PAYLOAD = b'{"test": 2432232314}'
STANDARD_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="

SECRET = "receiver-secret"
NOW = 1_800_000_000.0


def test_github_published_vector() -> None:
    assert github_signature(GITHUB_SECRET, GITHUB_PAYLOAD) == GITHUB_SIGNATURE


def test_standard_webhooks_published_vector() -> None:
    key = standard_key(STANDARD_SECRET)
    assert standard_key(STANDARD_SECRET.removeprefix("whsec_")) == key  # prefix optional
    assert (
        standard_signature(key, STANDARD_ID, STANDARD_TIMESTAMP, STANDARD_PAYLOAD)
        == STANDARD_SIGNATURE
    )


def test_standard_vector_verifies_with_its_headers() -> None:
    headers = {
        "webhook-id": STANDARD_ID,
        "webhook-timestamp": str(STANDARD_TIMESTAMP),
        "webhook-signature": STANDARD_SIGNATURE,
    }
    verified = verify(STANDARD_PAYLOAD, headers, STANDARD_SECRET, now=STANDARD_TIMESTAMP + 10)
    assert (verified.scheme, verified.delivery_id, verified.payload) == (
        "standard",
        STANDARD_ID,
        {"test": 2432232314},
    )
    assert calendar.timegm(verified.timestamp.utctimetuple()) == STANDARD_TIMESTAMP


def test_standard_accepts_any_of_several_signatures() -> None:
    headers = {
        "webhook-id": STANDARD_ID,
        "webhook-timestamp": str(STANDARD_TIMESTAMP),
        "webhook-signature": "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= v2,xyz "
        + STANDARD_SIGNATURE,
    }
    assert verify(STANDARD_PAYLOAD, headers, STANDARD_SECRET, now=STANDARD_TIMESTAMP).delivery_id
    headers["webhook-signature"] = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OA="
    with pytest.raises(VerificationError, match="no webhook-signature matches the body"):
        verify(STANDARD_PAYLOAD, headers, STANDARD_SECRET, now=STANDARD_TIMESTAMP)


def test_standard_signatures_join_one_per_key() -> None:
    keys = [standard_key(STANDARD_SECRET), b"other-key"]
    value = standard_signatures(keys, STANDARD_ID, STANDARD_TIMESTAMP, STANDARD_PAYLOAD)
    first, second = value.split(" ")
    assert first == STANDARD_SIGNATURE and second.startswith("v1,") and second != first


@pytest.mark.parametrize("bad", ["whsec_not*base64", "whsec_", ""])
def test_standard_key_rejects_bad_secrets(bad: str) -> None:
    with pytest.raises(ValueError):
        standard_key(bad)


# -- verify() for Hermes deliveries ------------------------------------------------------


def delivery(
    secret: str = SECRET, at: float = NOW, standard: bool = False
) -> tuple[bytes, dict[str, str]]:
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))
    document = {
        "hook_event_name": "subagent_stop",
        "profile": "default",
        "tool_name": None,
        "tool_input": None,
        "session_id": "parent-1",
        "cwd": "/work",
        "extra": {"child_role": "coder"},
        "delivery_id": "0123456789abcdef0123456789abcdef",
        "timestamp": stamp,
    }
    body = json.dumps(document).encode()
    keys = [standard_key(secret)] if standard else []
    headers = build_headers(
        "subagent_stop",
        document["delivery_id"],
        body,
        secret=secret,
        standard_keys=keys,
        stamp=int(at),
    )
    return body, headers


def test_verify_a_github_style_delivery() -> None:
    body, headers = delivery()
    verified = verify(body, headers, SECRET, now=NOW + 299)
    assert (verified.scheme, verified.event, verified.delivery_id, verified.duplicate) == (
        "github",
        "subagent_stop",
        "0123456789abcdef0123456789abcdef",
        False,
    )
    assert verified.payload["extra"] == {"child_role": "coder"}


def test_header_names_are_case_insensitive_and_http_messages_work() -> None:
    body, headers = delivery()
    message = email.message.Message()
    for key, value in headers.items():
        message[key.upper()] = value
    assert verify(body, message, SECRET, now=NOW).delivery_id
    assert verify(body, list(headers.items()), SECRET, now=NOW).delivery_id


def test_a_tampered_body_or_wrong_secret_is_rejected() -> None:
    body, headers = delivery()
    with pytest.raises(VerificationError, match="X-Hermes-Signature-256 does not match"):
        verify(body.replace(b"coder", b"admin"), headers, SECRET, now=NOW)
    with pytest.raises(VerificationError, match="does not match"):
        verify(body, headers, "wrong", now=NOW)


def test_any_of_several_receiver_secrets_verifies() -> None:
    body, headers = delivery(secret="old-secret")
    assert verify(body, headers, ["new-secret", "old-secret"], now=NOW).delivery_id


@pytest.mark.parametrize("offset", [-301, 301])
def test_stale_or_future_timestamps_are_rejected(offset: int) -> None:
    body, headers = delivery(at=NOW)
    with pytest.raises(VerificationError, match="outside the 300 s tolerance"):
        verify(body, headers, SECRET, now=NOW + offset)
    assert verify(body, headers, SECRET, now=NOW + offset, tolerance=None).delivery_id
    assert verify(body, headers, SECRET, now=NOW + offset, tolerance=400).delivery_id


def test_standard_scheme_checks_the_header_timestamp() -> None:
    body, headers = delivery(secret=STANDARD_SECRET, standard=True)
    assert verify(body, headers, STANDARD_SECRET, scheme="standard", now=NOW).scheme == "standard"
    headers["webhook-timestamp"] = str(int(NOW) + 1)  # signed content changes
    with pytest.raises(VerificationError, match="no webhook-signature matches"):
        verify(body, headers, STANDARD_SECRET, scheme="standard", now=NOW)
    body, headers = delivery(secret=STANDARD_SECRET, standard=True, at=NOW - 1000)
    with pytest.raises(VerificationError, match="outside the 300 s tolerance"):
        verify(body, headers, STANDARD_SECRET, scheme="standard", now=NOW)


def test_unsigned_or_incomplete_deliveries_are_rejected() -> None:
    body, headers = delivery()
    del headers["X-Hermes-Signature-256"]
    with pytest.raises(VerificationError, match="the delivery is unsigned"):
        verify(body, headers, SECRET, now=NOW)
    with pytest.raises(VerificationError, match="missing webhook-id, webhook-timestamp"):
        verify(body, headers, STANDARD_SECRET, scheme="standard", now=NOW)
    with pytest.raises(VerificationError, match="no secret given"):
        verify(body, headers, [], now=NOW)


def test_dedupe_flags_a_repeated_delivery_id() -> None:
    body, headers = delivery()
    seen = Deduplicator()
    first = verify(body, headers, SECRET, dedupe=seen, now=NOW)
    again = verify(body, headers, SECRET, dedupe=seen, now=NOW + 1)
    assert (first.duplicate, again.duplicate) == (False, True)


def test_deduplicator_is_bounded_in_count_and_age() -> None:
    seen = Deduplicator(capacity=2, ttl=10)
    assert [seen.seen(i, now=0) for i in ("a", "b", "a")] == [False, False, True]
    assert seen.seen("c", now=1) is False  # evicts "a", the oldest
    assert len(seen) == 2
    assert seen.seen("a", now=2) is False
    assert seen.seen("c", now=20) is False  # expired after ttl


def test_the_receiver_package_imports_without_httpx() -> None:
    code = (
        "import sys; sys.modules['httpx'] = None\n"
        "from hermes_hooks.webhooks import verify, github_signature\n"
        "print(github_signature('k', b'x'), 'httpx' in sys.modules and sys.modules['httpx'])"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=str(Path(__file__).resolve().parents[2]),
        check=True,
    )
    assert result.stdout.split() == [github_signature("k", b"x"), "None"]
