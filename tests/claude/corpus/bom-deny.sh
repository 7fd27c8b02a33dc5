#!/usr/bin/env bash
# PreToolUse (matcher: Write) — bash, JSON style, with a byte-order mark and blank lines
# before the answer (written by a template that was saved as "UTF-8 with BOM").
printf '\xef\xbb\xbf\n  \n'
printf '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "Writes are frozen during the release"}}\n'
exit 0
