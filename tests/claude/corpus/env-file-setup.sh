#!/usr/bin/env bash
# SessionStart — persists variables for the session through CLAUDE_ENV_FILE, the way
# Claude Code's reference shows (append, one export per line). set -u: an unset
# CLAUDE_ENV_FILE is an error, as it would be in a careless script.
set -euo pipefail
echo 'export NODE_ENV=production' >> "$CLAUDE_ENV_FILE"
echo 'export DEPLOY_TARGET="staging eu-1"' >> "$CLAUDE_ENV_FILE"
echo "export TOOLS_PATH=\"\$HOME/.tools/bin\"" >> "$CLAUDE_ENV_FILE"
echo "Environment prepared for $(basename "$CLAUDE_PROJECT_DIR")."
