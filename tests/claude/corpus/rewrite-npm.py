#!/usr/bin/env python3
"""PreToolUse (matcher: Bash) — Python, JSON style: updatedInput rewrites the command."""

import json
import sys

tool_input = json.load(sys.stdin)["tool_input"]
command = tool_input.get("command", "")
if command.startswith("npm "):
    print(
        json.dumps(
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "allow",
                    "permissionDecisionReason": "this repository uses pnpm",
                    "updatedInput": {**tool_input, "command": "pnpm " + command[4:]},
                }
            }
        )
    )
