"""Tool runners: how the reference host executes a tool call that its hooks let through.

The host owns the hook sequence around a tool (``pre_tool_call`` before, the
transforms and ``post_tool_call`` after); a :class:`ToolRunner` only produces the raw
outcome.  :class:`RecordedToolRunner`, the default, replays the recorded result, so a
replay never touches the machine.  An embedder can pass any object with the same two
methods, for example one that really runs a sandboxed tool with the final arguments.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from hermes_hooks.host.recording import ModelStep, SubagentLine, ToolCall, ToolResultLine

__all__ = [
    "NOT_REPLAYABLE",
    "RecordedToolRunner",
    "SubagentRun",
    "ToolOutcome",
    "ToolRunner",
]

#: The error a recorded runner returns for a call that was blocked while recording.
NOT_REPLAYABLE = "not replayable: a hook blocked this call when the session was recorded"


@dataclass
class ToolOutcome:
    """The raw result of one tool run, before any transform.

    For the ``terminal`` tool, ``output``/``returncode`` hold the captured foreground
    output (it passes ``transform_terminal_output``) and ``content`` is ignored;
    ``background=True`` marks output that bypasses that hook.  For other tools
    ``content`` is the result string.  ``status`` is ``"ok"`` or ``"error"``; an error
    carries ``error`` (the message).  ``duration_ms`` None = the host measures it.
    """

    content: str | None = None
    status: str = "ok"
    error: str | None = None
    output: str | None = None
    returncode: int | None = None
    background: bool = False
    duration_ms: int | None = None
    changed_paths: tuple[str, ...] = ()


@dataclass
class SubagentRun:
    """One child agent of a ``delegate_task`` call, as the hooks describe it."""

    goal: str
    role: str | None = None
    child_session_id: str | None = None
    child_subagent_id: str = ""
    summary: str | None = None
    status: str = "completed"
    duration_ms: int = 0
    tool_call_history: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def from_line(cls, line: SubagentLine) -> SubagentRun:
        """Build from a recording's ``subagent`` line."""
        return cls(
            goal=line.goal,
            role=line.role,
            child_session_id=line.child_session_id,
            child_subagent_id=line.child_subagent_id,
            summary=line.summary,
            status=line.status,
            duration_ms=line.duration_ms,
            tool_call_history=[dict(h) for h in line.tool_calls],
        )


class ToolRunner(Protocol):
    """What the host needs from a tool executor."""

    def subagents(self, step: ModelStep, call: ToolCall, args: dict[str, Any]) -> list[SubagentRun]:
        """The children a ``delegate_task`` call will run (before they run)."""

    def run(self, step: ModelStep, call: ToolCall, args: dict[str, Any]) -> ToolOutcome:
        """Run ``call`` with the final effective ``args`` and return its raw outcome."""


class RecordedToolRunner:
    """Replays the recorded result of each call; the final args do not change it."""

    def subagents(self, step: ModelStep, call: ToolCall, args: dict[str, Any]) -> list[SubagentRun]:
        """The recorded children of ``call``, in recording order."""
        return [SubagentRun.from_line(line) for line in step.subagents.get(call.id, [])]

    def run(self, step: ModelStep, call: ToolCall, args: dict[str, Any]) -> ToolOutcome:
        """The recorded result of ``call`` as a :class:`ToolOutcome`."""
        recorded = step.results.get(call.id)
        if recorded is None:  # the host stops before unrecorded calls; be safe anyway
            return ToolOutcome(status="error", error=f"no recorded result for call {call.id}")
        if recorded.blocked:
            return ToolOutcome(status="error", error=NOT_REPLAYABLE)
        return _outcome(recorded)


def _outcome(recorded: ToolResultLine) -> ToolOutcome:
    content = recorded.content
    if recorded.status == "error" and content is None:
        content = json.dumps({"error": recorded.error or "tool error"}, ensure_ascii=False)
    return ToolOutcome(
        content=content,
        status=recorded.status,
        error=recorded.error,
        output=recorded.output,
        returncode=recorded.returncode,
        background=recorded.background,
        duration_ms=recorded.duration_ms,
        changed_paths=recorded.changed_paths,
    )
