"""An empty or missing secret never verifies anything: it would accept forgeries."""

from __future__ import annotations

from typing import Any

import pytest

from hermes_hooks.webhooks import (
    VerificationError,
    github_signature,
    standard_signature,
    verify,
)
from tests.outbound.test_signing import NOW, delivery


def forged() -> tuple[bytes, dict[str, str]]:
    """A delivery signed with the empty key, as a forger would sign it."""
    body, headers = delivery()
    headers["X-Hermes-Signature-256"] = github_signature(b"", body)
    return body, headers


@pytest.mark.parametrize(
    ("secret", "reason"),
    [
        ("", "secret 0 is empty"),
        (b"", "secret 0 is empty"),
        ("   ", "secret 0 is empty"),
        ([""], "secret 0 is empty"),
        (["receiver-secret", ""], "secret 1 is empty"),
        ([b"receiver-secret", b""], "secret 1 is empty"),
        ([], "the list of secrets is empty"),
        (None, "secret is None"),
        ([None], "secret 0 is a NoneType"),
    ],
)
def test_an_empty_or_missing_secret_is_always_a_verification_error(
    secret: Any, reason: str
) -> None:
    body, headers = forged()
    with pytest.raises(VerificationError, match=reason):
        verify(body, headers, secret, now=NOW)
    genuine_body, genuine_headers = delivery()  # even a genuine delivery is refused
    with pytest.raises(VerificationError, match=reason):
        verify(genuine_body, genuine_headers, secret, now=NOW)


def test_an_empty_secret_refuses_standard_deliveries_too() -> None:
    body = b'{"hook_event_name": "on_session_end"}'
    headers = {
        "webhook-id": "msg_1",
        "webhook-timestamp": str(int(NOW)),
        "webhook-signature": standard_signature(b"", "msg_1", int(NOW), body),
    }
    for secret in ("", "whsec_", ["whsec_", ""]):
        with pytest.raises(VerificationError, match="empty"):
            verify(body, headers, secret, scheme="standard", now=NOW)
