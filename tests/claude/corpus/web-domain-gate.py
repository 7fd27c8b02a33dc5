#!/usr/bin/env python3
"""PreToolUse (matcher: WebFetch) — only the company's documentation hosts may be
fetched; anything else is denied (run with fail_closed)."""

import json
import sys
from urllib.parse import urlsplit

ALLOWED = {"docs.example.com", "wiki.example.com"}
data = json.load(sys.stdin)
host = urlsplit(data["tool_input"].get("url", "")).hostname or ""
if host not in ALLOWED:
    print(
        json.dumps(
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": f"{host} is not an allowed host",
                }
            }
        )
    )
