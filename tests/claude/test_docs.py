"""The porting guide's tables are the dialect's tables."""

from __future__ import annotations

import re
from pathlib import Path

from hermes_hooks.claude.tables import (
    DEFAULT_TOOLS,
    EVENTS,
    UNMAPPED_EVENTS,
)

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "claude-code-porting.md"


def section(title: str) -> str:
    text = GUIDE.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else None]


def rows(text: str) -> list[list[str]]:
    return [
        [cell.strip() for cell in line.strip("|").split("|")]
        for line in text.splitlines()
        if line.startswith("| `")
    ]


def test_the_event_table_is_the_dialects() -> None:
    documented = [
        (claude.strip("`"), ours.split("`")[1]) for claude, ours, *_ in rows(section("Events"))
    ]
    assert documented == [(e.name, e.event) for e in EVENTS]


def test_the_unmapped_events_are_listed() -> None:
    text = section("Events")
    paragraph = text[text.index("Claude Code events with no equivalent here") :]
    mapped = {e.name for e in EVENTS}  # PreToolUse is named as the alternative
    names = [n for n in re.findall(r"`([A-Z][A-Za-z]+)`", paragraph) if n not in mapped]
    assert names == list(UNMAPPED_EVENTS)


def test_the_tool_table_is_the_dialects() -> None:
    documented = []
    for claude, ours, fields in rows(section("Tools")):
        renames = dict(re.findall(r"`([^`]+)` ↔ `([^`]+)`", fields))
        documented.append((claude.strip("`"), ours.strip("`"), renames))
    assert documented == [(t.claude, t.tool, dict(t.fields)) for t in DEFAULT_TOOLS]
