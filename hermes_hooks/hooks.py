"""The typed facade: one keyword-only method per hook, returning the aggregated answer.

A host builds a :class:`Hooks` with :func:`hermes_hooks.load` and calls it at each
firing point::

    hooks = hermes_hooks.load()
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}, ...)
    if decision.blocked:
        ...

Every method passes its keyword payload to the dispatcher, the only code that calls
callbacks; ``a<hook>`` is its async twin.  Nothing here decides order, bounds or
selection.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_hooks._dispatch import Dispatcher
from hermes_hooks._manager import HookManager
from hermes_hooks.adapters import Source
from hermes_hooks.config import Settings
from hermes_hooks.middleware import MiddlewareRunner
from hermes_hooks.plugin_context import HostCapabilities
from hermes_hooks.prompt_sections import PromptSections
from hermes_hooks.registry import PluginRegistry
from hermes_hooks.types import (
    DecisionRecord,
    DispatchDecision,
    ErrorClassification,
    ToolDecision,
    TranscriptionRequest,
    VerifyDirective,
)

if TYPE_CHECKING:
    from hermes_hooks.gateway.emitter import GatewayEmitter

__all__ = ["Hooks"]

log = logging.getLogger("hermes_hooks")


class Hooks:
    """The hooks of one loaded Hermes home, for one surface (``"cli"`` or ``"gateway"``).

    Built by :func:`hermes_hooks.load`; tests and embedders may also build an empty one
    with :meth:`Hooks.empty` and register callbacks on :attr:`manager`.
    """

    def __init__(
        self,
        manager: HookManager,
        *,
        home: Path,
        surface: str = "cli",
        settings: Settings | None = None,
        config: dict[str, Any] | None = None,
        accept_hooks: bool = False,
    ) -> None:
        self.home = home
        self.surface = surface
        self.settings = settings or Settings()
        self.config: dict[str, Any] = config or {}
        self.accept_hooks = accept_hooks
        #: The active profile named in shell stdin and webhook bodies (D-69).
        self.profile = "default"
        self._manager = manager
        self._dispatcher = Dispatcher(manager, self.settings.hook_callback_timeout)
        # Bound once: every facade call goes straight to the dispatcher.
        self._fire: Callable[[str, dict[str, Any]], Any] = self._dispatcher.fire
        self.sources: dict[str, Source] = {}
        #: System-prompt sections registered by plugins (PS-01..PS-12).
        self.prompt_sections = PromptSections()
        self.load_options: dict[str, Any] = {}
        #: Tools, commands, skills, middleware, providers... that plugins registered.
        self.registry = PluginRegistry()
        #: What the host lends plugins (``ctx.llm``, ``ctx.inject_message``, ...).
        self.host = HostCapabilities()
        #: The four middleware kinds, run over :attr:`registry`'s callbacks.
        self.middleware = MiddlewareRunner(lambda: self.registry.middleware, self._dispatcher._emit)

    @classmethod
    def empty(
        cls, home: Path | None = None, *, settings: Settings | None = None, surface: str = "cli"
    ) -> Hooks:
        """A :class:`Hooks` with the catalogue and no callbacks (nothing discovered)."""
        return cls(HookManager(), home=home or Path.cwd(), surface=surface, settings=settings)

    # -- general entry points ----------------------------------------------------------

    @property
    def manager(self) -> HookManager:
        """The pluggy plugin manager holding every callback."""
        return self._manager

    @property
    def dispatcher(self) -> Dispatcher:
        """The dispatcher (exposed for benchmarks and the reference host)."""
        return self._dispatcher

    @property
    def gateway(self) -> GatewayEmitter:
        """Gateway hooks: ``await hooks.gateway.emit(event, context)`` and friends; an
        emitter without hooks when the gateway surface was not loaded."""
        from hermes_hooks.gateway.emitter import GatewayEmitter

        emitter = getattr(self.sources.get("gateway"), "emitter", None)
        return emitter if isinstance(emitter, GatewayEmitter) else GatewayEmitter(0.0)

    def invoke(self, name: str, **payload: Any) -> list[Any]:
        """Fire hook ``name``; return the raw non-None results, after isolation."""
        return self._dispatcher.fire_all(name, payload)

    async def ainvoke(self, name: str, **payload: Any) -> list[Any]:
        """The async twin of :meth:`invoke`."""
        import asyncio

        return await asyncio.to_thread(self._dispatcher.fire_all, name, payload)

    def subscribe(self, listener: Callable[[DecisionRecord], None]) -> Callable[[], None]:
        """Receive a :class:`DecisionRecord` per callback run; returns an unsubscribe."""
        return self._dispatcher.subscribe(listener)

    def has_callbacks(self, name: str) -> bool:
        """Whether any callback is registered for ``name``."""
        return bool(self._manager.callbacks(name))

    @property
    def wants_streaming(self) -> bool:
        """D-63: provider calls must use the streaming transport when a stream start,
        delta or end observer is registered (``on_interim_message`` alone does not)."""
        return any(
            self._manager.callbacks(name)
            for name in ("on_stream_start", "on_stream_delta", "on_stream_end")
        )

    def close(self, timeout: float = 5.0) -> None:
        """Flush every source's background work within ``timeout`` seconds in total."""
        deadline = time.monotonic() + timeout
        for source in list(self.sources.values()):
            try:
                source.close(max(0.0, deadline - time.monotonic()))
            except Exception:
                log.exception("closing hook source %s failed", source.name)
        self._dispatcher.close_lanes(deadline)
        for callback in self._manager.all_callbacks():
            callback.stop()

    def unload(self) -> None:
        """Remove every callback every source registered (a reload starts from here)."""
        for source in reversed(list(self.sources.values())):
            source.unload()
        self.sources.clear()

    def reload(self) -> None:
        """Forced reload (D-08): remove everything every source registered, read the
        config again, and register each plugin, script and target once.

        Firings on other threads keep the previous callbacks until the new set is
        complete, so a reload never opens a window without the security gates.
        """
        from hermes_hooks._loader import attach_sources
        from hermes_hooks.config import read_config

        self._manager.freeze()
        try:
            self.unload()
            self.config = read_config(self.home)
            self.settings = Settings.from_config(self.config, str(self.home / "config.yaml"))
            self._dispatcher.timeout = self.settings.hook_callback_timeout
            attach_sources(self)
        finally:
            self._manager.thaw()

    async def _afire(self, name: str, payload: dict[str, Any]) -> Any:
        return await self._dispatcher.afire(name, payload)

    # -- one method per catalogue hook (generated once from the catalogue; a test
    #    checks that every hook has one and its async twin) ----------------------------

    def pre_tool_call(self, **payload: Any) -> ToolDecision:
        """Fire ``pre_tool_call``. Fires immediately before every tool execution, once per
        tool call (three parallel calls fire it three times).

        Returns the aggregated :class:`ToolDecision` (D-20..D-22).
        """
        return self._fire("pre_tool_call", payload)

    async def apre_tool_call(self, **payload: Any) -> ToolDecision:
        """The async twin of :meth:`pre_tool_call`."""
        return await self._afire("pre_tool_call", payload)

    def post_tool_call(self, **payload: Any) -> None:
        """Fire ``post_tool_call``. Fires immediately after every tool execution returns,
        whether the result was a success, an error or a ``pre_tool_call`` block (D-24).

        Returns nothing; callbacks only observe.
        """
        self._fire("post_tool_call", payload)

    async def apost_tool_call(self, **payload: Any) -> None:
        """The async twin of :meth:`post_tool_call`."""
        await self._afire("post_tool_call", payload)

    def transform_tool_result(self, **payload: Any) -> str | None:
        """Fire ``transform_tool_result``. Fires after a tool returns, after
        ``post_tool_call`` and before the result joins the conversation; for ``terminal``
        after ``transform_terminal_output``.

        Returns the replacement (``""`` included), or None to keep the original.
        """
        return self._fire("transform_tool_result", payload)

    async def atransform_tool_result(self, **payload: Any) -> str | None:
        """The async twin of :meth:`transform_tool_result`."""
        return await self._afire("transform_tool_result", payload)

    def transform_terminal_output(self, **payload: Any) -> str | None:
        """Fire ``transform_terminal_output``. Fires inside the ``terminal`` tool for a
        foreground command, after bounded capture and before the final output cap (D-27);
        background output never passes here.

        Returns the replacement (``""`` included), or None to keep the original.
        """
        return self._fire("transform_terminal_output", payload)

    async def atransform_terminal_output(self, **payload: Any) -> str | None:
        """The async twin of :meth:`transform_terminal_output`."""
        return await self._afire("transform_terminal_output", payload)

    def pre_llm_call(self, **payload: Any) -> str | None:
        """Fire ``pre_llm_call``. Fires once per turn, before the tool-calling loop (after
        ``on_session_start`` on a new session's first turn, D-40).

        Returns the joined context to append to the user message, or None.
        """
        return self._fire("pre_llm_call", payload)

    async def apre_llm_call(self, **payload: Any) -> str | None:
        """The async twin of :meth:`pre_llm_call`."""
        return await self._afire("pre_llm_call", payload)

    def transform_llm_output(self, **payload: Any) -> str | None:
        """Fire ``transform_llm_output``. Fires once per turn for a non-empty, non-
        interrupted final response, before ``post_llm_call`` and before delivery.

        Returns the replacement, or None to keep the original.
        """
        return self._fire("transform_llm_output", payload)

    async def atransform_llm_output(self, **payload: Any) -> str | None:
        """The async twin of :meth:`transform_llm_output`."""
        return await self._afire("transform_llm_output", payload)

    def post_llm_call(self, **payload: Any) -> None:
        """Fire ``post_llm_call``. Fires once per successful turn, after
        ``transform_llm_output``; not on interruption or when the iteration limit ends the
        turn without a response.

        Returns nothing; callbacks only observe.
        """
        self._fire("post_llm_call", payload)

    async def apost_llm_call(self, **payload: Any) -> None:
        """The async twin of :meth:`post_llm_call`."""
        await self._afire("post_llm_call", payload)

    def pre_verify(self, **payload: Any) -> VerifyDirective | None:
        """Fire ``pre_verify``. Fires at every would-be final response of a turn that edited
        code (again after each nudge, D-35); ``attempt`` counts the nudges already
        applied.

        Returns the directive that keeps the turn going, or None.
        """
        return self._fire("pre_verify", payload)

    async def apre_verify(self, **payload: Any) -> VerifyDirective | None:
        """The async twin of :meth:`pre_verify`."""
        return await self._afire("pre_verify", payload)

    def pre_transcription(self, **payload: Any) -> TranscriptionRequest:
        """Fire ``pre_transcription``. Fires in the STT dispatcher after the provider is
        resolved and before any backend runs.

        Returns the request fields to use (D-28).
        """
        return self._fire("pre_transcription", payload)

    async def apre_transcription(self, **payload: Any) -> TranscriptionRequest:
        """The async twin of :meth:`pre_transcription`."""
        return await self._afire("pre_transcription", payload)

    def pre_api_request(self, **payload: Any) -> None:
        """Fire ``pre_api_request``. Fires on every provider attempt, immediately before the
        request is sent.

        Returns nothing; callbacks only observe.
        """
        self._fire("pre_api_request", payload)

    async def apre_api_request(self, **payload: Any) -> None:
        """The async twin of :meth:`pre_api_request`."""
        await self._afire("pre_api_request", payload)

    def post_api_request(self, **payload: Any) -> None:
        """Fire ``post_api_request``. Fires after a provider response was normalised
        successfully.

        Returns nothing; callbacks only observe.
        """
        self._fire("post_api_request", payload)

    async def apost_api_request(self, **payload: Any) -> None:
        """The async twin of :meth:`post_api_request`."""
        await self._afire("post_api_request", payload)

    def api_request_error(self, **payload: Any) -> None:
        """Fire ``api_request_error``. Fires on every failed provider attempt, with status
        and retry timing.

        Returns nothing; callbacks only observe.
        """
        self._fire("api_request_error", payload)

    async def aapi_request_error(self, **payload: Any) -> None:
        """The async twin of :meth:`api_request_error`."""
        await self._afire("api_request_error", payload)

    def transform_api_error_classification(self, **payload: Any) -> ErrorClassification | None:
        """Fire ``transform_api_error_classification``. Fires once per failed API call,
        before the built-in classifier.

        Returns the winning classification, or None to use the built-in one.
        """
        return self._fire("transform_api_error_classification", payload)

    async def atransform_api_error_classification(
        self, **payload: Any
    ) -> ErrorClassification | None:
        """The async twin of :meth:`transform_api_error_classification`."""
        return await self._afire("transform_api_error_classification", payload)

    def on_stream_start(self, **payload: Any) -> None:
        """Fire ``on_stream_start``. Fires when a streaming LLM response begins.

        Returns nothing; callbacks only observe.
        """
        self._fire("on_stream_start", payload)

    async def aon_stream_start(self, **payload: Any) -> None:
        """The async twin of :meth:`on_stream_start`."""
        await self._afire("on_stream_start", payload)

    def on_stream_delta(self, **payload: Any) -> None:
        """Fire ``on_stream_delta``. Fires for every normalised streaming delta; ``kind`` is
        ``"text"`` or ``"reasoning"`` (reasoning only with
        ``plugins.stream_reasoning_deltas: true``).

        Returns nothing; callbacks only observe.
        """
        if payload.get("kind") == "reasoning" and not self.settings.stream_reasoning_deltas:
            return  # ST-10: reasoning deltas only with the explicit opt-in
        self._fire("on_stream_delta", payload)

    async def aon_stream_delta(self, **payload: Any) -> None:
        """The async twin of :meth:`on_stream_delta`."""
        if payload.get("kind") == "reasoning" and not self.settings.stream_reasoning_deltas:
            return
        await self._afire("on_stream_delta", payload)

    def on_stream_end(self, **payload: Any) -> None:
        """Fire ``on_stream_end``. Fires when a streaming response finishes or errors, after
        the stream closed; ``error`` is ``None`` on success, else the error text (D-62).

        Returns nothing; callbacks only observe.
        """
        self._fire("on_stream_end", payload)

    async def aon_stream_end(self, **payload: Any) -> None:
        """The async twin of :meth:`on_stream_end`."""
        await self._afire("on_stream_end", payload)

    def on_interim_message(self, **payload: Any) -> None:
        """Fire ``on_interim_message``. Fires when a mid-loop assistant message surfaces
        before the final response.

        Returns nothing; callbacks only observe.
        """
        self._fire("on_interim_message", payload)

    async def aon_interim_message(self, **payload: Any) -> None:
        """The async twin of :meth:`on_interim_message`."""
        await self._afire("on_interim_message", payload)

    def on_session_start(self, **payload: Any) -> None:
        """Fire ``on_session_start``. Fires once when a brand-new session runs its first
        turn, before ``pre_llm_call`` (D-40); after a reset, for the new id on its first
        turn.

        Returns nothing; callbacks only observe.
        """
        self._fire("on_session_start", payload)

    async def aon_session_start(self, **payload: Any) -> None:
        """The async twin of :meth:`on_session_start`."""
        await self._afire("on_session_start", payload)

    def on_session_end(self, **payload: Any) -> None:
        """Fire ``on_session_end``. Despite its name it fires at the end of every turn,
        whatever the outcome (D-41); session-level work belongs in
        ``on_session_finalize``.

        Returns nothing; callbacks only observe.
        """
        self._fire("on_session_end", payload)

    async def aon_session_end(self, **payload: Any) -> None:
        """The async twin of :meth:`on_session_end`."""
        await self._afire("on_session_end", payload)

    def on_session_finalize(self, **payload: Any) -> None:
        """Fire ``on_session_finalize``. Fires when a surface tears down an active session:
        ``/new``, idle expiry, shutdown.

        Returns nothing; callbacks only observe.
        """
        self._fire("on_session_finalize", payload)

    async def aon_session_finalize(self, **payload: Any) -> None:
        """The async twin of :meth:`on_session_finalize`."""
        await self._afire("on_session_finalize", payload)

    def on_session_reset(self, **payload: Any) -> None:
        """Fire ``on_session_reset``. Fires at a session boundary after the replacement
        exists; ``session_id`` is the new id.

        Returns nothing; callbacks only observe.
        """
        self._fire("on_session_reset", payload)

    async def aon_session_reset(self, **payload: Any) -> None:
        """The async twin of :meth:`on_session_reset`."""
        await self._afire("on_session_reset", payload)

    def on_skill_lifecycle(self, **payload: Any) -> None:
        """Fire ``on_skill_lifecycle``. Fires after a skill-usage record write was persisted.

        Returns nothing; callbacks only observe.
        """
        self._fire("on_skill_lifecycle", payload)

    async def aon_skill_lifecycle(self, **payload: Any) -> None:
        """The async twin of :meth:`on_skill_lifecycle`."""
        await self._afire("on_skill_lifecycle", payload)

    def subagent_start(self, **payload: Any) -> None:
        """Fire ``subagent_start``. Fires once per child agent, after it is built and before
        it runs.

        Returns nothing; callbacks only observe.
        """
        self._fire("subagent_start", payload)

    async def asubagent_start(self, **payload: Any) -> None:
        """The async twin of :meth:`subagent_start`."""
        await self._afire("subagent_start", payload)

    def subagent_stop(self, **payload: Any) -> None:
        """Fire ``subagent_stop``. Fires once per child after ``delegate_task`` drained its
        children, on the parent's calling thread and serialised there; Python callbacks
        are never moved to a time-limited worker (PL-08).

        Returns nothing; callbacks only observe.
        """
        self._fire("subagent_stop", payload)

    async def asubagent_stop(self, **payload: Any) -> None:
        """The async twin of :meth:`subagent_stop`."""
        await self._afire("subagent_stop", payload)

    def pre_gateway_dispatch(self, **payload: Any) -> DispatchDecision | None:
        """Fire ``pre_gateway_dispatch``. Fires once per inbound, non-internal
        ``MessageEvent``, before authentication and agent dispatch.

        Returns the deciding action, or None for normal dispatch.
        """
        return self._fire("pre_gateway_dispatch", payload)

    async def apre_gateway_dispatch(self, **payload: Any) -> DispatchDecision | None:
        """The async twin of :meth:`pre_gateway_dispatch`."""
        return await self._afire("pre_gateway_dispatch", payload)

    def gateway_platform_event(self, **payload: Any) -> None:
        """Fire ``gateway_platform_event``. Fires for supported native platform events after
        authorisation: ``reaction``, ``message_edited``, ``message_deleted``,
        ``thread_created``, ``thread_renamed`` (Table CAT-T2).

        Returns nothing; callbacks only observe.
        """
        self._fire("gateway_platform_event", payload)

    async def agateway_platform_event(self, **payload: Any) -> None:
        """The async twin of :meth:`gateway_platform_event`."""
        await self._afire("gateway_platform_event", payload)

    def pre_command(self, **payload: Any) -> None:
        """Fire ``pre_command``. Fires before a recognised slash command's handler runs (not
        for ``/stop`` or an in-run ``/approve``).

        Returns nothing; callbacks only observe.
        """
        self._fire("pre_command", payload)

    async def apre_command(self, **payload: Any) -> None:
        """The async twin of :meth:`pre_command`."""
        await self._afire("pre_command", payload)

    def pre_approval_request(self, **payload: Any) -> None:
        """Fire ``pre_approval_request``. Fires before an approval decision is requested; it
        cannot veto (use ``pre_tool_call``).

        Returns nothing; callbacks only observe.
        """
        self._fire("pre_approval_request", payload)

    async def apre_approval_request(self, **payload: Any) -> None:
        """The async twin of :meth:`pre_approval_request`."""
        await self._afire("pre_approval_request", payload)

    def post_approval_response(self, **payload: Any) -> None:
        """Fire ``post_approval_response``. Fires after a prompted or smart decision, a
        timeout, or a failed notification.

        Returns nothing; callbacks only observe.
        """
        self._fire("post_approval_response", payload)

    async def apost_approval_response(self, **payload: Any) -> None:
        """The async twin of :meth:`post_approval_response`."""
        await self._afire("post_approval_response", payload)

    def kanban_task_claimed(self, **payload: Any) -> None:
        """Fire ``kanban_task_claimed``. Fires after the claim commits, in the dispatcher
        process, just before the worker is created.

        Returns nothing; callbacks only observe.
        """
        self._fire("kanban_task_claimed", payload)

    async def akanban_task_claimed(self, **payload: Any) -> None:
        """The async twin of :meth:`kanban_task_claimed`."""
        await self._afire("kanban_task_claimed", payload)

    def kanban_task_completed(self, **payload: Any) -> None:
        """Fire ``kanban_task_completed``. Fires after completion and cleanup, usually in the
        worker process.

        Returns nothing; callbacks only observe.
        """
        self._fire("kanban_task_completed", payload)

    async def akanban_task_completed(self, **payload: Any) -> None:
        """The async twin of :meth:`kanban_task_completed`."""
        await self._afire("kanban_task_completed", payload)

    def kanban_task_blocked(self, **payload: Any) -> None:
        """Fire ``kanban_task_blocked``. Fires after a transition to blocked; the dependency-
        wait path may fire it inside its write transaction.

        Returns nothing; callbacks only observe.
        """
        self._fire("kanban_task_blocked", payload)

    async def akanban_task_blocked(self, **payload: Any) -> None:
        """The async twin of :meth:`kanban_task_blocked`."""
        await self._afire("kanban_task_blocked", payload)

    def on_kanban_worker_spawned(self, **payload: Any) -> None:
        """Fire ``on_kanban_worker_spawned``. Fires after the worker PID (``None`` for remote
        workers, D-54) was persisted, inside the dispatch lock: keep it fast.

        Returns nothing; callbacks only observe.
        """
        self._fire("on_kanban_worker_spawned", payload)

    async def aon_kanban_worker_spawned(self, **payload: Any) -> None:
        """The async twin of :meth:`on_kanban_worker_spawned`."""
        await self._afire("on_kanban_worker_spawned", payload)

    def on_kanban_worker_exited(self, **payload: Any) -> None:
        """Fire ``on_kanban_worker_exited``. Fires after a crashed worker's task was
        recovered and committed.

        Returns nothing; callbacks only observe.
        """
        self._fire("on_kanban_worker_exited", payload)

    async def aon_kanban_worker_exited(self, **payload: Any) -> None:
        """The async twin of :meth:`on_kanban_worker_exited`."""
        await self._afire("on_kanban_worker_exited", payload)

    def on_kanban_worker_stale_claim(self, **payload: Any) -> None:
        """Fire ``on_kanban_worker_stale_claim``. Fires after a claim whose TTL expired is
        reclaimed.

        Returns nothing; callbacks only observe.
        """
        self._fire("on_kanban_worker_stale_claim", payload)

    async def aon_kanban_worker_stale_claim(self, **payload: Any) -> None:
        """The async twin of :meth:`on_kanban_worker_stale_claim`."""
        await self._afire("on_kanban_worker_stale_claim", payload)

    def on_kanban_task_updated(self, **payload: Any) -> None:
        """Fire ``on_kanban_task_updated``. Fires after a committed write outside the
        claim/complete/block cycle; ``changed_fields`` names fields, never values.

        Returns nothing; callbacks only observe.
        """
        self._fire("on_kanban_task_updated", payload)

    async def aon_kanban_task_updated(self, **payload: Any) -> None:
        """The async twin of :meth:`on_kanban_task_updated`."""
        await self._afire("on_kanban_task_updated", payload)

    def on_kanban_dispatch_tick(self, **payload: Any) -> None:
        """Fire ``on_kanban_dispatch_tick``. Fires once per dispatcher tick, after the
        dispatch lock is released (idle and lock- contended ticks too).

        Returns nothing; callbacks only observe.
        """
        self._fire("on_kanban_dispatch_tick", payload)

    async def aon_kanban_dispatch_tick(self, **payload: Any) -> None:
        """The async twin of :meth:`on_kanban_dispatch_tick`."""
        await self._afire("on_kanban_dispatch_tick", payload)
