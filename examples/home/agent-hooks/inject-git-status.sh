#!/bin/sh
# inject-git-status: before each LLM turn, tell the model about uncommitted changes (EX-34).
#
#   hooks:
#     pre_llm_call:
#       - command: ~/.hermes/agent-hooks/inject-git-status.sh
#
# Ignores its stdin.  When `git status --porcelain` succeeds in the agent's working
# directory with some output, prints {"context": "Mudanças não commitadas no cwd:\n<status>"}
# ("Uncommitted changes in cwd:", the spec's text); otherwise `{}`.  This is Hermes'
# equivalent of Claude Code's UserPromptSubmit (SH-32).  POSIX sh; python3 encodes the
# JSON, so jq is not needed.
set -u

cat >/dev/null
status=$(git status --porcelain 2>/dev/null) || status=""
if [ -n "$status" ]; then
    printf '%s' "$status" | python3 -c '
import json, sys
text = sys.stdin.buffer.read().decode("utf-8", "replace")
print(json.dumps({"context": "Mudan\u00e7as n\u00e3o commitadas no cwd:\n" + text}))
'
else
    printf '%s\n' '{}'
fi
