"""Signatures of outbound deliveries: the GitHub-style header and Standard Webhooks.

Two schemes, both HMAC-SHA256 over bytes that never change after serialisation:

* **GitHub style** (always sent when a secret is configured):
  ``X-Hermes-Signature-256: sha256=<hex HMAC of the raw body>``, keyed with the secret
  string's UTF-8 bytes, exactly what a receiver recomputes.
* **Standard Webhooks** (opt-in per target, ``signature: standard``): the signed
  content is ``{webhook-id}.{webhook-timestamp}.{body}``, the key is the base64 text
  after the ``whsec_`` prefix, and ``webhook-signature`` carries ``v1,<base64>`` once
  per secret, space-separated, so a secret can be rotated without downtime.

This module imports only the standard library: receivers use it without httpx.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from collections.abc import Iterable

__all__ = [
    "GITHUB_HEADER",
    "STANDARD_PREFIX",
    "github_signature",
    "split_secrets",
    "standard_key",
    "standard_signature",
    "standard_signatures",
]

#: The GitHub-style signature header (only sent when a secret is configured).
GITHUB_HEADER = "X-Hermes-Signature-256"
#: How Standard Webhooks secrets are written (``whsec_`` + base64 of the key bytes).
STANDARD_PREFIX = "whsec_"


def _secret_bytes(secret: str | bytes) -> bytes:
    return secret if isinstance(secret, bytes) else secret.encode("utf-8")


def github_signature(secret: str | bytes, body: bytes) -> str:
    """``sha256=`` + hex HMAC-SHA256 of ``body`` keyed with ``secret``."""
    digest = hmac.new(_secret_bytes(secret), body, hashlib.sha256).hexdigest()
    return "sha256=" + digest


def split_secrets(value: str) -> list[str]:
    """The secrets of one configured value: several Standard Webhooks secrets may be
    given space-separated (the first signs GitHub-style, all sign ``webhook-signature``)."""
    return value.split()


def standard_key(secret: str | bytes) -> bytes:
    """The HMAC key of a Standard Webhooks secret: base64-decode what follows ``whsec_``.

    The prefix and the base64 ``=`` padding are optional, as in the published
    libraries.  Raises :class:`ValueError`
    naming the problem when the text is not base64 or decodes to nothing.
    """
    text = secret.decode("ascii", errors="replace") if isinstance(secret, bytes) else secret
    text = text.strip()
    if text.startswith(STANDARD_PREFIX):
        text = text[len(STANDARD_PREFIX) :]
    # Some dashboards hand secrets out without base64's trailing "=" padding; the
    # published libraries accept those, so restore it before the strict decode.
    text += "=" * (-len(text) % 4)
    try:
        key = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("not a Standard Webhooks secret (expected whsec_<base64>)") from None
    if not key:
        raise ValueError("the Standard Webhooks secret is empty")
    return key


def standard_signature(key: bytes, msg_id: str, timestamp: int | str, body: bytes) -> str:
    """One ``v1,<base64>`` signature of ``{msg_id}.{timestamp}.{body}`` under ``key``."""
    content = f"{msg_id}.{timestamp}.".encode() + body
    digest = hmac.new(key, content, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode("ascii")


def standard_signatures(
    keys: Iterable[bytes], msg_id: str, timestamp: int | str, body: bytes
) -> str:
    """The ``webhook-signature`` header value: one ``v1`` signature per key, space-separated."""
    return " ".join(standard_signature(key, msg_id, timestamp, body) for key in keys)
