#!/bin/sh
# inject-git-status (the spec's EX-34): add the working tree's uncommitted changes to
# the user message of each turn.  Discards stdin; prints {"context": ...} or {}.
cat >/dev/null
status=$(git status --porcelain 2>/dev/null) || status=""
if [ -z "$status" ]; then
  printf '%s\n' '{}'
  exit 0
fi
if command -v jq >/dev/null 2>&1; then
  jq --null-input --arg s "$status" '{context: ("Mudanças não commitadas no cwd:\n" + $s)}'
else
  # Escape backslashes and quotes, and join the lines with \n, for a JSON string.
  escaped=$(printf '%s' "$status" | sed 's/\\/\\\\/g; s/"/\\"/g; s/	/\\t/g' | awk 'NR > 1 { printf "\\n" } { printf "%s", $0 }')
  printf '{"context": "Mudanças não commitadas no cwd:\\n%s"}\n' "$escaped"
fi
