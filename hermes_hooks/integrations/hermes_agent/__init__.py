"""The Hermes Agent bridge: a hermes-agent plugin that fires every hook of the agent's
home through one hermes-hooks :class:`~hermes_hooks.hooks.Hooks`.

Installed with the ``hermes-agent`` extra and enabled in the agent's ``config.yaml``
(``plugins: {enabled: [hermes-hooks]}``), hermes-agent loads it through its
``hermes_agent.plugins`` entry-point group and calls :func:`register`.  The bridge then
takes over the agent's hook and middleware dispatch (see :mod:`.bridge`): hermes-agent's
own lists of callbacks are no longer fired, and hermes-hooks, loading the same home,
fires each plugin callback and shell hook exactly once, bounded and fail-closed where
the entry asks.  In the gateway process it takes over the gateway's hook registry as
well (see :mod:`.gateway_hooks`): each ``HOOK.yaml`` handler fires once, on its lane.

Nothing here imports hermes-agent at import time; :func:`register` runs only inside it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ENTRY_POINT_NAME", "MODULE", "register"]

from hermes_hooks.integrations.hermes_agent.names import ENTRY_POINT_NAME, MODULE


def register(ctx: Any) -> None:
    """hermes-agent's plugin entry: install the bridge on the agent's plugin manager.

    Never raises: a bridge that cannot start logs an ERROR and leaves every tool call
    blocked (see :func:`.bridge.install`).  Called with hermes-hooks' own plugin
    context (a home that lists this entry point), it does nothing.
    """
    from hermes_hooks.integrations.hermes_agent.bridge import install

    install(ctx)
