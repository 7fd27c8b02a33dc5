#!/usr/bin/env python3
"""PreToolUse (matcher: Bash) — Python that fails: exit 1 is a non-blocking error."""

import json
import sys

data = json.load(sys.stdin)
raise SystemExit(f"policy server unreachable while checking {data['tool_name']}")
