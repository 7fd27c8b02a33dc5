#!/usr/bin/env python3
"""PreToolUse (matcher: Bash) — Python, JSON style: permissionDecision allow.

Read-only commands skip Claude Code's permission prompt; anything else is left alone.
"""

import json
import sys

command = json.load(sys.stdin)["tool_input"].get("command", "")
if command.split()[:1] in (["ls"], ["pwd"], ["cat"]):
    json.dump(
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "permissionDecisionReason": "read-only command",
            }
        },
        sys.stdout,
    )
