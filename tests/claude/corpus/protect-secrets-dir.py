#!/usr/bin/env python3
"""PreToolUse (matcher: Edit|Write) — nothing under secrets/ may change; exit 2 style."""

import json
import os
import sys

data = json.load(sys.stdin)
path = data["tool_input"].get("file_path", "")
if f"{os.sep}secrets{os.sep}" in path:
    print(f"{path} is under secrets/", file=sys.stderr)
    sys.exit(2)
