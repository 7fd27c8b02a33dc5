"""The checked-in JSON Schemas match the catalogue, and real documents validate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from hermes_hooks.cli import main
from hermes_hooks.envelope import build_envelope, dumps
from hermes_hooks.hookspecs import CATALOGUE
from hermes_hooks.schemas import all_schemas, render

HOOKSPECS = Path(__file__).resolve().parents[1] / "hookspecs"
SAMPLES = {"str": "text", "int": 3, "float": 1.5, "bool": True, "Any": {"nested": [1]}}


def sample(annotation: str) -> Any:
    first = annotation.split("|")[0].strip()
    if first.startswith("dict["):
        return {"key": "value"}
    if first.startswith("list["):
        return [sample(first[5:-1])] if first != "list[Any]" else ["x"]
    return SAMPLES.get(first, "text")


def test_checked_in_schemas_match_the_catalogue() -> None:
    generated = all_schemas()
    on_disk = {
        str(p.relative_to(HOOKSPECS)): p.read_text(encoding="utf-8")
        for p in HOOKSPECS.rglob("*.schema.json")
        if p.parent.name in ("shell-stdin", "webhook-body") or p.parent == HOOKSPECS
    }
    on_disk.pop("recording.schema.json", None)  # the replay format, not generated
    assert sorted(on_disk) == sorted(generated), "run: python -m hermes_hooks.schemas hookspecs"
    for key, schema in generated.items():
        assert on_disk[key] == render(schema), (
            f"{key} drifted: python -m hermes_hooks.schemas hookspecs"
        )


def test_every_catalogue_hook_has_both_wire_schemas() -> None:
    for event in CATALOGUE:
        for wire in ("shell-stdin", "webhook-body"):
            assert (HOOKSPECS / wire / f"{event}.schema.json").is_file()


@pytest.mark.parametrize("event", sorted(CATALOGUE))
def test_real_envelopes_validate(event: str) -> None:
    payload = {f.name: sample(f.type) for f in CATALOGUE[event].fields}
    document = json.loads(dumps(build_envelope(event, payload)))
    jsonschema.validate(document, all_schemas()[f"shell-stdin/{event}.schema.json"])
    body = {**document, "delivery_id": "0" * 32, "timestamp": "2026-07-22T14:00:00Z"}
    jsonschema.validate(body, all_schemas()[f"webhook-body/{event}.schema.json"])


def test_a_wrong_document_does_not_validate() -> None:
    document = json.loads(dumps(build_envelope("pre_tool_call", {"tool_name": 5, "args": {}})))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, all_schemas()["shell-stdin/pre_tool_call.schema.json"])


def test_every_schema_is_a_valid_draft_2020_12_schema() -> None:
    for schema in all_schemas().values():
        jsonschema.Draft202012Validator.check_schema(schema)


def test_schema_command_prints_one(capsys: Any) -> None:
    assert main(["schema", "post_tool_call", "--wire", "webhook-body"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["title"] == "post_tool_call: outbound webhook body"
    assert "delivery_id" in printed["required"]
