"""The entries of :class:`~hermes_hooks.plugins.registry.PluginRegistry`: one frozen dataclass
per kind of registration a plugin makes through its ``ctx``, naming the plugin.

Public as ``hermes_hooks.plugins.registry.Tool`` (and so on); kept here so that a load whose
plugins register nothing, or a home without plugins, never builds these classes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "AuxiliaryTask",
    "CliCommand",
    "Command",
    "InertHook",
    "Middleware",
    "Platform",
    "Provider",
    "Skill",
    "SlackActionHandler",
    "Tool",
]


@dataclass(frozen=True)
class Tool:
    """A tool from ``ctx.register_tool``: what the host adds to its tool registry."""

    plugin: str
    name: str
    toolset: str
    schema: Mapping[str, Any]
    handler: Callable[..., Any]
    check_fn: Callable[..., Any] | None = None
    requires_env: tuple[Any, ...] = ()
    is_async: bool = False
    description: str = ""
    emoji: str = ""
    override: bool = False


@dataclass(frozen=True)
class Command:
    """A slash command from ``ctx.register_command`` (``name`` without the slash)."""

    plugin: str
    name: str
    handler: Callable[..., Any]
    description: str = "Plugin command"
    args_hint: str = ""


@dataclass(frozen=True)
class CliCommand:
    """A terminal subcommand from ``ctx.register_cli_command``."""

    plugin: str
    name: str
    help: str
    setup_fn: Callable[..., Any]
    handler_fn: Callable[..., Any] | None = None
    description: str = ""


@dataclass(frozen=True)
class Skill:
    """A read-only skill from ``ctx.register_skill``, reachable as ``plugin:name``."""

    plugin: str
    name: str
    path: Path
    description: str = ""
    #: The manifest name the skill is qualified by (the plugin key when empty).
    namespace: str = ""

    @property
    def qualified_name(self) -> str:
        """``<plugin name>:<name>``, the name a host resolves the skill by."""
        return f"{self.namespace or self.plugin}:{self.name}"


@dataclass(frozen=True)
class Middleware:
    """A middleware callback from ``ctx.register_middleware``; ``kind`` may be one this
    version does not run (kept, as hermes-agent keeps it, for forward compatibility)."""

    plugin: str
    kind: str
    callback: Callable[..., Any]


@dataclass(frozen=True)
class Provider:
    """A backend from a ``ctx.register_*_provider``, ``register_context_engine`` or
    ``register_secret_source`` call; ``kind`` names which (``"image_gen"``, ``"tts"``,
    ``"context_engine"``, ``"secret_source"``, ...)."""

    plugin: str
    kind: str
    name: str
    provider: Any


@dataclass(frozen=True)
class AuxiliaryTask:
    """An auxiliary LLM task from ``ctx.register_auxiliary_task``."""

    plugin: str
    key: str
    display_name: str
    description: str
    defaults: Mapping[str, Any]


@dataclass(frozen=True)
class Platform:
    """A gateway platform adapter from ``ctx.register_platform``."""

    plugin: str
    name: str
    label: str
    adapter_factory: Callable[..., Any]
    check_fn: Callable[..., Any]
    validate_config: Callable[..., Any] | None = None
    required_env: tuple[Any, ...] = ()
    install_hint: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SlackActionHandler:
    """A Slack Block Kit action handler from ``ctx.register_slack_action_handler``."""

    plugin: str
    action_id: Any
    callback: Callable[..., Any]


@dataclass(frozen=True)
class InertHook:
    """A callback registered under a hook name outside the catalogue: stored, never
    fired, reported by ``doctor`` as a warning."""

    plugin: str
    hook: str
    callback: Callable[..., Any]
