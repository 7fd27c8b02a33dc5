#!/usr/bin/env python3
"""PreToolUse (matcher: Task) — subagents may not be sent to deploy anything."""

import json
import sys

data = json.load(sys.stdin)
prompt = data["tool_input"].get("prompt", "")
if "deploy" in prompt.lower():
    print(json.dumps({"decision": "block", "reason": f"Subagents may not deploy: {prompt}"}))
