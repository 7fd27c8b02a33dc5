"""A LangChain agent (a LangGraph graph) under hermes-hooks.

    pip install 'hermes-hooks[langchain]'
    python examples/integrations/langgraph_example.py

Offline by default: langchain-core's fake chat model plays the model (it asks for a
dangerous and a harmless shell command).  With a real model pass it (e.g.
``init_chat_model("openai:gpt-4.1")``) to ``create_agent``; the middleware line stays.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool

import hermes_hooks
from hermes_hooks.integrations.langchain import HermesMiddleware

HOME = Path(__file__).resolve().parent / "home"


class ScriptedChat(FakeMessagesListChatModel):
    """The fake chat model, accepting the agent's tools (it answers from its script)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


@tool
def run_shell(command: str) -> str:
    """Run a shell command and return its output."""
    done = subprocess.run(["sh", "-c", command], capture_output=True, text=True, check=False)
    return done.stdout


def main() -> None:
    calls = [
        {"name": "run_shell", "args": {"command": "rm -rf ./build"}, "id": "call-1"},
        {"name": "run_shell", "args": {"command": "echo hello"}, "id": "call-2"},
    ]
    model = ScriptedChat(
        responses=[
            AIMessage(content="", tool_calls=calls),
            AIMessage(content="I could not delete ./build; echo said hello."),
        ]
    )
    hooks = hermes_hooks.load(HOME, entry_points=False)
    try:
        # The one line: the middleware.
        agent = create_agent(model, [run_shell], middleware=[HermesMiddleware(hooks)])
        result = agent.invoke(
            {"messages": [HumanMessage("Tidy up, then say hello.")]},
            config={"configurable": {"thread_id": "example"}},
        )
    finally:
        hooks.close()
    for message in result["messages"]:
        if isinstance(message, ToolMessage):
            print(f"tool result {message.tool_call_id}: {str(message.content).strip()}")
    print("final:", result["messages"][-1].content)


if __name__ == "__main__":
    main()
