"""Fuzzing webhook verification: whatever a sender or an attacker sends, ``verify``
only ever accepts a genuine delivery or raises ``VerificationError``.  The normal suite
runs a few derandomised examples; ``tox -e fuzz`` runs thousands."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hermes_hooks._contract import ShellUse
from hermes_hooks.hookspecs import CATALOGUE
from hermes_hooks.shell import hermes
from hermes_hooks.shell.config import (
    ShellEntry,
)
from hermes_hooks.shell.output import Outcome
from hermes_hooks.shell.run import RunResult
from hermes_hooks.webhooks import VerificationError, verify
from hermes_hooks.webhooks.signing import github_signature, standard_key, standard_signature
from hermes_hooks.webhooks.wire import build_headers, utc_timestamp
from tests.robustness.helpers import any_text, encode_json, json_values

#: Shell stdout interpreters under fuzz: name -> ``interpret(entry, result) -> Outcome``.
#: The Hermes dialect reads our ``action`` field and the Claude Code fields
#: (``decision``/``reason``/``tool_input``, ``hookSpecificOutput``); the dedicated
#: Claude Code dialect needs a claude-code entry, so it is fuzzed in its own tests.
SHELL_PARSERS: dict[str, Callable[[ShellEntry, RunResult], Outcome]] = {
    "hermes": hermes.interpret,
}

SHELL_EVENTS = sorted(name for name, c in CATALOGUE.items() if c.shell is not ShellUse.REFUSED)
UNPARSEABLE = "unparseable stdout (expected a JSON object)"

# -- webhook verify --------------------------------------------------------------------------

header_names = st.sampled_from(
    ["X-Hermes-Signature-256", "webhook-id", "webhook-timestamp", "webhook-signature"]
)
header_values = (
    any_text
    | st.sampled_from(["sha256=", "v1,", "v1,AAAA v2,BBBB", "9" * 400, "-1", " 12 "])
    | st.integers().map(str)
)
secrets = (
    st.text(max_size=30)
    | any_text
    | st.binary(max_size=30)
    | st.binary(min_size=1, max_size=30).map(lambda b: "whsec_" + base64.b64encode(b).decode())
)


@given(
    body=st.binary(max_size=200) | any_text | json_values.map(encode_json),
    headers=st.dictionaries(header_names | any_text, header_values, max_size=5),
    secret=secrets | st.lists(secrets, max_size=3),
    scheme=st.sampled_from(["auto", "github", "standard"]),
    tolerance=st.none() | st.floats(min_value=0, max_value=1e12),
    now=st.none() | st.floats(min_value=-1e12, max_value=1e12),
)
def test_verify_only_ever_raises_verification_error(
    body: bytes | str,
    headers: dict[str, str],
    secret: Any,
    scheme: Any,
    tolerance: float | None,
    now: float | None,
) -> None:
    try:
        verified = verify(body, headers, secret, scheme=scheme, tolerance=tolerance, now=now)
    except VerificationError as exc:
        assert str(exc)  # says why
        return
    assert isinstance(verified.payload, dict)


@given(
    payload=st.dictionaries(st.text(max_size=8), json_values, max_size=4),
    raw_secret=st.binary(min_size=1, max_size=40),
    standard=st.booleans(),
    flip=st.integers(min_value=0),
)
def test_genuine_deliveries_verify_and_any_flipped_byte_is_rejected(
    payload: dict[str, Any], raw_secret: bytes, standard: bool, flip: int
) -> None:
    now = 1_767_225_600
    document = {**payload, "delivery_id": "a" * 32, "timestamp": utc_timestamp(now)}
    body = json.dumps(document).encode()
    if standard:
        secret = "whsec_" + base64.b64encode(raw_secret).decode()
        headers = build_headers(
            "on_session_end", "a" * 32, body, secret=None, standard_keys=[standard_key(secret)],
            stamp=now,
        )  # fmt: skip
    else:
        secret = raw_secret.hex()
        headers = build_headers("on_session_end", "a" * 32, body, secret=secret)
    assert verify(body, headers, secret, now=now).payload == document
    index = flip % len(body)
    tampered = body[:index] + bytes([body[index] ^ 0x01]) + body[index + 1 :]
    with pytest.raises(VerificationError):
        verify(tampered, headers, secret, now=now)


stamps = (
    st.integers().map(str)
    | st.integers(min_value=10**15, max_value=10**4000).map(str)
    | st.sampled_from(["", " 1767225600 ", "1e9", "-0", "１２３"])
    | any_text
)


def _utf8(text: str) -> bool:
    return text.isascii() or not any(0xD800 <= ord(c) <= 0xDFFF for c in text)


@given(
    stamp=stamps.filter(_utf8),  # no sender can sign a header it cannot encode
    body_stamp=stamps | st.sampled_from(["9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z"]),
    depth=st.integers(0, 3000),
    standard=st.booleans(),
    tolerance=st.none() | st.just(300.0),
)
def test_signed_deliveries_with_odd_timestamps_or_bodies_only_raise_verification_error(
    stamp: str, body_stamp: str, depth: int, standard: bool, tolerance: float | None
) -> None:
    # Correctly signed, so the checks after the signature run on hostile values: only a
    # holder of the secret can send these, but a receiver must still answer 4xx, not 500.
    secret = "whsec_" + base64.b64encode(b"k" * 24).decode()
    nested = "[" * depth + "]" * depth if depth else "1"
    body = f'{{"delivery_id": "d", "timestamp": {json.dumps(body_stamp)}, "x": {nested}}}'
    raw = body.encode("utf-8", "surrogatepass")
    if standard:
        signature = standard_signature(standard_key(secret), "d", stamp, raw)
        headers = {"webhook-id": "d", "webhook-timestamp": stamp, "webhook-signature": signature}
    else:
        headers = {"X-Hermes-Signature-256": github_signature(secret, raw)}
    try:
        verified = verify(raw, headers, secret, tolerance=tolerance)
    except VerificationError as exc:
        assert str(exc)
    else:
        assert verified.delivery_id == "d"


def test_verify_refuses_an_unknown_scheme_argument_with_value_error() -> None:
    # The one documented non-VerificationError: a programming error of the receiver.
    with pytest.raises(ValueError, match="scheme must be 'auto', 'github' or 'standard'"):
        verify(b"{}", {"X-Hermes-Signature-256": "sha256=00"}, "s", scheme="other")  # type: ignore[arg-type]
