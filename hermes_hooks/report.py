"""What a hook source says about itself: its part of ``list`` and its ``doctor`` findings.

Each source (Python plugins, shell hooks, outbound targets, gateway hooks) builds these
from what it loaded; the CLI only prints them.  They live outside ``cli`` so that an
adapter can report without importing the command-line tool.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["EntryErrors", "Finding", "Level", "Section"]

#: How serious a finding is; ``error`` makes ``doctor`` exit non-zero.
Level = Literal["ok", "info", "warn", "error"]


@dataclass(frozen=True)
class Finding:
    """One result of a check: its level, what it is about, and what to do."""

    level: Level
    subject: str
    message: str
    #: The ``list`` entry the finding is about (``shell hooks.pre_tool_call[0]``,
    #: ``plugin audit-log``, ``outbound hooks.outbound[0]``, ``gateway hook boot``), or
    #: None for one about the home as a whole: ``list`` marks that entry with the
    #: finding, so ``list`` and ``doctor`` never disagree about it.
    entry: str | None = None


#: The error messages of each ``list`` entry that has any, by :attr:`Finding.entry`.
EntryErrors = Mapping[str, Sequence[str]]


@dataclass(frozen=True)
class Section:
    """One source's part of ``list``: a JSON value for ``--json`` and the text lines."""

    data: Any
    lines: list[str] = field(default_factory=list)
    #: The entries shown (as :attr:`Finding.entry` names them): each shows its own
    #: errors, so ``list`` repeats none of them at the end.
    entries: list[str] = field(default_factory=list)
