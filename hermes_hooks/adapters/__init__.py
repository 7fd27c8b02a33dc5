"""Adapters turn an outside thing (a plugin, a script entry, a URL, a hook directory)
into ordinary callbacks on the manager.  They only translate: ordering, isolation and
selection belong to the manager and the dispatcher.

Every adapter module exposes ``load(context) -> Source``, given the frozen
:class:`~hermes_hooks._context.LoadContext` of the load (never the facade);
:data:`ADAPTERS` lists them in registration order (Python plugins first, then shell
hooks, then outbound webhooks, as D-19 and PL-15 say), with the surfaces each one serves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from hermes_hooks.report import Finding, Section

__all__ = ["ADAPTERS", "Source"]


class Source(Protocol):
    """What one adapter loaded into a :class:`~hermes_hooks.hooks.Hooks`."""

    name: str

    def records(self) -> list[Any]:
        """What was found, loaded or refused, for ``list`` and ``doctor``."""

    def unload(self) -> None:
        """Remove every callback this source registered."""

    def close(self, timeout: float) -> None:
        """Flush and stop background work within ``timeout`` seconds."""

    def section(self) -> Section:
        """This source's part of ``hermes-hooks list``."""

    def check(self) -> list[Finding]:
        """This source's findings for ``hermes-hooks doctor``."""


#: (name, module, surfaces) in registration order; modules load lazily.
ADAPTERS: tuple[tuple[str, str, frozenset[str]], ...] = (
    ("python", "hermes_hooks.adapters.python", frozenset({"cli", "gateway"})),
    ("shell", "hermes_hooks.adapters.shell", frozenset({"cli", "gateway"})),
    ("outbound", "hermes_hooks.adapters.outbound", frozenset({"cli", "gateway"})),
    ("gateway", "hermes_hooks.adapters.gateway", frozenset({"gateway"})),
)
