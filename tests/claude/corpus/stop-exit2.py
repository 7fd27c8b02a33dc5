#!/usr/bin/env python3
"""Stop — Python, exit-code style: exit 2 keeps Claude working with stderr as feedback."""

import json
import sys

data = json.load(sys.stdin)
if not data["stop_hook_active"] and "TODO" in data.get("last_assistant_message", ""):
    print("Your answer still contains a TODO: finish it.", file=sys.stderr)
    sys.exit(2)
