#!/usr/bin/env bash
# PostToolUse (asyncRewake: true) — runs the slow test suite after an edit, in the
# background; exit 2 wakes Claude with stderr so it can react to the failure.
cat > /dev/null
if [ -e "$CLAUDE_PROJECT_DIR/.tests-red" ]; then
  echo "Background tests failed: 2 failures in tests/test_api.py" >&2
  exit 2
fi
exit 0
