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

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from hermes_hooks._log import get_logger
from hermes_hooks.claude.input import TRANSCRIPTS
from hermes_hooks.hookspecs import STREAMING_HOOKS
from hermes_hooks.host.gateway import (
    GatewayBridge,
    GatewayView,
    MessageEvent,
    MessageSource,
    TranscriptStore,
    command_decision,
)
from hermes_hooks.host.model_calls import ModelCalls
from hermes_hooks.host.payloads import (
    GATEWAY_TEXT_LIMIT,
    SessionRotation,
    builtin_classification,
)
from hermes_hooks.host.recording import (
    RESET_COMMANDS,
    Exchange,
    Header,
    Recording,
    slash_command,
)
from hermes_hooks.host.state import SessionState, TurnState
from hermes_hooks.host.timeline import Entry, Step, Timeline, matcher_check
from hermes_hooks.host.tool_calls import ToolCalls
from hermes_hooks.host.tools import RecordedToolRunner, ToolRunner
from hermes_hooks.host.transcript import SessionTranscript

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks
    from hermes_hooks.host.recording import Interrupt

__all__ = [
    "APPROVAL_POLICIES",
    "DEFAULT_MAX_VERIFY_NUDGES",
    "ReferenceHost",
    "delivery_stats",
    "read_max_verify_nudges",
    "replay",
]

log = get_logger("hermes_hooks.host")

#: What the host answers when a hook asks for approval (it has no human to ask):
#: ``deny`` blocks the call, ``allow`` runs it once.
APPROVAL_POLICIES = ("deny", "allow")

#: ``agent.max_verify_nudges`` when the config does not set it.
DEFAULT_MAX_VERIFY_NUDGES = 3

_Answer = TypeVar("_Answer")


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


class ReferenceHost(ModelCalls, ToolCalls):
    """Drives recordings through the hooks of one loaded :class:`~hermes_hooks.hooks.Hooks`.

    ``runner`` executes tool calls (default: the recorded results); ``approve`` is the
    policy for ``approve`` directives (``deny`` or ``allow``); ``max_verify_nudges``
    overrides ``agent.max_verify_nudges``.  :attr:`fired` lists every hook and gateway
    event in firing order (``keep_fired=False`` keeps it empty, for long replays).
    ``on_entry`` is called with each finished timeline entry (to print it at once);
    with ``keep_entries=False`` the timeline then forgets it, so memory stays flat.
    """

    timeline: Timeline
    recording: Recording

    def __init__(
        self,
        hooks: Hooks,
        *,
        runner: ToolRunner | None = None,
        approve: str = "deny",
        max_verify_nudges: int | None = None,
        keep_fired: bool = True,
        on_entry: Callable[[Entry], None] | None = None,
        keep_entries: bool = True,
    ) -> None:
        if approve not in APPROVAL_POLICIES:
            raise ValueError(f"approve must be one of {APPROVAL_POLICIES}, not {approve!r}")
        self.hooks = hooks
        self.runner: ToolRunner = runner or RecordedToolRunner()
        self.approve = approve
        self.max_nudges = (
            max_verify_nudges
            if max_verify_nudges is not None
            else read_max_verify_nudges(hooks.config or {})
        )
        self.surface: str = hooks.surface
        self.fired: list[str] = []
        self._keep_fired = keep_fired
        self._on_entry = on_entry
        self._keep_entries = keep_entries
        self.store = TranscriptStore()
        self._bridge: GatewayBridge | None = None
        # Removers of the transcript files of replayed sessions: run by finish() after
        # the hooks closed, since an async hook may still read its file until then.
        self._transcript_cleanups: list[Callable[[], None]] = []
        self._stream = any(hooks.has_callbacks(name) for name in STREAMING_HOOKS)

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
            on_entry=self._on_entry,
            keep_entries=self._keep_entries,
            started=matcher_check(self.hooks.manager),
        )
        self.timeline = timeline
        self.recording = recording
        self.session = SessionState(header.session_id)
        self._resets = 0
        self._turns = 0
        unsubscribe = self.hooks.subscribe(timeline.listen)
        # Claude Code hooks read the conversation from a transcript file.
        transcript = SessionTranscript(lambda: self.session)
        forget_transcript = TRANSCRIPTS.add(transcript.path)
        self._transcript_cleanups.append(transcript.close)
        if self.surface == "gateway":
            self._bridge = GatewayBridge.create(self.hooks, timeline.listen_gateway)
        try:
            if self._bridge is not None:
                timeline.begin("startup", "", session_id=self.session.session_id)
                self._emit("gateway:startup", {"platforms": [header.platform]})
            for exchange in recording.exchanges:
                self._message(exchange)
            self._shutdown()
        finally:
            unsubscribe()
            forget_transcript()  # no later firing is given this replay's transcript
        return timeline

    def finish(self, flush_timeout: float = 5.0) -> None:
        """Flush the hooks' background work (``hooks.close``), read the outbound
        delivery counts when the adapter reports them, stop the gateway bridge and
        remove the Claude Code transcripts of the replayed sessions."""
        try:
            self.hooks.close(flush_timeout)
        finally:
            if self._bridge is not None:
                self._bridge.close()
                self._bridge = None
            cleanups, self._transcript_cleanups = self._transcript_cleanups, []
            for cleanup in cleanups:
                cleanup()
        if not hasattr(self, "timeline"):
            return
        stats = delivery_stats(self.hooks)
        summary = self.timeline.summary
        if stats is not None and not summary.webhooks_captured:
            summary.webhooks_delivered = stats.get("delivered")
            summary.webhooks_failed = stats.get("failed")
        self.timeline.end()  # records of the flush were filed under the last entry

    # -- firing helpers ----------------------------------------------------------------

    def _fire(self, hook: str, call: Callable[[], _Answer], **step: Any) -> tuple[_Answer, Step]:
        """Fire plugin hook ``hook`` inside a timeline step; return its answer and the step.

        ``call`` is the typed facade call of that very hook (``lambda:
        self.hooks.<hook>(...)``), so the type checker holds every field to the hook's
        signature; a test holds the name to the method called.  The facade is called
        even when no callback listens: a gate's answer carries the arguments the tool
        runs with.
        """
        return self._run(self._open(hook, step), call)

    def _fire_if_heard(
        self, hook: str, call: Callable[[], _Answer], **step: Any
    ) -> tuple[_Answer | None, Step]:
        """:meth:`_fire`, except that with no callback registered the firing is only
        noted (its answer is None) and ``call`` does not run, so a long replay builds
        no history payload nobody reads."""
        opened = self._open(hook, step)
        if not self.hooks.has_callbacks(hook):
            self.timeline.close(opened)
            return None, opened
        return self._run(opened, call)

    def _open(self, hook: str, step: dict[str, Any]) -> Step:
        opened = self.timeline.open(Step(hook, **step))
        if self._keep_fired:
            self.fired.append(hook)
        return opened

    def _run(self, opened: Step, call: Callable[[], _Answer]) -> tuple[_Answer, Step]:
        started = time.perf_counter()
        try:
            answer = call()
        finally:
            opened.duration_ms = round((time.perf_counter() - started) * 1000.0, 3)
            self.timeline.close(opened)
        return answer, opened

    def _emit(
        self, event: str, context: dict[str, Any], command: str | None = None, **step: Any
    ) -> Any:
        """Emit gateway event ``event`` when a gateway emitter is present; for a
        ``command`` (the canonical name of ``command:<name>``), await and return the
        hooks' decision, as a gateway does before it runs the command."""
        if self._bridge is None:
            return None
        opened = self.timeline.open(Step(event, system="gateway", **step))
        started = time.perf_counter()
        if self._keep_fired:
            self.fired.append(event)
        try:
            if command is not None:
                return self._bridge.emit_command(command, str(context.get("args", "")), context)
            return self._bridge.emit(event, context)
        finally:
            opened.duration_ms = round((time.perf_counter() - started) * 1000.0, 3)
            self.timeline.close(opened)

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
                lambda: self.hooks.pre_gateway_dispatch(
                    event=event, gateway=GatewayView([header.platform]), session_store=self.store
                ),
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
            lambda: self.hooks.pre_command(
                surface=self.surface,
                command=name,
                alias_used=typed.lower(),
                args_raw=text.strip()[len(typed) + 1 :].strip(),
                session_key=self._session_key,
                platform=header.platform,
            ),
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
            command=name,
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
        """``/new`` or ``/reset``: finalize the old session, start a new one."""
        old = self.session.session_id
        self._resets += 1
        new = f"{self._header.session_id}-{self._resets + 1}"
        platform = self._header.platform
        gateway = self.surface == "gateway"
        self._emit("session:end", {**self._gateway_base(), "session_key": self._session_key})
        self.session = SessionState(new)  # the replacement exists before the hooks run
        # Only a gateway reset names the old and the new session.
        rotation = SessionRotation(old_session_id=old, new_session_id=new) if gateway else {}
        self._fire(
            "on_session_finalize",
            lambda: self.hooks.on_session_finalize(
                session_id=old, platform=platform, reason="new_session", **rotation
            ),
        )
        self._fire(
            "on_session_reset",
            lambda: self.hooks.on_session_reset(
                session_id=new, platform=platform, reason="new_session", **rotation
            ),
        )
        self._emit("session:reset", {**self._gateway_base(), "session_key": self._session_key})
        self.timeline.entry.notes.append(f"session {old} closed; new session {new}")

    def _shutdown(self) -> None:
        """End of the recording: the surface tears the active session down."""
        self.timeline.begin("shutdown", "", session_id=self.session.session_id)
        active = self.session.session_id if self.session.turns else None
        self._fire(
            "on_session_finalize",
            lambda: self.hooks.on_session_finalize(
                session_id=active, platform=self._header.platform, reason="shutdown"
            ),
        )

    # -- a model turn ------------------------------------------------------------------

    def _turn(self, exchange: Exchange, text: str) -> None:
        header = self._header
        session = self.session
        summary = self.timeline.summary
        summary.turns += 1
        self._turns += 1
        new_session = session.turns == 0
        turn = TurnState(self._turns, f"{session.session_id}:turn-{session.turns + 1}", text)
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
                lambda: self.hooks.on_session_start(
                    session_id=session.session_id, model=header.model, platform=header.platform
                ),
            )
        context, step = self._fire_if_heard(
            "pre_llm_call",
            lambda: self.hooks.pre_llm_call(
                session_id=session.session_id,
                task_id=session.session_id,
                turn_id=turn.turn_id,
                user_message=text,
                conversation_history=session.history,
                is_first_turn=new_session,
                model=header.model,
                platform=header.platform,
                parent_session_id=None,
                sender_id=header.user_id or None,
            ),
        )
        session.turns += 1
        message: dict[str, Any] = {"role": "user", "content": text}
        if context:
            message["api_content"] = f"{text}\n\n{context}"  # Appended, content clean
            step.outcome = f"context appended ({len(context)} characters)"
            summary.context_injected += 1
        session.append(message)

        final, exit_reason, interrupted, failed = self._loop(exchange, turn)

        if final is not None and not interrupted:
            final = self._deliver(final, turn, text)
        completed = final is not None and not interrupted
        self._fire(
            "on_session_end",
            lambda: self.hooks.on_session_end(
                session_id=session.session_id,
                task_id=session.session_id,
                turn_id=turn.turn_id,
                completed=completed,
                failed=failed,
                interrupted=interrupted,
                turn_exit_reason=exit_reason,
                model=header.model,
                platform=header.platform,
            ),
        )
        delivered = final if completed else None
        self._emit(
            "agent:end",
            {**self._agent_context(text), "response": (delivered or "")[:GATEWAY_TEXT_LIMIT]},
        )
        entry.response = delivered
        entry.exit_reason = exit_reason

    def _deliver(self, final: str, turn: TurnState, text: str) -> str:
        """``transform_llm_output`` then ``post_llm_call`` for a final response; returns
        the delivered text (the transformed one replaces it in the history too)."""
        header = self._header
        session = self.session
        replaced, step = self._fire(
            "transform_llm_output",
            lambda: self.hooks.transform_llm_output(
                response_text=final,
                session_id=session.session_id,
                model=header.model,
                platform=header.platform,
            ),
        )
        if replaced:
            step.outcome, step.notable = "response replaced", True
            self.timeline.summary.responses_transformed += 1
            final = replaced
            for index in range(len(session.history) - 1, -1, -1):
                if session.history[index]["role"] == "assistant":  # Delivered
                    session.set_content(index, final)
                    break
        delivered = final
        self._fire_if_heard(
            "post_llm_call",
            lambda: self.hooks.post_llm_call(
                session_id=session.session_id,
                task_id=session.session_id,
                turn_id=turn.turn_id,
                user_message=text,
                assistant_response=delivered,
                conversation_history=session.history,
                model=header.model,
                platform=header.platform,
            ),
        )
        return delivered

    def _loop(self, exchange: Exchange, turn: TurnState) -> tuple[str | None, str, bool, bool]:
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
                self.session.append({"role": "user", "content": nudge})
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

    # -- pre_verify --------------------------------------------------------------------

    def _verify(self, response: str, turn: TurnState, nudges: int) -> str | None:
        """Fire ``pre_verify`` at a would-be final response of a turn that edited files;
        return the nudge message, or None to deliver."""
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
            lambda: self.hooks.pre_verify(
                session_id=self.session.session_id,
                platform=header.platform,
                model=header.model,
                coding=header.coding,
                attempt=nudges,
                final_response=response,
                changed_paths=sorted(turn.changed),
            ),
        )
        if directive is None:
            return None
        self.timeline.summary.verify_nudges += 1
        step.outcome, step.notable = f"continue: {directive.message}", True
        return str(directive.message)


def _stopped(interrupt: Interrupt | None, reason: str) -> str:
    return reason if interrupt is not None else "interrupted_by_system(recording_ended)"


def delivery_stats(hooks: Hooks) -> dict[str, int] | None:
    """Delivery counts from the outbound source, if it reports them.

    The hook point for the outbound adapter: a source named ``outbound`` with a
    ``delivery_stats()`` method returning ``{"delivered": n, "failed": n}`` (after
    ``hooks.close`` flushed the lanes).  Without one the replay says "unknown".
    """
    source = hooks.sources.get("outbound")
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
    hooks: Hooks,
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
