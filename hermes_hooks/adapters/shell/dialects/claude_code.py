"""The Claude Code dialect's output rules: a finished run read the way Claude Code
reads it (exit codes, plain-text context, JSON fields), turned into the canonical
directives of ``_select``.  Split from :mod:`hermes_hooks.adapters.claude_code`, which
owns the tables and the input side.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from hermes_hooks._log import warn_once
from hermes_hooks._select import directive_word, first_text
from hermes_hooks.adapters.shell_output import DEFAULT_BLOCK_MESSAGE, STDERR_MESSAGE_LIMIT, Outcome
from hermes_hooks.adapters.shell_run import STREAM_CAP, RunResult

if TYPE_CHECKING:
    from hermes_hooks.adapters.shell_config import ShellEntry

__all__ = ["DEFAULT_CONTINUE_MESSAGE", "interpret"]

log = logging.getLogger("hermes_hooks.shell")

DEFAULT_CONTINUE_MESSAGE = "A Stop hook asked to keep going."
_UNPARSEABLE = "unparseable stdout (starts with '{' but is not a JSON object)"


def _stderr(result: RunResult) -> str:
    return result.stderr.decode("utf-8", errors="replace").strip()


def _block(message: str | None) -> dict[str, Any]:
    return {"action": "block", "message": message or DEFAULT_BLOCK_MESSAGE}


def _continue(message: str | None) -> dict[str, Any]:
    return {"action": "continue", "message": message or DEFAULT_CONTINUE_MESSAGE}


class _Reading:
    """One finished run being interpreted: the entry, the result, what went wrong."""

    __slots__ = ("entry", "problem", "result", "tool")

    def __init__(self, entry: ShellEntry, result: RunResult, tool: str) -> None:
        self.entry = entry
        self.result = result
        self.tool = tool  # our name of the tool the call is for ("" off tool events)
        self.problem: str | None = None

    @property
    def claude_name(self) -> str:
        assert self.entry.claude is not None
        return self.entry.claude.event.name

    def warn(self, problem: str) -> None:
        """A failure: one WARNING per hook and reason, with stderr."""
        entry = self.entry
        self.problem = problem
        stderr = _stderr(self.result)
        warn_once(
            log,
            ("shell", entry.event, entry.index, entry.command, problem),
            "shell hook %s (%s): %s%s",
            entry.where,
            entry.command,
            problem,
            f"; stderr: {stderr[:STDERR_MESSAGE_LIMIT]}" if stderr else "",
        )

    def unhonoured(self, what: str) -> None:
        """An answer Claude Code acts on but Hermes cannot, on this event."""
        entry = self.entry
        self.problem = f"{what} is not honoured: Hermes cannot do that on {entry.event}; ignored"
        warn_once(
            log,
            ("claude-unhonoured", entry.where, entry.command, what),
            "shell hook %s (%s, %s): %s",
            entry.where,
            entry.command,
            self.claude_name,
            self.problem,
        )

    def closed(self, reason: str) -> dict[str, Any]:
        return {"action": "block", "message": f"hook {self.entry.command} failed closed: {reason}"}


def interpret(entry: ShellEntry, result: RunResult, tool_name: Any = None) -> Outcome:
    """Read one finished run of a Claude Code hook the way Claude Code would.

    ``tool_name`` (ours) is the tool of the call, for translating ``updatedInput``.

    Exit 0: JSON when the first non-blank character is ``{``, otherwise plain text
    (context on UserPromptSubmit and SessionStart).  Exit 2: a block where Claude
    blocks, stderr the reason, stdout ignored.  Any other exit: a warning, no effect
    (``fail_closed`` blocks, as for every shell hook).
    """
    reading = _Reading(entry, result, tool_name if isinstance(tool_name, str) else "")
    fail_closed = entry.fail_closed and entry.event == "pre_tool_call"

    def finish(directive: dict[str, Any] | None, unparseable: bool = False) -> Outcome:
        return Outcome(result, directive, reading.problem, unparseable)

    if result.error is not None or result.timed_out:
        reason = result.error or f"timed out after {entry.timeout}s"
        reading.warn(reason if result.error else f"{reason} (process group killed)")
        return finish(reading.closed(reason) if fail_closed else None)
    code = result.returncode
    if code == 2:
        return finish(_exit_two(reading))
    if code != 0:
        signal = result.signal
        problem = f"killed by signal {signal}" if signal is not None else f"exit code {code}"
        reading.warn(problem)  # Claude Code: a non-blocking error; stdout is not read
        return finish(reading.closed(problem) if fail_closed else None)
    try:
        text = "" if result.stdout_truncated else result.stdout.decode("utf-8").strip()
    except UnicodeDecodeError:
        text = None
    if text is None or result.stdout_truncated:
        problem = "stdout is not UTF-8 text"
        if result.stdout_truncated:
            problem = f"stdout exceeded {STREAM_CAP} bytes"
        reading.warn(problem)
        return finish(reading.closed(problem) if fail_closed else None, True)
    if not text:
        return finish(None)
    if text[0] != "{":
        return finish(_plain_text(reading, text))
    try:
        doc = json.loads(text)
    except ValueError:
        doc = None
    if not isinstance(doc, dict):
        reading.warn(_UNPARSEABLE)
        return finish(reading.closed(_UNPARSEABLE) if fail_closed else None, True)
    return finish(_from_json(reading, doc))


def _exit_two(reading: _Reading) -> dict[str, Any] | None:
    """Exit 2: a blocking error, stderr the reason, stdout ignored (Claude's table)."""
    entry = reading.entry
    reason = _stderr(reading.result)[:STDERR_MESSAGE_LIMIT].strip() or None
    if entry.event == "pre_tool_call":
        directive = _block(reason)
        log.info(
            "shell hook %s (%s) exited 2 — blocking: %s",
            entry.where,
            entry.command,
            directive["message"],
        )
        return directive
    if entry.event == "pre_verify":
        return _continue(reason)
    if entry.event in ("pre_llm_call", "post_tool_call", "subagent_stop"):
        reading.unhonoured("exit code 2")
        return None
    # SessionStart, SessionEnd, SubagentStart: Claude shows stderr to the user only.
    reading.warn("exit code 2 (Claude Code shows stderr to the user and carries on)")
    return None


def _plain_text(reading: _Reading, text: str) -> dict[str, Any] | None:
    """Exit 0 with stdout that is not JSON: context where Claude adds it, else nothing."""
    if reading.entry.event in ("pre_llm_call", "on_session_start"):
        return {"context": text}
    return None  # Claude Code shows it in verbose mode only


def _from_json(reading: _Reading, doc: dict[str, Any]) -> dict[str, Any] | None:
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
            reading.unhonoured("continue: false")
        return None
    decision = directive_word(doc.get("decision"))
    context = specific.get("additionalContext")
    if event == "pre_tool_call":
        return _tool_decision(reading, doc, specific, decision)
    if event == "pre_verify":
        return _continue(first_text(doc.get("reason"))) if decision == "block" else None
    if event in ("pre_llm_call", "on_session_start"):
        if decision == "block":
            reading.unhonoured("decision: block")
            return None
        return {"context": context} if context is not None else None
    if decision == "block":
        reading.unhonoured("decision: block")
    elif context is not None:
        reading.unhonoured("additionalContext")
    return None


def _tool_decision(
    reading: _Reading, doc: dict[str, Any], specific: dict[str, Any], decision: str
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
        reading.unhonoured("additionalContext")
    if permission == "ask":
        if isinstance(updated, dict) and updated:
            reading.unhonoured("updatedInput together with ask")
        approve: dict[str, Any] = {"action": "approve"}
        if reason is not None:
            approve["message"] = reason
        return approve
    if isinstance(updated, dict) and updated:
        assert entry.claude is not None
        args = entry.claude.context.tools.from_claude(reading.tool, updated)
        return {"action": "modify", "args": args, "replace": True}
    return None  # allow, defer, the deprecated approve, or no decision
