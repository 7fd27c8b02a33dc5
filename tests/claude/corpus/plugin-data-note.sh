#!/usr/bin/env bash
# PostToolUse — a plugin's hook keeps state in its data directory (CLAUDE_PLUGIN_DATA).
cat > /dev/null
mkdir -p "$CLAUDE_PLUGIN_DATA"
echo "seen" >> "$CLAUDE_PLUGIN_DATA/calls.log"
