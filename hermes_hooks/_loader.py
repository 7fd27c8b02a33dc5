"""``load()`` and ``reload()``: build a :class:`~hermes_hooks.hooks.Hooks` from a Hermes
home, and load it again after its files changed.

The manager comes from here, never from import time: importing ``hermes_hooks`` loads
no plugin.  Adapters run in :data:`~hermes_hooks.sources.ADAPTERS` order, so Python
plugins register before shell hooks and shell hooks before outbound webhooks.  Each
adapter receives the frozen :class:`~hermes_hooks._context.LoadContext` of the load,
never the facade.
"""

from __future__ import annotations

import importlib
import os

from hermes_hooks._capabilities import HostCapabilities
from hermes_hooks._context import LoadContext
from hermes_hooks._log import get_logger
from hermes_hooks._manager import HookManager
from hermes_hooks.config import (
    SAFE_MODE_PROBLEM,
    read_config,
    reread_config,
    resolve_home,
    safe_mode,
)
from hermes_hooks.hooks import Hooks
from hermes_hooks.sources import ADAPTERS

__all__ = ["attach_sources", "load", "reload"]

log = get_logger("hermes_hooks")

#: The adapter modules that name their own line when ``HERMES_SAFE_MODE`` skips them
#: (their ``safe_mode_notice()`` logs it): data, so the loader imports no adapter.
_SAFE_MODE_NOTICES = frozenset({"hermes_hooks.gateway.source"})


def load(
    home: str | os.PathLike[str] | None = None,
    *,
    surface: str = "cli",
    accept_hooks: bool = False,
    entry_points: bool = True,
    inspect: bool = False,
    host: HostCapabilities | None = None,
    strict: bool = False,
) -> Hooks:
    """Load every hook system configured in ``home`` for ``surface``.

    ``home`` defaults to ``$HERMES_HOME``, else ``~/.hermes``.  ``accept_hooks`` is
    the ``--accept-hooks`` consent bypass for shell hooks.  ``entry_points=False``
    skips installed plugin distributions (useful to test a home in isolation).
    ``inspect=True`` loads for looking only, as ``list`` and ``doctor`` need: no
    consent prompt or allowlist write, and no background work of the adapters' own
    (such as redelivering a durable outbox).  With ``HERMES_SAFE_MODE`` set nothing
    is loaded.  ``host`` lends plugins what only the agent host can do (``ctx.llm``,
    ``ctx.inject_message``, ``ctx.dispatch_tool``); without it those behave as in
    hermes-agent when the capability is missing.  The result is a context manager:
    ``with load() as hooks:`` closes it on exit.
    ``strict=True`` raises :class:`~hermes_hooks.errors.ConfigError` when
    ``config.yaml`` cannot be used as written, instead of running without its hooks.
    """
    root = resolve_home(home)
    # The options first: a bad surface is refused before any file is read.
    context = LoadContext(
        home=root,
        manager=HookManager(),
        surface=surface,
        inspect=inspect,
        entry_points=entry_points,
        accept_hooks=accept_hooks,
        host=host if host is not None else HostCapabilities(),
    ).with_config(read_config(root, strict=strict))
    hooks = Hooks(context, reloader=reload)
    attach_sources(hooks)
    return hooks


def reload(hooks: Hooks) -> None:
    """Forced reload: remove everything every source registered, read the config
    again, and register each plugin, script and target once.

    The load options (surface, inspect mode, entry points, consent bypass) are those
    of the original load: a home loaded for inspection is reloaded for inspection, so
    a reload never prompts or writes the allowlist where the load did not.  Firings on
    other threads keep the previous callbacks until the new set is complete, so a
    reload never opens a window without the security gates.  A ``config.yaml`` that
    cannot be used skips the reload (an ERROR), keeping everything loaded before.
    """
    config = reread_config(hooks.home)
    if config is None:
        # Unusable now (often: caught mid-write): keep every hook loaded before rather
        # than reload with none, which would switch every gate off.
        log.error(
            "%s cannot be used; reload skipped: the hooks and settings loaded before stay "
            "in effect until it is fixed",
            hooks.home / "config.yaml",
        )
        return
    manager = hooks.manager
    manager.freeze()
    try:
        hooks.unload()
        hooks.rebind(hooks.context.with_config(config))
        attach_sources(hooks)
    finally:
        manager.thaw()


def attach_sources(hooks: Hooks) -> None:
    """Run every adapter of the context's surface (unless in safe mode) into ``hooks``."""
    context = hooks.context
    if safe_mode():
        # A WARNING, not INFO: a troubleshooting switch left on runs the agent unguarded.
        log.warning("%s", SAFE_MODE_PROBLEM)
        for _, module_name, surfaces in ADAPTERS:
            # An adapter that names its own line for this (the gateway's) says it.
            if context.surface in surfaces and module_name in _SAFE_MODE_NOTICES:
                importlib.import_module(module_name).safe_mode_notice()
        return
    # Inspection (list, doctor) travels in the context: each adapter reads it there.
    for name, module_name, surfaces in ADAPTERS:
        if context.surface not in surfaces:
            continue
        module = importlib.import_module(module_name)
        hooks.sources[name] = module.load(context)
    if hooks.telemetry is not None:
        emitter = getattr(hooks.sources.get("gateway"), "emitter", None)
        if emitter is not None:
            hooks.telemetry.watch_gateway(emitter)  # spans for gateway emissions too
        hooks.telemetry.sources_loaded()  # queues to observe from the start, if any
