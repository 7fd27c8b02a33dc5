#!/usr/bin/env bash
# Stop — bash + jq, JSON style: decision block keeps Claude working, once.
INPUT=$(cat)
if [ "$(echo "$INPUT" | jq -r '.stop_hook_active')" = "true" ]; then
  exit 0
fi
echo '{"decision": "block", "reason": "Run the test suite and report the result before finishing."}'
