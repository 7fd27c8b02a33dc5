"""One Python plugin as ``hermes-hooks list`` and ``doctor`` show it: what the plugin
source found, loaded or refused, and what the plugin context noted while it registered."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["PluginRecord"]


@dataclass
class PluginRecord:
    """One Python plugin as ``hermes-hooks list`` shows it."""

    key: str
    source: str  # "directory", "project", "entry-point:<group>"
    name: str | None = None  # manifest name; plugins.enabled/disabled match it too
    path: str | None = None
    distribution: str | None = None
    version: str | None = None
    description: str | None = None
    state: str = "pending"  # "loaded", "failed", "disabled"
    hooks: list[str] = field(default_factory=list)
    error: str | None = None
    #: Where a failed load raised, ``file:line``.
    location: str | None = None
    problems: list[str] = field(default_factory=list)
    #: Worth a look but not broken: unknown hook names, a plugin registering nothing,
    #: unknown keys in plugin.yaml.
    warnings: list[str] = field(default_factory=list)
    #: What it registered besides hooks (kind → names), from ``hooks.registry``.
    registrations: dict[str, list[str]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready view for ``--json`` output."""
        return dict(vars(self))

    def note(self, message: str, *, gate: bool) -> None:
        """Keep ``message`` for ``list`` and ``doctor``: a problem (a doctor error) when
        it leaves a guard switched off, else a warning."""
        (self.problems if gate else self.warnings).append(message)
