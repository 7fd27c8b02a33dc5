"""The Claude Agent SDK with hermes-hooks' callbacks.

    pip install 'hermes-hooks[claude-agent-sdk]'
    python examples/integrations/claude_agent_sdk_example.py          # offline
    python examples/integrations/claude_agent_sdk_example.py --live   # needs the CLI

The SDK's agent loop runs in the Claude Code CLI (and needs its network), so offline
the example calls the PreToolUse callback the way the SDK would and prints its answer.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from claude_agent_sdk import ClaudeAgentOptions, query
from claude_agent_sdk.types import PreToolUseHookInput

import hermes_hooks
from hermes_hooks.integrations.claude_agent_sdk import claude_agent_hooks

HOME = Path(__file__).resolve().parent / "home"


async def main(live: bool) -> None:
    hooks = hermes_hooks.load(HOME, entry_points=False)
    try:
        # The one line: the SDK's hooks option.
        options = ClaudeAgentOptions(hooks=claude_agent_hooks(hooks))
        if live:
            async for message in query(prompt="Tidy up ./build", options=options):
                print(message)
            return
        pre_tool_use = options.hooks["PreToolUse"][0].hooks[0]
        for command in ("rm -rf ./build", "echo hello"):
            data = PreToolUseHookInput(
                session_id="example",
                transcript_path="/dev/null",
                cwd=str(Path.cwd()),
                hook_event_name="PreToolUse",
                tool_name="Bash",
                tool_input={"command": command},
                tool_use_id="toolu-1",
            )
            answer = await pre_tool_use(data, "toolu-1", {"signal": None})
            print(f"Bash {command!r}: {json.dumps(answer, sort_keys=True)}")
    finally:
        hooks.close()


if __name__ == "__main__":
    asyncio.run(main("--live" in sys.argv[1:]))
