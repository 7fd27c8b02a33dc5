"""Agent SDK adapters: the same SDK run with and without hermes-hooks.

Per SDK, one agent run whose scripted model asks for ``TOOL_CALLS`` tool calls in one
step and then answers, timed interleaved in one process:

* plain: the SDK's own run, no hooks (``Runner.run`` / ``agent.invoke``);
* guarded, empty home: the adapter around the same run with no callbacks (its own
  bookkeeping only: every firing is skipped or finds nothing);
* guarded, one gate: a home with one Python plugin whose ``pre_tool_call`` allows
  every call (a firing per tool call, on the dispatcher's bounded worker);
* floor: the plain run plus one ``asyncio.to_thread`` hop per tool call, which any
  adapter that keeps a blocking firing off the SDK's event loop pays.

Figures are ratios to the plain run (so ``(ratio - 1) / TOOL_CALLS`` of a plain run is
the added cost per tool call).  The Claude Agent SDK's loop needs its CLI, so its
figures time the SDK's own control-protocol handler answering one ``PreToolUse``
request with our callback against the same handler with a callback that returns
``{}``.  Only ``tox -e sdks`` installs the SDKs; without them this prints a note.

    python -m bench sdks
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench._timing import ratios

__all__ = ["run"]

TOOL_CALLS = 10
_CALLS_PER_ROUND = 5
_REPETITIONS = 5
_PLUGIN = "def allow(**kwargs):\n    return None\n\n\ndef register(ctx):\n" + (
    "    ctx.register_hook('pre_tool_call', allow)\n"
)


def _home(root: Path, name: str, with_gate: bool) -> Path:
    home = root / name
    home.mkdir()
    if with_gate:
        plugin = home / "plugins" / "allow"
        plugin.mkdir(parents=True)
        (plugin / "plugin.yaml").write_text("name: allow\nversion: '1'\n", encoding="utf-8")
        (plugin / "__init__.py").write_text(_PLUGIN, encoding="utf-8")
    return home


def _floor_hops() -> None:
    async def hops() -> None:
        for _ in range(TOOL_CALLS):
            await asyncio.to_thread(int)

    asyncio.run(hops())


def _openai(empty: Any, gated: Any) -> list[tuple[str, list[float]]]:
    from agents import Agent, Runner, function_tool
    from agents.testing import ScriptedModel, assistant_message, function_call

    from hermes_hooks.integrations.openai_agents import OpenAIAgentsGuard

    @function_tool
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    def agent() -> Any:
        calls = [
            function_call("echo", {"text": f"t{i}"}, call_id=f"c{i}") for i in range(TOOL_CALLS)
        ]
        model = ScriptedModel([calls, [assistant_message("done")]])
        return Agent(name="bench", model=model, tools=[echo])

    plain_guard, gate_guard = OpenAIAgentsGuard(empty), OpenAIAgentsGuard(gated)

    def plain() -> None:
        asyncio.run(Runner.run(agent(), "go"))

    def guarded_empty() -> None:
        asyncio.run(plain_guard.run(agent(), "go"))

    def guarded_gate() -> None:
        asyncio.run(gate_guard.run(agent(), "go"))

    def floor() -> None:
        plain()
        _floor_hops()

    return _figures("openai-agents", plain, guarded_empty, guarded_gate, floor)


def _langgraph(empty: Any, gated: Any) -> list[tuple[str, list[float]]]:
    from langchain.agents import create_agent
    from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.tools import tool

    from hermes_hooks.integrations.langchain import HermesMiddleware

    class Scripted(FakeMessagesListChatModel):
        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

    @tool
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    requests = [
        {"name": "echo", "args": {"text": f"t{i}"}, "id": f"c{i}"} for i in range(TOOL_CALLS)
    ]

    def model() -> Any:
        return Scripted(
            responses=[AIMessage(content="", tool_calls=requests), AIMessage(content="done")]
        )

    def runner(middleware: list[Any]) -> Callable[[], None]:
        def go() -> None:
            create_agent(model(), [echo], middleware=middleware).invoke(
                {"messages": [("user", "go")]}
            )

        return go

    plain = runner([])

    def floor() -> None:
        plain()
        _floor_hops()

    return _figures(
        "langgraph",
        plain,
        runner([HermesMiddleware(empty)]),
        runner([HermesMiddleware(gated)]),
        floor,
    )


def _claude(gated: Any) -> list[tuple[str, list[float]]]:
    from claude_agent_sdk._internal.query import Query
    from claude_agent_sdk._internal.transport import Transport

    from hermes_hooks.integrations.claude_agent_sdk import claude_agent_hooks

    class Wire(Transport):
        async def connect(self) -> None:
            return None

        async def write(self, data: str) -> None:
            return None

        def read_messages(self) -> Any:
            raise NotImplementedError

        async def close(self) -> None:
            return None

        def is_ready(self) -> bool:
            return True

        async def end_input(self) -> None:
            return None

    async def nothing(data: Any, tool_use_id: Any, context: Any) -> dict[str, Any]:
        return {}

    ours = claude_agent_hooks(gated)["PreToolUse"][0].hooks[0]
    query = Query(transport=Wire(), is_streaming_mode=True)
    query.hook_callbacks = {"plain": nothing, "ours": ours}
    data = {
        "session_id": "bench",
        "transcript_path": "/dev/null",
        "cwd": "/",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_use_id": "tu-1",
    }

    def answer(callback_id: str) -> Callable[[], None]:
        request = {
            "type": "control_request",
            "request_id": "r",
            "request": {
                "subtype": "hook_callback",
                "callback_id": callback_id,
                "input": data,
                "tool_use_id": "tu-1",
            },
        }
        return lambda: asyncio.run(query._handle_control_request(request))  # type: ignore[arg-type]

    try:
        figure = ratios(answer("ours"), answer("plain"), calls=20, repetitions=_REPETITIONS)
    finally:
        query._message_send.close()
        query._message_receive.close()
    label = "claude-agent-sdk: one PreToolUse answered with one Python gate / with {}"
    return [(label, figure)]


def _figures(
    sdk: str,
    plain: Callable[[], None],
    empty: Callable[[], None],
    gate: Callable[[], None],
    floor: Callable[[], None],
) -> list[tuple[str, list[float]]]:
    each = {"calls": _CALLS_PER_ROUND, "repetitions": _REPETITIONS}
    per = f"({TOOL_CALLS} tool calls per run)"
    return [
        (f"{sdk}: guarded run, empty home / plain run {per}", ratios(empty, plain, **each)),
        (f"{sdk}: guarded run, one Python gate / plain run {per}", ratios(gate, plain, **each)),
        (
            f"{sdk}: floor, plain run + a thread hop per call / plain run",
            ratios(floor, plain, **each),
        ),
    ]


def run() -> list[tuple[str, list[float]]]:
    """Every SDK that is installed; a note for each that is not."""
    import hermes_hooks

    os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")  # never export traces
    wanted = {"openai-agents": "agents", "langgraph": "langchain", "claude": "claude_agent_sdk"}
    missing = [name for name, module in wanted.items() if not importlib.util.find_spec(module)]
    for name in missing:
        print(f"(skipped {name}: its SDK is not installed here; `tox -e sdks` runs it)")
    figures: list[tuple[str, list[float]]] = []
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        empty = hermes_hooks.load(_home(root, "empty", False), entry_points=False)
        gated = hermes_hooks.load(_home(root, "gated", True), entry_points=False)
        try:
            if "openai-agents" not in missing:
                figures += _openai(empty, gated)
            if "langgraph" not in missing:
                figures += _langgraph(empty, gated)
            if "claude" not in missing:
                figures += _claude(gated)
        finally:
            empty.close()
            gated.close()
    return figures


if __name__ == "__main__":
    for label, value in run():
        print(label, json.dumps([round(v, 3) for v in value]))
