"""The OpenAI Agents SDK's own agent loop, offline (its ScriptedModel), under the
adapter: a block stops the tool and its message reaches the model, a harmless call
runs, the pre_llm_call context reaches the model, a shell hook and a Python plugin
both fire."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from agents import Agent, function_tool
from agents.testing import ScriptedModel, assistant_message, function_call

from hermes_hooks.integrations.openai_agents import OpenAIAgentsGuard
from tests.integrations.sdks.helpers import (
    PLUGIN_BLOCK,
    PLUGIN_CONTEXT,
    SHELL_BLOCK,
    SHELL_CONTEXT,
    fired,
    load_home,
    make_home,
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
    @function_tool
    def run_shell(command: str) -> str:
        """Run a shell command."""
        ran.append(command)
        return f"ran: {command}"

    @function_tool
    def delete_everything(path: str) -> str:
        """Delete everything under path."""
        ran.append(f"delete {path}")
        return "deleted"

    return Agent(name="worker", model=model, tools=[run_shell, delete_everything], **extra)


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
