#!/usr/bin/env python3
"""UserPromptSubmit — blocks prompts that paste a private key, and adds context."""

import json
import sys

data = json.load(sys.stdin)
if "BEGIN RSA PRIVATE KEY" in data["prompt"]:
    print(json.dumps({"decision": "block", "reason": "The prompt contains a private key"}))
else:
    print(
        json.dumps(
            {
                "hookSpecificOutput": {
                    "hookEventName": "UserPromptSubmit",
                    "additionalContext": "Keys go in the vault.",
                }
            }
        )
    )
