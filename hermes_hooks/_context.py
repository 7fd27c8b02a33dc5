"""What an adapter is given to load from: one frozen :class:`LoadContext` per load.

Adapters used to reach into the :class:`~hermes_hooks.hooks.Hooks` facade for the home,
the config and the load options; the facade then had to know every adapter's needs and
the adapters had to know the facade.  A context is plain data plus the registries
callbacks go into (the manager, the prompt sections, the plugin registry) and what the
host lends plugins, so an adapter depends on
nothing above it and a reload is simply a new context with the config read again.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hermes_hooks._capabilities import HostCapabilities
from hermes_hooks._manager import HookManager
from hermes_hooks.config import Settings
from hermes_hooks.envelope import DEFAULT_PROFILE
from hermes_hooks.plugins.prompt_sections import PromptSections
from hermes_hooks.plugins.registry import PluginRegistry

__all__ = ["SURFACES", "LoadContext"]

#: The surfaces a home can be loaded for.
SURFACES = frozenset({"cli", "gateway"})


@dataclass(frozen=True)
class LoadContext:
    """Everything one load of a Hermes home needs, fixed for that load.

    ``config`` and ``settings`` are what ``config.yaml`` said when the load began; a
    reload builds a new context (:meth:`with_config`) rather than changing this one,
    so a source never sees half of an old config and half of a new one.
    """

    #: The Hermes home (``$HERMES_HOME``, else ``~/.hermes``).
    home: Path
    #: The plugin manager every callback is registered on.
    manager: HookManager = field(default_factory=HookManager)
    #: The parsed ``config.yaml`` (an empty mapping when there is none).
    config: dict[str, Any] = field(default_factory=dict)
    #: The ``plugins:`` settings read from ``config``.
    settings: Settings = field(default_factory=Settings)
    #: ``"cli"`` or ``"gateway"``: which adapters run.
    surface: str = "cli"
    #: Load for looking only (``list``, ``doctor``): no consent prompt, no allowlist
    #: write, no background work of the adapters' own.
    inspect: bool = False
    #: Whether installed plugin distributions are loaded, besides directory plugins.
    entry_points: bool = True
    #: The ``--accept-hooks`` consent bypass for shell hooks.
    accept_hooks: bool = False
    #: The active profile named in shell stdin and webhook bodies.
    profile: str = DEFAULT_PROFILE
    #: System-prompt sections registered by plugins.
    prompt_sections: PromptSections = field(default_factory=PromptSections)
    #: Tools, commands, skills, middleware, providers... that plugins registered.
    registry: PluginRegistry = field(default_factory=PluginRegistry)
    #: What the host lends plugins (``ctx.llm``, ``ctx.inject_message``, ...).
    host: HostCapabilities = field(default_factory=HostCapabilities)

    def __post_init__(self) -> None:
        if self.surface not in SURFACES:
            raise ValueError(f"surface must be one of {sorted(SURFACES)}, not {self.surface!r}")

    @property
    def config_path(self) -> Path:
        """``config.yaml`` of :attr:`home`, for messages that name the file."""
        return self.home / "config.yaml"

    def with_config(self, config: dict[str, Any]) -> LoadContext:
        """This context with ``config`` (and the settings read from it) in place."""
        settings = Settings.from_config(config, str(self.config_path))
        return dataclasses.replace(self, config=config, settings=settings)
