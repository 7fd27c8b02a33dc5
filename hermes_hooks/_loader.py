"""``load()``: build a :class:`~hermes_hooks.hooks.Hooks` from a Hermes home.

The manager comes from here, never from import time: importing ``hermes_hooks`` loads
no plugin.  Adapters run in :data:`~hermes_hooks.adapters.ADAPTERS` order, so Python
plugins register before shell hooks and shell hooks before outbound webhooks.
"""

from __future__ import annotations

import importlib
import logging
import os

from hermes_hooks._manager import HookManager
from hermes_hooks.adapters import ADAPTERS
from hermes_hooks.config import Settings, read_config, resolve_home, safe_mode
from hermes_hooks.hooks import Hooks

__all__ = ["SURFACES", "attach_sources", "load"]

log = logging.getLogger("hermes_hooks")

SURFACES = frozenset({"cli", "gateway"})


def load(
    home: str | os.PathLike[str] | None = None,
    *,
    surface: str = "cli",
    accept_hooks: bool = False,
    entry_points: bool = True,
    inspect: bool = False,
    strict: bool = False,
) -> Hooks:
    """Load every hook system configured in ``home`` for ``surface``.

    ``home`` defaults to ``$HERMES_HOME``, else ``~/.hermes``.  ``accept_hooks`` is
    the ``--accept-hooks`` consent bypass for shell hooks.  ``entry_points=False``
    skips installed plugin distributions (useful to test a home in isolation).
    ``inspect=True`` loads for looking only, as ``list`` and ``doctor`` need: no
    consent prompt or allowlist write, and no background work of the adapters' own
    (such as redelivering a durable outbox).  With ``HERMES_SAFE_MODE`` set nothing
    is loaded.  ``strict=True`` raises :class:`~hermes_hooks.errors.ConfigError` when
    ``config.yaml`` cannot be used as written, instead of running without its hooks.
    """
    if surface not in SURFACES:
        raise ValueError(f"surface must be one of {sorted(SURFACES)}, not {surface!r}")
    root = resolve_home(home)
    config = read_config(root, strict=strict)
    settings = Settings.from_config(config, str(root / "config.yaml"))
    hooks = Hooks(
        HookManager(),
        home=root,
        surface=surface,
        settings=settings,
        config=config,
        accept_hooks=accept_hooks,
    )
    hooks.load_options = {"entry_points": entry_points, "inspect": inspect}
    if inspect:
        from hermes_hooks.consent import inspecting

        with inspecting():
            attach_sources(hooks)
    else:
        attach_sources(hooks)
    return hooks


def attach_sources(hooks: Hooks) -> None:
    """Run every adapter of ``hooks.surface`` (unless in safe mode) into ``hooks``."""
    if safe_mode():
        log.info("HERMES_SAFE_MODE set — no plugin, shell hook, webhook or gateway hook loaded")
        if hooks.surface == "gateway":  # D-82 names its own line for the gateway
            from hermes_hooks.adapters.gateway import SAFE_MODE_MESSAGE

            logging.getLogger("gateway.hooks").info(SAFE_MODE_MESSAGE)
        return
    for name, module_name, surfaces in ADAPTERS:
        if hooks.surface not in surfaces:
            continue
        module = importlib.import_module(module_name)
        hooks.sources[name] = module.load(hooks)
