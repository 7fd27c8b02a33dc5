"""What plugins register besides hook callbacks, kept for the host to use.

A hook framework runs no tool, slash command or provider itself.  Every such
registration a plugin makes through its ``ctx`` is stored here as a typed, frozen
entry naming the plugin that made it, and is removed when that plugin unloads::

    hooks = hermes_hooks.load()
    for tool in hooks.registry.tools.values():
        host_tools.add(tool.name, tool.schema, tool.handler)

Each view (``tools``, ``commands``, ...) is a read-only mapping or tuple taken at
the moment of the call; only :class:`~hermes_hooks.plugins.context.PluginContext`
writes.  The entry classes (:class:`Tool`, :class:`Command`, ...) are defined in
``hermes_hooks.plugins.registry_entries`` and load on first use, so that every load can hold
a registry without building them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hermes_hooks.plugins.registry_entries import (
        AuxiliaryTask,
        CliCommand,
        Command,
        InertHook,
        Middleware,
        Platform,
        Provider,
        Skill,
        SlackActionHandler,
        Tool,
    )

__all__ = ["PluginRegistry"]


class PluginRegistry:
    """Every non-hook registration of the loaded plugins, by kind, in order."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tools: dict[str, Tool] = {}
        self._commands: dict[str, Command] = {}
        self._cli_commands: dict[str, CliCommand] = {}
        self._skills: dict[str, Skill] = {}
        self._auxiliary_tasks: dict[str, AuxiliaryTask] = {}
        self._platforms: dict[str, Platform] = {}
        self._middleware: list[Middleware] = []
        self._providers: list[Provider] = []
        self._slack_action_handlers: list[SlackActionHandler] = []
        self._inert_hooks: list[InertHook] = []

    # -- read-only views ------------------------------------------------------------

    @property
    def tools(self) -> Mapping[str, Tool]:
        """Tools by name."""
        return self._view(self._tools)

    @property
    def commands(self) -> Mapping[str, Command]:
        """Slash commands by name (no leading ``/``)."""
        return self._view(self._commands)

    @property
    def cli_commands(self) -> Mapping[str, CliCommand]:
        """Terminal subcommands by name."""
        return self._view(self._cli_commands)

    @property
    def skills(self) -> Mapping[str, Skill]:
        """Skills by qualified name ``plugin:name``."""
        return self._view(self._skills)

    @property
    def auxiliary_tasks(self) -> Mapping[str, AuxiliaryTask]:
        """Auxiliary tasks by key."""
        return self._view(self._auxiliary_tasks)

    @property
    def platforms(self) -> Mapping[str, Platform]:
        """Gateway platform adapters by name."""
        return self._view(self._platforms)

    @property
    def middleware(self) -> tuple[Middleware, ...]:
        """Middleware callbacks in registration order (the order they run in)."""
        return self._snapshot(self._middleware)

    @property
    def providers(self) -> tuple[Provider, ...]:
        """Providers, context engines and secret sources, in registration order."""
        return self._snapshot(self._providers)

    @property
    def slack_action_handlers(self) -> tuple[SlackActionHandler, ...]:
        """Slack action handlers in registration order."""
        return self._snapshot(self._slack_action_handlers)

    @property
    def inert_hooks(self) -> tuple[InertHook, ...]:
        """Callbacks kept under hook names outside the catalogue (never fired)."""
        return self._snapshot(self._inert_hooks)

    @property
    def context_engine(self) -> Provider | None:
        """The one context engine, when a plugin registered it."""
        return next((p for p in self.providers if p.kind == "context_engine"), None)

    def middleware_for(self, kind: str) -> tuple[Callable[..., Any], ...]:
        """The callbacks of one middleware kind, in registration order."""
        return tuple(m.callback for m in self.middleware if m.kind == kind)

    def _view(self, table: dict[str, Any]) -> Mapping[str, Any]:
        with self._lock:  # a copy taken whole, never mid-write
            return MappingProxyType(dict(table))

    def _snapshot(self, items: list[Any]) -> tuple[Any, ...]:
        with self._lock:
            return tuple(items)

    # -- writes (PluginContext only) --------------------------------------------------

    def add(self, entry: Any) -> None:
        """Store ``entry``; a keyed kind replaces an entry of the same key (last wins,
        as in hermes-agent's own dictionaries)."""
        from hermes_hooks.plugins import registry_entries as kinds

        with self._lock:
            keyed: dict[type, tuple[dict[str, Any], str]] = {
                kinds.Tool: (self._tools, "name"),
                kinds.Command: (self._commands, "name"),
                kinds.CliCommand: (self._cli_commands, "name"),
                kinds.AuxiliaryTask: (self._auxiliary_tasks, "key"),
                kinds.Platform: (self._platforms, "name"),
            }
            if isinstance(entry, kinds.Skill):
                self._skills[entry.qualified_name] = entry
            elif type(entry) in keyed:
                table, key = keyed[type(entry)]
                table[getattr(entry, key)] = entry
            else:
                listed: dict[type, list[Any]] = {
                    kinds.Middleware: self._middleware,
                    kinds.Provider: self._providers,
                    kinds.SlackActionHandler: self._slack_action_handlers,
                    kinds.InertHook: self._inert_hooks,
                }
                listed[type(entry)].append(entry)

    def remove_plugin(self, plugin: str) -> None:
        """Forget everything ``plugin`` registered (on unload or a failed load)."""
        with self._lock:
            for table in self._tables():
                for key in [k for k, v in table.items() if v.plugin == plugin]:
                    del table[key]
            for items in self._lists():
                items[:] = [e for e in items if e.plugin != plugin]

    def summary(self, plugin: str) -> dict[str, list[str]]:
        """What ``plugin`` registered, kind → names, for ``list`` (empty kinds left out)."""
        with self._lock:
            return self._summary(plugin)

    def _summary(self, plugin: str) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {
            "tools": [t.name for t in self._tools.values() if t.plugin == plugin],
            "commands": [c.name for c in self._commands.values() if c.plugin == plugin],
            "cli_commands": [c.name for c in self._cli_commands.values() if c.plugin == plugin],
            "skills": [s.qualified_name for s in self._skills.values() if s.plugin == plugin],
            "auxiliary_tasks": [
                a.key for a in self._auxiliary_tasks.values() if a.plugin == plugin
            ],
            "platforms": [p.name for p in self._platforms.values() if p.plugin == plugin],
            "middleware": [m.kind for m in self._middleware if m.plugin == plugin],
            "providers": [f"{p.kind}:{p.name}" for p in self._providers if p.plugin == plugin],
            "slack_action_handlers": [
                str(h.action_id) for h in self._slack_action_handlers if h.plugin == plugin
            ],
            "inert_hooks": [h.hook for h in self._inert_hooks if h.plugin == plugin],
        }
        return {kind: names for kind, names in out.items() if names}

    def _tables(self) -> list[dict[str, Any]]:
        return [
            self._tools,
            self._commands,
            self._cli_commands,
            self._skills,
            self._auxiliary_tasks,
            self._platforms,
        ]

    def _lists(self) -> list[list[Any]]:
        return [self._middleware, self._providers, self._slack_action_handlers, self._inert_hooks]
