"""Webhooks: signing outbound deliveries and verifying them on the receiving side.

Receivers import this package without pulling in httpx or the rest of hermes-hooks'
runtime: the names below come from :mod:`.signing` and :mod:`.receiver`, each loaded
when first used.  The delivery lanes (:mod:`.delivery`, which needs httpx) and the
durable outbox (:mod:`.outbox`) load when the outbound adapter uses them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

#: Where each public name lives.  They load on first use: the package is also the
#: parent of :mod:`.urls`, :mod:`.outbox` and :mod:`.delivery`, and importing one of
#: those (the ``outbox`` command, an outbound target) should not pay for the receiver.
_HOMES = {
    **dict.fromkeys(
        ("DEFAULT_TOLERANCE", "Deduplicator", "VerificationError", "Verified", "verify"),
        "hermes_hooks.webhooks.receiver",
    ),
    **dict.fromkeys(
        (
            "GITHUB_HEADER",
            "STANDARD_PREFIX",
            "github_signature",
            "standard_key",
            "standard_signature",
            "standard_signatures",
        ),
        "hermes_hooks.webhooks.signing",
    ),
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'hermes_hooks.webhooks' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # later lookups are direct
    return value
