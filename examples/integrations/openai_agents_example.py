"""An OpenAI Agents SDK agent under hermes-hooks.

    pip install 'hermes-hooks[openai-agents]'
    python examples/integrations/openai_agents_example.py

Offline by default: the SDK's own ScriptedModel plays the model (it asks for a
dangerous and a harmless shell command).  With a real model, drop ``model=`` from the
Agent and set OPENAI_API_KEY; the one hermes-hooks line stays the same.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from agents import Agent, function_tool
from agents.testing import ScriptedModel, assistant_message, function_call

import hermes_hooks
from hermes_hooks.integrations.openai_agents import OpenAIAgentsGuard

HOME = Path(__file__).resolve().parent / "home"


@function_tool
def run_shell(command: str) -> str:
    """Run a shell command and return its output."""
    done = subprocess.run(["sh", "-c", command], capture_output=True, text=True, check=False)
    return done.stdout


async def main() -> None:
    os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")  # offline: no trace export
    model = ScriptedModel(
        [
            [
                function_call("run_shell", {"command": "rm -rf ./build"}, call_id="call-1"),
                function_call("run_shell", {"command": "echo hello"}, call_id="call-2"),
            ],
            [assistant_message("I could not delete ./build; echo said hello.")],
        ]
    )
    agent = Agent(
        name="shell-helper", instructions="Use the shell.", model=model, tools=[run_shell]
    )
    hooks = hermes_hooks.load(HOME, entry_points=False)
    try:
        # The one line: guard.run(...) where you had Runner.run(...).
        result = await OpenAIAgentsGuard(hooks).run(agent, "Tidy up, then say hello.")
    finally:
        hooks.close()
    print("model saw the user message:", model.calls[0].input[0]["content"].replace("\n", " | "))
    for item in model.calls[1].input:
        if isinstance(item, dict) and item.get("type") == "function_call_output":
            print(f"tool result {item['call_id']}: {item['output'].strip()}")
    print("final:", result.final_output)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
