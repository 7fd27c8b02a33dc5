"""One bounded YAML reader for ``config.yaml``, ``HOOK.yaml`` and ``plugin.yaml``.

``yaml.safe_load`` trusts its input in ways a config file must not be trusted: a few
lines of aliases (a "billion laughs" document) build a value whose ``repr()`` or
traversal never ends, and a 5,000-digit integer makes the int constructor raise.
:func:`parse_yaml` composes the document first, measures it, and only then builds the
Python values, so a hostile file costs at most the bounds below:

* the file: at most :data:`MAX_FILE_CHARS` characters;
* aliases: the document, with every alias expanded, at most :data:`MAX_NODES` values
  and :data:`MAX_TOTAL_CHARS` characters of scalars; an alias that contains itself is
  refused;
* one value: a scalar at most :data:`MAX_SCALAR_CHARS` characters, an integer at most
  :data:`MAX_INT_DIGITS` digits.

A document over a whole-file bound raises :class:`YamlError` (with the line and column
where known).  A single value over its bound is a *bad value*: it becomes ``null`` and
is listed in :attr:`YamlDocument.issues` with its key and line, so the rest of the file
still works.  Duplicate keys are listed there too (the later one wins, as in PyYAML).
Every mapping key's position is kept in :attr:`YamlDocument.marks` for messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from hermes_hooks.errors import ConfigError
from hermes_hooks.report import Finding

__all__ = [
    "MAX_FILE_CHARS",
    "MAX_INT_DIGITS",
    "MAX_NODES",
    "MAX_SCALAR_CHARS",
    "MAX_TOTAL_CHARS",
    "KeyPath",
    "Position",
    "YamlDocument",
    "YamlError",
    "YamlIssue",
    "key_text",
    "parse_yaml",
    "read_yaml",
]

#: Characters a config file may hold (1 MiB of ASCII): configs are a few kilobytes.
MAX_FILE_CHARS = 1 << 20
#: Values in the document with every alias expanded.
MAX_NODES = 100_000
#: Characters of all scalars with every alias expanded.
MAX_TOTAL_CHARS = 4 << 20
#: Characters of one scalar (a command line, a URL, a description).
MAX_SCALAR_CHARS = 64 << 10
#: Digits of one integer; no setting needs more than a handful.
MAX_INT_DIGITS = 64

_INT_TAG = "tag:yaml.org,2002:int"
_NULL_TAG = "tag:yaml.org,2002:null"
_MERGE_TAG = "tag:yaml.org,2002:merge"
_SYNTAX_FIX = "correct the YAML syntax at that line"

#: The path of a value from the top of the document: mapping keys and list indexes.
KeyPath = tuple[Any, ...]


@dataclass(frozen=True)
class Position:
    """A 1-based line and column in the file."""

    line: int
    column: int


@dataclass(frozen=True)
class YamlIssue:
    """A bad value (replaced by null) or a duplicate key, with where it is."""

    level: Literal["error", "warn"]
    path: KeyPath
    position: Position
    problem: str
    fix: str

    @property
    def message(self) -> str:
        """What is wrong, what happens instead, and the fix."""
        if self.level == "error":
            return f"{self.problem}; the value is ignored. Fix: {self.fix}"
        return f"{self.problem}. Fix: {self.fix}"

    @property
    def where(self) -> str:
        """``line:col``."""
        return f"{self.position.line}:{self.position.column}"

    @property
    def key(self) -> str:
        """The dotted key of the value, e.g. ``hooks.pre_tool_call[0].timeout``."""
        return key_text(self.path)

    def finding(self, file: Path | str) -> Finding:
        """This issue as a ``doctor`` finding about ``file:line:col``."""
        return Finding(self.level, f"{file}:{self.where}", f"{self.key}: {self.message}")


@dataclass
class YamlDocument:
    """A parsed file: its data, its bad values and duplicate keys, and key positions."""

    data: Any
    issues: list[YamlIssue] = field(default_factory=list)
    marks: dict[KeyPath, Position] = field(default_factory=dict)

    def position(self, path: Sequence[Any]) -> Position:
        """Where the value at ``path`` (or its nearest written ancestor) is written."""
        path = tuple(path)
        while path:
            mark = self.marks.get(path)
            if mark is not None:
                return mark
            path = path[:-1]
        return Position(1, 1)


class YamlError(ConfigError, ValueError):
    """The file cannot be used at all; ``position`` is where the problem was found."""

    def __init__(self, problem: str, fix: str, position: Position | None = None) -> None:
        super().__init__(f"{problem}. Fix: {fix}")
        self.problem = problem
        self.fix = fix
        self.position = position

    @property
    def message(self) -> str:
        """The problem and its fix, as one sentence pair."""
        return str(self)

    def where(self, path: Path | str) -> str:
        """``path:line:col`` (or just ``path`` when the position is unknown)."""
        if self.position is None:
            return str(path)
        return f"{path}:{self.position.line}:{self.position.column}"


def key_text(path: Sequence[Any]) -> str:
    """A key path as people write it: ``plugins.enabled[2]``; ``(top level)`` if empty."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def _position(node: Node) -> Position:
    mark = node.start_mark
    return Position(mark.line + 1, mark.column + 1)


def read_yaml(path: Path) -> YamlDocument:
    """Read and parse ``path`` (UTF-8, a BOM allowed) within the bounds.

    Raises :class:`OSError` or :class:`UnicodeDecodeError` when the file cannot be
    read, :class:`YamlError` when it cannot be used.
    """
    with path.open(encoding="utf-8-sig") as handle:
        text = handle.read(MAX_FILE_CHARS + 1)
    return parse_yaml(text)


def parse_yaml(text: str) -> YamlDocument:
    """Parse one YAML document within the bounds (see the module docstring)."""
    if len(text) > MAX_FILE_CHARS:
        raise YamlError(
            f"the file is larger than {MAX_FILE_CHARS} characters (a config file is a few "
            "kilobytes)",
            "remove what does not belong in it",
        )
    try:
        loader = yaml.SafeLoader(text)  # the reader refuses control characters here
    except yaml.YAMLError as exc:
        detail = " ".join(str(exc).split())
        raise YamlError(f"not valid YAML ({detail})", _SYNTAX_FIX) from None
    try:
        try:
            node = loader.get_single_node()
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            where = Position(mark.line + 1, mark.column + 1) if mark else None
            detail = " ".join(f"{exc.context or ''} {exc.problem or ''}".split())
            raise YamlError(f"not valid YAML ({detail})", _SYNTAX_FIX, where) from None
        except yaml.YAMLError as exc:
            detail = " ".join(str(exc).split())
            raise YamlError(f"not valid YAML ({detail})", _SYNTAX_FIX) from None
        if node is None:
            return YamlDocument(None)
        _measure(node)
        document = YamlDocument(None)
        _Walk(document).visit(node, ())
        try:
            document.data = loader.construct_document(node)
        except yaml.YAMLError as exc:  # e.g. a bad merge key or an unknown tag
            detail = " ".join(str(exc).split())
            raise YamlError(f"not valid YAML ({detail})", _SYNTAX_FIX) from None
        return document
    except RecursionError:  # PyYAML composes and builds nested collections recursively
        raise YamlError("nested too deeply to read", "flatten the structure") from None
    finally:
        loader.dispose()


def _measure(root: Node) -> None:
    """Refuse a document whose alias expansion exceeds the bounds, before any value
    is built from it.  Shared nodes are measured once, so this costs the file's size."""
    sizes: dict[int, tuple[int, int]] = {}
    active: set[int] = set()

    def size(node: Node) -> tuple[int, int]:
        key = id(node)
        known = sizes.get(key)
        if known is not None:
            return known
        if key in active:
            raise YamlError(
                "an alias refers to the value that contains it (a value that never ends)",
                "remove the alias",
                _position(node),
            )
        active.add(key)
        count, chars = 1, 0
        if isinstance(node, ScalarNode):
            chars = len(node.value)
        else:
            children = (
                [part for pair in node.value for part in pair]
                if isinstance(node, MappingNode)
                else node.value
            )
            for child in children:
                child_count, child_chars = size(child)
                count += child_count
                chars += child_chars
                if count > MAX_NODES or chars > MAX_TOTAL_CHARS:
                    break
        active.discard(key)
        if count > MAX_NODES or chars > MAX_TOTAL_CHARS:
            raise YamlError(
                f"aliases expand to more than {MAX_NODES} values or {MAX_TOTAL_CHARS} "
                "characters (a 'billion laughs' document)",
                "write the values out, or use fewer aliases",
                _position(node),
            )
        sizes[key] = (count, chars)
        return count, chars

    size(root)


class _Walk:
    """Record key positions and duplicate keys, and null out values over their bound.

    Runs on the composed nodes (already measured), so it visits at most
    :data:`MAX_NODES` values even through aliases.
    """

    def __init__(self, document: YamlDocument) -> None:
        self.document = document

    def visit(self, node: Node, path: KeyPath) -> None:
        if isinstance(node, ScalarNode):
            self.scalar(node, path)
        elif isinstance(node, SequenceNode):
            for index, child in enumerate(node.value):
                self.visit(child, (*path, index))
        elif isinstance(node, MappingNode):
            self.mapping(node, path)

    def mapping(self, node: MappingNode, path: KeyPath) -> None:
        seen: dict[Any, Position] = {}
        for key_node, value_node in node.value:
            if isinstance(key_node, ScalarNode):
                self.scalar(key_node, path)
                name: Any = key_node.value
                if key_node.tag == _MERGE_TAG:  # "<<": its keys merge into this mapping
                    self.visit(value_node, path)
                    continue
            else:
                name = f"<{type(key_node).__name__}>"
            child = (*path, name)
            where = _position(key_node)
            earlier = seen.get(name)
            if earlier is not None:
                self.document.issues.append(
                    YamlIssue(
                        "warn",
                        child,
                        where,
                        f"duplicate key '{name}' (also on line {earlier.line}); the later "
                        "value wins",
                        "keep one of them",
                    )
                )
            seen[name] = where
            self.document.marks.setdefault(child, where)
            self.visit(value_node, child)

    def scalar(self, node: ScalarNode, path: KeyPath) -> None:
        value = node.value
        if node.tag == _INT_TAG:
            digits = sum(ch.isdigit() for ch in value)
            if digits > MAX_INT_DIGITS:
                self.bad(
                    node,
                    path,
                    f"an integer of {digits} digits is too long (at most {MAX_INT_DIGITS})",
                    "write a number of sensible size",
                )
                return
        if len(value) > MAX_SCALAR_CHARS:
            self.bad(
                node,
                path,
                f"a value of {len(value)} characters is too long (at most {MAX_SCALAR_CHARS})",
                "write a shorter value",
            )

    def bad(self, node: ScalarNode, path: KeyPath, problem: str, fix: str) -> None:
        self.document.issues.append(YamlIssue("error", path, _position(node), problem, fix))
        node.tag, node.value = _NULL_TAG, ""  # built as None: the default applies
