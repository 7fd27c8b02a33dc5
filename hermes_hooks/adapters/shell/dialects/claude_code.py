"""The Claude Code dialect: ``dialect: claude-code`` entries, run as Claude Code runs them.

A script written for Claude Code's hooks runs here unchanged; the entry is otherwise an
ordinary shell hook (consent, timeouts, process groups, ``fail_closed``).  The tables
(events, tools, matchers) are :mod:`.claude_tables`; this module is the dialect:

* **When it fires**: Claude's matcher on Claude's name of the tool (or the session
  source, the end reason, the agent type), and ``PostToolUse`` vs
  ``PostToolUseFailure`` by the call's status.
* **Input** (:func:`input_document`): the stdin JSON Claude Code sends, plus
  ``CLAUDE_PROJECT_DIR`` in the environment.
* **Output** (:func:`read`): exit 0 is JSON when the first non-blank character is ``{``,
  otherwise plain text (context on UserPromptSubmit and SessionStart); exit 2 blocks
  where Claude blocks, stderr the reason, stdout ignored; any other exit is a warning
  with no effect (``fail_closed`` blocks, as for every shell hook).
* **Delivery** (:meth:`ClaudeCodeDialect.deliver`): SessionStart context waits for the
  session's first ``pre_llm_call`` (:class:`~.claude_tables.SessionContexts`).

What Hermes cannot honour (a ``PostToolUse`` ``decision: block``, a prompt rejected by
``UserPromptSubmit``) is never dropped silently: it logs one WARNING per hook and shows
in ``hermes-hooks test``.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from hermes_hooks._callback import Group
from hermes_hooks._log import warn_once
from hermes_hooks._select import directive_word, first_text
from hermes_hooks.adapters.shell.dialects.claude_tables import (
    DIALECT as DIALECT_NAME,
)
from hermes_hooks.adapters.shell.dialects.claude_tables import (
    PERMISSION_MODE,
    ClaudeContext,
    ClaudeSpec,
    read_spec,
    text_or,
)
from hermes_hooks.adapters.shell.entry import EntryMatcher, ShellEntry
from hermes_hooks.adapters.shell.output import (
    DEFAULT_BLOCK_MESSAGE,
    Directive,
    Outcome,
    Reading,
    exit_reason,
)
from hermes_hooks.adapters.shell.output import interpret as interpret_with
from hermes_hooks.adapters.shell.run import STREAM_CAP, RunResult
from hermes_hooks.envelope import dumps, jsonable
from hermes_hooks.errors import PluginLoadError

if TYPE_CHECKING:
    from hermes_hooks._manager import HookManager

__all__ = [
    "DEFAULT_CONTINUE_MESSAGE",
    "DIALECT",
    "ClaudeCodeDialect",
    "input_document",
    "interpret",
    "read",
    "register_session_context",
]

log = logging.getLogger("hermes_hooks.shell")

#: The message of a Stop hook that keeps the turn going without saying why.
DEFAULT_CONTINUE_MESSAGE = "A Stop hook asked to keep going."
_UNPARSEABLE = "unparseable stdout (starts with '{' but is not a JSON object)"


# -- output ------------------------------------------------------------------------------


def _block(message: str | None) -> Directive:
    return {"action": "block", "message": message or DEFAULT_BLOCK_MESSAGE}


def _continue(message: str | None) -> Directive:
    return {"action": "continue", "message": message or DEFAULT_CONTINUE_MESSAGE}


def _tool(reading: Reading) -> str:
    """Our name of the tool the call is for ("" off tool events)."""
    payload = reading.payload if isinstance(reading.payload, Mapping) else {}
    tool = payload.get("tool_name")
    return tool if isinstance(tool, str) else ""


def _unhonoured(reading: Reading, what: str) -> None:
    """An answer Claude Code acts on but Hermes cannot, on this event."""
    entry = reading.entry
    assert entry.claude is not None
    reading.problem = f"{what} is not honoured: Hermes cannot do that on {entry.event}; ignored"
    warn_once(
        log,
        ("claude-unhonoured", entry.where, entry.command, what),
        "shell hook %s (%s, %s): %s",
        entry.where,
        entry.command,
        entry.claude.event.name,
        reading.problem,
    )


def read(reading: Reading) -> Directive | None:
    """Read a finished run the way Claude Code would (see the module docstring)."""
    result = reading.result
    code = result.returncode
    if code == 2:
        return _exit_two(reading)
    if code != 0:
        reading.fail(exit_reason(result))  # Claude Code: a non-blocking error; stdout unread
        return None
    try:
        text = "" if result.stdout_truncated else result.stdout.decode("utf-8").strip()
    except UnicodeDecodeError:
        text = None
    if text is None or result.stdout_truncated:
        reading.unparseable = True
        problem = "stdout is not UTF-8 text"
        if result.stdout_truncated:
            problem = f"stdout exceeded {STREAM_CAP} bytes"
        reading.fail(problem)
        return None
    if not text:
        return None
    if text[0] != "{":
        return _plain_text(reading, text)
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):  # deep nesting exhausts the recursive parser
        doc = None
    if not isinstance(doc, dict):
        reading.unparseable = True
        reading.fail(_UNPARSEABLE)
        return None
    return _from_json(reading, doc)


def interpret(entry: ShellEntry, result: RunResult, payload: Any = None) -> Outcome:
    """One finished run of a claude-code ``entry``, interpreted; ``payload`` is the
    firing's (its ``tool_name`` translates ``updatedInput``)."""
    return interpret_with(entry, result, read, payload)


def _exit_two(reading: Reading) -> dict[str, Any] | None:
    """Exit 2: a blocking error, stderr the reason, stdout ignored (Claude's table)."""
    entry = reading.entry
    reason = reading.stderr_message()
    if entry.event == "pre_tool_call":
        directive = _block(reason)
        reading.exit_two_blocks(directive)
        return directive
    if entry.event == "pre_verify":
        return _continue(reason)
    if entry.event in ("pre_llm_call", "post_tool_call", "subagent_stop"):
        _unhonoured(reading, "exit code 2")
        return None
    # SessionStart, SessionEnd, SubagentStart: Claude shows stderr to the user only.
    reading.warn("exit code 2 (Claude Code shows stderr to the user and carries on)")
    return None


def _plain_text(reading: Reading, text: str) -> dict[str, Any] | None:
    """Exit 0 with stdout that is not JSON: context where Claude adds it, else nothing."""
    if reading.entry.event in ("pre_llm_call", "on_session_start"):
        return {"context": text}
    return None  # Claude Code shows it in verbose mode only


def _from_json(reading: Reading, doc: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON answer of a hook that exited 0, read as Claude Code reads it."""
    entry = reading.entry
    event = entry.event
    specific = doc.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    notice = first_text(doc.get("systemMessage"))
    if notice is not None:
        log.info("shell hook %s (%s) says: %s", entry.where, entry.command, notice)
    if doc.get("continue") is False:
        # "Takes precedence over any event-specific decision fields."
        if event == "pre_tool_call":
            return _block(first_text(doc.get("stopReason")))
        if event != "pre_verify":  # on Stop it means: let the turn end
            _unhonoured(reading, "continue: false")
        return None
    decision = directive_word(doc.get("decision"))
    context = specific.get("additionalContext")
    if event == "pre_tool_call":
        return _tool_decision(reading, doc, specific, decision)
    if event == "pre_verify":
        return _continue(first_text(doc.get("reason"))) if decision == "block" else None
    if event in ("pre_llm_call", "on_session_start"):
        if decision == "block":
            _unhonoured(reading, "decision: block")
            return None
        return {"context": context} if context is not None else None
    if decision == "block":
        _unhonoured(reading, "decision: block")
    elif context is not None:
        _unhonoured(reading, "additionalContext")
    return None


def _tool_decision(
    reading: Reading, doc: dict[str, Any], specific: dict[str, Any], decision: str
) -> dict[str, Any] | None:
    """PreToolUse: permissionDecision (and the deprecated top-level decision)."""
    entry = reading.entry
    permission = directive_word(specific.get("permissionDecision"))
    reason = first_text(specific.get("permissionDecisionReason"))
    legacy = first_text(doc.get("reason"))
    updated = specific.get("updatedInput")
    # A block anywhere in the answer wins, as for every shell hook.
    if permission == "deny":
        return _block(reason or legacy)
    if decision in ("block", "deny"):  # deprecated spellings of deny
        return _block(legacy or reason)
    if specific.get("additionalContext") is not None:
        _unhonoured(reading, "additionalContext")
    if permission == "ask":
        if isinstance(updated, dict) and updated:
            _unhonoured(reading, "updatedInput together with ask")
        approve: dict[str, Any] = {"action": "approve"}
        if reason is not None:
            approve["message"] = reason
        return approve
    if isinstance(updated, dict) and updated:
        assert entry.claude is not None
        args = entry.claude.context.tools.from_claude(_tool(reading), updated)
        return {"action": "modify", "args": args, "replace": True}
    return None  # allow, defer, the deprecated approve, or no decision


# -- input ----------------------------------------------------------------------------------


def _tool_response(result: Any) -> Any:
    """Our ``result`` (usually JSON text) as Claude's ``tool_response``: the decoded
    object when it is JSON, else the text."""
    if isinstance(result, str):
        try:
            decoded = json.loads(result)
        except ValueError:
            return result
        if isinstance(decoded, (dict, list)):
            return decoded
    return jsonable(result)


def input_document(spec: ClaudeSpec, payload: Mapping[str, Any], cwd: str) -> dict[str, Any]:
    """The JSON a Claude Code hook of ``spec`` reads on stdin for this firing."""
    name = spec.event.name
    session = payload.get("session_id")
    if not isinstance(session, str):
        session = payload.get("parent_session_id")
    doc: dict[str, Any] = {"session_id": session if isinstance(session, str) else ""}
    transcript = payload.get("transcript_path")
    if isinstance(transcript, str):
        doc["transcript_path"] = transcript
    doc["cwd"] = cwd
    doc["permission_mode"] = PERMISSION_MODE
    doc["hook_event_name"] = name
    if spec.event.subject == "tool":
        tools = spec.context.tools
        tool = payload.get("tool_name")
        args = payload.get("args")
        our_tool = tool if isinstance(tool, str) else ""
        doc["tool_name"] = tools.claude_name(our_tool)
        if not isinstance(args, Mapping):
            args = {}
        doc["tool_input"] = tools.to_claude(our_tool, args, cwd)
        if name == "PostToolUse":
            doc["tool_response"] = _tool_response(payload.get("result"))
        doc["tool_use_id"] = text_or(payload.get("tool_call_id"), "")
        if name == "PostToolUseFailure":
            doc["error"] = text_or(payload.get("error_message"), "")
            doc["is_interrupt"] = False
    elif name == "UserPromptSubmit":
        doc["prompt"] = text_or(payload.get("user_message"), "")
    elif name == "Stop":
        attempt = payload.get("attempt")
        # D-35: attempt counts the nudges already applied in this turn.
        doc["stop_hook_active"] = isinstance(attempt, int) and attempt > 0
        doc["last_assistant_message"] = text_or(payload.get("final_response"), "")
    elif name == "SubagentStop":
        doc["stop_hook_active"] = False
        doc["agent_id"] = text_or(payload.get("child_session_id"), "")
        doc["agent_type"] = spec.subject(payload)
        doc["last_assistant_message"] = text_or(payload.get("child_summary"), "")
    elif name == "SubagentStart":
        agent = payload.get("child_subagent_id")
        doc["agent_id"] = text_or(agent, text_or(payload.get("child_session_id"), ""))
        doc["agent_type"] = spec.subject(payload)
    elif name == "SessionStart":
        doc["source"] = spec.subject(payload)
        doc["model"] = text_or(payload.get("model"), "")
    elif name == "SessionEnd":
        doc["reason"] = spec.subject(payload)
    return doc


def _environment(cwd: str) -> dict[str, str] | None:
    """The hook's environment: ours, plus ``CLAUDE_PROJECT_DIR`` (kept if already set)."""
    if "CLAUDE_PROJECT_DIR" in os.environ or not cwd:
        return None
    return {**os.environ, "CLAUDE_PROJECT_DIR": cwd}


# -- the dialect ----------------------------------------------------------------------------


def _cwd() -> str:
    try:
        return os.getcwd()
    except OSError:
        return ""


class ClaudeCodeDialect:
    """The Claude Code dialect as a :class:`~hermes_hooks.adapters.shell.dialects.Dialect`."""

    name = DIALECT_NAME

    def read_matcher(
        self,
        event: str,
        value: Any,
        declared: str | None,
        warn: Callable[[str], None],
        tables: Callable[[], ClaudeContext],
    ) -> EntryMatcher:
        """Claude's matcher rules and the entry's Claude event (:func:`read_spec`)."""
        text, spec = read_spec(event, value, declared, tables(), warn)
        return EntryMatcher(text, None, spec)

    def fires(self, entry: ShellEntry, payload: dict[str, Any]) -> bool:
        """Whether Claude Code would run the hook for this firing."""
        assert entry.claude is not None
        return entry.claude.fires(payload)

    def stdin(
        self, entry: ShellEntry, payload: dict[str, Any]
    ) -> tuple[bytes, dict[str, str] | None]:
        """Claude Code's stdin document, and ``CLAUDE_PROJECT_DIR`` in the environment."""
        assert entry.claude is not None
        cwd = _cwd()
        return dumps(input_document(entry.claude, payload, cwd)), _environment(cwd)

    def read(self, reading: Reading) -> Directive | None:
        """See :func:`read`."""
        return read(reading)

    def deliver(
        self, entry: ShellEntry, payload: dict[str, Any], outcome: Outcome
    ) -> Directive | None:
        """What the dispatcher receives for this firing.  SessionStart context waits for
        the session's first ``pre_llm_call`` instead (:class:`SessionContexts`)."""
        directive = outcome.directive
        if entry.event == "on_session_start" and entry.claude is not None:
            text = str(directive["context"]) if directive is not None else ""
            if text.strip():  # D-32: blank context counts for nothing
                session = payload.get("session_id")
                entry.claude.context.sessions.put(text_or(session, ""), text)
            return None
        return directive


#: The one instance the adapter uses.
DIALECT = ClaudeCodeDialect()


# -- SessionStart context -----------------------------------------------------------------


def register_session_context(manager: HookManager, owner: str, context: ClaudeContext) -> bool:
    """Register ``context.sessions`` as a ``pre_llm_call`` shell callback of ``owner``,
    ahead of the ``pre_llm_call`` shell entries; False if the manager refused it."""
    try:
        manager.register_callback(
            "pre_llm_call",
            context.sessions,
            owner=owner,
            group=Group.SHELL,
            rank=-1,
            name="claude-code SessionStart context",
            source="shell",
        )
    except PluginLoadError as exc:
        log.warning("%s", exc)
        return False
    return True
