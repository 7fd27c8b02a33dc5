"""Shell hook dialects: how one kind of script is spoken to.

A :class:`Dialect` is everything that differs between a script written for Hermes and
one written for another agent's hooks (Claude Code): its own spelling of events and
tools, how an entry's matcher and options are read, when a firing reaches the script,
how it runs and how its answer is read and delivered.  Everything else (consent, the
run itself, timeouts, the shared failure and fail-closed rules of
:func:`~hermes_hooks.shell.output.interpret`) is common to every dialect.

The shell package knows the dialects only through this interface and the registry
:data:`DIALECTS` (a ``dialect:`` value -> the module whose ``DIALECT`` it is), which is
data: :func:`dialect_named` imports a dialect's module on first use, so a home
without shell hooks never imports one, and the shell package imports no dialect
package.  :func:`dialect_of` gives the dialect of an entry.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from hermes_hooks._callback import Degraded
    from hermes_hooks._manager import HookManager
    from hermes_hooks.shell.entry import EntryMatcher, ShellEntry, Warn
    from hermes_hooks.shell.output import Directive, Outcome
    from hermes_hooks.shell.run import RunResult

__all__ = [
    "DEFAULT_DIALECT",
    "DIALECTS",
    "Block",
    "Dialect",
    "Execute",
    "dialect_named",
    "dialect_of",
    "entry_matches",
    "event_for_key",
    "every_dialect",
    "normalise_dialect",
]

#: ``dialect:`` value -> the module whose ``DIALECT`` it is, in the order messages
#: list them.
DIALECTS: dict[str, str] = {
    "hermes": "hermes_hooks.shell.hermes",
    "claude-code": "hermes_hooks.claude.dialect",
}
#: The dialect of an entry that names none (and is not under another dialect's event).
DEFAULT_DIALECT = "hermes"


class Execute(Protocol):
    """How a dialect's run reaches the script: a fresh process per firing
    (:func:`~hermes_hooks.shell.run.run_command`), or the running process of a
    ``persistent: true`` entry."""

    def __call__(
        self, argv: tuple[str, ...], stdin: bytes, timeout: float, *, env: dict[str, str] | None
    ) -> RunResult:
        """Run ``argv`` on ``stdin`` (``env``: its environment, None for the agent's)."""


@dataclass(eq=False)
class Block:
    """What the entries of one ``hooks:`` block share, as a dialect reads them."""

    #: The whole parsed ``config.yaml`` (a dialect may read its own top-level keys).
    config: Mapping[str, Any]
    #: Where a problem in such a shared table goes: ``warn(key, message, narrows)``;
    #: what it loses counts against every entry of the dialect, gates included.
    warn: Callable[[str, str, bool], None]
    #: What the host lends the load (None when the block is read outside a load).
    host: Any = None
    #: Each dialect's own state for this block, by dialect name (opaque here).
    shared: dict[str, object] = field(default_factory=dict)


class Dialect(Protocol):
    """What the shell package asks of a dialect.

    The vocabulary (data): ``name`` (its ``dialect:`` value), ``title`` (for
    messages), ``events`` (its own event names -> ours; empty when it uses ours),
    ``unmapped`` (its event names Hermes has no event for -> why) and ``tool_names``
    ((our tool, its name) for every tool it names differently).  They let the config
    reader resolve an event key, and one dialect say when a matcher is written in
    another's names.
    """

    name: str
    title: str
    events: Mapping[str, str]
    unmapped: Mapping[str, str]
    tool_names: Sequence[tuple[str, str]]

    # -- reading an entry ---------------------------------------------------------------

    def stand_in(self, raw: Mapping[str, Any]) -> tuple[str, str | None] | None:
        """For an entry answered without running a program (by the host's model):
        (the word its argv holds, the consent key when it has no ``command``); None
        for an entry that runs its command."""

    def read_matcher(
        self,
        event: str,
        raw: Mapping[str, Any],
        declared: str | None,
        warn: Warn,
        block: Block,
    ) -> EntryMatcher:
        """Read the ``matcher`` (and the dialect's own options) of the entry ``raw``
        (``declared``: the event key as written when it is not ours); problems go to
        ``warn``; ``block`` is what the entries of this ``hooks:`` block share.
        Raises :class:`~.entry.EntryRefused` for an entry it cannot honour."""

    def describe(self, entry: ShellEntry) -> list[str]:
        """The entry's dialect settings as ``list`` shows them (``key=value`` words)."""

    # -- loading ----------------------------------------------------------------------

    def loaded(self, entries: list[ShellEntry], manager: HookManager, owner: str) -> None:
        """After a load registered ``entries`` (this dialect's), register on
        ``manager`` for ``owner`` whatever else they need."""

    # -- firing -----------------------------------------------------------------------

    def matches(self, entry: ShellEntry, tool_name: Any) -> bool:
        """Whether the entry's matcher accepts our tool ``tool_name``."""

    def fires(self, entry: ShellEntry, payload: dict[str, Any]) -> bool:
        """Whether this firing reaches the script (a non-matching one is never spawned)."""

    def run(self, entry: ShellEntry, payload: dict[str, Any], execute: Execute) -> Outcome:
        """Run the entry on one firing through ``execute`` and interpret the answer
        (every run of it, when the dialect shows one call to the script as several
        inputs)."""

    def deliver(
        self, entry: ShellEntry, payload: dict[str, Any], outcome: Outcome
    ) -> Directive | None:
        """What the dispatcher receives for this firing."""

    def fire(self, entry: ShellEntry, payload: dict[str, Any]) -> Directive | Degraded | None:
        """One firing that reaches the script: run it (or start it in the background,
        for a hook that must not hold the call) and deliver its answer; a failed run
        comes back as a :class:`~hermes_hooks._callback.Degraded` carrying it."""


def normalise_dialect(value: str) -> str:
    """``value`` as a dialect name: trimmed, lower-case, ``_`` read as ``-``."""
    return value.strip().lower().replace("_", "-")


def dialect_named(name: str) -> Dialect:
    """The dialect of the ``dialect:`` value ``name`` (KeyError for an unknown one)."""
    dialect: Dialect = importlib.import_module(DIALECTS[name]).DIALECT
    return dialect


def dialect_of(entry: ShellEntry) -> Dialect:
    """The dialect ``entry`` is written in."""
    return dialect_named(entry.dialect)


def entry_matches(entry: ShellEntry, tool_name: Any) -> bool:
    """Whether ``entry``'s matcher accepts our tool ``tool_name``, by its dialect's rules
    (the Hermes dialect's: a regular expression matching the whole name)."""
    return dialect_of(entry).matches(entry, tool_name)


def every_dialect() -> Iterator[Dialect]:
    """Every registered dialect, in registry order (each module loads on first use)."""
    return (dialect_named(name) for name in DIALECTS)


def event_for_key(key: str) -> tuple[str | None, str | None, str | None]:
    """(our event, None, the dialect whose event name ``key`` is) for another
    dialect's event name; (``key``, None, None) for a name no dialect claims; (None,
    why, the dialect) for a dialect's event Hermes does not have."""
    for dialect in every_dialect():
        found = dialect.events.get(key)
        if found is not None:
            return found, None, dialect.name
        reason = dialect.unmapped.get(key)
        if reason is not None:
            return (
                None,
                (
                    f"'{key}' is a {dialect.title} event with no Hermes equivalent ({reason}); "
                    "its entries are skipped"
                ),
                dialect.name,
            )
    return key, None, None
