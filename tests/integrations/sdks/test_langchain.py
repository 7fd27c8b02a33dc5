"""LangChain's create_agent (a LangGraph graph) with langchain-core's fake chat model
scripted to ask for tool calls, under the middleware: a block stops the tool and its
message reaches the model, a harmless call runs, the pre_llm_call context reaches the
model, a shell hook and a Python plugin both fire."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatResult
from langchain_core.tools import tool

from hermes_hooks.integrations.langchain import HermesMiddleware
from tests.integrations.sdks.helpers import (
    PLUGIN_BLOCK,
    PLUGIN_CONTEXT,
    SHELL_BLOCK,
    SHELL_CONTEXT,
    fired,
    load_home,
    make_home,
)


class ScriptedChat(FakeMessagesListChatModel):
    """langchain-core's fake chat model, recording every input and accepting tools."""

    seen: list[list[BaseMessage]]

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        self.seen.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


def _calls(*calls: tuple[str, dict[str, Any], str]) -> AIMessage:
    requests = [{"name": n, "args": a, "id": i, "type": "tool_call"} for n, a, i in calls]
    return AIMessage(content="", tool_calls=requests)


def _tools(ran: list[str]) -> list[Any]:
    @tool
    def run_shell(command: str) -> str:
        """Run a shell command."""
        ran.append(command)
        return f"ran: {command}"

    @tool
    def delete_everything(path: str) -> str:
        """Delete everything under path."""
        ran.append(f"delete {path}")
        return "deleted"

    @tool
    def shout(text: str) -> str:
        """Say it loud."""
        ran.append(f"shout {text}")
        return text

    return [run_shell, delete_everything, shout]


def _script() -> ScriptedChat:
    return ScriptedChat(
        seen=[],
        responses=[
            _calls(
                ("run_shell", {"command": "rm -rf /"}, "c-danger"),
                ("run_shell", {"command": "echo hi"}, "c-ok"),
                ("delete_everything", {"path": "/srv"}, "c-plugin"),
            ),
            AIMessage(content="done"),
        ],
    )


def _tool_outputs(messages: list[BaseMessage]) -> dict[str, tuple[str, str]]:
    return {
        m.tool_call_id: (str(m.content), m.status) for m in messages if isinstance(m, ToolMessage)
    }


def _check(home: Path, model: ScriptedChat, ran: list[str], result: dict[str, Any]) -> None:
    assert ran == ["echo hi"]
    assert _tool_outputs(model.seen[1]) == {
        "c-danger": (json.dumps({"error": SHELL_BLOCK}), "error"),
        "c-ok": ("ran: echo hi", "success"),
        "c-plugin": (json.dumps({"error": PLUGIN_BLOCK}), "error"),
    }
    sent = f"clean up\n\n{PLUGIN_CONTEXT}\n\n{SHELL_CONTEXT}"
    for seen in model.seen:
        assert [m.content for m in seen if isinstance(m, HumanMessage)] == [sent]
    # The state keeps the user's own message.
    assert [m.content for m in result["messages"] if isinstance(m, HumanMessage)] == ["clean up"]
    assert result["messages"][-1].content == "done"
    notes = fired(home)
    assert [(n["hook"], n.get("tool")) for n in notes if n["by"] == "shell"] == [
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


def test_a_block_stops_the_tool_and_the_model_reads_why(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    hooks = load_home(home)
    ran: list[str] = []
    model = _script()
    try:
        agent = create_agent(model, _tools(ran), middleware=[HermesMiddleware(hooks)])
        result = agent.invoke(
            {"messages": [HumanMessage("clean up")]},
            config={"configurable": {"thread_id": "thread-1"}},
        )
    finally:
        hooks.close()
    _check(home, model, ran, result)


def test_the_async_loop_fires_the_same(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    hooks = load_home(home)
    ran: list[str] = []
    model = _script()
    try:
        agent = create_agent(model, _tools(ran), middleware=[HermesMiddleware(hooks)])
        result = asyncio.run(agent.ainvoke({"messages": [HumanMessage("clean up")]}))
    finally:
        hooks.close()
    _check(home, model, ran, result)
