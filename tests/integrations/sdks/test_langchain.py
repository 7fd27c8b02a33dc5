"""LangChain's create_agent (a LangGraph graph) with langchain-core's fake chat model
scripted to ask for tool calls, under the middleware: a block stops the tool and its
message reaches the model, a harmless call runs, the pre_llm_call context reaches the
model, a shell hook and a Python plugin both fire."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatResult
from langchain_core.tools import tool

from hermes_hooks.integrations.langchain import HermesMiddleware
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
    return [tool(function) for function in recording_tools(ran)]


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


def _one_round(*calls: tuple[str, dict[str, Any], str]) -> ScriptedChat:
    return ScriptedChat(seen=[], responses=[_calls(*calls), AIMessage(content="done")])


def test_a_crashing_gate_blocks_and_modify_and_transform_reach_the_tool_and_model(
    tmp_path: Path,
) -> None:
    home = make_home(tmp_path)
    hooks = load_home(home)
    ran: list[str] = []
    model = _one_round(
        ("crash_the_gate", {"path": "/"}, "c-crash"),
        ("ask_first", {"path": "/etc"}, "c-ask"),
        ("run_shell", {"command": "ls"}, "c-ls"),
        ("shout", {"text": "quiet"}, "c-shout"),
    )
    try:
        agent = create_agent(model, _tools(ran), middleware=[HermesMiddleware(hooks)])
        agent.invoke({"messages": [HumanMessage("go")]})
    finally:
        hooks.close()
    assert sorted(ran) == ["ls -la", "shout quiet"]
    assert _tool_outputs(model.seen[1]) == {
        "c-crash": (json.dumps({"error": CRASH_BLOCK}), "error"),
        "c-ask": (
            json.dumps({"error": "BLOCKED: plugin approval required for ask_first"}),
            "error",
        ),
        "c-ls": ("ran: ls -la", "success"),
        "c-shout": ("QUIET", "success"),
    }


def test_an_adapter_failure_fails_closed_for_the_gate_and_open_elsewhere(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    home = make_home(tmp_path)
    hooks = load_home(home)
    ran: list[str] = []
    model = _one_round(("shout", {"text": "hi"}, "c-1"))
    broken = BrokenFacade(hooks, "pre_tool_call", "pre_llm_call")
    try:
        agent = create_agent(model, _tools(ran), middleware=[HermesMiddleware(broken)])
        with caplog.at_level(logging.ERROR, logger="hermes_hooks"):
            result = agent.invoke({"messages": [HumanMessage("go")]})
    finally:
        hooks.close()
    assert ran == []
    assert result["messages"][-1].content == "done"
    block = "langchain adapter could not run pre_tool_call; blocked (fail closed)"
    assert _tool_outputs(model.seen[1]) == {"c-1": (json.dumps({"error": block}), "error")}
    assert [m.content for m in model.seen[0] if isinstance(m, HumanMessage)] == ["go"]
    errors = sorted(r.getMessage() for r in caplog.records if r.levelno == logging.ERROR)
    assert errors == [
        "langchain adapter: firing pre_llm_call failed: KeyError: "
        "'adapter bug in pre_llm_call'; skipped",
        "langchain adapter: firing pre_tool_call failed: KeyError: "
        "'adapter bug in pre_tool_call'; the call is blocked (fail closed)",
    ]


def test_a_hand_built_langgraph_tool_node_is_gated(tmp_path: Path) -> None:
    """A plain LangGraph graph (model node -> ToolNode -> model node): the wrappers on
    the ToolNode gate every call; the graph has no turn events to offer."""
    from langgraph.graph import END, START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode, tools_condition

    home = make_home(tmp_path)
    hooks = load_home(home)
    ran: list[str] = []
    model = _one_round(
        ("run_shell", {"command": "rm -rf /tmp/x"}, "c-danger"),
        ("run_shell", {"command": "echo hi"}, "c-ok"),
    )
    guard = HermesMiddleware(hooks)

    def call_model(state: MessagesState) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("model", call_model)
    graph.add_node("tools", ToolNode(_tools(ran), **guard.tool_node_wrappers()))
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", tools_condition)
    graph.add_edge("tools", "model")
    graph.add_edge("model", END)
    try:
        graph.compile().invoke({"messages": [HumanMessage("clean up")]})
    finally:
        hooks.close()
    assert ran == ["echo hi"]
    assert _tool_outputs(model.seen[1]) == {
        "c-danger": (json.dumps({"error": SHELL_BLOCK}), "error"),
        "c-ok": ("ran: echo hi", "success"),
    }
    plugin = sorted((n["hook"], n.get("status")) for n in fired(home) if n["by"] == "plugin")
    assert plugin == [
        ("post_tool_call", "blocked"),
        ("post_tool_call", "ok"),
        ("pre_tool_call", None),
        ("pre_tool_call", None),
    ]


def test_a_replaced_final_text_rewrites_the_last_ai_message(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    hooks = load_home(home)
    model = ScriptedChat(seen=[], responses=[AIMessage(content="say it loud", id="ai-1")])
    try:
        agent = create_agent(model, _tools([]), middleware=[HermesMiddleware(hooks)])
        result = agent.invoke({"messages": [HumanMessage("hi")]})
    finally:
        hooks.close()
    assert [(type(m).__name__, m.content) for m in result["messages"]] == [
        ("HumanMessage", "hi"),
        ("AIMessage", "SAID LOUD"),
    ]
    posts = [n["response"] for n in fired(home) if n["hook"] == "post_llm_call"]
    assert posts == ["SAID LOUD"]
