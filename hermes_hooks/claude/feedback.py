"""What a ``PostToolUse`` hook tells the model, carried to it in the tool's result.

In Claude Code a ``PostToolUse`` (or ``PostToolUseFailure``) hook that exits 2, or
answers ``decision: block``, cannot undo the call, but its reason is shown to the model
next to the result.  Hermes' ``post_tool_call`` only observes; ``transform_tool_result``
fires right after it, for the same call, before the result joins the conversation.  So
the reason waits here, keyed by the call, and that transform appends it to the result.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from hermes_hooks._callback import Group
from hermes_hooks._log import excerpt, get_logger, warn_once
from hermes_hooks.errors import PluginLoadError
from hermes_hooks.shell.output import STDERR_MESSAGE_LIMIT, Directive, Reading

if TYPE_CHECKING:
    from hermes_hooks._manager import HookManager

__all__ = ["FEEDBACK_HEADING", "ToolFeedback", "feedback", "register_tool_feedback"]

log = get_logger("hermes_hooks.shell")

#: The line that introduces the hooks' reasons below the tool's own result.
FEEDBACK_HEADING = "PostToolUse hook feedback:"


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


class ToolFeedback:
    """Reasons waiting for their call's ``transform_tool_result``.

    At most :attr:`LIMIT` calls wait (a host that never fires the transform must not
    make this grow); the oldest is dropped first.
    """

    LIMIT = 256
    __slots__ = ("_lock", "_pending")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: OrderedDict[tuple[str, str], list[str]] = OrderedDict()

    def put(self, session_id: str, tool_call_id: str, text: str) -> None:
        """Keep ``text`` for the result of call ``tool_call_id`` of ``session_id``."""
        key = (session_id, tool_call_id)
        with self._lock:
            self._pending.setdefault(key, []).append(text)
            self._pending.move_to_end(key)
            while len(self._pending) > self.LIMIT:
                dropped, _ = self._pending.popitem(last=False)
                log.debug("PostToolUse feedback for call %r dropped (no result came)", dropped)

    def take(self, session_id: str, tool_call_id: str) -> str | None:
        """The waiting reasons of one call (a blank line between two), once."""
        with self._lock:
            pieces = self._pending.pop((session_id, tool_call_id), None)
        return "\n\n".join(pieces) if pieces else None

    def __call__(
        self, result: Any = None, session_id: Any = None, tool_call_id: Any = None, **_: Any
    ) -> str | None:
        """The ``transform_tool_result`` callback: the result with this call's waiting
        reasons below it, or None (the result unchanged) when there are none."""
        text = self.take(_text(session_id), _text(tool_call_id))
        if text is None:
            return None
        return f"{_text(result)}\n\n{FEEDBACK_HEADING}\n{text}"

    def __repr__(self) -> str:
        return f"<ToolFeedback waiting={len(self._pending)}>"


def feedback(reading: Reading, reason: str) -> Directive:
    """PostToolUse's exit 2 or ``decision: block`` read: the call already ran, and
    Claude Code shows ``reason`` to the model; here it goes below the tool's result (the
    dialect's delivery puts it in :class:`ToolFeedback`).  The warning carries the
    hook's stderr."""
    entry = reading.entry
    stderr = reading.stderr_message() or ""
    how = "exit code 2" if reading.result.returncode == 2 else "decision: block"
    warn_once(
        log,
        ("claude-feedback", entry.where, entry.command, reason, stderr),
        "shell hook %s (%s, %s): %s after the call ran; the reason goes to the model with "
        "the tool's result: %s%s",
        entry.where,
        entry.command,
        entry.variant or entry.event,
        how,
        reason,
        f"; stderr: {excerpt(stderr, STDERR_MESSAGE_LIMIT)}" if stderr and stderr != reason else "",
    )
    return {"feedback": reason}


def register_tool_feedback(manager: HookManager, owner: str, waiting: ToolFeedback) -> bool:
    """Register ``waiting`` as a ``transform_tool_result`` callback of ``owner``: the
    reasons PostToolUse hooks gave reach the model below the result of their call.
    False if the manager refused it (logged)."""
    try:
        manager.register_callback(
            "transform_tool_result",
            waiting,
            owner=owner,
            group=Group.SHELL,
            rank=-1,
            name="claude-code PostToolUse feedback",
        )
    except PluginLoadError as exc:
        log.warning("%s", exc)
        return False
    return True
