""":class:`~hermes_hooks.HostCapabilities` lent by the running hermes-agent: its model
(for ``ctx.llm`` and Claude Code ``type: prompt`` / ``type: agent`` hooks), its tool
dispatch, its message injection and its profile, all through the bridge's own
hermes-agent plugin context."""

from __future__ import annotations

import importlib
from typing import Any

from hermes_hooks._capabilities import HostCapabilities

__all__ = ["AgentModel", "from_agent"]


class AgentModel:
    """The agent's active model, as prompt hooks ask it: one user message, the text of
    the reply.  Calls go through hermes-agent's ``PluginLlm`` under the bridge's plugin
    id, so ``plugins.entries.hermes-hooks.llm`` in the agent's config governs model
    overrides as for any plugin."""

    def __init__(self, plugin_id: str) -> None:
        self._plugin_id = plugin_id

    def complete(
        self,
        prompt: str,
        *,
        model: str | None = None,
        timeout: float | None = None,
        agent: bool = False,
    ) -> str:
        """The model's reply to ``prompt`` (``agent`` is not supported by hermes-agent's
        plugin model facade, which has no tools: the prompt is asked as is)."""
        llm = _plugin_llm(self._plugin_id)
        result = llm.complete(
            [{"role": "user", "content": prompt}],
            model=model,
            timeout=timeout,
            purpose="hermes-hooks prompt hook",
        )
        return str(result.text)


def _plugin_llm(plugin_id: str) -> Any:
    """hermes-agent's model facade for ``plugin_id`` (the module is the agent's,
    importable whenever the agent runs the bridge)."""
    return importlib.import_module("agent.plugin_llm").PluginLlm(plugin_id=plugin_id)


def from_agent(ctx: Any, plugin_id: str) -> HostCapabilities:
    """The capabilities of the agent whose plugin context is ``ctx``."""

    return HostCapabilities(
        llm=_plugin_llm,
        inject_message=ctx.inject_message,
        dispatch_tool=ctx.dispatch_tool,
        profile_name=str(ctx.profile_name),
        hook_model=AgentModel(plugin_id),
    )
