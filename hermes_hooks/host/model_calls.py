"""The reference host's model-call phase: one provider attempt, fired as
``pre_api_request`` → the streaming observers → ``post_api_request``, or
``api_request_error`` + ``transform_api_error_classification``.

A mixin of :class:`~hermes_hooks.host.loop.ReferenceHost`, split out so each module has
one job; :class:`ModelHost` names what it uses of the host.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from hermes_hooks.host import middleware_steps
from hermes_hooks.host.payloads import (
    ApiAttempt,
    StreamTurn,
    assistant_message,
    builtin_classification,
    sanitise,
)

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks
    from hermes_hooks.host.recording import AssistantLine, Header
    from hermes_hooks.host.state import SessionState, TurnState
    from hermes_hooks.host.timeline import Step, Timeline

__all__ = ["ModelCalls", "ModelHost"]

_Answer = TypeVar("_Answer")


class ModelHost(Protocol):
    """What the model-call phase uses of the host."""

    hooks: Hooks
    timeline: Timeline
    session: SessionState
    _stream: bool

    def _fire(
        self, hook: str, call: Callable[[], _Answer], **step: Any
    ) -> tuple[_Answer, Step]: ...

    def _fire_if_heard(
        self, hook: str, call: Callable[[], _Answer], **step: Any
    ) -> tuple[_Answer | None, Step]: ...

    @property
    def _header(self) -> Header: ...

    def _stream_common(self, turn: TurnState) -> StreamTurn: ...

    def _stream_hooks(self, answer: AssistantLine, turn: TurnState, group: str) -> None: ...


class ModelCalls:
    """The provider-attempt phase of a turn."""

    def _model_call(self: ModelHost, answer: AssistantLine, turn: TurnState) -> bool:
        """Fire the API (and streaming) hooks of one attempt; False if it failed."""
        header = self._header
        session = self.session
        turn.api_calls += 1
        turn.api_request_id = f"{turn.turn_id}:api-{turn.api_calls}"
        sent = session.sent
        started = time.time()
        streaming = self._stream or answer.stream

        def request() -> dict[str, Any]:
            # The sanitised messages are kept up to date by the session.
            return {
                "model": sanitise(header.model),
                "messages": session.sanitised,
                "max_tokens": header.max_tokens,
                "tools": sanitise(list(header.tools)),
                "stream": streaming,
            }

        common = ApiAttempt(
            task_id=session.session_id,
            turn_id=turn.turn_id,
            api_request_id=turn.api_request_id,
            session_id=session.session_id,
            platform=header.platform,
            model=header.model,
            provider=header.provider,
            base_url=header.base_url,
            api_mode=header.api_mode,
            api_call_count=turn.api_calls,
        )
        char_count = session.request_chars
        group = f"model call {turn.api_calls} (iteration {turn.iteration})"
        request, trace = middleware_steps.llm_request(self, request, group)
        self._fire_if_heard(
            "pre_api_request",
            lambda: self.hooks.pre_api_request(
                **common,
                user_message=turn.user_message,
                conversation_history=session.history,
                retry_count=turn.retries,
                request_messages=sent,
                message_count=len(sent),
                tool_count=len(header.tools),
                approx_input_tokens=char_count // 4,
                request_char_count=char_count,
                max_tokens=header.max_tokens,
                started_at=started,
                middleware_trace=list(trace),
                request=request(),
            ),
            group=group,
        )
        middleware_steps.llm_execution(self, request, answer, group)
        if streaming:
            self._stream_hooks(answer, turn, group)
        ended = time.time()
        duration = answer.duration if answer.duration is not None else ended - started
        error = answer.error
        if error is not None:
            self.timeline.summary.api_errors += 1
            reason, retryable = builtin_classification(error)
            retry_count = turn.retries
            _, step = self._fire_if_heard(
                "api_request_error",
                lambda: self.hooks.api_request_error(
                    **common,
                    api_duration=duration,
                    started_at=started,
                    ended_at=ended,
                    status_code=error.status_code,
                    retry_count=retry_count,
                    max_retries=header.max_retries,
                    retryable=retryable,
                    reason=reason,
                    error=error.message,
                    request=request(),
                ),
                group=group,
                notable=True,
                outcome=f"{error.status_code or '-'} {reason}: {error.message}",
            )
            claimed, step = self._fire(
                "transform_api_error_classification",
                lambda: self.hooks.transform_api_error_classification(
                    provider=header.provider,
                    model=header.model,
                    status_code=error.status_code,
                    error_type=error.type,
                    error_code=error.code,
                    error_message=error.message,
                    error_body=error.body,
                    error={"message": error.message, "status_code": error.status_code},
                    approx_tokens=char_count // 4,
                    context_length=header.context_length,
                    num_messages=len(sent),
                ),
                group=group,
            )
            if claimed is not None:
                step.outcome, step.notable = f"classified as {claimed.reason}", True
            turn.retries += 1
            return False
        turn.retries = 0
        message = assistant_message(answer)
        self._fire_if_heard(
            "post_api_request",
            lambda: self.hooks.post_api_request(
                **common,
                api_duration=duration,
                started_at=started,
                ended_at=ended,
                finish_reason=answer.finish_reason
                or ("tool_calls" if answer.tool_calls else "stop"),
                message_count=len(sent),
                response_model=header.model,
                response=sanitise(
                    {"model": header.model, "message": message, "usage": answer.usage}
                ),
                usage=answer.usage,
                assistant_message=message,
                assistant_content_chars=len(answer.text),
                assistant_tool_call_count=len(answer.tool_calls),
            ),
            group=group,
        )
        self.session.append(message)
        if answer.text and answer.tool_calls:
            interim = self._stream_common(turn)
            self._fire(
                "on_interim_message",
                lambda: self.hooks.on_interim_message(
                    **interim, text=answer.text, already_streamed=streaming
                ),
                group=group,
            )
        return True

    def _stream_common(self: ModelHost, turn: TurnState) -> StreamTurn:
        header = self._header
        return StreamTurn(
            turn_id=turn.turn_id,
            iteration=turn.iteration,
            session_id=self.session.session_id,
            model=header.model,
            provider=header.provider,
            surface=header.platform,
        )

    def _stream_hooks(self: ModelHost, answer: AssistantLine, turn: TurnState, group: str) -> None:
        common = self._stream_common(turn)
        self._fire("on_stream_start", lambda: self.hooks.on_stream_start(**common), group=group)
        error = answer.error
        if error is None:
            if answer.reasoning:
                _delta(self, common, answer.reasoning, "reasoning", group)
            for delta in answer.deltas if answer.deltas is not None else _deltas(answer.text):
                _delta(self, common, delta, "text", group)
        self._fire(
            "on_stream_end",
            lambda: self.hooks.on_stream_end(
                **common,
                final_text=answer.text,
                finished=error is None,
                error=error.message if error is not None else None,
            ),
            group=group,
        )


def _delta(host: ModelHost, common: StreamTurn, delta: str, kind: str, group: str) -> None:
    """Fire one ``on_stream_delta`` (a function of its own: the firing's call is built
    per delta, never inside the loop over them)."""
    host._fire(
        "on_stream_delta",
        lambda: host.hooks.on_stream_delta(**common, delta=delta, kind=kind),
        group=group,
    )


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
