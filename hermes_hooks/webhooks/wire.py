"""The wire format of one outbound delivery: body metadata and headers.

The body is the shared envelope (``hermes_hooks.envelope``) plus ``delivery_id`` and
``timestamp``, in that key order.  The headers, in this order::

    Content-Type: application/json
    User-Agent: Hermes-Agent-Outbound-Webhook
    X-Hermes-Event: <event>
    X-Hermes-Delivery: <delivery_id>
    X-Hermes-Signature-256: sha256=<hex>          (when a secret is configured)
    webhook-id: <delivery_id>                     (signature: standard, when signed)
    webhook-timestamp: <unix seconds>
    webhook-signature: v1,<base64> [v1,<base64> ...]

Standard library only.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence

from hermes_hooks.webhooks.signing import (
    GITHUB_HEADER,
    github_signature,
    standard_signatures,
)

__all__ = [
    "CONTENT_TYPE",
    "USER_AGENT",
    "build_headers",
    "new_delivery_id",
    "utc_timestamp",
]

USER_AGENT = "Hermes-Agent-Outbound-Webhook"
CONTENT_TYPE = "application/json"
_TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def new_delivery_id() -> str:
    """A random UUID4 as 32 lower-case hex characters."""
    return uuid.uuid4().hex


def utc_timestamp(epoch: float) -> str:
    """``epoch`` as UTC ISO 8601 to the second with ``Z``."""
    return time.strftime(_TIMESTAMP_FORMAT, time.gmtime(epoch))


def build_headers(
    event: str,
    delivery_id: str,
    body: bytes,
    *,
    secret: str | None,
    standard_keys: Sequence[bytes] = (),
    stamp: int = 0,
) -> dict[str, str]:
    """The request headers of one attempt.  ``stamp`` (unix seconds) is only used by
    the Standard Webhooks headers, sent when ``standard_keys`` is not empty."""
    headers = {
        "Content-Type": CONTENT_TYPE,
        "User-Agent": USER_AGENT,
        "X-Hermes-Event": event,
        "X-Hermes-Delivery": delivery_id,
    }
    if secret is not None:
        headers[GITHUB_HEADER] = github_signature(secret, body)
    if standard_keys:
        headers["webhook-id"] = delivery_id
        headers["webhook-timestamp"] = str(stamp)
        headers["webhook-signature"] = standard_signatures(standard_keys, delivery_id, stamp, body)
    return headers
