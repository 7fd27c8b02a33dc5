"""Shell hook dialects: how one kind of script is spoken to.

A :class:`Dialect` is everything that differs between a script written for Hermes and
one written for Claude Code: how an entry's matcher is read, when a firing reaches the
script, what goes on its stdin and in its environment, how its stdout and exit code are
read, and what the dispatcher receives.  Everything else (consent, the run itself,
timeouts, the shared failure and fail-closed rules of
:func:`~hermes_hooks.shell.output.interpret`) is common to every dialect.

:func:`dialect_named` gives the dialect of a ``dialect:`` value (:func:`dialect_of`,
of an entry).  The dialect modules load on first use: a home without shell hooks
never imports them, and the Claude Code ones are most of the adapter's import time.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from hermes_hooks._callback import Degraded
    from hermes_hooks.claude.tables import ClaudeContext
    from hermes_hooks.shell.entry import EntryMatcher, ShellEntry, Warn
    from hermes_hooks.shell.output import Directive, Outcome, Reading

__all__ = ["Dialect", "dialect_named", "dialect_of"]


class Dialect(Protocol):
    """What a dialect decides about its entries."""

    name: str

    def read_matcher(
        self,
        event: str,
        raw: Mapping[str, Any],
        declared: str | None,
        warn: Warn,
        tables: Callable[[], ClaudeContext],
    ) -> EntryMatcher:
        """Read the ``matcher`` (and the dialect's own options) of the entry ``raw``
        (``declared``: the event key as written when it is not ours); problems go to
        ``warn``; ``tables`` gives the shared Claude Code tables of this ``hooks:``
        block.  Raises :class:`~.entry.EntryRefused` for an entry it cannot honour."""

    def fires(self, entry: ShellEntry, payload: dict[str, Any]) -> bool:
        """Whether this firing reaches the script (a non-matching one is never spawned)."""

    def stdin(
        self, entry: ShellEntry, payload: dict[str, Any]
    ) -> tuple[bytes, dict[str, str] | None]:
        """The script's stdin, and its environment (None: the agent's own)."""

    def read(self, reading: Reading) -> Directive | None:
        """The directive in a finished run's exit code and stdout; failures are reported
        through ``reading`` (``warn`` / ``fail``)."""

    def run(self, entry: ShellEntry, payload: dict[str, Any]) -> Outcome:
        """Run the entry on one firing and interpret the answer (every run of it, when
        the dialect shows one call to the script as several inputs)."""

    def deliver(
        self, entry: ShellEntry, payload: dict[str, Any], outcome: Outcome
    ) -> Directive | None:
        """What the dispatcher receives for this firing."""

    def fire(self, entry: ShellEntry, payload: dict[str, Any]) -> Directive | Degraded | None:
        """One firing that reaches the script: run it (or start it in the background,
        for a hook that must not hold the call) and deliver its answer; a failed run
        comes back as a :class:`~hermes_hooks._callback.Degraded` carrying it."""


#: ``dialect:`` value -> the module whose ``DIALECT`` it is (the values
#: ``claude_tables.read_dialect`` accepts).
_MODULES = {
    "hermes": "hermes_hooks.shell.hermes",
    "claude-code": "hermes_hooks.claude.dialect",
}


def dialect_named(name: str) -> Dialect:
    """The dialect of the ``dialect:`` value ``name`` (KeyError for an unknown one)."""
    dialect: Dialect = importlib.import_module(_MODULES[name]).DIALECT
    return dialect


def dialect_of(entry: ShellEntry) -> Dialect:
    """The dialect ``entry`` is written in."""
    return dialect_named(entry.dialect)
