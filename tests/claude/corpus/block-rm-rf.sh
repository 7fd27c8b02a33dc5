#!/usr/bin/env bash
# PreToolUse (matcher: Bash) — bash + jq, exit-code style.
# Blocks recursive forced deletes; the reason goes to stderr and exit 2 blocks.
COMMAND=$(jq -r '.tool_input.command')

if echo "$COMMAND" | grep -Eq 'rm[[:space:]]+-[a-zA-Z]*r[a-zA-Z]*f|rm[[:space:]]+-[a-zA-Z]*f[a-zA-Z]*r'; then
  echo "Blocked: destructive command ($COMMAND)" >&2
  exit 2
fi
exit 0
