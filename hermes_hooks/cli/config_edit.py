"""Add entries to the ``hooks:`` block of a ``config.yaml`` text, keeping the rest of the
file — content, order and comments — as it was.

PyYAML cannot round-trip comments, and the project takes no YAML round-trip dependency,
so this is a careful textual edit: the new list items are inserted at the end of their
event's list (or a new event key at the end of the block, or a new block at the end of
the file), indented like their neighbours.  The result is always parsed back and
compared with the intended data; when the layout is one the textual edit does not
handle (flow style such as ``hooks: {}``, anchors, odd indentation), the ``hooks:``
block alone is rewritten from the data instead — its comments are lost, the rest of
the file is not — and the caller is told.

    >>> add_entries("a: 1\\n", {"pre_tool_call": [{"command": "/x.sh"}]}).text
    'a: 1\\nhooks:\\n  pre_tool_call:\\n    - command: /x.sh\\n'
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from hermes_hooks.errors import ConfigEditError

__all__ = ["ConfigEditError", "Edit", "add_entries", "render_items"]

_HOOKS_LINE = re.compile(r"hooks[ \t]*:[ \t]*(#.*)?\r?\n?")
_ANY_HOOKS_KEY = re.compile(r"""['"]?hooks['"]?[ \t]*:""")  # plain or quoted, any value


@dataclass(frozen=True)
class Edit:
    """The edited text, and whether every comment of the ``hooks:`` block survived."""

    text: str
    comments_kept: bool


def render_items(entries: Sequence[Mapping[str, Any]], indent: int) -> str:
    """``entries`` as YAML list items, each line indented by ``indent`` spaces."""
    out: list[str] = []
    for entry in entries:
        dumped = yaml.safe_dump(
            [dict(entry)],
            sort_keys=False,
            default_flow_style=False,
            allow_unicode=True,
            width=1 << 20,
        )
        out.extend(" " * indent + line for line in dumped.splitlines())
    return "".join(line + "\n" for line in out)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _is_content(line: str) -> bool:
    """Neither blank nor a comment."""
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


def _load(text: str) -> dict[str, Any]:
    try:
        data = yaml.safe_load(text) if text.strip() else {}
    except yaml.YAMLError as exc:
        raise ConfigEditError(f"not valid YAML ({exc}); fix the syntax first") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigEditError(f"the top level must be a mapping, got {type(data).__name__}")
    hooks = data.get("hooks")
    if hooks is not None and not isinstance(hooks, dict):
        raise ConfigEditError(
            f"'hooks' must be a mapping of event names to lists, got {type(hooks).__name__}"
        )
    for key, value in (hooks or {}).items():
        if value is not None and not isinstance(value, list):
            raise ConfigEditError(f"hooks.{key} must be a list, got {type(value).__name__}")
    return data


def _expected(data: dict[str, Any], additions: Mapping[str, Sequence[Any]]) -> dict[str, Any]:
    result = copy.deepcopy(data)
    hooks = result.get("hooks") or {}
    for key, items in additions.items():
        hooks[key] = [*(hooks.get(key) or []), *map(dict, items)]
    result["hooks"] = hooks
    return result


def _block(lines: list[str]) -> tuple[int, int] | None:
    """(index of the ``hooks:`` line, index after its last content line), or None."""
    start = next((i for i, line in enumerate(lines) if _HOOKS_LINE.fullmatch(line)), None)
    if start is None:
        return None
    end = start + 1
    for index in range(start + 1, len(lines)):
        line = lines[index]
        if _is_content(line) and _indent(line) == 0:
            break  # the next top-level key
        if _is_content(line):
            end = index + 1
    return start, end


def _splice(text: str, additions: Mapping[str, Sequence[Any]]) -> str | None:
    """The textual edit, or None when the layout is not one it handles."""
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    found = _block(lines)
    if found is None:
        if any(_ANY_HOOKS_KEY.match(line) for line in lines):
            return None  # hooks: written some other way (flow style, quoted key)
        body = "".join(f"  {key}:\n" + render_items(items, 4) for key, items in additions.items())
        return "".join(lines) + "hooks:\n" + body
    start, end = found
    inner = [i for i in range(start + 1, end) if _is_content(lines[i])]
    child = _indent(lines[inner[0]]) if inner else 2
    if any(_indent(lines[i]) < child for i in inner):
        return None
    inserts: dict[int, str] = {}
    appended = ""
    item_style = 2  # how far list items sit right of their key (0 or 2 in practice)
    for key, items in additions.items():
        pattern = re.compile(rf" {{{child}}}{re.escape(key)}[ \t]*:[ \t]*(#.*)?\r?\n?")
        at = next((i for i in inner if pattern.fullmatch(lines[i])), None)
        if at is None:
            if any(re.match(rf" *['\"]?{re.escape(key)}['\"]?[ \t]*:", lines[i]) for i in inner):
                return None  # the key is there, written differently
            appended += " " * child + f"{key}:\n" + render_items(items, child + item_style)
            continue
        members = [i for i in inner if i > at]
        if not members or not lines[members[0]].lstrip(" ").startswith("-"):
            return None  # an empty or non-list value
        item = _indent(lines[members[0]])
        if item < child:
            return None
        item_style = item - child
        last = at
        for index in members:
            indent = _indent(lines[index])
            if indent < item or (indent == item and not lines[index].lstrip().startswith("-")):
                break
            last = index
        inserts[last + 1] = inserts.get(last + 1, "") + render_items(items, item)
    if appended:
        inserts[end] = inserts.get(end, "") + appended
    out = []
    for index, line in enumerate(lines):
        out.append(inserts.get(index, ""))
        out.append(line)
    out.append(inserts.get(len(lines), ""))
    return "".join(out)


def _rewrite_block(text: str, hooks: dict[str, Any]) -> str:
    """The fallback: the ``hooks:`` block replaced by a dump of ``hooks``."""
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    dumped = yaml.safe_dump(
        {"hooks": hooks}, sort_keys=False, default_flow_style=False, allow_unicode=True
    )
    start = next((i for i, line in enumerate(lines) if _ANY_HOOKS_KEY.match(line)), None)
    if start is None:
        return "".join(lines) + dumped
    end = start + 1
    while end < len(lines) and not (_is_content(lines[end]) and _indent(lines[end]) == 0):
        end += 1
    while end > start + 1 and not _is_content(lines[end - 1]):
        end -= 1  # blank lines and comments before the next key stay with it
    return "".join(lines[:start]) + dumped + "".join(lines[end:])


def add_entries(text: str, additions: Mapping[str, Sequence[Mapping[str, Any]]]) -> Edit:
    """``text`` with ``additions`` (``hooks:`` key -> new entries) appended to the block.

    Raises :class:`ConfigEditError` when the file is not a YAML mapping with a mapping
    ``hooks:`` (nothing is guessed then).
    """
    data = _load(text)
    expected = _expected(data, additions)
    spliced = _splice(text, additions)
    if spliced is not None and _load(spliced) == expected:
        return Edit(spliced, True)
    rewritten = _rewrite_block(text, expected["hooks"])
    if _load(rewritten) != expected:  # pragma: no cover - a safety net, never expected
        raise ConfigEditError("could not produce a file that reads back as intended")
    return Edit(rewritten, False)
