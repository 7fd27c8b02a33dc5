#!/usr/bin/env python3
"""PreToolUse (matcher: Bash) — Python on Windows habits: the answer starts with a UTF-8
byte-order mark (PowerShell's Out-File and some editors add one) and exits 0."""

import json
import sys

data = json.load(sys.stdin)
command = data["tool_input"].get("command", "")
if "curl" in command and "| sh" in command:
    answer = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "Piping a download into a shell is not allowed",
        }
    }
    sys.stdout.buffer.write(b"\xef\xbb\xbf" + json.dumps(answer).encode("utf-8") + b"\r\n")
sys.exit(0)
