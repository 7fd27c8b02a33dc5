"""What a hook source says about itself: its part of ``list`` and its ``doctor`` findings.

Each source (Python plugins, shell hooks, outbound targets, gateway hooks) builds these
from what it loaded; the CLI only prints them.  They live outside ``cli`` so that an
adapter can report without importing the command-line tool.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["Finding", "Level", "Section"]

#: How serious a finding is; ``error`` makes ``doctor`` exit non-zero.
Level = Literal["ok", "info", "warn", "error"]


@dataclass(frozen=True)
class Finding:
    """One result of a check: its level, what it is about, and what to do."""

    level: Level
    subject: str
    message: str


@dataclass(frozen=True)
class Section:
    """One source's part of ``list``: a JSON value for ``--json`` and the text lines."""

    data: Any
    lines: list[str] = field(default_factory=list)
