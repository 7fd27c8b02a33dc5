#!/bin/sh
# block-rm-rf (the spec's EX-33): block terminal commands that run rm -rf on an
# absolute path.  Reads the hook payload (JSON) on stdin; prints a block directive,
# or {} to let the call through.
payload=$(cat)
if command -v jq >/dev/null 2>&1; then
  cmd=$(printf '%s' "$payload" | jq -r '.tool_input.command // empty')
else
  # Without jq: the first "command" value, which is inside tool_input (it comes
  # before extra in the payload).
  cmd=$(printf '%s' "$payload" | sed -n 's/.*"tool_input": *{[^}]*"command": *"\([^"]*\)".*/\1/p')
fi
if printf '%s' "$cmd" | grep -qE 'rm[[:space:]]+-rf?[[:space:]]+/'; then
  printf '%s\n' '{"decision": "block", "reason": "bloqueado: rm -rf / não é permitido"}'
else
  printf '%s\n' '{}'
fi
