#!/usr/bin/env python3
"""PreToolUse (matcher: WebFetch) — Python, the deprecated top-level decision/reason."""

import json
import sys

url = json.load(sys.stdin)["tool_input"].get("url", "")
if "internal.example" in url:
    print(json.dumps({"decision": "block", "reason": f"{url} is an internal address"}))
