"""The OpenAI Agents SDK's own agent loop, offline (its ScriptedModel), under the
adapter: a block stops the tool and its message reaches the model, a harmless call
runs, the pre_llm_call context reaches the model, a shell hook and a Python plugin
both fire."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, function_tool
from agents.testing import ScriptedModel, assistant_message, function_call

from hermes_hooks.integrations.openai_agents import OpenAIAgentsGuard
from tests.integrations.sdks.helpers import (
    CRASH_BLOCK,
    PLUGIN_BLOCK,
    PLUGIN_CONTEXT,
    SHELL_BLOCK,
    SHELL_CONTEXT,
    BrokenFacade,
    fired,
    load_home,
    make_home,
    recording_tools,
)


def _outputs(items: Any) -> dict[str, str]:
    """call_id -> output of the function_call_output items of a model input."""
    return {
        item["call_id"]: item["output"]
        for item in items
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    }


def _user_texts(items: Any) -> list[str]:
    if isinstance(items, str):
        return [items]
    return [
        item["content"] for item in items if isinstance(item, dict) and item.get("role") == "user"
    ]


def _shell_agent(ran: list[str], model: ScriptedModel, **extra: Any) -> Agent[Any]:
    tools = [function_tool(function) for function in recording_tools(ran)]
    return Agent(name="worker", model=model, tools=tools, **extra)


def _one_round(*calls: Any) -> ScriptedModel:
    return ScriptedModel([list(calls), [assistant_message("done")]])


def test_a_block_stops_the_tool_and_the_model_reads_why(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    model = ScriptedModel(
        [
            [
                function_call("run_shell", {"command": "rm -rf /"}, call_id="c-danger"),
                function_call("run_shell", {"command": "echo hi"}, call_id="c-ok"),
                function_call("delete_everything", {"path": "/srv"}, call_id="c-plugin"),
            ],
            [assistant_message("done")],
        ]
    )
    ran: list[str] = []
    hooks = load_home(home)
    try:
        guard = OpenAIAgentsGuard(hooks)
        result = asyncio.run(guard.run(_shell_agent(ran, model), "clean up", session_id="sess-1"))
    finally:
        hooks.close()
    assert result.final_output == "done"
    assert ran == ["echo hi"]  # neither blocked call ran
    second = _outputs(model.calls[1].input)
    assert second == {
        "c-danger": json.dumps({"error": SHELL_BLOCK}),
        "c-ok": "ran: echo hi",
        "c-plugin": json.dumps({"error": PLUGIN_BLOCK}),
    }
    # The context of both hooks, Python first, is appended to the user message the
    # model receives on every call of the run.
    sent = f"clean up\n\n{PLUGIN_CONTEXT}\n\n{SHELL_CONTEXT}"
    assert _user_texts(model.calls[0].input) == [sent]
    assert _user_texts(model.calls[1].input) == [sent]
    notes = fired(home)
    shell = [(n["hook"], n.get("tool")) for n in notes if n["by"] == "shell"]
    assert shell == [
        ("pre_llm_call", None),
        ("pre_tool_call", "run_shell"),
        ("pre_tool_call", "run_shell"),
    ]
    plugin = [(n["hook"], n.get("tool"), n.get("status")) for n in notes if n["by"] == "plugin"]
    assert plugin[:2] == [("on_session_start", None, None), ("pre_llm_call", None, None)]
    assert sorted(p for p in plugin if p[0] == "post_tool_call") == [
        ("post_tool_call", "delete_everything", "blocked"),
        ("post_tool_call", "run_shell", "blocked"),
        ("post_tool_call", "run_shell", "ok"),
    ]
    assert plugin[-3:] == [
        ("transform_llm_output", None, None),
        ("post_llm_call", None, None),
        ("on_session_end", None, None),
    ]
    model.assert_complete()


def test_a_crashing_gate_blocks_and_modify_and_transform_reach_the_tool_and_model(
    tmp_path: Path,
) -> None:
    home = make_home(tmp_path)
    model = _one_round(
        function_call("crash_the_gate", {"path": "/"}, call_id="c-crash"),
        function_call("ask_first", {"path": "/etc"}, call_id="c-ask"),
        function_call("run_shell", {"command": "ls"}, call_id="c-ls"),
        function_call("shout", {"text": "quiet"}, call_id="c-shout"),
    )
    ran: list[str] = []
    hooks = load_home(home)
    try:
        asyncio.run(OpenAIAgentsGuard(hooks).run(_shell_agent(ran, model), "go"))
    finally:
        hooks.close()
    assert sorted(ran) == ["ls -la", "shout quiet"]  # the SDK runs them concurrently
    assert _outputs(model.calls[1].input) == {
        "c-crash": json.dumps({"error": CRASH_BLOCK}),
        "c-ask": json.dumps({"error": "BLOCKED: plugin approval required for ask_first"}),
        "c-ls": "ran: ls -la",
        "c-shout": "QUIET",
    }


def test_an_approval_runs_the_call_when_the_guard_allows_approvals(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    model = _one_round(function_call("ask_first", {"path": "/etc"}, call_id="c-ask"))
    ran: list[str] = []
    hooks = load_home(home)
    try:
        asyncio.run(OpenAIAgentsGuard(hooks, approve="allow").run(_shell_agent(ran, model), "go"))
    finally:
        hooks.close()
    assert ran == ["ask /etc"]
    assert _outputs(model.calls[1].input) == {"c-ask": "asked"}


def test_an_adapter_failure_fails_closed_for_the_gate_and_open_elsewhere(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    home = make_home(tmp_path)
    model = _one_round(function_call("shout", {"text": "hi"}, call_id="c-1"))
    ran: list[str] = []
    hooks = load_home(home)
    try:
        broken = BrokenFacade(hooks, "pre_tool_call", "pre_llm_call")
        with caplog.at_level(logging.ERROR, logger="hermes_hooks"):
            result = asyncio.run(
                OpenAIAgentsGuard(broken).run(_shell_agent(ran, model), "go")  # type: ignore[arg-type]
            )
    finally:
        hooks.close()
    assert ran == []
    assert result.final_output == "done"
    block = "openai-agents adapter could not run pre_tool_call; blocked (fail closed)"
    assert _outputs(model.calls[1].input) == {"c-1": json.dumps({"error": block})}
    assert _user_texts(model.calls[0].input) == ["go"]  # no context, the run went on
    errors = sorted(r.getMessage() for r in caplog.records if r.levelno == logging.ERROR)
    assert errors == [
        "openai-agents adapter: firing pre_llm_call failed: KeyError: "
        "'adapter bug in pre_llm_call'; skipped",
        "openai-agents adapter: firing pre_tool_call failed: KeyError: "
        "'adapter bug in pre_tool_call'; the call is blocked (fail closed)",
    ]


def test_a_harmless_run_changes_nothing_and_a_hand_off_fires_the_subagent_hooks(
    tmp_path: Path,
) -> None:
    home = make_home(tmp_path)
    ran: list[str] = []
    helper_model = _one_round(function_call("run_shell", {"command": "pwd"}, call_id="c-pwd"))
    helper = _shell_agent(ran, helper_model)
    helper.name = "helper"
    lead_model = ScriptedModel([[function_call("transfer_to_helper", {}, call_id="c-handoff")]])
    lead = Agent(name="lead", model=lead_model, handoffs=[helper])
    hooks = load_home(home)
    try:
        guard = OpenAIAgentsGuard(hooks)
        result = asyncio.run(guard.run(lead, "where am I", session_id="s-2"))
        again_model = ScriptedModel([[assistant_message("done")]])
        again = asyncio.run(guard.run(helper.clone(model=again_model), "hi", session_id="s-2"))
    finally:
        hooks.close()
    assert result.final_output == "done"
    assert again.final_output == "done"
    assert ran == ["pwd"]
    assert _outputs(helper_model.calls[1].input) == {
        "c-handoff": '{"assistant": "helper"}',
        "c-pwd": "ran: pwd",
    }
    plugin = [(n["hook"], n.get("child")) for n in fired(home) if n["by"] == "plugin"]
    assert plugin == [
        ("on_session_start", None),
        ("pre_llm_call", None),
        ("subagent_start", "helper"),
        ("pre_tool_call", None),
        ("post_tool_call", None),
        ("subagent_stop", "completed"),
        ("transform_llm_output", None),
        ("post_llm_call", None),
        ("on_session_end", None),
        # the second run of the same session: no on_session_start
        ("pre_llm_call", None),
        ("transform_llm_output", None),
        ("post_llm_call", None),
        ("on_session_end", None),
    ]


def test_the_original_agent_is_left_unguarded(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    model = _one_round()
    agent = _shell_agent([], model)
    hooks = load_home(home)
    try:
        guarded = OpenAIAgentsGuard(hooks).agent(agent)
    finally:
        hooks.close()
    assert [t.name for t in guarded.tools] == [t.name for t in agent.tools]
    assert all(a is not b for a, b in zip(guarded.tools, agent.tools, strict=True))
    assert all(
        not getattr(t.on_invoke_tool, "__hermes_hooks_wrapped__", False) for t in agent.tools
    )


def test_a_replaced_final_text_is_the_run_s_output(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    model = ScriptedModel([[assistant_message("say it loud")]])
    hooks = load_home(home)
    try:
        result = asyncio.run(OpenAIAgentsGuard(hooks).run(_shell_agent([], model), "hi"))
    finally:
        hooks.close()
    assert result.final_output == "SAID LOUD"
    posts = [n["response"] for n in fired(home) if n["hook"] == "post_llm_call"]
    assert posts == ["SAID LOUD"]
