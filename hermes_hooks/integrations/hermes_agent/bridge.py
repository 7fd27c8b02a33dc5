"""The bridge installed on hermes-agent's plugin manager.

How hooks fire exactly once: hermes-agent loads the enabled plugins and registers its
``hooks:`` block on its own ``PluginManager`` (``_hooks`` and ``_middleware``), and
every call site reaches them through ``manager.invoke_hook`` / ``has_hook`` and the
``_middleware`` lists.  The bridge **takes over** those three: ``invoke_hook`` and
``has_hook`` are replaced on the manager instance and ``_middleware`` by a mapping that
reads hermes-hooks' middleware.  What hermes-agent registered natively stays where it
is (``hermes plugins list`` still shows it) but is never called; hermes-hooks loads the
same plugins (the home's ``plugins/``, project plugins, pip entry points, the same
``plugins.enabled`` / ``plugins.disabled``) and the same ``hooks:`` block from the same
home, and fires each callback once.  Anything hermes-agent registered that hermes-hooks
did not load (a plugin bundled with hermes-agent) would then not fire at all: the first
firing logs that as an ERROR, and ``hermes-hooks doctor`` reports it beforehand.

In the gateway process the bridge takes over the gateway's hook registry too
(:mod:`.gateway_hooks`): the home's ``HOOK.yaml`` folders are loaded into the same hooks
when the gateway would discover them, and delivered on hermes-hooks' per-hook lanes.

The bridge never raises into the agent: hermes-agent lets a call go ahead when its hook
machinery raises, so any failure here becomes the failure answer of
:func:`.answers.failure_answer` (a blocked ``pre_tool_call``) with an ERROR log.
"""

from __future__ import annotations

import atexit
import importlib
import threading
from typing import TYPE_CHECKING, Any

from hermes_hooks._log import get_logger
from hermes_hooks.integrations.hermes_agent.answers import answer, failure_answer
from hermes_hooks.integrations.hermes_agent.gateway_hooks import attach_gateway, take_over
from hermes_hooks.integrations.hermes_agent.names import ENTRY_POINT_NAME

if TYPE_CHECKING:
    from hermes_hooks.gateway.source import GatewaySource
    from hermes_hooks.hooks import Hooks

__all__ = ["Bridge", "RoutedMiddleware", "install"]

log = get_logger("hermes_hooks.integrations")

#: The attribute of hermes-agent's manager that holds the installed bridge.
_ATTRIBUTE = "_hermes_hooks_bridge"

_installing = threading.local()


class RoutedMiddleware(dict[str, Any]):
    """hermes-agent's ``_middleware`` under the bridge: what plugins register natively
    is stored (and shown by hermes-agent) but every read answers hermes-hooks'
    middleware, which is where the same plugins' callbacks run."""

    def __init__(self, bridge: Bridge, native: dict[str, list[Any]]) -> None:
        super().__init__(native)
        self._bridge = bridge

    def get(self, kind: str, default: Any = None) -> Any:
        """hermes-hooks' callbacks of ``kind`` (``default`` when there are none)."""
        callbacks = self._bridge.middleware(kind)
        return callbacks if callbacks else default


class Bridge:
    """Routes hermes-agent's hook and middleware dispatch through ``hooks``.

    ``hooks`` is None when the home could not be loaded (``error`` says why) or the
    hooks were closed; every ``pre_tool_call`` is then blocked, saying why.
    """

    def __init__(self, hooks: Hooks | None, error: str | None, manager: Any) -> None:
        self.hooks = hooks
        #: Why there are no hooks, as the block message says it.
        self.reason = f"its hooks could not be loaded: {error}"
        self._manager = manager
        self._checked_split = False
        #: Whether :meth:`close` ran (the agent is exiting).
        self.closed = False
        self._gateway_lock = threading.Lock()

    def attach(self) -> None:
        """Take over the manager's dispatch (see the module docstring)."""
        manager = self._manager
        manager.invoke_hook = self.invoke_hook
        manager.has_hook = self.has_hook
        manager._middleware = RoutedMiddleware(self, dict(manager._middleware))
        setattr(manager, _ATTRIBUTE, self)
        take_over(self)  # the gateway's hook registry, in the gateway process

    def close(self) -> None:
        """Close the hooks once (flush webhook lanes, stop persistent hooks); never
        raises."""
        self.closed = True
        hooks, self.hooks = self.hooks, None
        if hooks is None:
            return
        self.reason = "its hooks were closed as the agent exits"
        try:
            hooks.close()
        except Exception:
            log.exception("hermes-hooks bridge: closing the hooks failed")

    # -- what hermes-agent calls ---------------------------------------------------------

    def invoke_hook(self, hook_name: str, **kwargs: Any) -> list[Any]:
        """hermes-agent's ``invoke_hook``: the answer hermes-hooks selected, in the shape
        the call site reads; never raises."""
        if not self._checked_split:
            self._report_split()
        try:
            if self.hooks is None:
                return failure_answer(hook_name, kwargs.get("tool_name"), self.reason)
            return answer(self.hooks, hook_name, kwargs)
        except Exception as exc:  # the agent would let the call go ahead
            log.exception("hermes-hooks bridge: firing %s failed", hook_name)
            reason = f"firing {hook_name} failed: {type(exc).__name__}: {exc}"
            return failure_answer(hook_name, kwargs.get("tool_name"), reason)

    def has_hook(self, hook_name: str) -> bool:
        """Whether hermes-hooks has a callback for ``hook_name`` (the agent skips
        building a payload nobody reads)."""
        try:
            if self.hooks is None:
                return hook_name == "pre_tool_call"
            return self.hooks.has_callbacks(hook_name)
        except Exception:
            log.exception("hermes-hooks bridge: has_hook(%s) failed", hook_name)
            return hook_name == "pre_tool_call"

    def middleware(self, kind: str) -> list[Any]:
        """hermes-hooks' middleware callbacks of ``kind``."""
        if self.hooks is None:
            return []
        try:
            return self.hooks.middleware.callbacks(kind)
        except Exception:
            log.exception("hermes-hooks bridge: reading %s middleware failed", kind)
            return []

    def gateway_source(self) -> GatewaySource | None:
        """The gateway hooks of the home, loaded into the bridge's hooks on first use
        (the agent's gateway discovering its own); None without hooks."""
        hooks = self.hooks
        if hooks is None:
            return None
        with self._gateway_lock:
            return attach_gateway(hooks)

    # -- the split check -----------------------------------------------------------------

    def _report_split(self) -> None:
        """Log, once, every plugin hermes-agent loaded with hooks or middleware that
        hermes-hooks did not load: under the bridge those never fire."""
        self._checked_split = True
        try:
            for key in not_loaded_by_hooks(self._manager, self.hooks):
                log.error(
                    "hermes-agent plugin '%s' registered hooks or middleware that "
                    "hermes-hooks did not load, so under the bridge they never fire. "
                    "Fix: put the plugin where hermes-hooks finds it (the home's plugins/ "
                    "or a pip entry point), or disable the bridge",
                    key,
                )
        except Exception:
            log.exception("hermes-hooks bridge: comparing the loaded plugins failed")


def not_loaded_by_hooks(manager: Any, hooks: Hooks | None) -> list[str]:
    """Keys of the plugins hermes-agent loaded with hooks or middleware that ``hooks``
    did not load."""
    loaded: set[str] = set()
    source = hooks.sources.get("python") if hooks is not None else None
    for record in getattr(source, "records", lambda: [])():
        if record.state == "loaded":
            loaded.update(n for n in (record.key, record.name) if n)
    missing = []
    for key, plugin in getattr(manager, "_plugins", {}).items():
        name = getattr(plugin.manifest, "name", key)
        if key == ENTRY_POINT_NAME or not plugin.enabled:
            continue
        if not (plugin.hooks_registered or plugin.middleware_registered):
            continue
        if key not in loaded and name not in loaded:
            missing.append(key)
    return missing


def install(ctx: Any) -> None:
    """Load the agent's home into one :class:`~hermes_hooks.hooks.Hooks` and take over
    the dispatch of the plugin manager behind ``ctx``; never raises."""
    from hermes_hooks.plugins.context import PluginContext

    if isinstance(ctx, PluginContext) or getattr(_installing, "active", False):
        # hermes-hooks loading a home that enables the bridge: loading it here would
        # load the home again, and again (discovery skips it; this is the backstop).
        log.debug("hermes-hooks bridge: not installed inside hermes-hooks itself")
        return
    manager = getattr(ctx, "_manager", None)
    if manager is None:
        log.error("hermes-hooks bridge: the plugin context has no manager; not installed")
        return
    previous = getattr(manager, _ATTRIBUTE, None)
    _installing.active = True
    try:
        hooks, error = _load(ctx)
    finally:
        _installing.active = False
    if previous is not None and previous.hooks is not None:
        previous.close()  # a forced re-discovery: the new load replaces it
    bridge = Bridge(hooks, error, manager)
    bridge.attach()
    # hermes-agent never closes its plugins: at exit, deliver the queued webhooks and
    # stop persistent hooks' processes, as Hooks.close() does.
    atexit.register(bridge.close)


def _load(ctx: Any) -> tuple[Hooks | None, str | None]:
    """The agent's home loaded with the agent's capabilities, or the reason it failed."""
    try:
        import hermes_hooks
        from hermes_hooks.integrations.hermes_agent.capabilities import from_agent

        plugin_id = getattr(ctx.manifest, "key", None) or ENTRY_POINT_NAME
        # hermes-agent's own answer (profiles included), from the agent running us.
        home = importlib.import_module("hermes_constants").get_hermes_home()
        # The CLI surface: the gateway hooks (HOOK.yaml) are added only when the
        # agent's gateway discovers its own (see .gateway_hooks), so a chat session
        # never imports a gateway handler.
        # strict: a config.yaml that cannot be used as written would otherwise run
        # without the gates it names, in silence; refusing it blocks every tool call.
        hooks = hermes_hooks.load(home, surface="cli", host=from_agent(ctx, plugin_id), strict=True)
    except Exception as exc:
        log.exception(
            "hermes-hooks bridge: loading the agent's home failed; every tool call is "
            "blocked until it loads. Fix: run `hermes-hooks doctor`"
        )
        return None, f"{type(exc).__name__}: {exc}"
    log.info("hermes-hooks bridge: hooks of %s fire through hermes-hooks", home)
    return hooks, None
