"""The host side of the gateway: gateway-event emission and the objects that
``pre_gateway_dispatch`` receives.

The reference host is synchronous.  Gateway hooks are asynchronous (``await
hooks.gateway.emit(event, context)``), and their lanes live on the event loop that
emits, so :class:`GatewayBridge` keeps one private loop running in a daemon thread for
the whole replay and hands each emission to it.  When the loaded :class:`Hooks` has no
``gateway`` attribute with an async ``emit`` (the gateway adapter is not installed, or
the surface is ``cli``), gateway events are skipped: :meth:`GatewayBridge.create`
returns None.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hermes_hooks._log import get_logger

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks

__all__ = ["GatewayBridge", "GatewayView", "MessageEvent", "MessageSource", "TranscriptStore"]

log = get_logger("hermes_hooks.host")

#: How long one emission may take before the host gives up waiting (``emit``
#: only enqueues; the awaited ``command:`` scan is bounded per handler).
EMIT_WAIT = 60.0


class GatewayBridge:
    """Runs ``hooks.gateway.emit`` on a private event loop thread."""

    def __init__(self, emitter: Any, listener: Callable[[Any], None] | None = None) -> None:
        self._emitter = emitter
        subscribe = getattr(emitter, "subscribe", None)
        self._unsubscribe: Callable[[], None] | None = (
            subscribe(listener) if listener is not None and callable(subscribe) else None
        )
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="hermes-host-gateway", daemon=True
        )
        self._thread.start()

    @classmethod
    def create(
        cls, hooks: Hooks, listener: Callable[[Any], None] | None = None
    ) -> GatewayBridge | None:
        """A bridge when ``hooks.gateway.emit`` is an async function, else None;
        ``listener`` receives the emitter's call record of each handler run."""
        emitter = hooks.gateway
        emit = getattr(emitter, "emit", None)
        if emit is None or not inspect.iscoroutinefunction(emit):
            return None
        return cls(emitter, listener)

    async def _emit_and_wait(self, event: str, context: dict[str, Any]) -> Any:
        result = await self._emitter.emit(event, context)
        drain = getattr(self._emitter, "drain", None)
        if drain is not None:  # the handlers run now, so their records join this step
            await drain(EMIT_WAIT)
        return result

    def emit(self, event: str, context: dict[str, Any]) -> Any:
        """Emit ``event``, wait for the handlers it queued, and return what ``emit``
        returned (None on failure).

        A failing emission is logged and never reaches the host loop.
        """
        try:
            future = asyncio.run_coroutine_threadsafe(
                self._emit_and_wait(event, context), self._loop
            )
            return future.result(EMIT_WAIT)
        except Exception:
            log.warning("gateway emit of %s failed", event, exc_info=True)
            return None

    def emit_command(self, name: str, args: str, context: dict[str, Any]) -> Any:
        """Fire ``command:<name>`` the way a gateway does, awaiting the hooks' decision
        (their answer is what lets a ``command:`` hook deny a command), then wait for
        the handlers it queued; returns the decision (None on failure, logged)."""

        async def _decide() -> Any:
            decision = await self._emitter.emit_command(
                name,
                args,
                context,
                raw_command=context.get("raw_command"),
                raw_args=context.get("raw_args"),
            )
            drain = getattr(self._emitter, "drain", None)
            if drain is not None:
                await drain(EMIT_WAIT)
            return decision

        try:
            return asyncio.run_coroutine_threadsafe(_decide(), self._loop).result(EMIT_WAIT)
        except Exception:
            log.warning("gateway command %s failed", name, exc_info=True)
            return None

    def close(self) -> None:
        """Stop the private loop (after ``hooks.close`` flushed the lanes)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self._loop.is_closed():
            return

        async def _drain() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        try:
            asyncio.run_coroutine_threadsafe(_drain(), self._loop).result(5.0)
        except Exception:
            log.debug("gateway loop drain failed", exc_info=True)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5.0)
        if not self._thread.is_alive():
            self._loop.close()


def command_decision(result: Any) -> tuple[str, str | None]:
    """Read the decision of a slash command's ``command:`` hooks: the emitter's
    :class:`~hermes_hooks.gateway.commands.CommandDecision` (its ``action`` and
    ``reply``), or a dict or object with ``decision`` (and ``message``); anything else,
    or ``allow``, means "run the command".  Returns ``(decision, message)``.
    """
    if result is None:
        return "allow", None
    read = result.get if isinstance(result, dict) else lambda k: getattr(result, k, None)
    decision = read("action") or read("decision")
    message = read("reply") or read("message")
    text = decision.strip().lower() if isinstance(decision, str) else ""
    return (text or "allow"), (message if isinstance(message, str) else None)


@dataclass
class MessageSource:
    """Where an inbound message came from (``event.source`` in ``pre_gateway_dispatch``)."""

    platform: str
    chat_id: str = ""
    chat_type: str = ""
    user_id: str = ""
    thread_id: str = ""


@dataclass
class MessageEvent:
    """The normalised inbound message ``pre_gateway_dispatch`` receives as ``event``."""

    text: str
    source: MessageSource
    message_id: str = ""
    internal: bool = False


@dataclass
class TranscriptStore:
    """``session_store`` for ``pre_gateway_dispatch``: silent transcript ingestion."""

    ingested: list[tuple[str, Any]] = field(default_factory=list)

    def append_to_transcript(self, session_key: str, message: Any) -> None:
        """Record ``message`` as ingested into the transcript of ``session_key``."""
        self.ingested.append((session_key, message))


@dataclass
class GatewayView:
    """``gateway`` for ``pre_gateway_dispatch``: the replay's stand-in for the runner.

    It has no live platform adapters (``adapters`` is empty), so side-channel sends
    are impossible during a replay, which is what an operator wants.
    """

    platforms: list[str]
    adapters: dict[str, Any] = field(default_factory=dict)
