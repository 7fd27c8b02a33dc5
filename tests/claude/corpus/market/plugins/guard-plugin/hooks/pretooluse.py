#!/usr/bin/env python3
"""PreToolUse entry point: finds the plugin's rule engine through CLAUDE_PLUGIN_ROOT, as
Claude Code plugins do. Without that variable the import fails (exit 1), and Claude
Code, like any host reading exit codes, lets the call through."""

import json
import os
import sys

sys.path.insert(0, os.environ["CLAUDE_PLUGIN_ROOT"])

from core.rules import evaluate  # found through CLAUDE_PLUGIN_ROOT

data = json.load(sys.stdin)
verdict = evaluate(data["tool_name"], data["tool_input"])
if verdict is not None:
    print(
        json.dumps(
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": verdict,
                }
            }
        )
    )
