"""Checking ``config.yaml``, ``HOOK.yaml`` and ``plugin.yaml`` against their generated
JSON Schemas (:data:`hermes_hooks.schemas.FILE_SCHEMAS`), with ``jsonschema``.

What this adds over the readers is the keys nobody reads: a misspelt key used to be
ignored in silence, so ``fail_close: true`` left a gate failing open and ``matchr:``
made a hook fire for every tool.  Each unknown key becomes a :class:`~hermes_hooks.
_yaml.YamlIssue` with its line and a did-you-mean.  Values of the wrong type are left
to the readers, which already name the key and the fix (saying it twice helps nobody).

The level is a warning, except where the key the author most likely meant guards
something (:data:`GUARDS`): then the misspelling leaves a gate weaker than written,
which is an error (``doctor`` exits 1, ``load(strict=True)`` raises).

The top level of ``config.yaml`` is shared with the rest of Hermes, so an unknown key
there is only reported when it is close to one of the keys read here (``hoooks:``).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any, Literal

from hermes_hooks._yaml import KeyPath, YamlDocument, YamlIssue, key_text
from hermes_hooks.hookspecs import CATALOGUE
from hermes_hooks.schemas import FILE_SCHEMAS

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

__all__ = ["GUARDS", "unknown_keys"]

#: file kind -> {key: what goes wrong when it is misspelt}.  A misspelling of one of
#: these weakens a gate, so it is an error, not a warning.
GUARDS: dict[str, dict[str, str]] = {
    "config.yaml": {
        "hooks": "As written, no shell hook or outbound webhook of this file loads",
        "plugins": "As written, plugins.enabled and plugins.disabled do not apply",
        "fail_closed": "As written, this hook fails open: a crash or a timeout lets the "
        "tool call through",
        "failClosed": "As written, this hook fails open: a crash or a timeout lets the "
        "tool call through",
        "disabled": "As written, the plugins listed here are not disabled",
        "enabled": "As written, every plugin loads, not only the ones listed here",
        "command": "As written, the entry has no command and is skipped",
        "secret": "As written, deliveries are not signed",
        "secret_env": "As written, deliveries are not signed",
    },
    "HOOK.yaml": {
        "enabled": "As written, the hook would run; it is skipped until this is fixed",
        "events": "As written, the hook has no events and is skipped",
    },
    "plugin.yaml": {},
}
#: How close a top-level key of config.yaml must be to one of ours to be reported.
_TOP_LEVEL_CUTOFF = 0.8
_SUGGEST_CUTOFF = 0.6


@cache
def _schema(kind: str) -> dict[str, Any]:
    """The generated schema of one file kind."""

    return FILE_SCHEMAS[kind]()


@cache
def _validator(kind: str) -> Validator:
    """The compiled validator of one file kind (built once per process)."""
    from jsonschema import Draft202012Validator

    return Draft202012Validator(_schema(kind))


@cache
def shell_entry_keys() -> frozenset[str]:
    """The keys a shell hook entry under ``hooks.<event>`` may hold, in any dialect."""
    events = _schema("config.yaml")["properties"]["hooks"].get("properties", {})
    keys: set[str] = set()
    for value in events.values():
        item = value.get("items", {}) if isinstance(value, Mapping) else {}
        names = item.get("properties", {}) if isinstance(item, Mapping) else {}
        if "command" in names:  # a shell entry (outbound targets have none)
            keys.update(names)
    return frozenset(keys)


def unknown_keys(document: YamlDocument, kind: str) -> list[YamlIssue]:
    """The unknown keys of a parsed ``kind`` file (``"config.yaml"``, ``"HOOK.yaml"`` or
    ``"plugin.yaml"``), in file order, each with its line and a did-you-mean."""
    data = document.data
    if not isinstance(data, Mapping):
        return []
    found: dict[KeyPath, list[str]] = {}
    for path, known in _schema_unknowns(kind, _plain(data)):
        found.setdefault(path, known)
    extra: list[YamlIssue] = []
    if kind == "config.yaml":
        top = list(_schema(kind).get("properties", {}))
        for key in data:
            name = str(key)
            if name not in top and difflib.get_close_matches(name, top, 1, _TOP_LEVEL_CUTOFF):
                found.setdefault((name,), top)
        extra = [_misplaced(document, path, gate) for path, gate in _misplaced_hooks(data)]
        for issue in extra:
            found.pop(issue.path, None)  # one message for the key, the one that says why
    issues = [_issue(document, kind, path, known) for path, known in found.items()]
    return sorted([*issues, *extra], key=lambda i: (i.position.line, i.position.column))


def _misplaced_hooks(data: Mapping[Any, Any], depth: int = 4) -> Iterator[tuple[KeyPath, bool]]:
    """(path, whether it holds a gate) of every ``hooks`` mapping nested below the top
    level whose keys name hook events: shell hooks indented under another key
    (``plugins:``, ``agent:``) are read by no one, so none of them ever runs."""

    def nested(node: Mapping[Any, Any], path: KeyPath, left: int) -> Iterator[tuple[KeyPath, Any]]:
        for key, value in node.items():
            if not isinstance(value, Mapping) or (not path and key == "hooks"):
                continue  # the top-level block is where hooks belong
            here = (*path, str(key))
            if key == "hooks":
                yield here, value
            elif left > 1:
                yield from nested(value, here, left - 1)

    found = list(nested(data, (), depth))
    if not found:  # the usual case: the event tables are not even loaded
        return

    events = {name: c.fail_closed for name, c in CATALOGUE.items()}
    # Another agent's event names (Claude Code's PreToolUse) name hooks too.
    from hermes_hooks.shell.dialect import every_dialect

    events.update(
        (name, CATALOGUE[ours].fail_closed)
        for dialect in every_dialect()
        for name, ours in dialect.events.items()
    )
    for path, block in found:
        named = [events[str(k)] for k in block if str(k) in events]
        if named:
            yield path, any(named)


def _misplaced(document: YamlDocument, path: KeyPath, gate: bool) -> YamlIssue:
    where = key_text(path[:-1])
    return YamlIssue(
        "error" if gate else "warn",
        path,
        document.position(_written_path(document, path)),
        f"'hooks' under '{where}' is not read: shell hooks and outbound webhooks are read "
        "only from the top-level 'hooks:' key, so none of these ever runs"
        + (", gates included" if gate else ""),
        "move 'hooks:' to the top level of config.yaml (no indentation)",
    )


def _schema_unknowns(kind: str, data: Any) -> Iterator[tuple[KeyPath, list[str]]]:
    """(path of the unknown key, the keys allowed beside it) for every violation of an
    ``additionalProperties`` rule."""
    for error in _validator(kind).iter_errors(data):
        schema_path = list(error.absolute_schema_path)
        if error.validator == "additionalProperties" and error.validator_value is False:
            schema = error.schema if isinstance(error.schema, Mapping) else {}
            known = list(schema.get("properties", {}))
            patterns = list(schema.get("patternProperties", {}))
            instance: Any = error.instance
            if kind == "config.yaml" and _claude_entry(tuple(error.absolute_path), instance):
                continue  # the Claude Code dialect refuses such keys itself, naming them
            for key in instance:
                if key not in known and not any(re.search(p, key) for p in patterns):
                    yield (*error.absolute_path, key), known
        elif len(schema_path) >= 2 and schema_path[-2] == "additionalProperties":
            # A key outside ``properties`` whose value does not fit what other keys
            # may hold (under ``plugins:``: not a plugin's own settings mapping).
            parent = _resolve(_schema(kind), schema_path[:-2])
            yield tuple(error.absolute_path), list(parent.get("properties", {}))


def _claude_entry(path: tuple[Any, ...], instance: Any) -> bool:
    """Whether ``instance`` at ``path`` is a shell entry in the Claude Code dialect (its
    ``dialect`` says so, or its event is spelt the Claude Code way): that dialect reads
    every key itself and refuses the entry over one it does not honour, with a message
    naming the key and why, so a second, generic warning would only repeat it."""
    if len(path) != 3 or path[0] != "hooks" or not isinstance(instance, Mapping):
        return False
    # Claude Code event keys are capitalised (PreToolUse); ours never are.
    return instance.get("dialect") == "claude-code" or str(path[1])[:1].isupper()


def _resolve(schema: Mapping[str, Any], path: list[Any]) -> Mapping[str, Any]:
    node: Any = schema
    for part in path:
        node = node[part]
    return node if isinstance(node, Mapping) else {}


def _plain(value: Any) -> Any:
    """``value`` with every mapping key a string, as JSON Schema expects (YAML allows
    ``1:`` or ``true:`` as keys)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _issue(document: YamlDocument, kind: str, path: KeyPath, known: list[str]) -> YamlIssue:
    key = str(path[-1])
    position = document.position(_written_path(document, path))
    guess = difflib.get_close_matches(key, known, 1, _SUGGEST_CUTOFF)
    if not guess:
        listing = ", ".join(sorted(known)) or "none"
        return YamlIssue(
            "warn",
            path,
            position,
            f"unknown key '{key}' is ignored (known here: {listing})",
            "remove it or correct its name",
        )
    meant = guess[0]
    consequence = GUARDS.get(kind, {}).get(meant)
    problem = f"unknown key '{key}' — did you mean '{meant}'?"
    level: Literal["error", "warn"]
    if consequence is None:
        consequence, level = "It is ignored", "warn"
    else:
        level = "error"
    return YamlIssue(level, path, position, f"{problem} {consequence}", f"rename it to '{meant}'")


def _written_path(document: YamlDocument, path: KeyPath) -> KeyPath:
    """``path`` as the document's marks spell it (keys there are the raw YAML text)."""
    if path in document.marks:
        return path
    for written in document.marks:
        if len(written) == len(path) and key_text(written) == key_text(path):
            return written
    return path
