#!/bin/sh
# block-rm-rf: a pre_tool_call gate that refuses `rm -rf /...` in the terminal tool (EX-33).
#
#   hooks:
#     pre_tool_call:
#       - matcher: terminal
#         command: ~/.hermes/agent-hooks/block-rm-rf.sh
#         timeout: 5
#
# Reads the hook's JSON on stdin, takes .tool_input.command, and prints a Claude-Code-style
# block when it matches `rm -rf /` (also `rm -r /` and `rm -fr /`); otherwise `{}`.
# POSIX sh; the JSON is decoded by python3 (any 3.x), so jq is not needed.
set -u

command=$(python3 -c '
import json, sys
try:
    doc = json.load(sys.stdin)
except ValueError:
    sys.exit(0)
value = (doc.get("tool_input") or {}).get("command") if isinstance(doc, dict) else None
sys.stdout.write(value if isinstance(value, str) else "")
') || command=""

if printf '%s\n' "$command" | grep -qE 'rm[[:space:]]+-(rf?|fr)[[:space:]]+/'; then
    # "blocked: rm -rf / is not allowed" (the spec's text, EX-33)
    printf '%s\n' '{"decision": "block", "reason": "bloqueado: rm -rf / n\u00e3o \u00e9 permitido"}'
else
    printf '%s\n' '{}'
fi
