#!/usr/bin/env python3
"""UserPromptSubmit — Python, JSON style: hookSpecificOutput.additionalContext."""

import json
import sys

prompt = json.load(sys.stdin)["prompt"]
context = f"The user asked {len(prompt.split())} words; answer briefly."
print(
    json.dumps(
        {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": context}}
    )
)
