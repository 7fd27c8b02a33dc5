"""Webhooks: signing outbound deliveries and verifying them on the receiving side.

Receivers import this package without pulling in httpx or the rest of hermes-hooks'
runtime: only :mod:`.signing` and :mod:`.receiver` load here.  The delivery lanes
(:mod:`.delivery`, which needs httpx) and the durable outbox (:mod:`.outbox`) load when
the outbound adapter uses them.
"""

from __future__ import annotations

from hermes_hooks.webhooks.receiver import (
    DEFAULT_TOLERANCE,
    Deduplicator,
    VerificationError,
    Verified,
    verify,
)
from hermes_hooks.webhooks.signing import (
    GITHUB_HEADER,
    STANDARD_PREFIX,
    github_signature,
    standard_key,
    standard_signature,
    standard_signatures,
)

__all__ = [
    "DEFAULT_TOLERANCE",
    "GITHUB_HEADER",
    "STANDARD_PREFIX",
    "Deduplicator",
    "VerificationError",
    "Verified",
    "github_signature",
    "standard_key",
    "standard_signature",
    "standard_signatures",
    "verify",
]
