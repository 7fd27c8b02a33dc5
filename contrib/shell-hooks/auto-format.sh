#!/bin/sh
# auto-format: after write_file / patch, run black on the Python file just written (EX-32).
#
#   hooks:
#     post_tool_call:
#       - matcher: "write_file|patch"
#         command: ~/.hermes/agent-hooks/auto-format.sh
#
# Reads the hook's JSON on stdin and takes .tool_input.path; when it ends in .py and
# `black` is on PATH, formats the file in place.  Always prints `{}`: post_tool_call is an
# observer, and the agent's in-context copy of the file is not reloaded (a later read_file
# sees the formatted version).  POSIX sh; the JSON is decoded by python3, so jq is not needed.
set -u

path=$(python3 -c '
import json, sys
try:
    doc = json.load(sys.stdin)
except ValueError:
    sys.exit(0)
value = (doc.get("tool_input") or {}).get("path") if isinstance(doc, dict) else None
sys.stdout.write(value if isinstance(value, str) else "")
') || path=""

case "$path" in
    *.py)
        if command -v black >/dev/null 2>&1; then
            black --quiet -- "$path" >/dev/null 2>&1 || true
        fi
        ;;
esac
printf '%s\n' '{}'
