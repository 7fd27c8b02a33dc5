"""One shell hook entry as loaded: :class:`ShellEntry`, what every other part of the
shell adapter (the dialects, the run, the output core, ``list`` and ``doctor``) reads.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from hermes_hooks.errors import ConfigError
from hermes_hooks.hookspecs import CATALOGUE

__all__ = [
    "DEFAULT_TIMEOUT",
    "MAX_TIMEOUT",
    "EntryMatcher",
    "EntryRefused",
    "ShellEntry",
    "Warn",
    "approval_clashes",
    "expand_variables",
    "written_form",
]

#: A hook's timeout in seconds when the entry sets none.
DEFAULT_TIMEOUT = 60
#: The longest timeout an entry may set.
MAX_TIMEOUT = 300


class EntryRefused(ConfigError, ValueError):
    """A dialect refuses an entry it cannot honour; the message says why and the fix.
    The config reader turns it into one warning naming the entry, so it never reaches
    the host."""


class Warn(Protocol):
    """Where a dialect reports a problem in what it reads.

    ``narrows``: the problem makes the hook fire for fewer calls, or see other fields,
    than the file says (a matcher compared literally, a tool-table row skipped).  On a
    hook that can block, that leaves part of a gate off, so the config reader makes it
    an ERROR and ``doctor`` fails, exactly as for an entry that is dropped.
    """

    def __call__(self, message: str, /, *, narrows: bool = False) -> None:
        """Record and log ``message``."""


#: A variable's value that reads the same to bash as to our splitter in any word of a
#: command: an absolute path of ordinary characters (no space, quote, glob or ``$``).
_PLAIN_VALUE = re.compile(r"/[A-Za-z0-9_./+,:@%=-]*")


def expand_variables(command: str, variables: Sequence[tuple[str, str]]) -> str:
    """``command`` with each ``$NAME`` and ``${NAME}`` of ``variables`` written out,
    as bash expands them when it runs the command with them in its environment.

    Only what text substitution gets exactly right is expanded: a command holding a
    single quote or a backslash (bash expands nothing inside single quotes) and a
    value that is not a plain absolute path are left as written, so consent never
    pins a file other than the one bash would run."""
    if not variables or "'" in command or "\\" in command:
        return command
    for name, value in variables:
        if not _PLAIN_VALUE.fullmatch(value):
            continue
        word = re.escape(name)
        # A plain value holds no backslash, so it is its own replacement text.
        command = re.sub(r"\$(?:\{" + word + r"\}|" + word + r"(?![A-Za-z0-9_]))", value, command)
    return command


def written_form(raw: Mapping[str, Any]) -> str:
    """An entry's mapping as canonical text (:attr:`ShellEntry.written`): the same for
    two entries written key for key alike, whatever the keys' order.  A mapping JSON
    cannot order (keys of mixed types) is taken as it stands: at worst a repeat then
    registers twice, and runs twice, rather than a distinct entry being dropped."""
    try:
        return json.dumps(raw, sort_keys=True, default=repr)
    except (TypeError, ValueError):
        return repr(raw)


class EntryMatcher(NamedTuple):
    """An entry's ``matcher`` (and options) as its dialect read it."""

    text: str | None = None  # as written (trimmed); None matches everything
    #: The dialect's own reading of the entry (a compiled expression, another agent's
    #: event and handler options): opaque to everything but that dialect.
    data: object = None
    #: What the entry is within its dialect when the dialect has several kinds for one
    #: of our events (another agent's event name), part of its identity.
    variant: str | None = None
    #: Variables the runner gives the command that are written out in it before it is
    #: resolved (``CLAUDE_PLUGIN_ROOT`` of a claude-code entry run through bash), as
    #: (name, value) pairs: consent then pins the file the command runs.
    variables: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, eq=False)
class ShellEntry:
    """One valid ``hooks.<event>[<index>]`` entry, ready to run."""

    event: str
    index: int
    command: str  # trimmed, unexpanded: the consent key
    argv: tuple[str, ...]  # split, ``~`` expanded: what is executed
    matcher: str | None = None
    timeout: int = DEFAULT_TIMEOUT
    fail_closed: bool = False
    dialect: str = "hermes"  # a name of the dialect registry
    #: The dialect's own reading of the entry (:attr:`EntryMatcher.data`): only the
    #: dialect looks inside.
    data: object = field(default=None, repr=False)
    variant: str | None = None  # :attr:`EntryMatcher.variant`
    declared: str | None = None  # the event key as written, when not ours (PreToolUse)
    #: False for an entry answered by the host's model rather than a program (its
    #: ``argv`` is then the one word its dialect gave).
    runs_program: bool = True
    rank: int = 0  # the order among the shell entries of ``event``
    persistent: bool = False  # started once and kept running (one JSON line per firing)
    #: The folder relative paths in ``command`` resolve against: the home the entry was
    #: read from (None: the current directory, for an entry read without a home).
    base: str | None = None
    #: The file the entry was read from, for messages.
    source: str = "config.yaml"
    #: (name, value) of each variable written out in ``command`` before it is split
    #: and resolved (:attr:`EntryMatcher.variables`); the consent key stays as written.
    variables: tuple[tuple[str, str], ...] = ()
    #: The entry's mapping exactly as written (canonical text): what tells a repeat
    #: apart from an entry that differs in any option (see :attr:`key`).
    written: str = ""

    @property
    def runs(self) -> str:
        """The command with its :attr:`variables` written out: what is split, resolved
        and pinned (the ``command`` itself when it has none)."""
        return expand_variables(self.command, self.variables)

    @property
    def key(self) -> tuple[str, str, str]:
        """The registration identity within one home (an entry registers once):
        (event, dialect, the entry as written), the dialect naming the entry's variant
        when it has one (``claude-code:PreToolUse``).  Only an entry written again key
        for key is a repeat: one differing in any option (an ``if:`` rule, a
        ``plugin_root``, a timeout) is a hook of its own, so that no gate is dropped
        as a repeat of another."""
        flavour = self.dialect if self.variant is None else f"{self.dialect}:{self.variant}"
        return (self.event, flavour, self.written)

    @property
    def where(self) -> str:
        """``hooks.<event>[<index>]`` as written in the file, for messages."""
        return f"hooks.{self.declared or self.event}[{self.index}]"

    @property
    def origin(self) -> str:
        """``<file>: hooks.<event>[<index>]``: where a message about the entry points."""
        return f"{self.source}: {self.where}"

    @property
    def gate(self) -> bool:
        """Whether the entry's event can block (its hook is a gate); an event outside
        the catalogue counts as one, since in doubt a gate runs."""
        contract = CATALOGUE.get(self.event)
        return contract is None or contract.fail_closed


def approval_clashes(entries: Iterable[ShellEntry]) -> Iterator[tuple[ShellEntry, ShellEntry]]:
    """(earlier, later) for each entry that writes an earlier one's command for the same
    event but runs other files (two plugins' ``${CLAUDE_PLUGIN_ROOT}/hooks/check.sh``):
    an approval is keyed by the event and the command as written, so only one of the
    two can be approved, and the other refuses every call."""
    first: dict[tuple[str, str], ShellEntry] = {}
    for entry in entries:
        earlier = first.setdefault((entry.event, entry.command), entry)
        if earlier is not entry and earlier.runs != entry.runs:
            yield earlier, entry
