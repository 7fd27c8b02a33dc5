"""Adapters turn an outside thing (a plugin, a script entry, a URL, a hook directory)
into ordinary callbacks on the manager.  They only translate: ordering, isolation and
selection belong to the manager and the dispatcher.

Every adapter module exposes ``load(context) -> Source``, given the frozen
:class:`~hermes_hooks._context.LoadContext` of the load (never the facade);
:data:`ADAPTERS` lists them in registration order (Python plugins first, then shell
hooks, then outbound webhooks: the firing order, so Python decisions win ties), with
the surfaces each one serves.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from hermes_hooks._context import LoadContext
    from hermes_hooks.report import EntryErrors, Finding, Section

__all__ = ["ADAPTERS", "Source", "Unloaded", "every_source"]


class Source(Protocol):
    """What one adapter loaded into a :class:`~hermes_hooks.hooks.Hooks`."""

    name: str

    def records(self) -> list[Any]:
        """What was found, loaded or refused, for ``list`` and ``doctor``."""

    def unload(self) -> None:
        """Remove every callback this source registered."""

    def close(self, timeout: float) -> None:
        """Flush and stop background work within ``timeout`` seconds."""

    def section(self, errors: EntryErrors | None = None) -> Section:
        """This source's part of ``hermes-hooks list``; ``errors``: the error findings
        of its entries (from :meth:`check`), each such entry marked ✗ with them."""

    def check(self, *, fire: bool = True) -> list[Finding]:
        """This source's findings for ``hermes-hooks doctor`` (and the ones ``list``
        marks entries with); ``fire=False`` leaves out the checks that run a hook
        (a smoke test), as ``list`` only looks."""


#: (name, module, surfaces) in registration order; modules load lazily.
ADAPTERS: tuple[tuple[str, str, frozenset[str]], ...] = (
    ("python", "hermes_hooks.plugins.source", frozenset({"cli", "gateway"})),
    ("shell", "hermes_hooks.shell.source", frozenset({"cli", "gateway"})),
    ("outbound", "hermes_hooks.webhooks.source", frozenset({"cli", "gateway"})),
    ("gateway", "hermes_hooks.gateway.source", frozenset({"gateway"})),
)


class Unloaded:
    """What ``list`` and ``doctor`` ask in place of a source whose adapter did not run
    (safe mode, or a surface it does not serve): the adapter's own stand-in section and
    findings, so that every source keeps its place in the report."""

    def __init__(
        self, name: str, section: Callable[[], Section], check: Callable[[], list[Finding]]
    ) -> None:
        self.name = name
        self._section = section
        self._check = check

    def records(self) -> list[Any]:
        """Nothing was loaded."""
        return []

    def unload(self) -> None:
        """Nothing was registered."""

    def close(self, timeout: float) -> None:
        """Nothing runs."""

    def section(self, errors: EntryErrors | None = None) -> Section:
        """The adapter's part of ``list`` when it did not run (no entries to mark)."""
        return self._section()

    def check(self, *, fire: bool = True) -> list[Finding]:
        """The adapter's ``doctor`` findings when it did not run."""
        return self._check()


def every_source(sources: Mapping[str, Source], context: LoadContext) -> list[Source]:
    """One source per adapter, in registration order: the loaded one, else the
    adapter's ``unloaded(context)`` stand-in."""
    found: list[Source] = []
    for name, module_name, _ in ADAPTERS:
        source = sources.get(name)
        if source is None:
            source = importlib.import_module(module_name).unloaded(context)
        found.append(source)
    return found
