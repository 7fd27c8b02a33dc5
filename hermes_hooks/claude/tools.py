"""The Claude Code tool table: Claude's tool names and fields and ours, both ways.

One rule governs the table: **a gate never sees less than the call that will run.**
Where one of our calls is several Claude Code inputs (``web_extract`` with several
URLs, a ``delegate_task`` batch, a multi-file ``patch``) the call becomes one Claude
input per item (:meth:`ToolTable.inputs`), the hook runs once per input, and any
block blocks the whole call.  Where a call cannot be shown whole (a ``patch`` whose
text names no file), :class:`Inputs` says so and the dialect blocks it for a
``fail_closed`` gate and warns every other gate.

``docs/claude-code-porting.md`` has the table with this rule for each row.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hermes_hooks.envelope import jsonable

if TYPE_CHECKING:
    from hermes_hooks.shell.entry import Warn

__all__ = [
    "DEFAULT_TOOLS",
    "TOOLS_KEY",
    "Inputs",
    "ToolMap",
    "ToolTable",
    "tool_table",
]

#: The top-level ``config.yaml`` key that extends the tool table.
TOOLS_KEY = "hooks_claude_tools"
#: The suffix of our field that holds a list where Claude holds one item: one Claude
#: input per item (``[0]`` is accepted as an older spelling of the same rule).
_EACH = "[*]"
_LEGACY_EACH = "[0]"


@dataclass(frozen=True)
class ToolMap:
    """One row of the tool table: a Claude Code tool, ours, and renamed fields.

    ``fields`` maps a Claude field to ours; a field not listed keeps its name.  Our
    field may end in ``[*]`` (``urls[*]``): we hold a list where Claude holds one
    item, so the call is one Claude input per item.  ``expand`` names a built-in
    splitter for calls whose parts are not a plain list (``v4a`` for a multi-file
    ``patch``, ``tasks`` for a ``delegate_task`` batch).
    """

    claude: str
    tool: str
    fields: Mapping[str, str] = field(default_factory=dict)
    expand: str | None = None


#: The built-in table.  For ours → Claude the first row naming our tool wins
#: (``patch`` shows as ``Edit``).
DEFAULT_TOOLS: tuple[ToolMap, ...] = (
    ToolMap("Bash", "terminal"),
    ToolMap("Read", "read_file", {"file_path": "path"}),
    ToolMap("Write", "write_file", {"file_path": "path"}),
    ToolMap("Edit", "patch", {"file_path": "path"}, expand="v4a"),
    ToolMap("MultiEdit", "patch", {"file_path": "path"}),
    ToolMap("WebSearch", "web_search"),
    ToolMap("WebFetch", "web_extract", {"url": "urls[*]"}),
    ToolMap("Task", "delegate_task", {"prompt": "goal"}, expand="tasks"),
)
#: Claude fields that hold absolute paths in Claude Code; relative ones are made
#: absolute against ``cwd`` on the way in.
_ABSOLUTE_FIELDS = frozenset({"file_path", "notebook_path"})
_OUR_FIELD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[\*\]|\[0\])?")
_EXPANDERS = frozenset({"v4a", "tasks"})
# A V4A patch names each file on a header line; a move names two.
_V4A_FILE = re.compile(r"^\*\*\*\s*(?:Update|Add|Delete)\s+File:\s*(.+?)\s*$", re.MULTILINE)
_V4A_MOVE = re.compile(r"^\*\*\*\s*Move\s+(?:File:\s*)?(.+?)\s*->\s*(.+?)\s*$", re.MULTILINE)
_V4A_HEADER = re.compile(r"^\*\*\*\s*(?:Update|Add|Delete|Move)\b", re.MULTILINE)


@dataclass
class Inputs:
    """Our call as Claude Code inputs: one per part, and whether they show it whole."""

    items: list[dict[str, Any]]
    whole: bool = True
    why: str | None = None  # why not, when not whole


class _Fields:
    """The field renames of one tool, both ways: name -> (other name, one per item?)."""

    __slots__ = ("to_claude", "to_ours")

    def __init__(self, fields: Mapping[str, str]) -> None:
        self.to_ours: dict[str, tuple[str, bool]] = {}
        self.to_claude: dict[str, tuple[str, bool]] = {}
        for claude, ours in fields.items():
            each = ours.endswith((_EACH, _LEGACY_EACH))
            name = ours[:-3] if each else ours
            self.to_ours[claude] = (name, each)
            self.to_claude.setdefault(name, (claude, each))


def _item(value: Any) -> Any:
    """One item of a fanned-out list: a search result object stands for its URL."""
    if isinstance(value, Mapping):
        for key in ("url", "href"):
            if isinstance(value.get(key), str):
                return value[key]
    return value


class ToolTable:
    """Claude Code tool names and fields ↔ ours (built once per load)."""

    __slots__ = ("_claude_names", "_expand", "_fields", "rows")

    def __init__(self, rows: Iterable[ToolMap]) -> None:
        self.rows = tuple(rows)
        self._claude_names: dict[str, str] = {}
        self._fields: dict[str, _Fields] = {}
        self._expand: dict[str, str | None] = {}
        for row in self.rows:
            if row.tool not in self._claude_names:
                self._claude_names[row.tool] = row.claude
                self._fields[row.tool] = _Fields(row.fields)
                self._expand[row.tool] = row.expand

    def claude_name(self, tool: str) -> str:
        """Claude's name of our ``tool`` (itself when the table does not list it)."""
        return self._claude_names.get(tool, tool)

    def to_claude(self, tool: str, args: Mapping[str, Any], cwd: str) -> dict[str, Any]:
        """The first Claude input of our call (see :meth:`inputs` for all of them)."""
        return self.inputs(tool, args, cwd).items[0]

    def inputs(self, tool: str, args: Mapping[str, Any], cwd: str) -> Inputs:
        """Our ``args`` of ``tool`` as Claude ``tool_input`` s: one per item of a list
        field marked ``[*]``, one per file of a multi-file patch, one per task of a
        batch; a single input otherwise."""
        expand = self._expand.get(tool)
        if expand == "v4a" and args.get("mode") == "patch":
            return self._v4a(tool, args, cwd)
        if expand == "tasks" and isinstance(args.get("tasks"), list) and args["tasks"]:
            return self._tasks(tool, args, cwd)
        fields = self._fields.get(tool)
        base: dict[str, Any] = {}
        spread: tuple[str, list[Any]] | None = None
        whole, why = True, None
        for key, value in args.items():
            name, each = fields.to_claude.get(key, (key, False)) if fields else (key, False)
            if each and isinstance(value, list):
                if spread is None:
                    spread = (name, [_item(v) for v in value])
                    continue
                # A second list field would need every combination: say it is partial.
                whole, why = False, f"{key} holds a second list of items"
                value = _item(value[0]) if value else None
                if value is None:
                    continue
            base[name] = self._value(name, value, cwd)
        if spread is None or not spread[1]:
            return Inputs([base], whole, why)
        name, values = spread
        items = [{**base, name: self._value(name, v, cwd)} for v in values]
        return Inputs(items, whole, why)

    @staticmethod
    def _value(name: str, value: Any, cwd: str) -> Any:
        if name in _ABSOLUTE_FIELDS and isinstance(value, str) and value and cwd:
            value = os.path.join(cwd, value)  # an absolute value stays as it is
        return jsonable(value)

    def _tasks(self, tool: str, args: Mapping[str, Any], cwd: str) -> Inputs:
        """A ``delegate_task`` batch: one Task input per task (the shared fields in each)."""
        shared = {k: v for k, v in args.items() if k != "tasks"}
        items: list[dict[str, Any]] = []
        whole, why = True, None
        for task in args["tasks"]:
            if not isinstance(task, Mapping):
                whole, why = False, "a task of the batch is not an object"
                continue
            items.append(self._plain(tool, {**shared, **task}, cwd))
        if not items:
            items.append(self._plain(tool, shared, cwd))
        return Inputs(items, whole, why)

    def _plain(self, tool: str, args: Mapping[str, Any], cwd: str) -> dict[str, Any]:
        fields = self._fields.get(tool)
        result: dict[str, Any] = {}
        for key, value in args.items():
            name, _ = fields.to_claude.get(key, (key, False)) if fields else (key, False)
            result[name] = self._value(name, value, cwd)
        return result

    def _v4a(self, tool: str, args: Mapping[str, Any], cwd: str) -> Inputs:
        """A patch in V4A mode: one Edit input per file it touches, each carrying that
        file's part of the patch."""
        body = args.get("patch")
        shared = self._plain(tool, {k: v for k, v in args.items() if k != "patch"}, cwd)
        if not isinstance(body, str) or not _V4A_HEADER.search(body):
            why = "the patch text names no file"
            return Inputs([self._plain(tool, args, cwd)], False, why)
        starts = [m.start() for m in _V4A_HEADER.finditer(body)]
        items: list[dict[str, Any]] = []
        for index, start in enumerate(starts):
            end = starts[index + 1] if index + 1 < len(starts) else len(body)
            section = body[start:end].replace("*** End Patch", "").rstrip("\n") + "\n"
            paths = [m.group(1) for m in _V4A_FILE.finditer(section)]
            for move in _V4A_MOVE.finditer(section):
                paths += [move.group(1), move.group(2)]
            for path in paths:
                items.append(
                    {**shared, "file_path": self._value("file_path", path, cwd), "patch": section}
                )
        if not items:
            return Inputs([self._plain(tool, args, cwd)], False, "the patch text names no file")
        return Inputs(items)

    def from_claude(self, tool: str, updated: Mapping[str, Any]) -> dict[str, Any]:
        """Claude's ``updatedInput`` for our ``tool``, with our field names."""
        fields = self._fields.get(tool)
        result: dict[str, Any] = {}
        for key, value in updated.items():
            name, each = fields.to_ours.get(key, (key, False)) if fields else (key, False)
            result[name] = [value] if each else value
        return result


def tool_table(config: Mapping[str, Any], warn: Warn) -> ToolTable:
    """The built-in table extended (or trimmed) by ``hooks_claude_tools:``.

    Each key is a Claude Code tool name; the value is our tool name, or a mapping
    ``{tool: <ours>, fields: {<claude field>: <ours>}}``, or null to drop a built-in
    row.  Your rows come first.  A bad row is skipped (the built-in row of that name, if
    any, stays) and reported through ``warn`` as narrowing: a Claude Code gate would see
    other tool names or fields than the file says.
    """
    raw = config.get(TOOLS_KEY)
    builtin = {row.claude: row for row in DEFAULT_TOOLS}
    if raw is None:
        return ToolTable(DEFAULT_TOOLS)
    if not isinstance(raw, Mapping):
        warn(
            f"must be a mapping of Claude Code tool names to our tool names, got "
            f"{type(raw).__name__}; ignored (the built-in table applies). Fix: e.g. "
            f"'{TOOLS_KEY}: {{NotebookEdit: notebook_edit}}'",
            narrows=True,
        )
        return ToolTable(DEFAULT_TOOLS)
    rows: list[ToolMap] = []
    for key, value in raw.items():
        name = str(key).strip()
        if value is None:
            builtin.pop(name, None)  # null removes a built-in row
            continue
        row = _tool_row(name, value, warn)
        if row is not None:  # a bad row leaves the built-in one in place
            builtin.pop(name, None)
            rows.append(row)
    return ToolTable([*rows, *builtin.values()])


def _tool_row(name: str, value: Any, warn: Warn) -> ToolMap | None:
    where = f"{TOOLS_KEY}.{name}"
    if isinstance(value, str):
        value = {"tool": value}
    if not isinstance(value, Mapping):
        warn(
            f"{where}: must be our tool name or {{tool: ..., fields: {{...}}}}; skipped",
            narrows=True,
        )
        return None
    tool = value.get("tool")
    if not isinstance(tool, str) or not tool.strip():
        warn(
            f"{where}: has no 'tool' (our tool name); skipped. Fix: 'tool: terminal'",
            narrows=True,
        )
        return None
    fields = value.get("fields") or {}
    if not isinstance(fields, Mapping):
        warn(f"{where}.fields: must map Claude field names to ours; skipped", narrows=True)
        return None
    renames: dict[str, str] = {}
    for claude, ours in fields.items():
        if not isinstance(ours, str) or not _OUR_FIELD.fullmatch(ours.strip()):
            warn(
                f"{where}.fields.{claude}: {ours!r} is not a field name (letters, digits, "
                f"'_', optionally ending in '[*]'); this rename is skipped",
                narrows=True,
            )
            continue
        renames[str(claude).strip()] = ours.strip()
    expand = value.get("expand")
    if expand is not None and expand not in _EXPANDERS:
        warn(
            f"{where}.expand: {expand!r} is not one of {sorted(_EXPANDERS)}; skipped",
            narrows=True,
        )
        return None
    return ToolMap(name, tool.strip(), renames, expand)
