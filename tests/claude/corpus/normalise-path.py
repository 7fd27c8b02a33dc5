#!/usr/bin/env python3
"""PreToolUse (matcher: Write) — Python, JSON style: updatedInput with Claude's field names.

Writes into a scratch/ directory are redirected to build/scratch/.
"""

import json
import os
import sys

data = json.load(sys.stdin)
tool_input = data["tool_input"]
path = tool_input["file_path"]
scratch = os.path.join(data["cwd"], "scratch") + os.sep
if path.startswith(scratch):
    moved = os.path.join(data["cwd"], "build", "scratch", path[len(scratch) :])
    updated = {**tool_input, "file_path": moved}
    answer = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": updated}}
    json.dump(answer, sys.stdout)
