#!/usr/bin/env bash
# PreToolUse (matcher: Bash) — bash: exit 2 with JSON on stdout. Claude Code ignores the
# JSON and blocks with stderr.
cat >/dev/null
echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}'
echo "Blocked by policy: every Bash call needs a ticket number" >&2
exit 2
