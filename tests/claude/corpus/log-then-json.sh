#!/usr/bin/env bash
# PreToolUse (matcher: Bash) — a gate whose shell profile (or a stray echo) prints a line
# before the JSON answer. Claude Code reads such stdout as plain text: the deny is lost.
echo "checking policy..."
printf '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "never"}}\n'
exit 0
