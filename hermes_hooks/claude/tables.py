"""The Claude Code dialect's tables: events, tools, matchers, and reading an entry.

``dialect: claude-code`` on a ``hooks:`` entry runs a script written for Claude Code's
hooks unchanged.  This module holds the translation as data plus small functions; the
dialect itself (stdin, environment, reading the answer) is
:mod:`hermes_hooks.claude.dialect`.

* **Events** (:data:`EVENTS`): ``PreToolUse`` is ``pre_tool_call`` and so on; an entry
  may be declared under either name.  Under our name an entry means the first Claude
  event listed for it (``post_tool_call`` is ``PostToolUse``).
* **Tools** (:class:`ToolTable`, in :mod:`.claude_tools`): Claude's tool names and
  field names (``Bash``, ``file_path``) and ours (``terminal``, ``path``), both ways,
  extendable with the top-level ``hooks_claude_tools:`` key of ``config.yaml``.
* **Matchers** (:func:`compile_matcher`): Claude's rules (``*``; exact names or lists;
  otherwise an unanchored regular expression), applied to Claude's tool name.
* **Entries** (:func:`event_for_key`, :func:`read_spec`, :func:`spec_of`): what the
  dialect reads of an entry, and its reading kept on the entry.

``docs/claude-code-porting.md`` has the tables and cites the Claude Code behaviour each
rule mirrors.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hermes_hooks._log import get_logger
from hermes_hooks.claude.feedback import ToolFeedback
from hermes_hooks.claude.model import HostModel
from hermes_hooks.claude.options import HandlerOptions, read_options
from hermes_hooks.claude.tools import (
    DEFAULT_TOOLS,
    TOOLS_KEY,
    ToolMap,
    ToolTable,
    tool_table,
)
from hermes_hooks.hookspecs import CATALOGUE
from hermes_hooks.shell.dialect import DIALECTS as _REGISTRY
from hermes_hooks.user_regex import UserRegex

if TYPE_CHECKING:
    from hermes_hooks.shell.entry import ShellEntry, Warn

__all__ = [
    "DEFAULT_TOOLS",
    "DIALECT",
    "DIALECTS",
    "EVENTS",
    "PERMISSION_MODE",
    "TOOLS_KEY",
    "UNMAPPED_EVENTS",
    "ClaudeContext",
    "ClaudeEvent",
    "ClaudeSpec",
    "Matcher",
    "SessionContexts",
    "SessionEnvironments",
    "ToolMap",
    "ToolTable",
    "claude_event",
    "compile_matcher",
    "default_claude_event",
    "event_for_key",
    "read_spec",
    "spec_of",
    "text_or",
    "tool_table",
]

log = get_logger("hermes_hooks.shell")

DIALECT = "claude-code"
#: Every ``dialect:`` value (the shell package's registry of dialects).
DIALECTS = tuple(_REGISTRY)
#: Claude Code sends this as ``permission_mode``; Hermes asks for approval as usual.
PERMISSION_MODE = "default"


# -- events ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ClaudeEvent:
    """One Claude Code event and the Hermes event it runs on."""

    name: str  # Claude's spelling, e.g. "PreToolUse"
    event: str  # ours, e.g. "pre_tool_call"
    #: What Claude's matcher filters on this event: "tool", "source", "reason",
    #: "agent_type"; None where Claude ignores the matcher.
    subject: str | None
    #: post_tool_call only: the ``status`` values the Claude event fires on.
    statuses: frozenset[str] | None = None


#: Claude Code event ↔ ours.  Under our name an entry is the first row naming it.
EVENTS: tuple[ClaudeEvent, ...] = (
    ClaudeEvent("PreToolUse", "pre_tool_call", "tool"),
    ClaudeEvent("PostToolUse", "post_tool_call", "tool", frozenset({"ok"})),
    ClaudeEvent("PostToolUseFailure", "post_tool_call", "tool", frozenset({"error"})),
    ClaudeEvent("UserPromptSubmit", "pre_llm_call", None),
    ClaudeEvent("Stop", "pre_verify", None),
    ClaudeEvent("SubagentStart", "subagent_start", "agent_type"),
    ClaudeEvent("SubagentStop", "subagent_stop", "agent_type"),
    ClaudeEvent("SessionStart", "on_session_start", "source"),
    ClaudeEvent("SessionEnd", "on_session_finalize", "reason"),
)
_BY_NAME = {e.name: e for e in EVENTS}
_FOR_EVENT: dict[str, ClaudeEvent] = {}
for _row in EVENTS:
    _FOR_EVENT.setdefault(_row.event, _row)

_NO_EVENT = "Hermes has no event at that point"
#: Claude Code events with no Hermes equivalent, and why.
UNMAPPED_EVENTS: dict[str, str] = {
    "PermissionRequest": (
        "it fires when Claude Code shows a permission dialog; Hermes' approval gate has no "
        "such hook — decide in PreToolUse (pre_tool_call) with permissionDecision instead"
    ),
    "PermissionDenied": _NO_EVENT,
    "Notification": "Hermes has no notification event",
    "PreCompact": "Hermes has no context-compaction event",
    "PostCompact": "Hermes has no context-compaction event",
    "Setup": _NO_EVENT,
    "StopFailure": _NO_EVENT,
    "TeammateIdle": "Hermes has no agent teams",
    "TaskCreated": _NO_EVENT,
    "TaskCompleted": _NO_EVENT,
    "ConfigChange": _NO_EVENT,
    "CwdChanged": _NO_EVENT,
    "FileChanged": _NO_EVENT,
    "InstructionsLoaded": _NO_EVENT,
    "WorktreeCreate": _NO_EVENT,
    "WorktreeRemove": _NO_EVENT,
    "Elicitation": _NO_EVENT,
    "ElicitationResult": _NO_EVENT,
}

#: on_session_finalize ``reason`` → Claude's SessionEnd ``reason``.
_END_REASONS = {"new_session": "clear"}


def claude_event(name: str) -> ClaudeEvent | None:
    """The Claude Code event called ``name`` (Claude's spelling), if we map it."""
    return _BY_NAME.get(name)


def default_claude_event(event: str) -> ClaudeEvent | None:
    """The Claude event an entry declared under our ``event`` name stands for."""
    return _FOR_EVENT.get(event)


# -- matchers ------------------------------------------------------------------------------

#: Claude's rule: only these characters make an exact name or a list of names.
_NAME_LIST = re.compile(r"[A-Za-z0-9_\- ,|]+")
_SEPARATORS = re.compile(r"[,|]")


@dataclass(frozen=True)
class Matcher:
    """A compiled Claude Code matcher (never "match everything": that is None).  A
    regular expression runs in bounded time (:class:`~hermes_hooks.user_regex.UserRegex`)."""

    text: str
    names: frozenset[str] | None = None  # exact names
    pattern: UserRegex | None = None  # an unanchored regular expression

    def test(self, value: Any) -> bool | None:
        """Whether ``value`` (a tool name, a session source, ...) matches; None when
        the expression could not finish on it in time."""
        if not isinstance(value, str):
            return False
        if self.pattern is not None:
            return self.pattern.test(value)
        return self.names is not None and value in self.names

    def __call__(self, value: Any) -> bool:
        """Whether ``value`` matches, as far as is known (a check that must not claim
        what it could not see)."""
        return self.test(value) is True

    def decide(self, value: Any, *, gate: bool, where: str) -> bool:
        """Whether the hook runs for ``value``: a match that cannot finish in time
        counts as one on a gate and as none elsewhere, with one WARNING naming
        ``where``."""
        if self.pattern is None or not isinstance(value, str):
            return self(value)
        return self.pattern.decide(value, gate=gate, where=where, log=log)


def compile_matcher(value: str, warn: Warn) -> Matcher | None:
    """Claude's matcher rules: ``*`` or blank match everything (None); letters, digits,
    ``_``, ``-``, spaces, ``,`` and ``|`` only are an exact name or a list of names;
    anything else is a regular expression searched anywhere in the name.  A regular
    expression Python cannot compile warns and is compared literally."""
    text = value.strip()
    if text in ("", "*"):
        return None
    if _NAME_LIST.fullmatch(text):
        names = frozenset(n.strip() for n in _SEPARATORS.split(text) if n.strip())
        return Matcher(text, names=names) if names else None
    try:
        return Matcher(text, pattern=UserRegex(text, search=True))
    except (re.error, OverflowError, RecursionError) as exc:  # all mean "cannot compile"
        warn(
            f"matcher {text!r} is not a regular expression Python understands ({exc}); the "
            "hook fires only for a name equal to it. Fix: write it as Python's re module "
            "reads it (escape a literal '(' or '[' with a backslash)",
            narrows=True,
        )
        return Matcher(text, names=frozenset({text}))


# -- per load and per entry ----------------------------------------------------------------


class SessionContexts:
    """SessionStart context waiting for the session's first ``pre_llm_call``.

    Claude Code adds a SessionStart hook's output to the context; Hermes'
    ``on_session_start`` only observes, but fires before the first ``pre_llm_call``
    of the session, so the text is kept here and handed over there.  At most
    :attr:`LIMIT` sessions wait; the oldest is dropped first.
    """

    LIMIT = 64
    __slots__ = ("_lock", "_pending")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: OrderedDict[str, list[str]] = OrderedDict()

    def put(self, session_id: str, text: str) -> None:
        """Keep ``text`` for ``session_id``'s next ``pre_llm_call``."""
        with self._lock:
            self._pending.setdefault(session_id, []).append(text)
            self._pending.move_to_end(session_id)
            while len(self._pending) > self.LIMIT:
                dropped, _ = self._pending.popitem(last=False)
                log.debug("SessionStart context of session %r dropped (no prompt came)", dropped)

    def take(self, session_id: str) -> str | None:
        """The waiting text of ``session_id`` (joined by a blank line), once."""
        with self._lock:
            pieces = self._pending.pop(session_id, None)
        return "\n\n".join(pieces) if pieces else None

    def __call__(self, session_id: Any = None, **_: Any) -> dict[str, Any] | None:
        """The ``pre_llm_call`` callback: this session's waiting context, if any."""
        text = self.take(session_id if isinstance(session_id, str) else "")
        return {"context": text} if text else None

    def __repr__(self) -> str:
        return f"<SessionContexts waiting={len(self._pending)}>"


class SessionEnvironments:
    """The variables SessionStart hooks wrote to ``CLAUDE_ENV_FILE``, per session.

    Claude Code exports them to every later command of the session; here every later
    claude-code hook of the session gets them in its environment, and the host reads
    them with :meth:`get` (they are also the SessionStart answer of ``invoke``).  At
    most :attr:`LIMIT` sessions are kept; the oldest is dropped first.
    """

    LIMIT = 64
    __slots__ = ("_lock", "_values")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: OrderedDict[str, dict[str, str]] = OrderedDict()

    def update(self, session_id: str, values: Mapping[str, str]) -> None:
        """Add ``values`` to what ``session_id`` exports (later writes win)."""
        with self._lock:
            self._values.setdefault(session_id, {}).update(values)
            self._values.move_to_end(session_id)
            while len(self._values) > self.LIMIT:
                self._values.popitem(last=False)

    def get(self, session_id: str) -> dict[str, str]:
        """What ``session_id`` exports so far (a copy; empty when nothing)."""
        with self._lock:
            return dict(self._values.get(session_id, {}))


@dataclass(eq=False)
class ClaudeContext:
    """What the Claude Code entries of one ``hooks:`` block share, and what the host
    supplies: its model (``llm``, for ``type: prompt`` and ``type: agent`` handlers)
    and the transcript paths of its sessions (``transcripts``)."""

    tools: ToolTable
    sessions: SessionContexts = field(default_factory=SessionContexts)
    environments: SessionEnvironments = field(default_factory=SessionEnvironments)
    #: PostToolUse reasons waiting for their call's transform_tool_result.
    feedback: ToolFeedback = field(default_factory=ToolFeedback)
    llm: HostModel | None = None
    transcripts: Callable[[str], str | None] | None = None


@dataclass(frozen=True, eq=False)
class ClaudeSpec:
    """The Claude Code side of one entry: its event, its matcher, the shared tables,
    and its handler options (``type``, ``async``, ``if``, the plugin it came from)."""

    event: ClaudeEvent
    matcher: Matcher | None
    context: ClaudeContext = field(repr=False)
    options: HandlerOptions = field(default_factory=HandlerOptions)

    @property
    def gate(self) -> bool:
        """Whether the entry's event can block (PreToolUse)."""
        return CATALOGUE[self.event.event].fail_closed

    def matches_tool(self, tool_name: Any, where: str = "config.yaml") -> bool:
        """Whether the matcher accepts our tool ``tool_name`` (always, off tool events);
        ``where`` names the entry in a warning about a match that cannot finish."""
        if self.matcher is None or self.event.subject != "tool":
            return True
        if not isinstance(tool_name, str):
            return False
        return self.matcher.decide(
            self.context.tools.claude_name(tool_name), gate=self.gate, where=where
        )

    def fires(self, payload: Mapping[str, Any], where: str = "config.yaml") -> bool:
        """Whether Claude Code would run the hook for this firing of our event;
        ``where`` names the entry in a warning about a match that cannot finish."""
        statuses = self.event.statuses
        if statuses is not None and payload.get("status") not in statuses:
            return False
        if self.matcher is None:
            return True
        return self.matcher.decide(self.subject(payload), gate=self.gate, where=where)

    def subject(self, payload: Mapping[str, Any]) -> Any:
        """The value Claude's matcher is applied to on this event."""
        kind = self.event.subject
        if kind == "tool":
            tool = payload.get("tool_name")
            return self.context.tools.claude_name(tool) if isinstance(tool, str) else None
        if kind == "source":
            return "startup"  # on_session_start fires for new sessions only
        if kind == "reason":
            return _END_REASONS.get(str(payload.get("reason")), "other")
        if kind == "agent_type":
            return text_or(payload.get("child_role"), "")
        return None


def spec_of(entry: ShellEntry) -> ClaudeSpec:
    """The Claude Code side of a claude-code ``entry`` (what :func:`read_spec` read,
    kept on the entry); TypeError for an entry of another dialect."""
    spec = entry.data
    if not isinstance(spec, ClaudeSpec):
        raise TypeError(f"{entry.where} is not a claude-code entry (dialect {entry.dialect})")
    return spec


def text_or(value: Any, default: str) -> str:
    """``value`` when it is a string (a payload field as the host sent it), else
    ``default``: Claude Code's stdin fields are always strings."""
    return value if isinstance(value, str) else default


# -- reading an entry (the seam in config) ---------------------------------------------------


def event_for_key(key: str) -> tuple[str | None, str | None]:
    """(our event, None) for a Claude Code event name; (``key``, None) for a name that
    is no Claude Code event; (None, why) for a Claude Code event Hermes does not have."""
    found = _BY_NAME.get(key)
    if found is not None:
        return found.event, None
    reason = UNMAPPED_EVENTS.get(key)
    if reason is not None:
        return None, (
            f"'{key}' is a Claude Code event with no Hermes equivalent ({reason}); its "
            "entries are skipped"
        )
    return key, None


def read_spec(
    event: str,
    raw: Mapping[str, Any],
    declared: str | None,
    context: ClaudeContext,
    warn: Warn,
) -> tuple[str | None, ClaudeSpec]:
    """(the matcher as written, the entry's :class:`ClaudeSpec`); raises
    :class:`~hermes_hooks.shell.entry.EntryRefused` for an option this
    dialect cannot honour (:func:`~.claude_options.read_options`)."""
    spec_event = (_BY_NAME.get(declared) if declared else None) or _FOR_EVENT[event]
    options = read_options(spec_event.name, raw)
    value = raw.get("matcher")
    if value is None or spec_event.subject is None:
        # Claude Code ignores a matcher on UserPromptSubmit and Stop, silently.
        return None, ClaudeSpec(spec_event, None, context, options)
    if not isinstance(value, str):
        warn(
            f"matcher must be a string, got {type(value).__name__}; ignored, so the hook "
            f"fires on every {spec_event.name}"
        )
        return None, ClaudeSpec(spec_event, None, context, options)
    compiled = compile_matcher(value, warn)
    if compiled is not None and spec_event.subject == "tool":
        ours = _hermes_names_only(compiled, context.tools)
        if ours:
            theirs = list(dict.fromkeys(context.tools.claude_name(tool) for tool in ours))
            warn(
                f"matcher {compiled.text!r} matches Hermes' tool names ({', '.join(ours)}), "
                f"never Claude Code's ({', '.join(theirs)}), which a claude-code entry is "
                f"matched against, so the hook never fires for them. Fix: write matcher: "
                f"{'|'.join(theirs)}, or set dialect: hermes to use Hermes' names",
                narrows=True,
            )
    return value.strip() or None, ClaudeSpec(spec_event, compiled, context, options)


def _hermes_names_only(matcher: Matcher, tools: ToolTable) -> list[str]:
    """Our names of the table's tools that ``matcher`` matches when it matches none of
    Claude Code's names (``terminal``, ``write_file|patch``): a matcher written for a
    Hermes entry, in a claude-code entry that is matched against Claude's names.  A
    name the expression cannot finish on in time proves nothing, so it never says so."""
    if any(matcher.test(row.claude) is not False for row in tools.rows):
        return []
    return list(dict.fromkeys(r.tool for r in tools.rows if r.tool != r.claude and matcher(r.tool)))
