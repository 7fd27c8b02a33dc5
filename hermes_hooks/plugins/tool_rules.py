"""What a Python plugin may register, and when: the rules ``ctx`` enforces loudly.

:func:`while_registering` makes a ``ctx.register_*`` method work only while the
plugin's ``register()`` runs; :func:`tool_holder` says who already holds a tool name a
plugin asks for; :func:`report` is the one way to log a finding about a plugin and keep
it for ``list`` and ``doctor``.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from hermes_hooks import _hermes_names
from hermes_hooks._log import get_logger

if TYPE_CHECKING:
    from hermes_hooks._capabilities import HostCapabilities
    from hermes_hooks.plugins.record import PluginRecord
    from hermes_hooks.plugins.registry import PluginRegistry

__all__ = ["report", "tool_holder", "while_registering"]

log = get_logger("hermes_hooks.plugins")

F = TypeVar("F", bound=Callable[..., Any])


def report(record: PluginRecord, message: str, *, gate: bool) -> None:
    """Log ``message`` about a plugin and keep it on its ``record``: an ERROR and a doctor
    error when it leaves a guard switched off (``gate``), else a warning."""
    log.log(logging.ERROR if gate else logging.WARNING, "%s", message)
    record.note(message, gate=gate)


def while_registering(method: F) -> F:
    """Make a ``ctx.register_*`` method work only while the plugin's ``register()``
    runs.

    A plugin that keeps ``ctx`` and registers later (from a thread it started, a
    callback, a timer) would make a hook live behind the loader's back: in a plugin
    whose ``register()`` raised, a gate nobody sees in ``list``.  So once
    ``register()`` has returned or raised, the call registers nothing and logs an ERROR
    naming the plugin and what it tried (a doctor error too).  The check and the
    registration hold the context's lock, so a registration racing the close either
    lands before it (and a failed load then removes it) or is refused.
    """

    @functools.wraps(method)
    def guarded(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        with ctx._open_lock:
            if ctx._closed is None:
                return method(ctx, *args, **kwargs)
            record = ctx._record
            shown = f"{args[0]!r}, ..." if args else ""
            report(
                record,
                f"Plugin '{record.key}' called ctx.{method.__name__}({shown}) after its "
                f"register() {ctx._closed}: refused, nothing registered. Fix: make every "
                "registration inside register(ctx)",
                gate=True,
            )
            return None

    return guarded  # type: ignore[return-value]


def tool_holder(
    registry: PluginRegistry,
    host: HostCapabilities,
    plugin: str,
    name: str,
    toolset: str,
) -> tuple[str, bool] | None:
    """Who holds tool ``name`` when ``plugin`` may not simply take it, in words ("the
    built-in tool 'terminal' (toolset 'terminal')"), and whether both toolsets are MCP
    servers; None when nobody does.

    The host's built-in tools are ``host.builtin_tools`` (hermes-agent's when the host
    named none).  A plugin re-registering its own tool in the same toolset replaces
    it, as hermes-agent does; moving it to another toolset counts as a takeover.
    """
    existing = registry.tools.get(name)
    if existing is not None:
        if existing.plugin == plugin and existing.toolset == toolset:
            return None
        holder_toolset = existing.toolset
        who = (
            f"this plugin's own tool '{name}'"
            if existing.plugin == plugin
            else f"the tool '{name}' of plugin '{existing.plugin}'"
        )
    else:
        builtin: Mapping[str, str] | None = host.builtin_tools
        table = _hermes_names.BUILTIN_TOOLSETS if builtin is None else builtin
        if name not in table:
            return None
        holder_toolset = table[name]
        who = f"the built-in tool '{name}'"
    both_mcp = holder_toolset.startswith("mcp-") and toolset.startswith("mcp-")
    return f"{who} (toolset '{holder_toolset}')", both_mcp
