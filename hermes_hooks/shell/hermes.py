"""The Hermes dialect: a shell hook's own protocol (the default ``dialect: hermes``).

* **Entry**: ``matcher`` is a regular expression that must match the whole tool name,
  honoured on ``pre_tool_call`` and ``post_tool_call`` only.
* **Stdin**: the JSON envelope (``hook_event_name``, ``tool_name``, ``tool_input``,
  ``session_id``, ``cwd``, ``extra``); the environment is the agent's.
* **Output**: one JSON object on stdout, read into the canonical directives of
  ``_select``:

  * ``pre_tool_call``: ``{"action": "block", "message"}``, ``{"action": "approve", ...}``
    or ``{"action": "modify", "args"}``, from our ``action`` field, Claude Code's
    ``decision`` / ``reason`` / ``tool_input`` or its
    ``hookSpecificOutput.permissionDecision``;
  * ``pre_llm_call``: ``{"context": ...}`` (also read from Claude Code's
    ``hookSpecificOutput.additionalContext``, the UserPromptSubmit field);
  * ``pre_verify``: ``{"action": "continue", "message"}``, Claude Code's
    ``{"decision": "block", "reason"}`` included;
  * every other event: ``None`` (shell output is honoured only for the directives above).

  Exit code 2 blocks a ``pre_tool_call``; any other non-zero exit is a failure,
  though a block the hook printed still counts.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from hermes_hooks._callback import Degraded
from hermes_hooks._hermes_names import BUILTIN_TOOLS
from hermes_hooks._log import get_logger
from hermes_hooks._select import ALLOW_WORDS, directive_word, first_text
from hermes_hooks.envelope import build_envelope, dumps
from hermes_hooks.hookspecs import CATALOGUE
from hermes_hooks.shell.dialect import DEFAULT_DIALECT, Block, Execute, every_dialect
from hermes_hooks.shell.entry import EntryMatcher, ShellEntry, Warn
from hermes_hooks.shell.output import (
    BLOCK_EXIT_CODE,
    DEFAULT_BLOCK_MESSAGE,
    Directive,
    Outcome,
    Reading,
    decode_stdout,
    delivered,
    exit_reason,
)
from hermes_hooks.shell.output import interpret as interpret_with
from hermes_hooks.shell.run import STREAM_CAP, RunResult, run_command
from hermes_hooks.user_regex import UserRegex

if TYPE_CHECKING:
    from hermes_hooks._manager import HookManager

__all__ = ["DIALECT", "MATCHER_EVENTS", "HermesDialect", "interpret", "normalise", "read"]

log = get_logger("hermes_hooks.shell")


#: The events on which ``matcher`` filters by tool name: the catalogue's tool-scoped
#: hooks, in catalogue order for messages.
MATCHER_EVENTS = tuple(name for name, c in CATALOGUE.items() if c.matcher)
_UNPARSEABLE = "unparseable stdout (expected a JSON object)"


# -- reading an entry --------------------------------------------------------------------


def read_matcher(event: str, value: Any, warn: Warn) -> EntryMatcher:
    """The entry's ``matcher`` as written and compiled; a bad one warns through ``warn``
    (one that makes the hook fire for fewer tools than written says it ``narrows``)."""
    if value is None:
        return EntryMatcher()
    if not isinstance(value, str):
        warn(
            f"matcher must be a string (a regular expression), got "
            f"{type(value).__name__}; ignored, so the hook fires for every tool"
        )
        return EntryMatcher()
    matcher = value.strip()
    if not matcher:
        return EntryMatcher()
    if event not in MATCHER_EVENTS:
        warn(
            f"matcher {matcher!r} is dropped — the matcher field is only honored for "
            f"{' / '.join(MATCHER_EVENTS)}. The hook will fire on every {event} event."
        )
        return EntryMatcher()
    try:
        # Bounded: the checks below run the user's expression at load.
        compiled = UserRegex(matcher)
    except (re.error, OverflowError, RecursionError) as exc:  # all mean "cannot compile"
        warn(
            f"matcher {matcher!r} is not a valid regular expression ({exc}); the hook "
            "fires only for a tool named exactly that. Fix: correct the expression, e.g. "
            "escape a literal '(' or '[' with a backslash",
            narrows=True,
        )
        return EntryMatcher(matcher)
    for other in every_dialect():
        # Another dialect's tool names (Claude Code's Bash, Write): the matcher was
        # copied from that agent's settings into a Hermes entry, and would never fire.
        theirs = _foreign_names_only(compiled, other.tool_names)
        if theirs:
            ours = list(dict.fromkeys(tool for tool, name in other.tool_names if name in theirs))
            warn(
                f"matcher {matcher!r} matches {other.title}'s tool names "
                f"({', '.join(theirs)}), never ours ({', '.join(ours)}), so the hook never "
                f"fires for them. Fix: write matcher: {'|'.join(ours)}, or set dialect: "
                f"{other.name} to use {other.title}'s names",
                narrows=True,
            )
            return EntryMatcher(matcher, compiled)
    meant = _misspelt_tools(matcher, compiled)
    if meant:
        warn(
            f"matcher {matcher!r} matches none of Hermes' tool names, only another "
            f"spelling of {', '.join(meant)} (tool names are lower case, with "
            f"underscores), so the hook never fires for them. Fix: write matcher: "
            f"{'|'.join(meant)}",
            narrows=True,
        )
    return EntryMatcher(matcher, compiled)


def _misspelt_tools(matcher: str, pattern: UserRegex) -> list[str]:
    """The built-in tools ``pattern`` matches only when case and the word separator are
    ignored (``Terminal``, ``read-file``, ``ReadFile``), when it matches none of them as
    written: a matcher that would never fire for the tools it names.  A name the
    expression cannot finish on in time proves nothing, so it never says so."""
    if any(answer is not False for answer in pattern.test_all(BUILTIN_TOOLS)):
        return []
    loose = UserRegex(matcher, re.IGNORECASE)
    spellings = {
        tool: {tool, tool.replace("_", "-"), tool.replace("_", " "), tool.replace("_", "")}
        for tool in BUILTIN_TOOLS
    }
    every = sorted({form for forms in spellings.values() for form in forms})
    answers = dict(zip(every, loose.test_all(every), strict=True))
    return sorted(tool for tool, forms in spellings.items() if any(answers[s] for s in forms))


def _foreign_names_only(pattern: UserRegex, names: Sequence[tuple[str, str]]) -> list[str]:
    """The other dialect's tool names (of ``names``: (ours, theirs) pairs) that
    ``pattern`` matches whole when it matches none of our names for the same tools: a
    matcher copied from another agent's settings (``Bash``, ``Write|Edit``) into a
    Hermes entry, which would never fire.  A name the expression cannot finish on in
    time proves nothing, so it never says so."""
    if not names:
        return []
    theirs = pattern.test_all(name for _, name in names)
    ours = pattern.test_all(tool for tool, _ in names)
    if None in theirs or any(answer is not False for answer in ours):
        return []
    return [name for (_, name), answer in zip(names, theirs, strict=True) if answer]


# -- reading the answer ------------------------------------------------------------------


def _pre_tool_call(doc: dict[str, Any]) -> dict[str, Any] | None:
    action, decision = directive_word(doc.get("action")), directive_word(doc.get("decision"))
    specific = doc.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    permission = directive_word(specific.get("permissionDecision"))
    # Any block signal wins over anything else in the same document: a gate that
    # says both "block" and "allow" is treated as blocking.
    if action == "block":
        return {"action": "block", "message": first_text(doc.get("message"), doc.get("reason"))}
    if decision == "block":
        return {"action": "block", "message": first_text(doc.get("reason"), doc.get("message"))}
    if permission == "deny":
        return {"action": "block", "message": first_text(specific.get("permissionDecisionReason"))}
    if action == "approve":
        approve: dict[str, Any] = {"action": "approve"}
        for key in ("message", "rule_key", "review"):
            if isinstance(doc.get(key), str):
                approve[key] = doc[key]
        return approve
    if permission == "ask":  # Claude Code's "ask" escalates to the approval gate
        approve = {"action": "approve"}
        reason = first_text(specific.get("permissionDecisionReason"))
        if reason is not None:
            approve["message"] = reason
        return approve
    if action == "modify" and isinstance(doc.get("args"), dict) and doc["args"]:
        return {"action": "modify", "args": doc["args"]}
    if decision == "modify" and isinstance(doc.get("tool_input"), dict) and doc["tool_input"]:
        return {"action": "modify", "args": doc["tool_input"]}
    # {"decision": "approve"} means "allow" in Claude Code: no effect.
    return None


_GATE_WORDS = frozenset({"block", "approve", "modify"})
_PERMISSIONS = frozenset({"allow", "deny", "ask"})


def _unread_gate_answer(doc: dict[str, Any]) -> str | None:
    """What a ``pre_tool_call`` answer that had no effect tried to say, when it said
    something: an action or decision word none of the readers knows (``deny``,
    ``reject``), or a modify without arguments.  None for an answer that says nothing
    or says "go ahead"."""
    for key in ("action", "decision"):
        raw = doc.get(key)
        word = directive_word(raw)
        if word not in _GATE_WORDS and word not in ALLOW_WORDS:
            return f"{key} {raw!r}"
        if word == "modify":
            return f"{key} 'modify' without a non-empty arguments object"
    specific = doc.get("hookSpecificOutput")
    if isinstance(specific, dict):
        raw = specific.get("permissionDecision")
        word = directive_word(raw)
        if word and word not in _PERMISSIONS:
            return f"permissionDecision {raw!r}"
    return None


def _pre_llm_call(doc: dict[str, Any]) -> dict[str, Any] | None:
    context = doc.get("context")
    if context is None:
        specific = doc.get("hookSpecificOutput")
        if isinstance(specific, dict):
            context = specific.get("additionalContext")
    if context is None:
        return None
    # The aggregator converts a non-string with str() and ignores blank text.
    return {"context": context}


def _pre_verify(doc: dict[str, Any]) -> dict[str, Any] | None:
    message = None
    if directive_word(doc.get("action")) == "continue":
        message = first_text(doc.get("message"), doc.get("reason"))
    elif directive_word(doc.get("decision")) == "block":  # Block-the-stop means continue
        message = first_text(doc.get("reason"), doc.get("message"))
    return {"action": "continue", "message": message} if message else None


_NORMALISERS = {
    "pre_tool_call": _pre_tool_call,
    "pre_llm_call": _pre_llm_call,
    "pre_verify": _pre_verify,
}


def normalise(event: str, doc: dict[str, Any]) -> dict[str, Any] | None:
    """The canonical directive in a hook's JSON object, or None (no effect)."""
    normaliser = _NORMALISERS.get(event)
    if normaliser is None:
        return None
    directive = normaliser(doc)
    if directive is not None and directive.get("action") == "block" and not directive["message"]:
        directive["message"] = DEFAULT_BLOCK_MESSAGE
    return directive


def _decode(result: RunResult) -> tuple[dict[str, Any] | None, bool]:
    """Parse stdout: (the JSON object or None, whether stdout was unusable).

    Empty (or blank) stdout is no output, not an error.  Leading whitespace and
    a byte-order mark are trimmed first (the shared reading core).  A non-UTF-8, cut
    (over the capture cap), non-JSON or non-object stdout is unusable.
    """
    text, _ = decode_stdout(result)
    if text is None:
        return None, True
    if not text:
        return None, False
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):  # deep nesting exhausts the recursive parser
        return None, True
    if not isinstance(doc, dict):
        return None, True
    return doc, False


def read(reading: Reading) -> Directive | None:
    """Read a finished run the Hermes way: stdout is parsed whatever the exit code, so
    a block printed by a failing hook still blocks."""
    entry, result = reading.entry, reading.result
    doc, unusable = _decode(result)
    directive = normalise(entry.event, doc) if doc is not None else None
    if unusable:
        reading.unparseable = True
        problem = _UNPARSEABLE
        if result.stdout_truncated:
            problem += f"; stdout exceeded {STREAM_CAP} bytes"
        reading.fail(problem, _UNPARSEABLE)
    rc = result.returncode
    if reading.gate and rc == BLOCK_EXIT_CODE:
        # Exit 2 blocks; the message is the stdout block's, else stderr's
        # first 400 characters, else the default.
        if directive is None or directive["action"] != "block":
            directive = {
                "action": "block",
                "message": reading.stderr_message() or DEFAULT_BLOCK_MESSAGE,
            }
        reading.exit_two_blocks(directive)
        reading.problem = None  # a deliberate block, not a failure
        return directive
    if rc != 0:
        reading.fail(exit_reason(result))
    elif directive is None and doc is not None and reading.gate:
        unread = _unread_gate_answer(doc)
        if unread is not None:
            # Meant to decide, in words no reader knows: a failure, so a fail-closed
            # gate blocks, as for any output it cannot read; and an ERROR, as for a
            # Python guard's ignored answer, since the gate's decision is lost.
            reading.fail(
                f"answered {unread}, which a pre_tool_call hook cannot say "
                "(block, approve or modify); the answer is ignored",
                level=logging.ERROR,
            )
    return directive


def interpret(entry: ShellEntry, result: RunResult, payload: Any = None) -> Outcome:
    """One finished run of a Hermes-dialect ``entry``, interpreted."""
    return interpret_with(entry, result, read, payload)


class HermesDialect:
    """The Hermes dialect as a :class:`~hermes_hooks.shell.dialect.Dialect`: our own
    event and tool names, nothing to set up per load."""

    name = DEFAULT_DIALECT
    title = "Hermes"
    events: Mapping[str, str] = {}
    unmapped: Mapping[str, str] = {}
    tool_names: Sequence[tuple[str, str]] = ()

    def stand_in(self, raw: Mapping[str, Any]) -> tuple[str, str | None] | None:
        """Every Hermes entry runs its command."""
        return None

    def read_matcher(
        self,
        event: str,
        raw: Mapping[str, Any],
        declared: str | None,
        warn: Warn,
        block: Block,
    ) -> EntryMatcher:
        """A regular expression on the whole tool name (nothing shared per block)."""
        return read_matcher(event, raw.get("matcher"), warn)

    def describe(self, entry: ShellEntry) -> list[str]:
        """Nothing besides the settings every entry shows."""
        return []

    def loaded(self, entries: list[ShellEntry], manager: HookManager, owner: str) -> None:
        """Nothing besides the entries themselves."""

    def matches(self, entry: ShellEntry, tool_name: Any) -> bool:
        """No matcher matches everything; a set matcher must match the whole tool
        name (literal equality when the regex did not compile) and never matches a
        missing one.  A match that cannot finish in time counts as a match on a gate
        and as none elsewhere (:meth:`UserRegex.decide`)."""
        if entry.matcher is None:
            return True
        if not isinstance(tool_name, str):
            return False
        pattern = entry.data
        if not isinstance(pattern, UserRegex):
            return tool_name == entry.matcher
        return pattern.decide(tool_name, gate=entry.gate, where=entry.origin, log=log)

    def fires(self, entry: ShellEntry, payload: dict[str, Any]) -> bool:
        """A non-matching entry is never spawned."""
        return entry.matcher is None or self.matches(entry, payload.get("tool_name"))

    def run(
        self, entry: ShellEntry, payload: dict[str, Any], execute: Execute = run_command
    ) -> Outcome:
        """One run of the command on the JSON envelope (the agent's own environment),
        interpreted."""
        stdin = dumps(build_envelope(entry.event, payload))
        return interpret(entry, execute(entry.argv, stdin, entry.timeout, env=None), payload)

    def deliver(
        self, entry: ShellEntry, payload: dict[str, Any], outcome: Outcome
    ) -> Directive | None:
        """The directive goes to the dispatcher as it is."""
        return outcome.directive

    def fire(self, entry: ShellEntry, payload: dict[str, Any]) -> Directive | Degraded | None:
        """Run in line and deliver (a failed run as the error it was)."""
        outcome = self.run(entry, payload)
        return delivered(self.deliver(entry, payload, outcome), outcome)


#: The one instance the adapter uses.
DIALECT = HermesDialect()
