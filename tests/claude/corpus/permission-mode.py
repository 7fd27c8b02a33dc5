#!/usr/bin/env python3
"""PreToolUse (matcher: Write|Edit) — in plan mode nothing may be written; it reads
permission_mode (Claude Code sends "default" unless the user switched modes)."""

import json
import sys

data = json.load(sys.stdin)
if data["permission_mode"] == "plan":
    print(
        json.dumps(
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": "Plan mode: no writes",
                }
            }
        )
    )
elif data["permission_mode"] != "default":
    print(f"unexpected permission mode {data['permission_mode']}", file=sys.stderr)
    sys.exit(2)
