"""What a finished shell hook means: its output dialects and the fail-closed matrix.

:func:`interpret` turns one :class:`~hermes_hooks.adapters.shell_run.RunResult` into the
canonical shape the dispatcher's aggregators understand, or ``None``:

* ``pre_tool_call``: ``{"action": "block", "message"}``, ``{"action": "approve", ...}``
  or ``{"action": "modify", "args"}``, from the Hermes dialect (``action``), the Claude
  Code dialect (``decision`` / ``reason`` / ``tool_input``) or Claude Code's
  ``hookSpecificOutput.permissionDecision`` (D-23);
* ``pre_llm_call``: ``{"context": ...}`` (also read from Claude Code's
  ``hookSpecificOutput.additionalContext``, the UserPromptSubmit field, SH-32);
* ``pre_verify``: ``{"action": "continue", "message"}``, Claude Code's
  ``{"decision": "block", "reason"}`` included (SH-15);
* every other event: ``None`` (D-74: shell output is only honoured for SH-29).

Failures follow SH-16..SH-20 and D-70; see the table in ``docs/shell-hooks.md``.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from hermes_hooks._log import excerpt, warn_once
from hermes_hooks._select import directive_word, first_text
from hermes_hooks.adapters.shell_config import ShellEntry
from hermes_hooks.adapters.shell_run import STREAM_CAP, RunResult

__all__ = [
    "BLOCK_EXIT_CODE",
    "DEFAULT_BLOCK_MESSAGE",
    "STDERR_MESSAGE_LIMIT",
    "Outcome",
    "interpret",
    "normalise",
]

log = logging.getLogger("hermes_hooks.shell")

#: SH-17: exit code 2 blocks a ``pre_tool_call`` (Claude Code / Cursor convention).
BLOCK_EXIT_CODE = 2
#: SH-17: how much of stderr becomes a block message.
STDERR_MESSAGE_LIMIT = 400
#: SH-17 (3) / D-20: the message of a block that carries none.
DEFAULT_BLOCK_MESSAGE = "Blocked by shell hook."
_UNPARSEABLE = "unparseable stdout (expected a JSON object)"


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
    if permission == "ask":  # D-23: Claude Code's "ask" escalates to the approval gate
        approve = {"action": "approve"}
        reason = first_text(specific.get("permissionDecisionReason"))
        if reason is not None:
            approve["message"] = reason
        return approve
    if action == "modify" and isinstance(doc.get("args"), dict) and doc["args"]:
        return {"action": "modify", "args": doc["args"]}
    if decision == "modify" and isinstance(doc.get("tool_input"), dict) and doc["tool_input"]:
        return {"action": "modify", "args": doc["tool_input"]}
    # {"decision": "approve"} means "allow" in Claude Code: no effect (D-23).
    return None


def _pre_llm_call(doc: dict[str, Any]) -> dict[str, Any] | None:
    context = doc.get("context")
    if context is None:
        specific = doc.get("hookSpecificOutput")
        if isinstance(specific, dict):
            context = specific.get("additionalContext")
    if context is None:
        return None
    # D-32: the aggregator converts a non-string with str() and ignores blank text.
    return {"context": context}


def _pre_verify(doc: dict[str, Any]) -> dict[str, Any] | None:
    message = None
    if directive_word(doc.get("action")) == "continue":
        message = first_text(doc.get("message"), doc.get("reason"))
    elif directive_word(doc.get("decision")) == "block":  # SH-15: block-the-stop means continue
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


class Outcome:
    """A finished firing, interpreted: the directive and why."""

    __slots__ = ("directive", "problem", "result", "unparseable")

    def __init__(
        self,
        result: RunResult,
        directive: dict[str, Any] | None,
        problem: str | None,
        unparseable: bool = False,
    ) -> None:
        self.result = result
        self.directive = directive  # what the dispatcher receives (None = nothing)
        self.problem = problem  # the failure a warning reported, if any
        self.unparseable = unparseable  # stdout was neither empty nor a JSON object

    def __repr__(self) -> str:
        return f"Outcome({self.directive!r}, problem={self.problem!r})"


def _decode(result: RunResult) -> tuple[dict[str, Any] | None, bool]:
    """Parse stdout: (the JSON object or None, whether stdout was unusable).

    Empty (or blank) stdout is no output, not an error (SH-14).  A non-UTF-8, cut
    (over the capture cap), non-JSON or non-object stdout is unusable.
    """
    if result.stdout_truncated:
        return None, True
    try:
        text = result.stdout.decode("utf-8")
    except UnicodeDecodeError:
        return None, True
    text = text.strip()
    if not text:
        return None, False
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):  # deep nesting exhausts the recursive parser
        return None, True
    if not isinstance(doc, dict):
        return None, True
    return doc, False


def _stderr_text(result: RunResult) -> str:
    return result.stderr.decode("utf-8", errors="replace").strip()


def _exit_reason(result: RunResult) -> str:
    signal = result.signal
    return f"killed by signal {signal}" if signal is not None else f"exit code {result.returncode}"


def interpret(entry: ShellEntry, result: RunResult) -> Outcome:
    """Apply SH-16..SH-20, D-23 and D-70 to one finished run of ``entry``.

    Every failure logs one WARNING per distinct hook and reason (repeats at DEBUG).
    """
    gate = entry.event == "pre_tool_call"
    fail_closed = entry.fail_closed and gate

    def warn(problem: str) -> None:
        stderr = _stderr_text(result)
        warn_once(
            log,
            ("shell", entry.event, entry.index, entry.command, problem),
            "shell hook %s (%s): %s%s",
            entry.where,
            entry.command,
            problem,
            f"; stderr: {excerpt(stderr, STDERR_MESSAGE_LIMIT)}" if stderr else "",
        )

    def closed(reason: str) -> dict[str, Any]:
        return {"action": "block", "message": f"hook {entry.command} failed closed: {reason}"}

    # The hook never produced a verdict: it could not start, or ran out of time.
    if result.error is not None or result.timed_out:
        reason = result.error or f"timed out after {entry.timeout}s"
        warn(reason if result.error else f"{reason} (process group killed)")
        return Outcome(result, closed(reason) if fail_closed else None, reason)

    doc, unusable = _decode(result)
    directive = normalise(entry.event, doc) if doc is not None else None
    problem: str | None = None
    if unusable:
        problem = _UNPARSEABLE
        if result.stdout_truncated:
            problem += f"; stdout exceeded {STREAM_CAP} bytes"
        warn(problem)

    rc = result.returncode
    if gate and rc == BLOCK_EXIT_CODE:
        # SH-17: exit 2 blocks; the message is the stdout block's, else stderr's
        # first 400 characters, else the default.
        if directive is None or directive["action"] != "block":
            stderr = _stderr_text(result)[:STDERR_MESSAGE_LIMIT].strip()
            directive = {"action": "block", "message": stderr or DEFAULT_BLOCK_MESSAGE}
        log.info(
            "shell hook %s (%s) exited 2 — blocking: %s",
            entry.where,
            entry.command,
            directive["message"],
        )
        return Outcome(result, directive, None, unusable)
    if rc != 0:
        problem = _exit_reason(result)
        warn(problem)
        if fail_closed and (directive is None or directive["action"] != "block"):
            # D-70: only exit 0 lets a fail-closed call through; a block on stdout wins.
            return Outcome(result, closed(problem), problem, unusable)
        return Outcome(result, directive, problem, unusable)
    if unusable and fail_closed:
        return Outcome(result, closed(_UNPARSEABLE), problem, unusable)
    return Outcome(result, directive, problem, unusable)
