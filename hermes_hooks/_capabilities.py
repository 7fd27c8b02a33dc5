"""What an agent host lends the hooks of a load: :class:`HostCapabilities`, and the
shape of the model it may lend (:class:`HostModel`).

Every load holds one (``load(host=...)``, else an empty one), so it lives apart from
:mod:`hermes_hooks.plugins.context`, the ``ctx`` of Python plugins, which a home without
plugins never needs to import.  :mod:`hermes_hooks.plugins.context` re-exports it, its
documented home.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

__all__ = ["HostCapabilities", "HostModel"]


@runtime_checkable
class HostModel(Protocol):
    """The host's model, as prompt and agent handlers need it."""

    def complete(
        self,
        prompt: str,
        *,
        model: str | None = None,
        timeout: float | None = None,
        agent: bool = False,
    ) -> str:
        """The model's reply to ``prompt`` (``model``: the handler's ``model`` field,
        None for the host's default; ``agent``: the handler may use tools)."""


@dataclass(frozen=True)
class HostCapabilities:
    """What the agent host lends plugins; every field is optional.

    ``llm(plugin_id)`` returns the model facade ``ctx.llm`` hands that plugin.
    ``inject_message(content, role)`` queues a message into the live conversation and
    says whether it did.  ``dispatch_tool(tool_name, args, **kwargs)`` runs a tool and
    returns its JSON string.  ``profile_name`` overrides the name derived from the home.
    ``builtin_commands`` and ``builtin_tools`` (name → toolset) are the host's own, which
    plugin commands may not take and plugin tools may not take over; they default to
    hermes-agent 0.19.0's slash commands and tools (``{}``: the host has no tools).
    ``hook_model`` answers Claude Code ``type: prompt`` / ``type: agent`` hooks (an
    object with ``complete(prompt, *, model, timeout, agent) -> str``; without one such
    hooks are refused, naming the entry), and ``transcript_path(session_id)`` names a
    session's Claude Code transcript for hooks that read ``transcript_path``.
    """

    llm: Callable[[str], Any] | None = None
    inject_message: Callable[[str, str], bool] | None = None
    dispatch_tool: Callable[..., str] | None = None
    profile_name: str | None = None
    builtin_commands: frozenset[str] | None = None
    builtin_tools: Mapping[str, str] | None = None
    hook_model: HostModel | None = None
    transcript_path: Callable[[str], str | None] | None = None
