"""One shell hook entry as loaded: :class:`ShellEntry`, what every other part of the
shell adapter (the dialects, the run, the output core, ``list`` and ``doctor``) reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from hermes_hooks._log import get_logger
from hermes_hooks.errors import ConfigError
from hermes_hooks.hookspecs import CATALOGUE
from hermes_hooks.user_regex import UserRegex

if TYPE_CHECKING:
    from hermes_hooks.claude.tables import ClaudeSpec

__all__ = [
    "DEFAULT_TIMEOUT",
    "MAX_TIMEOUT",
    "EntryMatcher",
    "EntryRefused",
    "ShellEntry",
    "Warn",
]

log = get_logger("hermes_hooks.shell")

#: A hook's timeout in seconds when the entry sets none.
DEFAULT_TIMEOUT = 60
#: The longest timeout an entry may set (D-68).
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


class EntryMatcher(NamedTuple):
    """An entry's ``matcher`` as its dialect read it."""

    text: str | None = None  # as written (trimmed); None matches everything
    pattern: UserRegex | None = None  # the Hermes dialect's compiled expression
    claude: ClaudeSpec | None = None  # the Claude Code dialect's side of the entry


@dataclass(frozen=True, eq=False)
class ShellEntry:
    """One valid ``hooks.<event>[<index>]`` entry, ready to run."""

    event: str
    index: int
    command: str  # trimmed, unexpanded: the consent key (D-67)
    argv: tuple[str, ...]  # split, ``~`` expanded: what is executed
    matcher: str | None = None
    timeout: int = DEFAULT_TIMEOUT
    fail_closed: bool = False
    pattern: UserRegex | None = field(default=None, repr=False)
    dialect: str = "hermes"  # or "claude-code"
    claude: ClaudeSpec | None = field(default=None, repr=False)  # set for claude-code
    declared: str | None = None  # the event key as written, when not ours (PreToolUse)
    rank: int = 0  # the order among the shell entries of ``event`` (D-19)
    persistent: bool = False  # started once and kept running (one JSON line per firing)
    #: The folder relative paths in ``command`` resolve against: the home the entry was
    #: read from (None: the current directory, for an entry read without a home).
    base: str | None = None
    #: The file the entry was read from, for messages.
    source: str = "config.yaml"

    @property
    def key(self) -> tuple[str, str | None, str, str]:
        """The D-08 identity within one home: (event, matcher, command, dialect), the
        dialect naming the Claude Code event for claude-code entries."""
        flavour = self.dialect
        if self.claude is not None:
            flavour = f"{self.dialect}:{self.claude.event.name}"
        return (self.event, self.matcher, self.command, flavour)

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

    def matches(self, tool_name: Any) -> bool:
        """D-66: no matcher matches everything; a set matcher must match the whole tool
        name (literal equality when the regex did not compile) and never matches a
        missing one.  A claude-code entry applies Claude Code's rules to Claude's name
        of the tool instead.  A match that cannot finish in time counts as a match on
        a gate and as none elsewhere (:meth:`UserRegex.decide`)."""
        if self.claude is not None:
            return self.claude.matches_tool(tool_name, self.origin)
        if self.matcher is None:
            return True
        if not isinstance(tool_name, str):
            return False
        if self.pattern is None:
            return tool_name == self.matcher
        return self.pattern.decide(tool_name, gate=self.gate, where=self.origin, log=log)
