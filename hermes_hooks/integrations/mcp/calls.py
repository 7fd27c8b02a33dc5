"""The hooks around one proxied ``tools/call``, fired through the typed facade.

Each function is synchronous and fires what the reference host fires at the same point
(``pre_tool_call``, the approval gate, ``post_tool_call``, ``transform_tool_result``),
so the proxy runs it in one worker-thread hop per phase and only when the phase has
callbacks: a proxy without hooks pays no thread hop at all.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks
    from hermes_hooks.types import ToolDecision

__all__ = ["CANCELLED", "CallIds", "Outcome", "after", "approval", "before"]

#: The ``error_type`` of a call the client cancelled (in its hooks, or at the upstream).
CANCELLED = "cancelled"


@dataclass(slots=True)
class CallIds:
    """The correlation ids of one call; ``tool_call_id`` is the client's request id."""

    session_id: str
    tool_call_id: str
    turn_id: str = ""
    api_request_id: str = ""

    def payload(self) -> dict[str, str]:
        """The id fields of the tool-call hooks."""
        return {
            "task_id": self.session_id,
            "session_id": self.session_id,
            "tool_call_id": self.tool_call_id,
            "turn_id": self.turn_id,
            "api_request_id": self.api_request_id,
        }


@dataclass(slots=True)
class Outcome:
    """What the upstream answered, as ``post_tool_call`` describes it."""

    result: str
    status: str  # "ok", "error" or "blocked"
    duration_ms: int = 0
    error_type: str | None = None
    error_message: str | None = None
    fields: dict[str, Any] = field(default_factory=dict)


def before(hooks: Hooks, tool: str, args: dict[str, Any], ids: CallIds) -> ToolDecision:
    """Fire ``pre_tool_call``."""
    return hooks.pre_tool_call(tool_name=tool, args=args, **ids.payload(), middleware_trace=[])


def approval(
    hooks: Hooks, tool: str, args: dict[str, Any], decision: ToolDecision, ids: CallIds, policy: str
) -> str | None:
    """Run the approval gate a hook asked for under ``policy`` (``allow`` or ``deny``:
    a proxy has no human at hand); the block message, or None when allowed."""
    command = args.get("command") if isinstance(args.get("command"), str) else None
    key = decision.rule_key or tool
    request: dict[str, Any] = {
        "command": command or f"{tool} {json.dumps(args, ensure_ascii=False, sort_keys=True)}",
        "description": decision.message or f"plugin approval required for {tool}",
        "pattern_key": key,
        "pattern_keys": [key],
        "session_key": ids.session_id,
        "surface": "mcp",
        "turn_id": ids.turn_id,
        "tool_call_id": ids.tool_call_id,
    }
    hooks.pre_approval_request(**request)
    choice = "once" if policy == "allow" else "deny"
    hooks.post_approval_response(**request, choice=choice)
    if choice == "deny":  # fail closed: no approval policy allows it
        return f"BLOCKED: plugin approval required for {tool}"
    return None


def after(
    hooks: Hooks, tool: str, args: dict[str, Any], ids: CallIds, outcome: Outcome
) -> str | None:
    """Fire ``post_tool_call`` and, unless the call was blocked or cancelled (no result
    goes to the client), ``transform_tool_result``; return the replacement or None."""
    payload: dict[str, Any] = {
        "tool_name": tool,
        "args": args,
        "result": outcome.result,
        **ids.payload(),
        "duration_ms": outcome.duration_ms,
        "status": outcome.status,
        "error_type": outcome.error_type,
        "error_message": outcome.error_message,
    }
    hooks.post_tool_call(**payload, middleware_trace=[])
    if outcome.status == "blocked" or outcome.error_type == CANCELLED:
        return None
    return hooks.transform_tool_result(**payload)
