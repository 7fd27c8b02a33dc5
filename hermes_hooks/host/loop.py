"""The reference host: a small agent loop that fires every hook where the spec says.

A :class:`~hermes_hooks.host.recording.Recording` drives it: user lines start turns
(or run slash commands), assistant lines are the provider's answers, tool results come
from a pluggable :class:`~hermes_hooks.host.tools.ToolRunner`.  The hooks decide, as
they would in a live agent: a blocked call does not run, modified arguments reach the
tool, injected context is appended to the message sent, transforms replace what the
model and the user see.  ``docs/host-and-replay.md`` writes the firing order down; a
test holds this module to it.

Per inbound message (``*`` = gateway surface only, when the loaded hooks have a
gateway emitter)::

    pre_gateway_dispatch*                       (skip drops it, rewrite replaces the text)
    slash command:  pre_command -> command:<name>* -> (new/reset:) session:end* ->
                    on_session_finalize -> on_session_reset -> session:reset*
    model turn:     session:start* (new session) -> agent:start* -> on_session_start
                    (new session) -> pre_llm_call -> per model call [pre_api_request ->
                    on_stream_start/delta/end (streaming) -> post_api_request, or
                    api_request_error -> transform_api_error_classification] ->
                    on_interim_message (text beside tool calls) -> per tool call
                    [pre_tool_call -> pre/post_approval (approve) -> subagent_start
                    (delegate_task) -> the tool -> subagent_stop -> transform_terminal_output
                    (terminal) -> post_tool_call -> transform_tool_result] -> agent:step* ->
                    ... -> pre_verify (edits) -> transform_llm_output -> post_llm_call ->
                    on_session_end -> agent:end*
    end of recording: on_session_finalize (reason "shutdown")
"""

from __future__ import annotations

import copy
import json
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from hermes_hooks.host.gateway import (
    GatewayBridge,
    GatewayView,
    MessageEvent,
    MessageSource,
    TranscriptStore,
    command_decision,
)
from hermes_hooks.host.payloads import (
    GATEWAY_TEXT_LIMIT,
    assistant_message,
    builtin_classification,
    cap_output,
    request_messages,
    sanitise,
    terminal_result,
)
from hermes_hooks.host.recording import (
    RESET_COMMANDS,
    AssistantLine,
    Exchange,
    Header,
    ModelStep,
    Recording,
    ToolCall,
    slash_command,
)
from hermes_hooks.host.timeline import Step, Timeline
from hermes_hooks.host.tools import RecordedToolRunner, ToolOutcome, ToolRunner

__all__ = [
    "APPROVAL_POLICIES",
    "DEFAULT_MAX_VERIFY_NUDGES",
    "ReferenceHost",
    "delivery_stats",
    "read_max_verify_nudges",
    "replay",
]

log = logging.getLogger("hermes_hooks.host")

#: What the host answers when a hook asks for approval (it has no human to ask):
#: ``deny`` blocks the call (D-22), ``allow`` runs it once.
APPROVAL_POLICIES = ("deny", "allow")

#: ``agent.max_verify_nudges`` when the config does not set it (CAT-pre_verify).
DEFAULT_MAX_VERIFY_NUDGES = 3

_STREAM_HOOKS = ("on_stream_start", "on_stream_delta", "on_stream_end")


def read_max_verify_nudges(config: dict[str, Any]) -> int:
    """``agent.max_verify_nudges`` from a parsed config; a bad value warns and uses 3."""
    agent = config.get("agent")
    value = agent.get("max_verify_nudges") if isinstance(agent, dict) else None
    if value is None:
        return DEFAULT_MAX_VERIFY_NUDGES
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        log.warning(
            "config.yaml: agent.max_verify_nudges is %r, not a whole number >= 0; using %d",
            value,
            DEFAULT_MAX_VERIFY_NUDGES,
        )
        return DEFAULT_MAX_VERIFY_NUDGES
    return value


@dataclass
class _Session:
    """The live session of the host: its id, transcript and turn count."""

    session_id: str
    history: list[dict[str, Any]] = field(default_factory=list)
    turns: int = 0


@dataclass
class _Turn:
    """Per-turn counters and correlation ids."""

    number: int
    turn_id: str
    user_message: str
    api_calls: int = 0
    retries: int = 0
    iteration: int = 0
    api_request_id: str = ""
    changed: set[str] = field(default_factory=set)
    streamed: bool = False


class ReferenceHost:
    """Drives recordings through the hooks of one loaded :class:`~hermes_hooks.hooks.Hooks`.

    ``runner`` executes tool calls (default: the recorded results); ``approve`` is the
    policy for ``approve`` directives (``deny`` or ``allow``); ``max_verify_nudges``
    overrides ``agent.max_verify_nudges``.  :attr:`fired` lists every hook and gateway
    event in firing order.
    """

    timeline: Timeline
    recording: Recording

    def __init__(
        self,
        hooks: Any,
        *,
        runner: ToolRunner | None = None,
        approve: str = "deny",
        max_verify_nudges: int | None = None,
    ) -> None:
        if approve not in APPROVAL_POLICIES:
            raise ValueError(f"approve must be one of {APPROVAL_POLICIES}, not {approve!r}")
        self.hooks = hooks
        self.runner: ToolRunner = runner or RecordedToolRunner()
        self.approve = approve
        self.max_nudges = (
            max_verify_nudges
            if max_verify_nudges is not None
            else read_max_verify_nudges(getattr(hooks, "config", {}) or {})
        )
        self.surface: str = getattr(hooks, "surface", "cli")
        self.fired: list[str] = []
        self.store = TranscriptStore()
        self._bridge: GatewayBridge | None = None
        self._stream = any(hooks.has_callbacks(name) for name in _STREAM_HOOKS)

    # -- the whole recording -----------------------------------------------------------

    def replay(self, recording: Recording) -> Timeline:
        """Run every line of ``recording`` through the hooks; return the timeline."""
        header = recording.header
        timeline = Timeline(
            recording.path,
            session_id=header.session_id,
            platform=header.platform,
            model=header.model,
            surface=self.surface,
        )
        self.timeline = timeline
        self.recording = recording
        self.session = _Session(header.session_id)
        self._resets = 0
        self._turns = 0
        unsubscribe = self.hooks.subscribe(timeline.listen)
        if self.surface == "gateway":
            self._bridge = GatewayBridge.create(self.hooks)
        try:
            if self._bridge is not None:
                timeline.begin("startup", "", session_id=self.session.session_id)
                self._emit("gateway:startup", {"platforms": [header.platform]})
            for exchange in recording.exchanges:
                self._message(exchange)
            self._shutdown()
        finally:
            unsubscribe()
        return timeline

    def finish(self, flush_timeout: float = 5.0) -> None:
        """Flush the hooks' background work (``hooks.close``), read the outbound
        delivery counts when the adapter reports them, and stop the gateway bridge."""
        try:
            self.hooks.close(flush_timeout)
        finally:
            if self._bridge is not None:
                self._bridge.close()
                self._bridge = None
        stats = delivery_stats(self.hooks)
        if stats is not None and hasattr(self, "timeline"):
            self.timeline.summary.webhooks_delivered = stats.get("delivered")
            self.timeline.summary.webhooks_failed = stats.get("failed")

    # -- firing helpers ----------------------------------------------------------------

    def _fire(self, hook: str, payload: dict[str, Any], **step: Any) -> tuple[Any, Step]:
        """Fire plugin hook ``hook`` through the facade inside a timeline step."""
        opened = self.timeline.open(Step(hook, **step))
        started = time.perf_counter()
        try:
            answer = getattr(self.hooks, hook)(**payload)
        finally:
            opened.duration_ms = round((time.perf_counter() - started) * 1000.0, 3)
            self.timeline.close(opened)
            self.fired.append(hook)
        return answer, opened

    def _emit(self, event: str, context: dict[str, Any], **step: Any) -> Any:
        """Emit gateway event ``event`` when a gateway emitter is present."""
        if self._bridge is None:
            return None
        opened = self.timeline.open(Step(event, system="gateway", **step))
        started = time.perf_counter()
        try:
            return self._bridge.emit(event, context)
        finally:
            opened.duration_ms = round((time.perf_counter() - started) * 1000.0, 3)
            self.timeline.close(opened)
            self.fired.append(event)

    @property
    def _header(self) -> Header:
        return self.recording.header

    @property
    def _session_key(self) -> str:
        header = self._header
        if header.session_key:
            return str(header.session_key)
        return f"{header.platform}:{header.chat_id or header.user_id or header.session_id}"

    def _gateway_base(self) -> dict[str, Any]:
        header = self._header
        return {"platform": header.platform, "user_id": header.user_id}

    def _agent_context(self, message: str) -> dict[str, Any]:
        header = self._header
        return {
            "platform": header.platform,
            "user_id": header.user_id,
            "chat_id": header.chat_id,
            "thread_id": header.thread_id,
            "chat_type": header.chat_type,
            "session_id": self.session.session_id,
            "message": message[:GATEWAY_TEXT_LIMIT],
        }

    # -- one inbound message -----------------------------------------------------------

    def _message(self, exchange: Exchange) -> None:
        text = exchange.user.text
        command = slash_command(text)
        entry = self.timeline.begin(
            "command" if command else "turn",
            text,
            session_id=self.session.session_id,
            line=exchange.user.line,
        )
        if self.surface == "gateway":
            header = self._header
            event = MessageEvent(
                text=text,
                source=MessageSource(
                    platform=header.platform,
                    chat_id=header.chat_id,
                    chat_type=header.chat_type,
                    user_id=header.user_id,
                    thread_id=header.thread_id,
                ),
                message_id=exchange.user.message_id or f"msg-{exchange.user.line}",
            )
            decision, step = self._fire(
                "pre_gateway_dispatch",
                {
                    "event": event,
                    "gateway": GatewayView([header.platform]),
                    "session_store": self.store,
                },
            )
            if decision is not None and decision.action == "skip":
                step.outcome, step.notable = f"skipped ({decision.reason or 'no reason'})", True
                entry.kind = "dropped"
                entry.notes.append("pre_gateway_dispatch skipped the message: no agent turn")
                return
            if decision is not None and decision.action == "rewrite" and decision.text is not None:
                step.outcome, step.notable = f"rewritten to {decision.text!r}", True
                text = decision.text
                command = slash_command(text)
                entry.kind = "command" if command else "turn"
        if command is not None:
            if exchange.steps:
                entry.notes.append("the rewritten message is a command: recorded turn skipped")
            self._command(command[0], command[1], text)
            return
        if not exchange.steps and exchange.command is not None:
            entry.notes.append("the message was a command when recorded: no model output")
        self._turn(exchange, text)

    # -- slash commands ----------------------------------------------------------------

    def _command(self, name: str, args: str, text: str) -> None:
        self.timeline.summary.commands += 1
        header = self._header
        typed = text.strip().split(None, 1)[0].lstrip("/")
        self._fire(
            "pre_command",
            {
                "surface": self.surface,
                "command": name,
                "alias_used": typed.lower(),
                "args_raw": text.strip()[len(typed) + 1 :].strip(),
                "session_key": self._session_key,
                "platform": header.platform,
            },
        )
        result = self._emit(
            f"command:{name}",
            {
                **self._gateway_base(),
                "command": name,
                "args": args,
                "raw_command": typed.lower(),
                "raw_args": text.strip()[len(typed) + 1 :],
            },
        )
        decision, message = command_decision(result)
        if decision in ("deny", "handled"):
            self.timeline.entry.notes.append(
                f"a gateway hook answered {decision}"
                + (f": {message}" if message else "")
                + "; the command did not run"
            )
            return
        if name in RESET_COMMANDS:
            self._reset()

    def _reset(self) -> None:
        """``/new`` or ``/reset``: finalize the old session, start a new one (D-44)."""
        old = self.session.session_id
        self._resets += 1
        new = f"{self._header.session_id}-{self._resets + 1}"
        platform = self._header.platform
        gateway = self.surface == "gateway"
        self._emit("session:end", {**self._gateway_base(), "session_key": self._session_key})
        finalize: dict[str, Any] = {
            "session_id": old,
            "platform": platform,
            "reason": "new_session",
        }
        reset: dict[str, Any] = {"session_id": new, "platform": platform, "reason": "new_session"}
        if gateway:
            finalize.update(old_session_id=old, new_session_id=new)
            reset.update(old_session_id=old, new_session_id=new)
        self.session = _Session(new)  # the replacement exists before the hooks run
        self._fire("on_session_finalize", finalize)
        self._fire("on_session_reset", reset)
        self._emit("session:reset", {**self._gateway_base(), "session_key": self._session_key})
        self.timeline.entry.notes.append(f"session {old} closed; new session {new}")

    def _shutdown(self) -> None:
        """End of the recording: the surface tears the active session down."""
        self.timeline.begin("shutdown", "", session_id=self.session.session_id)
        active = self.session.session_id if self.session.turns else None
        self._fire(
            "on_session_finalize",
            {"session_id": active, "platform": self._header.platform, "reason": "shutdown"},
        )

    # -- a model turn ------------------------------------------------------------------

    def _turn(self, exchange: Exchange, text: str) -> None:
        header = self._header
        session = self.session
        summary = self.timeline.summary
        summary.turns += 1
        self._turns += 1
        new_session = session.turns == 0
        turn = _Turn(self._turns, f"{session.session_id}:turn-{session.turns + 1}", text)
        entry = self.timeline.entry
        if new_session:
            self._emit(
                "session:start",
                {
                    **self._gateway_base(),
                    "session_id": session.session_id,
                    "session_key": self._session_key,
                },
            )
        self._emit("agent:start", self._agent_context(text))
        if new_session:
            self._fire(
                "on_session_start",
                {
                    "session_id": session.session_id,
                    "model": header.model,
                    "platform": header.platform,
                },
            )
        history_before = copy.deepcopy(session.history)
        context, step = self._fire(
            "pre_llm_call",
            {
                "session_id": session.session_id,
                "task_id": session.session_id,
                "turn_id": turn.turn_id,
                "user_message": text,
                "conversation_history": history_before,
                "is_first_turn": new_session,
                "model": header.model,
                "platform": header.platform,
                "parent_session_id": None,
                "sender_id": header.user_id or None,
            },
        )
        session.turns += 1
        message: dict[str, Any] = {"role": "user", "content": text}
        if context:
            message["api_content"] = f"{text}\n\n{context}"  # D-31: appended, content clean
            step.outcome = f"context appended ({len(context)} characters)"
            summary.context_injected += 1
        session.history.append(message)

        final, exit_reason, interrupted, failed = self._loop(exchange, turn)

        if final is not None and not interrupted:
            replaced, step = self._fire(
                "transform_llm_output",
                {
                    "response_text": final,
                    "session_id": session.session_id,
                    "model": header.model,
                    "platform": header.platform,
                },
            )
            if replaced:
                step.outcome, step.notable = "response replaced", True
                summary.responses_transformed += 1
                final = replaced
                for message in reversed(session.history):  # D-33: the delivered text
                    if message["role"] == "assistant":
                        message["content"] = final
                        break
            self._fire(
                "post_llm_call",
                {
                    "session_id": session.session_id,
                    "task_id": session.session_id,
                    "turn_id": turn.turn_id,
                    "user_message": text,
                    "assistant_response": final,
                    "conversation_history": copy.deepcopy(session.history),
                    "model": header.model,
                    "platform": header.platform,
                },
            )
        completed = final is not None and not interrupted
        self._fire(
            "on_session_end",
            {
                "session_id": session.session_id,
                "task_id": session.session_id,
                "turn_id": turn.turn_id,
                "completed": completed,
                "failed": failed,
                "interrupted": interrupted,
                "turn_exit_reason": exit_reason,
                "model": header.model,
                "platform": header.platform,
            },
        )
        delivered = final if completed else None
        self._emit(
            "agent:end",
            {**self._agent_context(text), "response": (delivered or "")[:GATEWAY_TEXT_LIMIT]},
        )
        entry.response = delivered
        entry.exit_reason = exit_reason

    def _loop(self, exchange: Exchange, turn: _Turn) -> tuple[str | None, str, bool, bool]:
        """The tool-calling loop; returns (final response, exit reason, interrupted, failed)."""
        entry = self.timeline.entry
        steps = exchange.steps
        interrupt = exchange.interrupt
        interrupted_reason = (
            "interrupted_by_user"
            if interrupt is None or interrupt.issuer == "user"
            else f"interrupted_by_system({interrupt.issuer})"
        )
        nudges = 0
        index = 0
        new_iteration = True
        while index < len(steps):
            step = steps[index]
            index += 1
            last = index == len(steps)
            if new_iteration:
                turn.iteration += 1
            answer = step.assistant
            if not self._model_call(answer, turn):  # a failed attempt
                if last:
                    assert answer.error is not None
                    reason = builtin_classification(answer.error)[0]
                    return None, f"api_error({reason})", False, True
                new_iteration = False  # the next line is the retry of this iteration
                continue
            new_iteration = True
            if answer.tool_calls:
                if not self._tool_calls(step, turn):
                    return None, _stopped(interrupt, interrupted_reason), True, False
                continue
            if interrupt is not None and last:
                return None, interrupted_reason, True, False
            if not answer.text:
                return None, "empty_response_exhausted", False, False
            nudge = self._verify(answer.text, turn, nudges)
            if nudge is not None:
                nudges += 1
                self.session.history.append({"role": "user", "content": nudge})
                if not last:
                    continue
                entry.notes.append(
                    "pre_verify asked to continue, but the recording has no further model "
                    "output: the last response is delivered"
                )
            elif not last:
                entry.notes.append(
                    f"{len(steps) - index} recorded model step(s) after this response were not "
                    "replayed (no pre_verify nudge asked for them)"
                )
            finish = answer.finish_reason or "stop"
            return answer.text, f"text_response(finish_reason={finish})", False, False
        if interrupt is not None:
            return None, interrupted_reason, True, False
        entry.notes.append("the recording ends inside this turn")
        return None, "interrupted_by_system(recording_ended)", True, False

    # -- one provider attempt ----------------------------------------------------------

    def _model_call(self, answer: AssistantLine, turn: _Turn) -> bool:
        """Fire the API (and streaming) hooks of one attempt; False if it failed."""
        header = self._header
        session = self.session
        turn.api_calls += 1
        turn.api_request_id = f"{turn.turn_id}:api-{turn.api_calls}"
        sent = request_messages(session.history)
        started = time.time()
        request = sanitise(
            {
                "model": header.model,
                "messages": sent,
                "max_tokens": header.max_tokens,
                "tools": list(header.tools),
                "stream": self._stream or answer.stream,
            }
        )
        common = {
            "task_id": session.session_id,
            "turn_id": turn.turn_id,
            "api_request_id": turn.api_request_id,
            "session_id": session.session_id,
            "platform": header.platform,
            "model": header.model,
            "provider": header.provider,
            "base_url": header.base_url,
            "api_mode": header.api_mode,
            "api_call_count": turn.api_calls,
        }
        char_count = len(json.dumps(sent, ensure_ascii=False))
        group = f"model call {turn.api_calls} (iteration {turn.iteration})"
        self._fire(
            "pre_api_request",
            {
                **common,
                "user_message": turn.user_message,
                "conversation_history": copy.deepcopy(session.history),
                "retry_count": turn.retries,
                "request_messages": sent,
                "message_count": len(sent),
                "tool_count": len(header.tools),
                "approx_input_tokens": char_count // 4,
                "request_char_count": char_count,
                "max_tokens": header.max_tokens,
                "started_at": started,
                "middleware_trace": [],
                "request": request,
            },
            group=group,
        )
        streaming = self._stream or answer.stream
        if streaming:
            self._stream_hooks(answer, turn, group)
        ended = time.time()
        duration = answer.duration if answer.duration is not None else ended - started
        error = answer.error
        if error is not None:
            self.timeline.summary.api_errors += 1
            reason, retryable = builtin_classification(error)
            _, step = self._fire(
                "api_request_error",
                {
                    **common,
                    "api_duration": duration,
                    "started_at": started,
                    "ended_at": ended,
                    "status_code": error.status_code,
                    "retry_count": turn.retries,
                    "max_retries": header.max_retries,
                    "retryable": retryable,
                    "reason": reason,
                    "error": error.message,
                    "request": request,
                },
                group=group,
                notable=True,
                outcome=f"{error.status_code or '-'} {reason}: {error.message}",
            )
            claimed, step = self._fire(
                "transform_api_error_classification",
                {
                    "provider": header.provider,
                    "model": header.model,
                    "status_code": error.status_code,
                    "error_type": error.type,
                    "error_code": error.code,
                    "error_message": error.message,
                    "error_body": error.body,
                    "error": {"message": error.message, "status_code": error.status_code},
                    "approx_tokens": char_count // 4,
                    "context_length": header.context_length,
                    "num_messages": len(sent),
                },
                group=group,
            )
            if claimed is not None:
                step.outcome, step.notable = f"classified as {claimed.reason}", True
            turn.retries += 1
            return False
        turn.retries = 0
        message = assistant_message(answer)
        self._fire(
            "post_api_request",
            {
                **common,
                "api_duration": duration,
                "started_at": started,
                "ended_at": ended,
                "finish_reason": answer.finish_reason
                or ("tool_calls" if answer.tool_calls else "stop"),
                "message_count": len(sent),
                "response_model": header.model,
                "response": sanitise(
                    {"model": header.model, "message": message, "usage": answer.usage}
                ),
                "usage": answer.usage,
                "assistant_message": message,
                "assistant_content_chars": len(answer.text),
                "assistant_tool_call_count": len(answer.tool_calls),
            },
            group=group,
        )
        self.session.history.append(message)
        if answer.text and answer.tool_calls:
            self._fire(
                "on_interim_message",
                {**self._stream_common(turn), "text": answer.text, "already_streamed": streaming},
                group=group,
            )
        return True

    def _stream_common(self, turn: _Turn) -> dict[str, Any]:
        header = self._header
        return {
            "turn_id": turn.turn_id,
            "iteration": turn.iteration,
            "session_id": self.session.session_id,
            "model": header.model,
            "provider": header.provider,
            "surface": header.platform,
        }

    def _stream_hooks(self, answer: AssistantLine, turn: _Turn, group: str) -> None:
        common = self._stream_common(turn)
        self._fire("on_stream_start", dict(common), group=group)
        if answer.error is None:
            if answer.reasoning:
                self._fire(
                    "on_stream_delta",
                    {**common, "delta": answer.reasoning, "kind": "reasoning"},
                    group=group,
                )
            for delta in answer.deltas if answer.deltas is not None else _deltas(answer.text):
                self._fire(
                    "on_stream_delta", {**common, "delta": delta, "kind": "text"}, group=group
                )
        self._fire(
            "on_stream_end",
            {
                **common,
                "final_text": answer.text,
                "finished": answer.error is None,
                "error": answer.error.message if answer.error is not None else None,
            },
            group=group,
        )

    # -- tool calls --------------------------------------------------------------------

    def _tool_calls(self, step: ModelStep, turn: _Turn) -> bool:
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

    def _tool_call(self, step: ModelStep, call: ToolCall, turn: _Turn) -> None:
        summary = self.timeline.summary
        summary.tool_calls += 1
        session = self.session
        group = f"tool {call.name} {call.id} {_args_text(call.arguments)}"
        ids = {
            "task_id": session.session_id,
            "session_id": session.session_id,
            "tool_call_id": call.id,
            "turn_id": turn.turn_id,
            "api_request_id": turn.api_request_id,
        }
        decision, pre = self._fire(
            "pre_tool_call",
            {
                "tool_name": call.name,
                "args": copy.deepcopy(call.arguments),
                **ids,
                "middleware_trace": [],
            },
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
                {
                    "tool_name": call.name,
                    "args": copy.deepcopy(args),
                    "result": result,
                    **ids,
                    "duration_ms": 0,
                    "status": "blocked",
                    "error_type": "plugin_block",
                    "error_message": blocked,
                    "middleware_trace": [],
                },
                group=group,
            )
            post.detail = "(blocked: the tool did not run; no transform_tool_result, D-26)"
            session.history.append({"role": "tool", "tool_call_id": call.id, "content": result})
            return
        outcome, result, duration_ms = self._run_tool(step, call, args, turn, group)
        error_type = "tool_error" if outcome.status == "error" else None
        error_message = (outcome.error or result) if outcome.status == "error" else None
        if outcome.status == "ok":
            turn.changed.update(outcome.changed_paths)
        after = {
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
            {**copy.deepcopy(after), "middleware_trace": []},
            group=group,
            detail=f"({outcome.status}, {duration_ms} ms)",
        )
        replaced, transform = self._fire("transform_tool_result", copy.deepcopy(after), group=group)
        if replaced is not None:
            summary.results_transformed += 1
            transform.outcome, transform.notable = f"result replaced: {replaced!r}"[:120], True
            result = replaced
        session.history.append({"role": "tool", "tool_call_id": call.id, "content": result})

    def _approval(
        self, call: ToolCall, args: dict[str, Any], decision: Any, turn: _Turn, group: str
    ) -> str | None:
        """Ask the approval gate (the ``--approve`` policy); the block message or None."""
        summary = self.timeline.summary
        summary.approvals_requested += 1
        command = args.get("command") if isinstance(args.get("command"), str) else None
        request = {
            "command": command or f"{call.name} {json.dumps(args, ensure_ascii=False)}",
            "description": decision.message or f"plugin approval required for {call.name}",
            "pattern_key": decision.rule_key or call.name,
            "pattern_keys": [decision.rule_key or call.name],
            "session_key": self._session_key,
            "surface": self.surface,
            "turn_id": turn.turn_id,
            "tool_call_id": call.id,
        }
        self._fire("pre_approval_request", dict(request), group=group)
        choice = "once" if self.approve == "allow" else "deny"
        _, step = self._fire("post_approval_response", {**request, "choice": choice}, group=group)
        step.outcome, step.notable = f"--approve {self.approve}: {choice}", True
        if choice == "deny":
            summary.approvals_denied += 1
            return f"BLOCKED: plugin approval required for {call.name}"  # D-22
        return None

    def _run_tool(
        self, step: ModelStep, call: ToolCall, args: dict[str, Any], turn: _Turn, group: str
    ) -> tuple[ToolOutcome, str, int]:
        """Run the tool (with its children and the terminal transform); return the
        outcome, the result string and ``duration_ms``."""
        session = self.session
        children = self.runner.subagents(step, call, args) if call.name == "delegate_task" else []
        for child in children:
            self._fire(
                "subagent_start",
                {
                    "parent_session_id": session.session_id,
                    "parent_turn_id": turn.turn_id,
                    "parent_subagent_id": None,
                    "child_session_id": child.child_session_id,
                    "child_subagent_id": child.child_subagent_id,
                    "child_role": child.role,
                    "child_goal": child.goal,
                },
                group=group,
            )
        started = time.perf_counter()
        outcome = self.runner.run(step, call, args)
        measured = int((time.perf_counter() - started) * 1000)
        for child in children:  # after every child finished (as_completed drained)
            self._fire(
                "subagent_stop",
                {
                    "parent_session_id": session.session_id,
                    "parent_turn_id": turn.turn_id,
                    "child_session_id": child.child_session_id,
                    "child_role": child.role,
                    "child_summary": child.summary,
                    "child_status": child.status,
                    "tool_call_history": copy.deepcopy(child.tool_call_history),
                    "duration_ms": child.duration_ms,
                },
                group=group,
            )
        if call.name == "terminal" and outcome.output is not None:
            output = outcome.output
            returncode = outcome.returncode or 0
            if not outcome.background:
                replaced, transform = self._fire(
                    "transform_terminal_output",
                    {
                        "command": str(args.get("command", "")),
                        "output": output,
                        "returncode": returncode,
                        "task_id": session.session_id,
                        "env_type": self._header.env_type,
                    },
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

    # -- pre_verify --------------------------------------------------------------------

    def _verify(self, response: str, turn: _Turn, nudges: int) -> str | None:
        """Fire ``pre_verify`` at a would-be final response of a turn that edited files;
        return the nudge message, or None to deliver (D-35, D-36)."""
        if not turn.changed or not self.hooks.has_callbacks("pre_verify"):
            return None
        if nudges >= self.max_nudges:
            log.info("pre_verify nudge cap (%d) reached; delivering response", self.max_nudges)
            self.timeline.entry.notes.append(
                f"pre_verify nudge cap ({self.max_nudges}) reached; delivering response"
            )
            return None
        header = self._header
        directive, step = self._fire(
            "pre_verify",
            {
                "session_id": self.session.session_id,
                "platform": header.platform,
                "model": header.model,
                "coding": header.coding,
                "attempt": nudges,
                "final_response": response,
                "changed_paths": sorted(turn.changed),
            },
        )
        if directive is None:
            return None
        self.timeline.summary.verify_nudges += 1
        step.outcome, step.notable = f"continue: {directive.message}", True
        return str(directive.message)


def _stopped(interrupt: Any, reason: str) -> str:
    return reason if interrupt is not None else "interrupted_by_system(recording_ended)"


def _deltas(text: str) -> list[str]:
    """Split a recorded response into word-sized streaming deltas (whitespace kept)."""
    if not text:
        return []
    pieces: list[str] = []
    current = ""
    for char in text:
        current += char
        if char.isspace():
            pieces.append(current)
            current = ""
    if current:
        pieces.append(current)
    return pieces


def _args_text(args: dict[str, Any], limit: int = 70) -> str:
    text = json.dumps(args, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def delivery_stats(hooks: Any) -> dict[str, int] | None:
    """Delivery counts from the outbound source, if it reports them.

    The hook point for the outbound adapter: a source named ``outbound`` with a
    ``delivery_stats()`` method returning ``{"delivered": n, "failed": n}`` (after
    ``hooks.close`` flushed the lanes).  Without one the replay says "unknown".
    """
    source = getattr(hooks, "sources", {}).get("outbound")
    report = getattr(source, "delivery_stats", None)
    if not callable(report):
        return None
    try:
        stats = report()
    except Exception:
        log.warning("outbound delivery_stats() failed", exc_info=True)
        return None
    if not isinstance(stats, dict):
        return None
    return {k: int(v) for k, v in stats.items() if isinstance(v, int)}


def replay(
    recording: Recording,
    hooks: Any,
    *,
    runner: ToolRunner | None = None,
    approve: str = "deny",
    flush_timeout: float = 5.0,
) -> Timeline:
    """Replay ``recording`` through ``hooks`` with a fresh :class:`ReferenceHost`, then
    close ``hooks`` (flushing deliveries for at most ``flush_timeout`` seconds)."""
    host = ReferenceHost(hooks, runner=runner, approve=approve)
    try:
        timeline = host.replay(recording)
    finally:
        host.finish(flush_timeout)
    return timeline
