"""hookspecs/recording.schema.json: JSON Schema shaped, in step with the reader, and the
bundled recordings conform (checked with a small validator, no new dependency)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.host import recording as fmt

REPO = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((REPO / "hookspecs" / "recording.schema.json").read_text(encoding="utf-8"))
RECORDINGS = sorted((REPO / "examples" / "recordings").glob("*.jsonl"))

_TYPES = {
    "object": dict,
    "array": list,
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
    "null": type(None),
}


def _is(value: Any, kind: str) -> bool:
    if kind in ("integer", "number") and isinstance(value, bool):
        return False
    return isinstance(value, _TYPES[kind])


def errors(value: Any, schema: dict[str, Any], where: str = "$") -> list[str]:
    """The keywords this schema uses: $ref, oneOf, type, const, enum, required,
    properties, items, minLength, minimum."""
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/$defs/")
        return errors(value, SCHEMA["$defs"][name], where)
    if "oneOf" in schema:
        matches = [s for s in schema["oneOf"] if not errors(value, s, where)]
        return [] if len(matches) == 1 else [f"{where}: matches {len(matches)} of oneOf"]
    found: list[str] = []
    if "type" in schema:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is(value, k) for k in kinds):
            return [f"{where}: not {kinds}"]
    if "const" in schema and value != schema["const"]:
        found.append(f"{where}: not {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        found.append(f"{where}: not one of {schema['enum']}")
    if isinstance(value, str) and len(value) < schema.get("minLength", 0):
        found.append(f"{where}: too short")
    if isinstance(value, (int, float)) and "minimum" in schema and value < schema["minimum"]:
        found.append(f"{where}: below {schema['minimum']}")
    if isinstance(value, dict):
        found += [f"{where}: missing {k}" for k in schema.get("required", []) if k not in value]
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                found += errors(value[key], sub, f"{where}.{key}")
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            found += errors(item, schema["items"], f"{where}[{index}]")
    return found


def test_the_schema_is_json_schema_shaped() -> None:
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert SCHEMA["$id"].endswith("/hookspecs/recording.schema.json")
    assert [ref["$ref"] for ref in SCHEMA["oneOf"]] == [f"#/$defs/{t}" for t in fmt.LINE_TYPES]
    for name, definition in SCHEMA["$defs"].items():
        assert definition["type"] == "object"
        assert definition["properties"]["type"] == {"const": name}
        assert "type" in definition["required"]
        assert set(definition["required"]) <= set(definition["properties"])
        assert definition["description"]


# Each line type's documented keys are the reader's fields (less the line number).
@pytest.mark.parametrize(
    ("line_type", "model", "extra"),
    [
        ("header", fmt.Header, {"version"}),
        ("user", fmt.UserLine, set()),
        ("assistant", fmt.AssistantLine, set()),
        ("tool_result", fmt.ToolResultLine, set()),
        ("subagent", fmt.SubagentLine, set()),
        ("interrupt", fmt.Interrupt, set()),
    ],
)
def test_the_schema_keys_match_the_reader(line_type: str, model: Any, extra: set[str]) -> None:
    fields = {f.name for f in dataclasses.fields(model)} - {"line"}
    documented = set(SCHEMA["$defs"][line_type]["properties"]) - {"type"}
    assert documented == fields | extra


def test_the_schema_and_the_reader_require_the_same_header_keys() -> None:
    good = {"type": "header", "version": 1, "session_id": "s", "platform": "cli", "model": "m"}
    assert errors(good, SCHEMA) == []
    fmt.parse_recording([json.dumps(good)])
    for key in SCHEMA["$defs"]["header"]["required"]:
        broken = {k: v for k, v in good.items() if k != key}
        assert errors(broken, SCHEMA) != []
        with pytest.raises(fmt.RecordingError):
            fmt.parse_recording([json.dumps(broken)])


def test_the_validator_rejects_what_it_should() -> None:
    assert errors({"type": "user"}, SCHEMA) == ["$: matches 0 of oneOf"]
    assert errors({"type": "tool_result", "tool_call_id": "c", "status": "maybe"}, SCHEMA)
    assert errors({"type": "assistant", "tool_calls": [{"id": "c"}]}, SCHEMA)


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.name)
def test_bundled_recordings_conform(path: Path) -> None:
    lines = [
        json.loads(text) for text in path.read_text(encoding="utf-8").splitlines() if text.strip()
    ]
    problems = [f"line {n}: {e}" for n, line in enumerate(lines, 1) for e in errors(line, SCHEMA)]
    assert problems == []
    fmt.load_recording(path)  # and the reader accepts them


def test_the_three_bundled_recordings_exist() -> None:
    assert [p.name for p in RECORDINGS] == [
        "dangerous-commands.jsonl",
        "long-session.jsonl",
        "quickstart.jsonl",
    ]
