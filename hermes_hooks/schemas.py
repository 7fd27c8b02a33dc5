"""JSON Schemas generated from the Python catalogue, for hook authors in any language.

The checked-in copies live in the top-level ``hookspecs/`` folder; a test fails when
they drift from what this module generates.  Regenerate them with
``python -m hermes_hooks.schemas hookspecs``.

* ``shell-stdin/<event>.schema.json``: what a shell hook reads on stdin;
* ``webhook-body/<event>.schema.json``: what an outbound webhook receives;
* ``shell-stdout.schema.json``: the answers a shell hook may print;
* ``hook-yaml.schema.json``: a gateway hook's ``HOOK.yaml``;
* ``config-hooks.schema.json``: the ``hooks:`` block of ``config.yaml``,
  ``dialect`` and the Claude Code event names included;
* ``config.schema.json``: the keys of ``config.yaml`` hermes-hooks reads (``hooks:``,
  ``plugins:``, ``hooks_auto_accept``, ``hooks_claude_tools``);
* ``plugin-yaml.schema.json``: a directory plugin's ``plugin.yaml``.

The file schemas are also what ``load()`` and ``doctor`` check those files against
(:mod:`hermes_hooks.config_schema`): an unknown key is reported with a did-you-mean.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from hermes_hooks.envelope import TOOL_EVENTS
from hermes_hooks.hookspecs import CATALOGUE, TELEMETRY_FIELD, TELEMETRY_VERSION
from hermes_hooks.shell.dialect import DIALECTS, every_dialect

__all__ = ["FILE_SCHEMAS", "all_schemas", "annotation_schema", "event_schema", "write_all"]

DRAFT = "https://json-schema.org/draft/2020-12/schema"
BASE_ID = "https://hermes-hooks.invalid/hookspecs/"
WIRES = ("shell-stdin", "webhook-body")
_SCALARS: dict[str, dict[str, Any]] = {
    "str": {"type": "string"},
    "int": {"type": "integer"},
    "float": {"type": "number"},
    "bool": {"type": "boolean"},
    "None": {"type": "null"},
    "Any": {},
}


def _split_top(text: str, separator: str) -> list[str]:
    """Split ``text`` on ``separator`` outside brackets."""
    parts, depth, current = [], 0, ""
    for char in text:
        depth += char == "["
        depth -= char == "]"
        if char == separator and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    parts.append(current.strip())
    return parts


def annotation_schema(annotation: str) -> dict[str, Any]:
    """The JSON Schema of a catalogue field annotation such as ``list[str] | None``.

    Values JSON cannot hold reach scripts as strings, so ``Any`` stays open.
    """
    options = _split_top(annotation, "|")
    if len(options) > 1:
        schemas = [annotation_schema(option) for option in options]
        if any(not s for s in schemas):
            return {}
        return {"anyOf": schemas}
    text = options[0]
    if text in _SCALARS:
        return dict(_SCALARS[text])
    if text.startswith("dict["):
        return {"type": "object"}
    if text.startswith("list["):
        inner = annotation_schema(text[len("list[") : -1])
        return {"type": "array", "items": inner} if inner else {"type": "array"}
    return {}


def event_schema(event: str, wire: str = "shell-stdin") -> dict[str, Any]:
    """The schema of one event's shell stdin document or webhook body."""
    contract = CATALOGUE[event]
    lifted = {"tool_name", "session_id"} if event in TOOL_EVENTS else {"session_id"}
    if any(f.name == "args" for f in contract.fields):
        lifted.add("args")
    names = {f.name for f in contract.fields}
    if "session_id" not in names and "parent_session_id" in names:
        lifted.add("parent_session_id")  # it becomes session_id
    dropped = {"gateway", "session_store"} if event == "pre_gateway_dispatch" else set()
    extra: dict[str, Any] = {
        f.name: _extra_field(event, f.name, f.type)
        for f in contract.fields
        if f.name not in lifted and f.name not in dropped
    }
    if contract.marker:
        extra[TELEMETRY_FIELD] = {"const": TELEMETRY_VERSION}
    properties: dict[str, Any] = {
        "hook_event_name": {"const": event},
        "profile": {"type": "string"},
        "tool_name": {"type": "string"} if event in TOOL_EVENTS else {"type": "null"},
        "tool_input": {"type": ["object", "null"]},
        "session_id": {"type": "string"},
        "cwd": {"type": "string"},
        "extra": {
            "type": "object",
            "properties": extra,
            "required": [TELEMETRY_FIELD] if contract.marker else [],
            "additionalProperties": True,
        },
    }
    if wire == "webhook-body":
        properties["delivery_id"] = {"type": "string", "pattern": "^[0-9a-f]{32}$"}
        properties["timestamp"] = {
            "type": "string",
            "pattern": r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$",
        }
    title = "shell hook stdin" if wire == "shell-stdin" else "outbound webhook body"
    return {
        "$schema": DRAFT,
        "$id": f"{BASE_ID}{wire}/{event}.schema.json",
        "title": f"{event}: {title}",
        "description": contract.doc.splitlines()[0],
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def _extra_field(event: str, name: str, annotation: str) -> dict[str, Any]:
    if event == "pre_gateway_dispatch" and name == "event":  # scripts get a parseable dict
        source: dict[str, Any] = {
            k: {} for k in ("platform", "chat_id", "chat_type", "user_id", "thread_id")
        }
        return {
            "type": "object",
            "properties": {
                "text": {},
                "message_id": {},
                "internal": {},
                "source": {"type": "object", "properties": source},
            },
            "required": ["text", "message_id", "internal", "source"],
        }
    return annotation_schema(annotation)


def _shell_stdout_schema() -> dict[str, Any]:
    text = {"type": "string"}
    return {
        "$schema": DRAFT,
        "$id": f"{BASE_ID}shell-stdout.schema.json",
        "title": "shell hook stdout",
        "description": (
            "What a shell hook may print. Empty output, or any object that "
            "matches none of these shapes, has no effect."
        ),
        "anyOf": [
            {"title": "no effect", "type": "object", "maxProperties": 0},
            {
                "title": "block (pre_tool_call)",
                "type": "object",
                "properties": {"action": {"const": "block"}, "message": text},
                "required": ["action"],
            },
            {
                "title": "block, Claude Code style (pre_tool_call; pre_verify: keep going)",
                "type": "object",
                "properties": {"decision": {"const": "block"}, "reason": text},
                "required": ["decision"],
            },
            {
                "title": "modify (pre_tool_call)",
                "type": "object",
                "properties": {"action": {"const": "modify"}, "args": {"type": "object"}},
                "required": ["action", "args"],
            },
            {
                "title": "modify, Claude Code style (pre_tool_call)",
                "type": "object",
                "properties": {
                    "decision": {"const": "modify"},
                    "tool_input": {"type": "object"},
                },
                "required": ["decision", "tool_input"],
            },
            {
                "title": "approve (pre_tool_call)",
                "type": "object",
                "properties": {
                    "action": {"const": "approve"},
                    "message": text,
                    "rule_key": text,
                    "review": {"enum": ["human", "smart"]},
                },
                "required": ["action"],
            },
            {
                "title": "Claude Code permission decision (pre_tool_call)",
                "type": "object",
                "properties": {
                    "hookSpecificOutput": {
                        "type": "object",
                        "properties": {
                            "permissionDecision": {"enum": ["allow", "deny", "ask"]},
                            "permissionDecisionReason": text,
                        },
                    }
                },
                "required": ["hookSpecificOutput"],
            },
            {
                "title": "context (pre_llm_call)",
                "type": "object",
                "properties": {"context": text},
                "required": ["context"],
            },
            {
                "title": "continue (pre_verify)",
                "type": "object",
                "properties": {"action": {"const": "continue"}, "message": text},
                "required": ["action", "message"],
            },
        ],
    }


def _hook_yaml_schema() -> dict[str, Any]:
    return {
        "$schema": DRAFT,
        "$id": f"{BASE_ID}hook-yaml.schema.json",
        "title": "gateway hook HOOK.yaml",
        "description": "A gateway hook's HOOK.yaml: only events is required.",
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "description": {"type": "string"},
            "events": {
                "type": "array",
                "items": {"type": "string", "pattern": "^[a-z_]+:([a-z0-9_-]+|\\*)$"},
                "minItems": 1,
            },
            "enabled": {"type": "boolean"},
            "host_loop": {
                "type": "boolean",
                "description": "Run the async handler on the gateway's own event loop "
                "(it awaits objects bound to it) instead of a loop of its own; a handler "
                "that blocks there stalls the gateway.",
            },
        },
        "required": ["events"],
        "additionalProperties": False,
    }


def _config_hooks_schema() -> dict[str, Any]:

    events = sorted(CATALOGUE)
    shell_entry = {
        "type": "object",
        "properties": {
            "matcher": {"type": "string"},
            "command": {"type": "string", "minLength": 1},
            "timeout": {"type": "integer", "minimum": 1, "maximum": 300},
            "fail_closed": {"type": "boolean"},
            "failClosed": {"type": "boolean"},
            "dialect": {"enum": list(DIALECTS)},
            # Claude Code handler options (dialect: claude-code entries only).
            "type": {"enum": ["command", "prompt", "agent"]},
            "prompt": {"type": "string", "minLength": 1},
            "model": {"type": "string"},
            "async": {"type": "boolean"},
            "asyncRewake": {"type": "boolean"},
            "async_rewake": {"type": "boolean"},
            "if": {"type": "string", "minLength": 1},
            "plugin_root": {"type": "string"},
            "plugin_data": {"type": "string"},
            "statusMessage": {"type": "string"},
            "status_message": {"type": "string"},
            "shell": {"enum": ["bash"]},
            "persistent": {"type": "boolean"},
        },
        "anyOf": [{"required": ["command"]}, {"required": ["prompt"]}],
        "additionalProperties": False,
    }
    target = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "url": {"type": "string", "pattern": "^https?://"},
            "events": {"type": "array", "items": {"enum": events}, "minItems": 1},
            "secret_env": {"type": "string"},
            "secret": {"type": "string"},
            "timeout": {"type": "integer", "minimum": 1, "maximum": 60},
            "matcher": {"type": "string"},
            "signature": {"enum": ["github", "standard"]},
            "durable": {"type": "boolean"},
            "retry_schedule": {"type": "array", "items": {"type": "number", "minimum": 0}},
        },
        "required": ["url", "events"],
        "additionalProperties": False,
    }
    return {
        "$schema": DRAFT,
        "$id": f"{BASE_ID}config-hooks.schema.json",
        "title": "config.yaml hooks: block",
        "description": (
            "The hooks: block: shell hook entries per event, plus outbound. Claude Code "
            "event names (PreToolUse, ...) hold dialect: claude-code entries."
        ),
        "type": "object",
        "properties": {
            "outbound": {"type": "array", "items": target},
            **{event: {"type": "array", "items": shell_entry} for event in events},
            **{
                name: {"type": "array", "items": shell_entry}
                for dialect in every_dialect()
                for name in dialect.events
            },
        },
        "additionalProperties": True,
    }


def _config_schema() -> dict[str, Any]:
    hooks = {k: v for k, v in _config_hooks_schema().items() if not k.startswith("$")}
    names = {"type": ["array", "string"], "items": {"type": "string"}}
    return {
        "$schema": DRAFT,
        "$id": f"{BASE_ID}config.schema.json",
        "title": "config.yaml: the keys hermes-hooks reads",
        "description": (
            "The rest of config.yaml belongs to Hermes and is not described here. Under "
            "plugins:, a key that is not a setting below holds one plugin's own settings."
        ),
        "type": "object",
        "properties": {
            "hooks": {**hooks, "type": ["object", "null"]},
            "hooks_auto_accept": {"type": "boolean"},
            "hooks_claude_tools": {"type": ["object", "null"]},
            "plugins": {
                "type": ["object", "null"],
                "properties": {
                    "enabled": names,
                    "disabled": names,
                    "hook_callback_timeout": {"type": "number", "minimum": 0, "maximum": 600},
                    "stream_reasoning_deltas": {"type": "boolean"},
                    "entries": {"type": "object"},
                },
                "additionalProperties": {"type": "object"},
            },
        },
        "additionalProperties": True,
    }


def _plugin_yaml_schema() -> dict[str, Any]:
    strings = {"type": "array", "items": {"type": "string"}}
    return {
        "$schema": DRAFT,
        "$id": f"{BASE_ID}plugin-yaml.schema.json",
        "title": "a directory plugin's plugin.yaml",
        "description": "Every key is optional; the keys Hermes itself reads are allowed too.",
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "version": {"type": ["string", "number"]},
            "description": {"type": "string"},
            "author": {"type": "string"},
            "kind": {"type": "string"},
            "label": {"type": "string"},
            "hooks": {"type": "array"},
            "platforms": {"type": "array"},
            "requires_env": {"type": "array"},
            "optional_env": {"type": "array"},
            "requires_plugins": strings,
        },
        "patternProperties": {"^provides_": {"type": "array"}},
        "additionalProperties": False,
    }


def all_schemas() -> dict[str, dict[str, Any]]:
    """Every generated schema, keyed by its path under ``hookspecs/``."""
    schemas: dict[str, dict[str, Any]] = {}
    for wire in WIRES:
        for event in CATALOGUE:
            schemas[f"{wire}/{event}.schema.json"] = event_schema(event, wire)
    schemas["shell-stdout.schema.json"] = _shell_stdout_schema()
    schemas["hook-yaml.schema.json"] = _hook_yaml_schema()
    schemas["config-hooks.schema.json"] = _config_hooks_schema()
    schemas["config.schema.json"] = _config_schema()
    schemas["plugin-yaml.schema.json"] = _plugin_yaml_schema()
    return schemas


#: The schemas of the files :mod:`hermes_hooks.config_schema` checks, by file kind.
FILE_SCHEMAS = {
    "config.yaml": _config_schema,
    "HOOK.yaml": _hook_yaml_schema,
    "plugin.yaml": _plugin_yaml_schema,
}


def render(schema: dict[str, Any]) -> str:
    """The checked-in text of a schema."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def write_all(root: Path) -> list[Path]:
    """Write every schema under ``root``; return the paths written."""
    written = []
    for relative, schema in all_schemas().items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(schema), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "hookspecs")
    print(f"wrote {len(write_all(target))} schemas under {target}")
