#!/usr/bin/env bash
# PreToolUse (no matcher) — bash, JSON style: continue: false stops everything.
if [ -f "${CLAUDE_PROJECT_DIR}/.build-red" ]; then
  echo '{"continue": false, "stopReason": "The build is red: fix it before doing anything else"}'
fi
exit 0
