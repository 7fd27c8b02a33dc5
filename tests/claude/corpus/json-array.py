#!/usr/bin/env python3
"""PreToolUse (matcher: Bash) — prints its findings as a JSON array (a mistake: Claude
Code wants one object), so Claude Code reads it as plain text and decides nothing."""

import json
import sys

json.load(sys.stdin)
print(json.dumps([{"rule": "no-sudo", "decision": "deny"}]))
