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

import dataclasses
import time
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from hermes_hooks._context import LoadContext
from hermes_hooks._dispatch import Dispatcher
from hermes_hooks._facade import HookCalls
from hermes_hooks._log import get_logger
from hermes_hooks.config import Settings
from hermes_hooks.hookspecs import STREAMING_HOOKS
from hermes_hooks.plugins.prompt_sections import PromptSections
from hermes_hooks.plugins.registry import PluginRegistry
from hermes_hooks.sources import Source
from hermes_hooks.types import DecisionRecord

if TYPE_CHECKING:
    from hermes_hooks._capabilities import HostCapabilities
    from hermes_hooks._manager import HookManager
    from hermes_hooks.gateway.emitter import GatewayEmitter
    from hermes_hooks.plugins.middleware import MiddlewareRunner
    from hermes_hooks.telemetry import Telemetry

__all__ = ["Hooks"]

log = get_logger("hermes_hooks")


class Hooks(HookCalls):
    """The hooks of one loaded Hermes home, for one surface (``"cli"`` or ``"gateway"``).

    Built by :func:`hermes_hooks.load`; tests and embedders may also build an empty one
    with :meth:`Hooks.empty` and register callbacks on :attr:`manager`.
    """

    def __init__(
        self, context: LoadContext, *, reloader: Callable[[Hooks], None] | None = None
    ) -> None:
        #: What this home was loaded from, and how (replaced by :meth:`reload`).
        self.context = context
        self._manager = context.manager
        self._dispatcher = Dispatcher(context.manager, context.settings.hook_callback_timeout)
        self.sources: dict[str, Source] = {}
        # The loader's reload, handed in so that this module never imports the loader.
        self._reloader = reloader
        self.telemetry: Telemetry | None = None
        self._instrument()

    @cached_property
    def middleware(self) -> MiddlewareRunner:
        """The four middleware kinds, run over :attr:`registry`'s callbacks; each run is
        reported to the dispatcher's subscribers like a hook callback."""
        # Built on first use: most loads register no middleware, and the module is a
        # millisecond of every load (the runner reads the registry at each call, so
        # building it late changes nothing).
        from hermes_hooks.plugins.middleware import MiddlewareRunner

        return MiddlewareRunner(lambda: self.context.registry.middleware, self._dispatcher.report)

    def _instrument(self) -> None:
        """Choose what the facade fires through: the dispatcher itself, or, with
        OpenTelemetry on, a :class:`~hermes_hooks.telemetry.Telemetry` that wraps each
        firing in a span.  Bound once, so the facade's per-firing cost without
        telemetry is the dispatcher's own."""
        from hermes_hooks.telemetry import instrument

        if self.telemetry is not None:
            self.telemetry.close()
        self.telemetry = instrument(self)
        self._firing: Dispatcher | Telemetry = self.telemetry or self._dispatcher
        self._fire: Callable[[str, dict[str, Any]], Any] = (
            self.telemetry.entry() if self.telemetry is not None else self._dispatcher.fire
        )

    @classmethod
    def empty(
        cls, home: Path | None = None, *, settings: Settings | None = None, surface: str = "cli"
    ) -> Hooks:
        """A :class:`Hooks` with the catalogue and no callbacks (nothing discovered)."""
        context = LoadContext(home=home or Path.cwd(), settings=settings or Settings())
        return cls(dataclasses.replace(context, surface=surface))

    def rebind(self, context: LoadContext) -> None:
        """Use ``context`` from now on (the loader's reload calls this between unloading
        the old sources and loading the new ones)."""
        self.context = context
        self._dispatcher.timeout = context.settings.hook_callback_timeout
        self._instrument()  # telemetry.otel may have changed

    # -- what was loaded -----------------------------------------------------------------

    @property
    def home(self) -> Path:
        """The Hermes home this was loaded from."""
        return self.context.home

    @property
    def surface(self) -> str:
        """``"cli"`` or ``"gateway"``."""
        return self.context.surface

    @property
    def settings(self) -> Settings:
        """The ``plugins:`` settings of the config as last (re)loaded."""
        return self.context.settings

    @property
    def config(self) -> dict[str, Any]:
        """The parsed ``config.yaml`` as last (re)loaded."""
        return self.context.config

    @property
    def profile(self) -> str:
        """The active profile named in shell stdin and webhook bodies."""
        return self.context.profile

    @property
    def prompt_sections(self) -> PromptSections:
        """System-prompt sections registered by plugins."""
        return self.context.prompt_sections

    @property
    def registry(self) -> PluginRegistry:
        """Tools, commands, skills, middleware, providers... that plugins registered,
        each attributed to its plugin, for the host to use."""
        return self.context.registry

    @property
    def host(self) -> HostCapabilities:
        """What the host lends plugins (``ctx.llm``, ``ctx.inject_message``, ...)."""
        return self.context.host

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
        emitter = getattr(self.sources.get("gateway"), "emitter", None)
        if emitter is not None:  # no import on this path: a host asks at every emit
            return cast("GatewayEmitter", emitter)
        from hermes_hooks.gateway.emitter import GatewayEmitter

        return GatewayEmitter(0.0)

    def invoke(self, name: str, **payload: Any) -> list[Any]:
        """Fire hook ``name``; return the raw non-None results, after isolation."""
        return self._firing.fire_all(name, payload)

    async def ainvoke(self, name: str, **payload: Any) -> list[Any]:
        """The async twin of :meth:`invoke`."""
        import asyncio

        return await asyncio.to_thread(self._firing.fire_all, name, payload)

    def subscribe(self, listener: Callable[[DecisionRecord], None]) -> Callable[[], None]:
        """Receive a :class:`DecisionRecord` per callback run; returns an unsubscribe."""
        return self._dispatcher.subscribe(listener)

    def has_callbacks(self, name: str) -> bool:
        """Whether any callback is registered for ``name``."""
        return bool(self._manager.callbacks(name))

    @property
    def wants_streaming(self) -> bool:
        """Provider calls must use the streaming transport when a stream start,
        delta or end observer is registered (``on_interim_message`` alone does not)."""
        return any(self._manager.callbacks(name) for name in STREAMING_HOOKS)

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

    def __enter__(self) -> Hooks:
        return self

    def __exit__(self, *exc_info: object) -> None:
        """``with load() as hooks:`` closes the hooks on leaving the block."""
        self.close()

    def unload(self) -> None:
        """Remove every callback every source registered (a reload starts from here)."""
        for source in reversed(list(self.sources.values())):
            source.unload()
        self.sources.clear()

    def reload(self) -> None:
        """Forced reload: remove everything every source registered, read the config
        again, and register each plugin, script and target once, with the options of
        the original load (see :func:`hermes_hooks._loader.reload`).

        Firings on other threads keep the previous callbacks until the new set is
        complete, so a reload never opens a window without the security gates.  When
        ``config.yaml`` cannot be used (unreadable, not YAML), the reload is skipped
        with an ERROR and everything loaded before stays.
        """
        if self._reloader is None:
            raise RuntimeError(
                "these hooks were not built by hermes_hooks.load(), so there is nothing to "
                "reload from; build them with load() to reload"
            )
        self._reloader(self)

    async def _afire(self, name: str, payload: dict[str, Any]) -> Any:
        return await self._firing.afire(name, payload)

    # The per-hook methods (``pre_tool_call`` ... and each async twin) come from
    # HookCalls, generated from the catalogue by ``python -m hermes_hooks._gen``.
