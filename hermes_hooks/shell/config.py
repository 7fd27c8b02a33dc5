"""The ``hooks:`` block of ``config.yaml``, parsed once at load into :class:`ShellEntry` s.

Every rule of the block lives here:

* reserved keys (``outbound``, ``output_spill``) are skipped silently;
* unknown events warn with a did-you-mean; Python-only events are refused
;
* ``command`` is split into arguments without a shell, ``~`` expanded per argument
; the trimmed, unexpanded string stays the consent key;
* ``timeout`` is an integer in
  1..300, ``fail_closed`` / ``failClosed`` only counts on ``pre_tool_call``;
* ``persistent: true`` keeps the command running between firings (a Hermes-dialect
  key: a Claude Code script expects a fresh process with its own environment);
* the entry's dialect (:mod:`hermes_hooks.shell.dialect`) reads its
  ``matcher``; ``dialect: claude-code`` (and Claude Code event names such as
  ``PreToolUse``) brings Claude Code's event names, matchers and tool table, all
  asked of the dialect through its interface.

One bad entry never drops the others.  Every warning names the file, the event and the
entry index (``hooks.pre_tool_call[2]``) and says what to fix; the same text is kept in
:attr:`ParsedHooks.problems` for ``list`` and ``doctor``.
"""

from __future__ import annotations

import logging
import math
import os
import shlex
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hermes_hooks._contract import ShellUse
from hermes_hooks._log import get_logger
from hermes_hooks._manager import resembles_gate, suggest_hook
from hermes_hooks.config import position_of
from hermes_hooks.hookspecs import CATALOGUE
from hermes_hooks.shell.dialect import (
    DEFAULT_DIALECT,
    DIALECTS,
    Block,
    dialect_named,
    event_for_key,
    every_dialect,
    normalise_dialect,
)
from hermes_hooks.shell.entry import (
    DEFAULT_TIMEOUT,
    MAX_TIMEOUT,
    EntryRefused,
    ShellEntry,
    approval_clashes,
    expand_variables,
    written_form,
)
from hermes_hooks.shell.home import TRUTHY, auto_accept_configured

__all__ = [
    "DEFAULT_TIMEOUT",
    "MAX_TIMEOUT",
    "RESERVED_KEYS",
    "SCRIPT_EXTENSIONS",
    "ConfigProblem",
    "ParsedHooks",
    "ShellEntry",
    "auto_accept_configured",
    "expand_argv",
    "expand_variables",
    "parse_hooks",
    "resolve_script",
    "script_for_argv",
    "script_for_command",
    "script_index",
    "split_command",
    "unknown_event",
]

log = get_logger("hermes_hooks.shell")

#: Keys under ``hooks:`` that belong to other systems, not event names.
RESERVED_KEYS = frozenset({"outbound", "output_spill"})
#: The extensions that mark the script argument of a command.
SCRIPT_EXTENSIONS = (
    ".sh",
    ".bash",
    ".zsh",
    ".fish",
    ".py",
    ".pyw",
    ".rb",
    ".pl",
    ".lua",
    ".js",
    ".mjs",
    ".cjs",
    ".ts",
)
#: Shells whose ``-c`` argument is inline code rather than a script path.
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish"})
#: The events where a shell hook can block, so ``fail_closed`` means something.
BLOCKING_EVENTS = tuple(name for name, c in CATALOGUE.items() if c.fail_closed)
_FALSY = frozenset({"0", "false", "no", "off"})


def unknown_event(name: str) -> str:
    """The message for the unknown event key ``name`` under ``hooks:``: a did-you-mean
    when a hook's name is close; when ``name`` is a key of an entry (a list item's line
    dedented to the events' level), where it belongs; else where the names are listed.
    Never the whole list of names: one screenful per typo helps no one."""
    tail = suggest_hook(name)
    if tail.startswith("did you mean"):
        return f"unknown hook event '{name}' in hooks: config — {tail}"
    from hermes_hooks.config_schema import shell_entry_keys  # deferred: only a bad key needs it

    if name in shell_entry_keys():
        return (
            f"unknown hook event '{name}' in hooks: config — '{name}' is a key of an entry, "
            "written at the level of the events (a dedented line?); skipped. Fix: indent it "
            "under its list item ('- command: ...')"
        )
    return f"unknown hook event '{name}' in hooks: config — {suggest_hook(name, outcome='skipped')}"


def _meant_a_gate(key: str) -> bool:
    """Whether the unknown event key ``key`` most resembles a hook that can block, in
    our spelling or a dialect's (``pre_tool_cal``, ``PreToolUze``, ``pretooluse``):
    its entries, skipped, are then a gate that never runs."""
    aliases = {name: event for dialect in every_dialect() for name, event in dialect.events.items()}
    return resembles_gate(key, aliases)


# -- commands ------------------------------------------------------------------------


def split_command(command: str) -> list[str]:
    """Split ``command`` into arguments without a shell.

    POSIX shell-word rules (quotes, backslashes); on Windows, whitespace and double
    quotes only, so backslashes in paths survive.  Raises ``ValueError`` on an
    unbalanced quote.
    """
    if os.name != "nt":
        return shlex.split(command, posix=True)
    return [
        part[1:-1] if len(part) >= 2 and part[0] == part[-1] == '"' else part
        for part in shlex.split(command, posix=False)
    ]


def _expand(arg: str) -> str:
    # Only an argument that is exactly "~" or starts with "~/" expands.
    if arg == "~" or arg.startswith("~/"):
        return os.path.expanduser(arg)
    return arg


def expand_argv(argv: list[str]) -> tuple[str, ...]:
    """``argv`` with ``~`` expanded in each argument that is ``~`` or starts ``~/``."""
    return tuple(_expand(arg) for arg in argv)


def script_index(parts: list[str]) -> int | None:
    """Which of a command's arguments names its script; None for none.

    The first argument with a script extension, else the first containing ``/`` or
    starting with ``~``, else the first.  A shell given inline code (``sh -c '...'``)
    runs no script file: None, so the code text is never mistaken for a path.
    """
    if not parts:
        return None
    if Path(parts[0]).name in _SHELLS and "-c" in parts[1:]:
        return None
    for index, part in enumerate(parts):
        if part.lower().endswith(SCRIPT_EXTENSIONS):
            return index
    return next((i for i, p in enumerate(parts) if "/" in p or p.startswith("~")), 0)


def script_for_command(command: str) -> Path | None:
    """The script a command runs (:func:`script_index`, ``~`` expanded), or
    None when the command cannot be split or runs inline code.

    A bare program name is looked up on ``PATH`` the way the spawn does.  The path need
    not exist.
    """
    try:
        parts = split_command(command)
    except ValueError:
        return None
    return script_for_argv(parts)


def script_for_argv(argv: Sequence[str]) -> Path | None:
    """The script split arguments run (:func:`script_index`, ``~`` expanded); an
    entry's ``argv`` gives it as resolved against the home.  A bare program name is
    looked up on ``PATH`` the way the spawn does."""
    index = script_index(list(argv))
    if index is None:
        return None
    chosen = argv[index]
    if index == 0 and "/" not in chosen and not chosen.startswith("~"):
        found = shutil.which(chosen)
        if found:
            return Path(found)
    return Path(os.path.expanduser(chosen))


def resolve_script(argv: list[str], base: str | os.PathLike[str] | None) -> list[str]:
    """``argv`` with its script argument (:func:`script_index`) made absolute against
    ``base`` (the home) when it is a relative path, so a home's hooks run the same
    files from any working directory.  A bare program name (``python3``) is left for
    the ``PATH`` lookup; absolute and ``~`` paths are kept."""
    index = script_index(argv)
    if base is None or index is None:
        return argv
    chosen = argv[index]
    if os.path.isabs(chosen) or chosen.startswith("~") or (index == 0 and "/" not in chosen):
        return argv
    while chosen.startswith("./"):  # only the leading ./ goes: no other normalising
        chosen = chosen[2:].lstrip("/")
    return [*argv[:index], os.path.join(os.fspath(base), chosen), *argv[index + 1 :]]


# -- parsed entries --------------------------------------------------------------------


@dataclass(frozen=True)
class ConfigProblem:
    """One warning raised while reading the ``hooks:`` block."""

    event: str
    index: int | None  # None when the problem concerns the whole event key
    message: str
    #: The problem drops or weakens a gate (an entry of a hook that can block), so the
    #: agent runs less guarded than the file says: an ERROR, and ``doctor`` fails.
    weakens_gate: bool = False
    #: ``<file>:<line>:<col>`` of the key or entry, when the config was read from a file.
    position: str | None = None

    @property
    def located(self) -> str:
        """:attr:`where`, after its ``<file>:<line>:<col>`` when known."""
        return self.where if self.position is None else f"{self.position}: {self.where}"

    @property
    def where(self) -> str:
        """``hooks.<event>`` or ``hooks.<event>[<index>]`` (a top-level key such as
        ``hooks_claude_tools`` as it is)."""
        if not self.event:  # the block as a whole
            return "hooks"
        if self.event.startswith("hooks_"):
            return self.event
        return f"hooks.{self.event}" if self.index is None else f"hooks.{self.event}[{self.index}]"


@dataclass
class ParsedHooks:
    """The result of reading one ``hooks:`` block."""

    entries: list[ShellEntry] = field(default_factory=list)
    problems: list[ConfigProblem] = field(default_factory=list)
    #: Each dialect's own state for the block, by dialect name (what its entries
    #: share, such as a tool table read from the config); opaque here.
    shared: dict[str, object] = field(default_factory=dict)

    def for_event(self, event: str) -> list[ShellEntry]:
        """The entries of ``event`` in list order."""
        return [e for e in self.entries if e.event == event]


class _Reader:
    """Reads one ``hooks:`` block, collecting problems as it warns."""

    def __init__(
        self,
        source: str,
        quiet: bool,
        config: Mapping[str, Any],
        base: str | os.PathLike[str] | None = None,
        host: Any = None,
    ) -> None:
        self.source = source
        self.config = config  # where each key is written, when read from a file
        self.base = base
        self.level = logging.DEBUG if quiet else logging.WARNING
        self.result = ParsedHooks()
        self.block = Block(
            config,
            lambda key, message, narrows: self.warn(key, None, message, drops=narrows, shared=True),
            host,
            self.result.shared,
        )
        self.seen: dict[str, int] = {}  # entries read so far per event, for ``rank``
        # While an entry declared under another dialect's name is read: (ours, as
        # written), so that its warnings name the key as written (hooks.PreToolUse[0]).
        self.alias: tuple[str, str] | None = None
        # The dialect whose event name the key being read is (its entries' default).
        self.claimed: str | None = None

    def warn(
        self,
        event: str,
        index: int | None,
        message: str,
        *,
        drops: bool = False,
        shared: bool = False,
        key: str | None = None,
    ) -> None:
        """Record and log one problem; ``drops``: the entry (or the event's entries, or
        their fail-closed guarantee, or part of what their matcher covers) is lost, which
        on a hook that can block leaves a gate off, so it is an ERROR there rather than a
        WARNING.  ``shared``: the problem is in a table every entry of a dialect reads
        (gates included), so what it loses is always an ERROR.  ``key``: the entry's key
        the problem is about, whose line is named (else the entry's, or the event's)."""
        # Whether it can block is a fact of our event; the message names the key as written.
        gate = drops and (shared or event in BLOCKING_EVENTS)
        if self.alias is not None and event == self.alias[0]:
            event = self.alias[1]
        path: tuple[Any, ...] = ("hooks", event) if event else ("hooks",)
        if event.startswith("hooks_"):  # a top-level table a dialect reads
            path = (event,)
        elif index is not None:
            path = (*path, index) if key is None else (*path, index, key)
        position = position_of(self.config, path)
        problem = ConfigProblem(event, index, message, weakens_gate=gate, position=position)
        self.result.problems.append(problem)
        level = logging.ERROR if gate and self.level == logging.WARNING else self.level
        log.log(level, "%s: %s: %s", position or self.source, problem.where, message)

    def warn_exact(self, event: str, message: str, *, gate: bool = False) -> None:
        # The unknown-event texts are byte-exact, so only the place is prefixed to them;
        # ``gate``: what is skipped was most likely meant as a gate, so it is an ERROR
        # (see warn()).
        position = position_of(self.config, ("hooks", event))
        problem = ConfigProblem(event, None, message, weakens_gate=gate, position=position)
        self.result.problems.append(problem)
        level = logging.ERROR if gate and self.level == logging.WARNING else self.level
        if position is None:
            log.log(level, "%s", message)
        else:
            log.log(level, "%s: %s: %s", position, problem.where, message)

    # -- the block ---------------------------------------------------------------------

    def read(self, block: Any) -> ParsedHooks:
        if block is None:
            return self.result
        if not isinstance(block, Mapping):
            # Whatever a non-empty block held is lost, gates included (there is no
            # telling which): an ERROR.  An empty one loses nothing.
            lost = bool(block)
            problem = ConfigProblem(
                "",
                None,
                f"'hooks' must be a mapping of event names to lists of entries, got "
                f"{type(block).__name__}; no shell hook loaded. Fix: write each event as a "
                "key ('pre_tool_call:') with its entries as a list under it",
                weakens_gate=lost,
                position=position_of(self.config, ("hooks",)),
            )
            self.result.problems.append(problem)
            level = logging.ERROR if lost and self.level == logging.WARNING else self.level
            log.log(level, "%s: %s", problem.position or self.source, problem.message)
            return self.result
        for raw_event, entries in block.items():
            event = str(raw_event)
            if event in RESERVED_KEYS:
                continue  # Outbound webhooks and output spill own these keys
            declared = None
            self.claimed = None
            if event not in CATALOGUE:
                resolved, why, self.claimed = event_for_key(event)
                if why is not None:
                    self.warn(event, None, why)
                if resolved is None:
                    continue
                if resolved != event:
                    declared, event = event, resolved
            self.alias = (event, declared) if declared else None
            contract = CATALOGUE.get(event)
            if contract is None:
                self.warn_exact(event, unknown_event(event), gate=_meant_a_gate(event))
                continue
            if contract.shell is ShellUse.REFUSED:
                reason = contract.shell_refusal or "shell hooks are not supported on it"
                self.warn(
                    event,
                    None,
                    f"shell hooks cannot run on {event}: {reason}; the entries are refused. "
                    "Use a Python plugin instead.",
                )
                continue
            if entries is None:
                continue
            if not isinstance(entries, list):
                self.warn(
                    event,
                    None,
                    f"must be a list of entries, got {type(entries).__name__}; skipped. "
                    "Fix: write each entry as a list item ('- command: ...').",
                    drops=True,
                )
                continue
            base = self.seen.get(event, 0)
            self.seen[event] = base + len(entries)
            for index, raw in enumerate(entries):
                entry = self.entry(event, index, raw, declared, base + index)
                if entry is not None:
                    self.result.entries.append(entry)
        self.alias = None
        self.check_shared_approvals()
        return self.result

    def check_shared_approvals(self) -> None:
        """Each pair of :func:`approval_clashes`, said here, where the fix is."""
        for earlier, entry in approval_clashes(self.result.entries):
            self.alias = (entry.event, entry.declared) if entry.declared else None
            self.warn(
                entry.event,
                entry.index,
                f"writes the command of {earlier.where} ({entry.command}) but runs "
                f"{entry.runs!r}, not {earlier.runs!r}: an approval is keyed by the command "
                "as written, so only one of the two can be approved and the other refuses "
                "every call. Fix: write each plugin's path out in its command "
                "(import-claude does)",
                drops=True,
            )
        self.alias = None

    # -- one entry ---------------------------------------------------------------------

    def entry(
        self, event: str, index: int, raw: Any, declared: str | None = None, rank: int = 0
    ) -> ShellEntry | None:
        if not isinstance(raw, Mapping):
            self.warn(
                event,
                index,
                f"must be a mapping with a 'command' key, got {type(raw).__name__}; skipped",
                drops=True,
            )
            return None
        dialect = self.dialect(event, index, raw.get("dialect"), declared)
        if dialect is None:
            return None
        reader = dialect_named(dialect)
        command = raw.get("command")
        stand_in = reader.stand_in(raw)
        if stand_in is not None and command is None:
            # Answered by the host's model, with no command: the dialect names the
            # consent key (a prompt handler's prompt).
            command = stand_in[1]
        if not isinstance(command, str) or not command.strip():
            if command is None and isinstance(raw.get("hooks"), list):
                # Claude Code's settings.json nests the commands of a matcher group.
                self.warn(
                    event,
                    index,
                    "is a Claude Code settings.json matcher group (a 'hooks' list inside "
                    "the entry); each entry here is one command, so it is skipped. Fix: "
                    "write one '- matcher: ...' / 'command: ...' entry per command, or "
                    "convert the file with hermes-hooks import-claude",
                    drops=True,
                )
                return None
            self.warn(
                event,
                index,
                "has no non-empty 'command' string; skipped (set command to the program to run)",
                drops=True,
            )
            return None
        command = command.strip()
        try:
            argv = [stand_in[0]] if stand_in is not None else split_command(command)
        except ValueError as exc:
            self.warn(
                event,
                index,
                f"command {command!r} cannot be split ({exc}); skipped",
                drops=True,
                key="command",
            )
            return None
        if not argv or not argv[0]:
            self.warn(
                event,
                index,
                f"command {command!r} names no program; skipped",
                drops=True,
                key="command",
            )
            return None
        if "\0" in command:  # execve cannot pass it: every firing would fail to start
            self.warn(
                event,
                index,
                f"command {command!r} contains a NUL character; skipped",
                drops=True,
                key="command",
            )
            return None
        try:
            read = reader.read_matcher(
                event,
                raw,
                declared,
                lambda message, narrows=False: self.warn(
                    event, index, message, drops=narrows, key="matcher"
                ),
                self.block,
            )
        except EntryRefused as exc:
            self.warn(event, index, str(exc), drops=True)
            return None
        matcher, data, variant = read.text, read.data, read.variant
        if read.variables:
            # What the runner's shell writes out ($CLAUDE_PLUGIN_ROOT) is written out
            # here too, so the files split, resolved and pinned are the ones it runs.
            argv = split_command(expand_variables(command, read.variables))
        return ShellEntry(
            event=event,
            index=index,
            command=command,
            argv=expand_argv(resolve_script(argv, self.base)),
            matcher=matcher,
            timeout=self.timeout(event, index, raw.get("timeout")),
            fail_closed=self.fail_closed(event, index, raw),
            dialect=dialect,
            data=data,
            variant=variant,
            declared=declared,
            runs_program=stand_in is None,
            rank=rank,
            persistent=self.persistent(event, index, raw.get("persistent")),
            base=None if self.base is None else os.fspath(self.base),
            source=self.source,
            variables=read.variables,
            written=written_form(raw),
        )

    def dialect(self, event: str, index: int, value: Any, declared: str | None) -> str | None:
        """The entry's dialect name; None (after warning) to skip the entry.  The
        default is ``hermes``, except under another dialect's event name, which
        implies that dialect."""
        if value is None:
            return (self.claimed if declared else None) or DEFAULT_DIALECT
        name = normalise_dialect(value) if isinstance(value, str) else None
        if name is None or name not in DIALECTS:
            # Skipped rather than run as hermes: a gate read in the wrong dialect fails open.
            self.warn(
                event,
                index,
                f"dialect {value!r} is not known (valid: {', '.join(DIALECTS)}); skipped. "
                "Fix: 'dialect: claude-code'.",
                drops=True,
                key="dialect",
            )
            return None
        chosen = dialect_named(name)
        ours = set(chosen.events.values())
        if ours and not declared and event not in ours:
            self.warn(
                event,
                index,
                f"dialect {name} is not available on {event}: {chosen.title} has no "
                f"equivalent event (it is on {', '.join(sorted(ours))}); skipped",
                drops=True,
                key="dialect",
            )
            return None
        return name

    def timeout(self, event: str, index: int, value: Any) -> int:
        if value is None:
            return DEFAULT_TIMEOUT
        seconds: int | None = None
        if isinstance(value, bool):
            seconds = None
        elif isinstance(value, int):
            seconds = value
        elif isinstance(value, float) and math.isfinite(value):
            seconds = int(value)
        elif isinstance(value, str):
            try:
                seconds = int(value.strip())
            except ValueError:
                try:
                    number = float(value.strip())
                except ValueError:
                    number = math.nan
                seconds = int(number) if math.isfinite(number) else None
        if seconds is None:
            self.warn(
                event,
                index,
                f"timeout {value!r} is not a whole number of seconds; using "
                f"{DEFAULT_TIMEOUT}. Fix: e.g. 'timeout: 10'.",
                key="timeout",
            )
            return DEFAULT_TIMEOUT
        if seconds < 1:
            self.warn(
                event,
                index,
                f"timeout {value!r} is below 1 second; using {DEFAULT_TIMEOUT}",
                key="timeout",
            )
            return DEFAULT_TIMEOUT
        if seconds > MAX_TIMEOUT:
            self.warn(
                event,
                index,
                f"timeout {value!r} is above the maximum; capped at {MAX_TIMEOUT}",
                key="timeout",
            )
            return MAX_TIMEOUT
        return seconds

    def persistent(self, event: str, index: int, value: Any) -> bool:
        """``persistent: true`` (a Hermes-dialect key: the Claude Code dialect refuses
        keys Claude Code does not have); anything else runs per firing."""
        if value is None or value is False:
            return False
        if value is not True:
            self.warn(
                event,
                index,
                f"persistent must be true or false, got {value!r}; the hook is started "
                "for each firing. Fix: 'persistent: true'.",
                key="persistent",
            )
            return False
        return True

    def fail_closed(self, event: str, index: int, raw: Mapping[str, Any]) -> bool:
        key = "fail_closed" if "fail_closed" in raw else "failClosed"
        value = raw.get(key)
        if value is None:
            return False
        flag: bool
        if isinstance(value, bool):
            flag = value
        elif isinstance(value, str) and value.strip().lower() in TRUTHY | _FALSY:
            flag = value.strip().lower() in TRUTHY
            self.warn(
                event,
                index,
                f"{key} is the string {value!r}; read as {str(flag).lower()}. Fix: write a "
                f"YAML boolean ({key}: {str(flag).lower()}).",
                key=key,
            )
        else:
            self.warn(
                event,
                index,
                f"{key} must be true or false, got {value!r}; the hook fails open",
                drops=True,
                key=key,
            )
            return False
        if flag and event not in BLOCKING_EVENTS:
            self.warn(
                event,
                index,
                f"{key}: true is ignored — only {' / '.join(BLOCKING_EVENTS)} hooks can "
                f"block, so this "
                f"hook fails open on {event} like any other",
                key=key,
            )
            return False
        return flag


def parse_hooks(
    config: Mapping[str, Any],
    source: str = "config.yaml",
    *,
    quiet: bool = False,
    base: str | os.PathLike[str] | None = None,
    host: Any = None,
) -> ParsedHooks:
    """Read the ``hooks:`` block of a parsed ``config.yaml``; a relative script path in
    a command resolves against ``base`` (the home) when given; ``host`` is what the
    host lends the load (a dialect's handlers may need it).

    Never raises: each bad event key or entry is logged at WARNING (naming ``source``,
    the event and the index; DEBUG when ``quiet``), skipped, and recorded in
    ``problems``.
    """
    return _Reader(source, quiet, config, base, host).read(config.get("hooks"))
