"""The reference host's tool-call phase: ``pre_tool_call`` → the tool (or the block
result) → ``transform_terminal_output`` → ``post_tool_call`` → ``transform_tool_result``,
with the approval gate a plugin's approve asks for, then ``agent:step``.

A mixin of :class:`~hermes_hooks.host.loop.ReferenceHost`, split out so each module has
one job; :class:`HostParts` names what it uses of the host.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from hermes_hooks.host import middleware_steps
from hermes_hooks.host.payloads import (
    ApprovalRequest,
    ToolIds,
    ToolResult,
    cap_output,
    terminal_result,
)

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks
    from hermes_hooks.host.recording import Header, ModelStep, ToolCall
    from hermes_hooks.host.state import SessionState, TurnState
    from hermes_hooks.host.timeline import Step, Timeline
    from hermes_hooks.host.tools import SubagentRun, ToolOutcome, ToolRunner
    from hermes_hooks.types import ToolDecision

__all__ = ["HostParts", "ToolCalls"]

_Answer = TypeVar("_Answer")


class HostParts(Protocol):
    """What the tool-call phase uses of the host."""

    hooks: Hooks
    timeline: Timeline
    session: SessionState
    approve: str
    runner: ToolRunner
    surface: str

    def _fire(
        self, hook: str, call: Callable[[], _Answer], **step: Any
    ) -> tuple[_Answer, Step]: ...

    def _emit(self, event: str, context: dict[str, Any], **step: Any) -> Any: ...

    def _gateway_base(self) -> dict[str, Any]: ...

    @property
    def _header(self) -> Header: ...

    @property
    def _session_key(self) -> str: ...

    def _tool_call(self, step: ModelStep, call: ToolCall, turn: TurnState) -> None: ...

    def _approval(
        self,
        call: ToolCall,
        args: dict[str, Any],
        decision: ToolDecision,
        turn: TurnState,
        group: str,
    ) -> str | None: ...

    def _run_tool(
        self, step: ModelStep, call: ToolCall, args: dict[str, Any], turn: TurnState, group: str
    ) -> tuple[ToolOutcome, str, int]: ...


class ToolCalls:
    """The tool-call phase of a model step."""

    def _tool_calls(self: HostParts, step: ModelStep, turn: TurnState) -> bool:
        """Run every call of ``step``; False when the turn is interrupted at a call the
        recording has no result for."""
        names = []
        for call in step.assistant.tool_calls:
            if call.id not in step.results:
                self.timeline.entry.notes.append(
                    f"interrupted before tool call {call.id} ({call.name}) finished"
                )
                return False
            self._tool_call(step, call, turn)
            names.append(call.name)
        self._emit(
            "agent:step",
            {
                **self._gateway_base(),
                "session_id": self.session.session_id,
                "iteration": turn.iteration,
                "tool_names": names,
            },
        )
        return True

    def _tool_call(self: HostParts, step: ModelStep, call: ToolCall, turn: TurnState) -> None:
        summary = self.timeline.summary
        summary.tool_calls += 1
        session = self.session
        group = f"tool {call.name} {call.id} {_args_text(call.arguments)}"
        ids = ToolIds(
            task_id=session.session_id,
            session_id=session.session_id,
            tool_call_id=call.id,
            turn_id=turn.turn_id,
            api_request_id=turn.api_request_id,
        )
        requested, trace = middleware_steps.tool_request(
            self, call.name, call.arguments, ids, group
        )
        decision, pre = self._fire(
            "pre_tool_call",
            lambda: self.hooks.pre_tool_call(
                tool_name=call.name, args=requested, **ids, middleware_trace=list(trace)
            ),
            group=group,
        )
        args = decision.args
        if decision.modified:
            summary.args_modified += 1
            pre.outcome, pre.notable = f"args modified: {_args_text(args)}", True
        blocked: str | None = None
        if decision.action == "block":
            blocked = decision.message or ""
        if decision.action == "approve":
            pre.outcome, pre.notable = "approval requested", True
            blocked = self._approval(call, args, decision, turn, group)
        if blocked is not None:
            summary.calls_blocked += 1
            pre.outcome, pre.notable = f"BLOCKED: {blocked}", True
            result = json.dumps({"error": blocked}, ensure_ascii=False)
            _, post = self._fire(
                "post_tool_call",
                lambda: self.hooks.post_tool_call(
                    tool_name=call.name,
                    args=args,
                    result=result,
                    **ids,
                    duration_ms=0,
                    status="blocked",
                    error_type="plugin_block",
                    error_message=blocked,
                    middleware_trace=list(trace),
                ),
                group=group,
            )
            post.detail = "(blocked: the tool did not run; no transform_tool_result)"
            session.append({"role": "tool", "tool_call_id": call.id, "content": result})
            return
        outcome, result, duration_ms = self._run_tool(step, call, args, turn, group)
        error_type = "tool_error" if outcome.status == "error" else None
        error_message = (outcome.error or result) if outcome.status == "error" else None
        if outcome.status == "ok":
            turn.changed.update(outcome.changed_paths)
        after: ToolResult = {
            "tool_name": call.name,
            "args": args,
            "result": result,
            **ids,
            "duration_ms": duration_ms,
            "status": outcome.status,
            "error_type": error_type,
            "error_message": error_message,
        }
        self._fire(
            "post_tool_call",
            lambda: self.hooks.post_tool_call(**after, middleware_trace=list(trace)),
            group=group,
            detail=f"({outcome.status}, {duration_ms} ms)",
        )
        replaced, transform = self._fire(
            "transform_tool_result",
            lambda: self.hooks.transform_tool_result(**after),
            group=group,
        )
        if replaced is not None:
            summary.results_transformed += 1
            transform.outcome, transform.notable = f"result replaced: {replaced!r}"[:120], True
            result = replaced
        session.append({"role": "tool", "tool_call_id": call.id, "content": result})

    def _approval(
        self: HostParts,
        call: ToolCall,
        args: dict[str, Any],
        decision: ToolDecision,
        turn: TurnState,
        group: str,
    ) -> str | None:
        """Ask the approval gate (the ``--approve`` policy); the block message or None."""
        summary = self.timeline.summary
        summary.approvals_requested += 1
        command = args.get("command") if isinstance(args.get("command"), str) else None
        request = ApprovalRequest(
            command=command or f"{call.name} {json.dumps(args, ensure_ascii=False)}",
            description=decision.message or f"plugin approval required for {call.name}",
            pattern_key=decision.rule_key or call.name,
            pattern_keys=[decision.rule_key or call.name],
            session_key=self._session_key,
            surface=self.surface,
            turn_id=turn.turn_id,
            tool_call_id=call.id,
        )
        self._fire(
            "pre_approval_request",
            lambda: self.hooks.pre_approval_request(**request),
            group=group,
        )
        choice = "once" if self.approve == "allow" else "deny"
        _, step = self._fire(
            "post_approval_response",
            lambda: self.hooks.post_approval_response(**request, choice=choice),
            group=group,
        )
        step.outcome, step.notable = f"--approve {self.approve}: {choice}", True
        if choice == "deny":
            summary.approvals_denied += 1
            return f"BLOCKED: plugin approval required for {call.name}"  # fail closed
        return None

    def _run_tool(
        self: HostParts,
        step: ModelStep,
        call: ToolCall,
        args: dict[str, Any],
        turn: TurnState,
        group: str,
    ) -> tuple[ToolOutcome, str, int]:
        """Run the tool (with its children and the terminal transform); return the
        outcome, the result string and ``duration_ms``."""
        session = self.session
        children = self.runner.subagents(step, call, args) if call.name == "delegate_task" else []
        for child in children:
            _child_started(self, child, turn, group)
        started = time.perf_counter()
        outcome = middleware_steps.tool_execution(
            self, call.name, args, lambda effective: self.runner.run(step, call, effective), group
        )
        measured = int((time.perf_counter() - started) * 1000)
        for child in children:  # after every child finished (as_completed drained)
            _child_stopped(self, child, turn, group)
        if call.name == "terminal" and outcome.output is not None:
            output = outcome.output
            returncode = outcome.returncode or 0
            if not outcome.background:
                captured = output
                replaced, transform = self._fire(
                    "transform_terminal_output",
                    lambda: self.hooks.transform_terminal_output(
                        command=str(args.get("command", "")),
                        output=captured,
                        returncode=returncode,
                        task_id=session.session_id,
                        env_type=self._header.env_type,
                    ),
                    group=group,
                )
                if replaced is not None:
                    self.timeline.summary.terminal_outputs_transformed += 1
                    transform.outcome, transform.notable = "output replaced", True
                    output = replaced
            result = terminal_result(cap_output(output), returncode)
        else:
            result = outcome.content if outcome.content is not None else ""
            if outcome.status == "error" and outcome.content is None:
                result = json.dumps({"error": outcome.error or "tool error"}, ensure_ascii=False)
        duration = outcome.duration_ms if outcome.duration_ms is not None else measured
        if outcome.error is not None and outcome.status == "error":
            self.timeline.entry.notes.append(f"tool call {call.id} ({call.name}): {outcome.error}")
        return outcome, result, duration


def _child_started(host: HostParts, child: SubagentRun, turn: TurnState, group: str) -> None:
    """Fire ``subagent_start`` for one child of a ``delegate_task`` call."""
    host._fire(
        "subagent_start",
        lambda: host.hooks.subagent_start(
            parent_session_id=host.session.session_id,
            parent_turn_id=turn.turn_id,
            parent_subagent_id=None,
            child_session_id=child.child_session_id,
            child_subagent_id=child.child_subagent_id,
            child_role=child.role,
            child_goal=child.goal,
        ),
        group=group,
    )


def _child_stopped(host: HostParts, child: SubagentRun, turn: TurnState, group: str) -> None:
    """Fire ``subagent_stop`` for one child, once every child has finished."""
    host._fire(
        "subagent_stop",
        lambda: host.hooks.subagent_stop(
            parent_session_id=host.session.session_id,
            parent_turn_id=turn.turn_id,
            child_session_id=child.child_session_id,
            child_role=child.role,
            child_summary=child.summary,
            child_status=child.status,
            tool_call_history=list(child.tool_call_history),
            duration_ms=child.duration_ms,
        ),
        group=group,
    )


def _args_text(args: dict[str, Any], limit: int = 70) -> str:
    text = json.dumps(args, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"
