#!/usr/bin/env python3
"""PostToolUse (async: true) — a background linter; Claude Code hands its systemMessage
and additionalContext to the next turn."""

import json
import sys

data = json.load(sys.stdin)
path = data["tool_input"].get("file_path", "?")
print(
    json.dumps(
        {
            "systemMessage": f"lint: 1 warning in {path}",
            "hookSpecificOutput": {
                "hookEventName": "PostToolUse",
                "additionalContext": "Line 3 is longer than 100 characters.",
            },
        }
    )
)
