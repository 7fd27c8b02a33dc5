"""The bridge's takeover of hermes-agent's gateway hooks (``HOOK.yaml`` + ``handler.py``
folders under the home's ``hooks/``).

hermes-agent's gateway keeps one ``gateway.hooks.HookRegistry`` (built when the gateway
runner is), calls its ``discover_and_load()`` at start-up, after plugin discovery, and
fires events with ``await emit(event, context)`` and, for slash commands, ``await
emit_collect("command:<name>", context)``; its ``loaded_hooks`` decides whether
``agent:step`` is emitted at all.  The bridge never sees the runner that owns the
registry, so the takeover is made on the class: those four are replaced by ones that
ask the bridge.  A registry discovered under the bridge loads nothing itself (it
imports no handler); the bridge's hooks load the same folders as hermes-hooks' gateway
source and deliver each event on its per-hook lanes, bounded by
``plugins.hook_callback_timeout``.  Each handler thus fires once, through hermes-hooks.

A registry that discovered before the bridge was installed keeps its own handlers
and fires them itself, once.  When the bridge has no hooks (its load failed), a
registry discovers and fires as hermes-agent wrote it, with an ERROR: gateway hooks are
observers and slash-command policies, better run unbounded than not at all.

``gateway.hooks`` is imported by the gateway process only (importing the gateway
package costs a CLI start about a tenth of a second), so when it is not imported yet
the takeover waits for its import instead of importing it.
"""

from __future__ import annotations

import dataclasses
import importlib.abc
import importlib.machinery
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

from hermes_hooks._log import get_logger

if TYPE_CHECKING:
    from hermes_hooks.gateway.commands import CommandDecision
    from hermes_hooks.gateway.source import GatewaySource
    from hermes_hooks.hooks import Hooks

__all__ = ["GATEWAY_MODULE", "attach_gateway", "command_results", "release", "take_over"]

log = get_logger("hermes_hooks.integrations")

#: hermes-agent's gateway hook module.
GATEWAY_MODULE = "gateway.hooks"
#: What the takeover replaces on its ``HookRegistry`` class.
_REPLACED = ("discover_and_load", "emit", "emit_collect", "loaded_hooks")
#: Set on a registry instance: discovered under the bridge, which delivers its events.
_BRIDGED = "_hermes_hooks_bridged"
#: Set on a registry instance: it loaded its own handlers and fires them itself.
_NATIVE = "_hermes_hooks_native"
_COMMAND = "command:"


class _State:
    """The process's one takeover: the bridge asked, the class patched, the watcher."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.bridge: Any = None
        self.registry: type | None = None
        self.originals: dict[str, Any] = {}
        self.watcher: _AfterImport | None = None


_STATE = _State()


def take_over(bridge: Any) -> None:
    """Route every ``HookRegistry`` of this process through ``bridge`` from now on
    (the newest bridge wins, as it holds the newest hooks); never raises."""
    try:
        with _STATE.lock:
            _STATE.bridge = bridge
            module = sys.modules.get(GATEWAY_MODULE)
            if module is not None:
                _patch(module)
            elif _STATE.watcher is None:
                _STATE.watcher = _AfterImport()
                sys.meta_path.insert(0, _STATE.watcher)
    except Exception:
        log.exception(
            "hermes-hooks bridge: taking over hermes-agent's gateway hooks failed; they "
            "keep running in hermes-agent's own registry, once, without hermes-hooks' lanes"
        )


def release() -> None:
    """Give the ``HookRegistry`` class its own methods back and stop waiting for its
    import (tests, and a bridge that is removed)."""
    with _STATE.lock:
        if _STATE.watcher is not None:
            if _STATE.watcher in sys.meta_path:
                sys.meta_path.remove(_STATE.watcher)
            _STATE.watcher = None
        registry, originals = _STATE.registry, _STATE.originals
        if registry is not None:
            for name, value in originals.items():
                setattr(registry, name, value)
        _STATE.registry, _STATE.originals, _STATE.bridge = None, {}, None


def attach_gateway(hooks: Hooks) -> GatewaySource:
    """Load the gateway hooks of ``hooks``' home into ``hooks`` (its gateway source, as a
    load for the gateway surface has), once; returns that source."""
    existing = hooks.sources.get("gateway")
    if existing is not None:
        return existing  # type: ignore[return-value]
    from hermes_hooks.gateway import source as gateway_source

    context = dataclasses.replace(hooks.context, surface="gateway")
    source = gateway_source.load(context)
    # The hooks are now those of the gateway surface, as `list` and a reload see them.
    hooks.context = context
    hooks.sources["gateway"] = source
    if hooks.telemetry is not None:
        hooks.telemetry.watch_gateway(source.emitter)
    return source


def command_results(decision: CommandDecision) -> list[dict[str, Any]]:
    """What hermes-agent's ``emit_collect("command:<name>")`` returns for
    ``decision``: nothing to allow, else the one result its slash-command dispatch
    reads (``deny`` / ``handled`` with the reply, ``rewrite`` with the new command)."""
    if decision.action == "allow":
        return []
    if decision.action == "rewrite":
        return [
            {
                "decision": "rewrite",
                "command_name": decision.command_name,
                "raw_args": decision.raw_args,
            }
        ]
    result: dict[str, Any] = {"decision": decision.action}
    if decision.reply is not None:
        result["message"] = decision.reply
    return [result]


# -- the patch ---------------------------------------------------------------------------


def _patch(module: ModuleType) -> None:
    """Replace the takeover's four on ``module.HookRegistry`` (once per class)."""
    registry = getattr(module, "HookRegistry", None)
    missing = [n for n in _REPLACED if registry is None or not hasattr(registry, n)]
    if registry is None or missing:
        log.warning(
            "hermes-hooks bridge: this hermes-agent's %s has no HookRegistry.%s; gateway "
            "hooks keep running in hermes-agent's own registry, once, without "
            "hermes-hooks' lanes and timeouts",
            GATEWAY_MODULE,
            ", ".join(missing) or "HookRegistry",
        )
        return
    if _STATE.registry is registry:
        return
    if _STATE.registry is not None:  # the module was imported anew: patch the new class
        for name, value in _STATE.originals.items():
            setattr(_STATE.registry, name, value)
    _STATE.originals = {name: registry.__dict__[name] for name in _REPLACED}
    _STATE.registry = registry
    registry.discover_and_load = _discover_and_load
    registry.emit = _emit
    registry.emit_collect = _emit_collect
    registry.loaded_hooks = property(_loaded_hooks)


def _original(name: str) -> Any:
    return _STATE.originals[name]


def _source(registry: Any) -> GatewaySource | None:
    """The bridge's gateway source for ``registry``'s events, or None when the
    registry fires its own handlers (then loaded, with an ERROR, if needed)."""
    if getattr(registry, _NATIVE, False) or not getattr(registry, _BRIDGED, False):
        return None
    bridge = _STATE.bridge
    if bridge is not None:
        source: GatewaySource | None = bridge.gateway_source()
        if source is not None:
            return source
        if bridge.closed:
            return None  # the agent is exiting: nothing more is delivered
    setattr(registry, _NATIVE, True)
    reason = bridge.reason if bridge is not None else "no bridge is installed"
    log.error(
        "hermes-hooks bridge: %s; hermes-agent's own registry runs the gateway hooks "
        "instead (once, without hermes-hooks' lanes and timeouts)",
        reason,
    )
    _original("discover_and_load")(registry)
    return None


def _discover_and_load(self: Any) -> None:
    """``HookRegistry.discover_and_load`` under the bridge: the bridge's hooks load the
    home's gateway hooks; the registry itself loads none."""
    setattr(self, _BRIDGED, True)
    try:
        source = _source(self)
    except Exception:
        log.exception("hermes-hooks bridge: loading the gateway hooks failed")
        if not getattr(self, _NATIVE, False):
            setattr(self, _NATIVE, True)
            _original("discover_and_load")(self)
        return
    if source is not None:
        log.info(
            "hermes-hooks bridge: %d gateway hook(s) of %s fire through hermes-hooks",
            len(_loaded(source)),
            source.directory,
        )


async def _emit(self: Any, event_type: str, context: dict[str, Any] | None = None) -> None:
    """``HookRegistry.emit`` under the bridge: queue the event on each subscribed
    hook's lane and return."""
    try:
        source = _source(self)
        if source is not None:
            await source.emitter.emit(event_type, context)
            return
    except Exception:
        log.exception("hermes-hooks bridge: emitting %s failed", event_type)
        return
    await _original("emit")(self, event_type, context)


async def _emit_collect(
    self: Any, event_type: str, context: dict[str, Any] | None = None
) -> list[Any]:
    """``HookRegistry.emit_collect`` under the bridge: a ``command:`` event is decided
    by the hooks' command protocol (awaited); any other is queued, with no results."""
    try:
        source = _source(self)
        if source is not None:
            if not (isinstance(event_type, str) and event_type.startswith(_COMMAND)):
                await source.emitter.emit(event_type, context)
                return []
            base = dict(context) if isinstance(context, Mapping) else {}
            args = base.get("args")
            decision = await source.emitter.emit_command(
                event_type[len(_COMMAND) :],
                args if isinstance(args, str) else "",
                base,
            )
            return command_results(decision)
    except Exception:
        log.exception("hermes-hooks bridge: emitting %s failed", event_type)
        return []
    results: list[Any] = await _original("emit_collect")(self, event_type, context)
    return results


def _loaded_hooks(self: Any) -> list[dict[str, Any]]:
    """``HookRegistry.loaded_hooks`` under the bridge: the hooks hermes-hooks loaded,
    described as hermes-agent describes its own."""
    try:
        source = _source(self)
    except Exception:
        log.exception("hermes-hooks bridge: listing the gateway hooks failed")
        source = None
    if source is None:
        native: list[dict[str, Any]] = _original("loaded_hooks").fget(self)
        return native
    return _loaded(source)


def _loaded(source: GatewaySource) -> list[dict[str, Any]]:
    return [
        {
            "name": record.name,
            "description": record.description,
            "events": list(record.events),
            "path": record.path,
        }
        for record in source.records()
        if record.state == "loaded"
    ]


# -- waiting for the import --------------------------------------------------------------


class _AfterImport(importlib.abc.MetaPathFinder):
    """Patches ``gateway.hooks`` as soon as it is imported: finds it with the other
    finders and wraps its loader so the patch follows the module's execution."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        """The module's own spec, its loader wrapped; None for every other module."""
        if fullname != GATEWAY_MODULE:
            return None
        for finder in sys.meta_path:
            find: Callable[..., Any] | None = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec: importlib.machinery.ModuleSpec | None = find(fullname, path, target)
            if spec is None:
                continue
            if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                spec.loader = _PatchingLoader(spec.loader)
            return spec
        return None


class _PatchingLoader(importlib.abc.Loader):
    """A module's own loader, patching the module once it has run."""

    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        """The wrapped loader's module."""
        module: ModuleType | None = self._loader.create_module(spec)
        return module

    def exec_module(self, module: ModuleType) -> None:
        """Run the module, then take its registry over."""
        self._loader.exec_module(module)
        try:
            with _STATE.lock:
                if _STATE.bridge is not None:
                    _patch(module)
        except Exception:
            log.exception(
                "hermes-hooks bridge: taking over hermes-agent's gateway hooks failed; "
                "they keep running in hermes-agent's own registry, once"
            )

    def __getattr__(self, name: str) -> Any:
        # get_source, is_package ...: the wrapped loader's (tracebacks read them)
        return getattr(self._loader, name)
