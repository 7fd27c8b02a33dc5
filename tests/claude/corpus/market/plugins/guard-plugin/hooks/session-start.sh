#!/usr/bin/env bash
# SessionStart: exports the plugin's rule set version for the session's later hooks.
set -u
echo "export GUARD_RULES=\"$CLAUDE_PLUGIN_ROOT/core/rules.py\"" >> "$CLAUDE_ENV_FILE"
echo "guard-plugin active: rm -rf and chmod -R 777 are blocked."
