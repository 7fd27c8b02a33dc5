"""Synthetic payloads: every catalogued hook, every field, the catalogue's types."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hermes_hooks.envelope import build_envelope, dumps
from hermes_hooks.errors import UnknownHookError
from hermes_hooks.hookspecs import CATALOGUE, VALID_HOOKS
from hermes_hooks.synthetic import TOOL_ARGS, synthetic_payload


def conforms(value: Any, type_text: str) -> bool:
    """Whether ``value`` has the catalogue type ``type_text`` (the spec's notation)."""
    for option in type_text.split(" | "):  # no catalogue type nests a union in brackets
        if option == "Any":
            return True
        if option == "None" and value is None:
            return True
        if option == "str" and isinstance(value, str):
            return True
        if option == "bool" and isinstance(value, bool):
            return True
        if option == "int" and isinstance(value, int) and not isinstance(value, bool):
            return True
        if option == "float" and isinstance(value, float):
            return True
        if option == "dict[str, Any]" and isinstance(value, dict):
            return all(isinstance(k, str) for k in value)
        if option.startswith("list[") and isinstance(value, list):
            inner = option[5:-1]
            return all(conforms(item, inner) for item in value)
    return False


def test_the_type_checker_rejects_what_it_should() -> None:
    assert not conforms(True, "int")
    assert not conforms(None, "str")
    assert not conforms(1, "float")
    assert not conforms(["a", 1], "list[str]")
    assert not conforms([{"a": 1}, "x"], "list[dict[str, Any]]")
    assert conforms(None, "dict[str, Any] | None")
    assert conforms([], "list[dict[str, Any]]")


def test_all_37_hooks_have_a_payload() -> None:
    assert len(VALID_HOOKS) == 37
    for event in VALID_HOOKS:
        assert isinstance(synthetic_payload(event), dict)


@pytest.mark.parametrize("event", sorted(VALID_HOOKS))
def test_every_field_is_present_with_its_catalogue_type(event: str) -> None:
    payload = synthetic_payload(event)
    fields = CATALOGUE[event].fields
    assert sorted(payload) == sorted(f.name for f in fields)
    for field in fields:
        assert conforms(payload[field.name], field.type), (field.name, field.type)
    # It travels as a shell stdin / webhook body.
    document = json.loads(dumps(build_envelope(event, payload)))
    assert document["hook_event_name"] == event


def test_tool_name_picks_the_tool_and_its_args() -> None:
    payload = synthetic_payload("pre_tool_call", tool_name="write_file")
    assert payload["tool_name"] == "write_file"
    assert payload["args"] == TOOL_ARGS["write_file"]
    assert synthetic_payload("post_tool_call", tool_name="my_tool")["args"] == {}
    assert synthetic_payload("pre_tool_call")["tool_name"] == "terminal"
    assert "tool_name" not in synthetic_payload("pre_llm_call", tool_name="terminal")


def test_each_call_returns_a_fresh_copy() -> None:
    first = synthetic_payload("pre_llm_call")
    first["conversation_history"].append({"role": "user", "content": "mutated"})
    first["args"] = "x"
    assert len(synthetic_payload("pre_llm_call")["conversation_history"]) == 2
    tool = synthetic_payload("pre_tool_call")
    tool["args"]["command"] = "changed"
    assert synthetic_payload("pre_tool_call")["args"] == TOOL_ARGS["terminal"]


def test_an_unknown_event_is_refused_with_a_suggestion() -> None:
    with pytest.raises(UnknownHookError, match="did you mean 'pre_tool_call'"):
        synthetic_payload("pre_tool_cal")
