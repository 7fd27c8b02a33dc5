#!/usr/bin/env python3
"""PreToolUse (matcher: Read|Write|Edit) — Python, JSON style: permissionDecision deny."""

import json
import sys

data = json.load(sys.stdin)
path = data.get("tool_input", {}).get("file_path", "")
if "secret" in path or path.endswith(".pem"):
    print(
        json.dumps(
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": f"{data['tool_name']} of {path} is not allowed: "
                    "it looks like a secret",
                }
            }
        )
    )
sys.exit(0)
