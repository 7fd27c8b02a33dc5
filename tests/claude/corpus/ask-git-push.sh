#!/usr/bin/env bash
# PreToolUse (matcher: Bash) — bash + jq, JSON style: permissionDecision ask.
COMMAND=$(jq -r '.tool_input.command // empty')
case "$COMMAND" in
  "git push"*)
    cat <<'JSON'
{
  "hookSpecificOutput": {
    "hookEventName": "PreToolUse",
    "permissionDecision": "ask",
    "permissionDecisionReason": "Pushing publishes commits: confirm first"
  }
}
JSON
    ;;
esac
exit 0
