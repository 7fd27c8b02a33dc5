#!/usr/bin/env bash
# Background audit log of every write (async: the agent never waits for it).
cat >> "$CLAUDE_PLUGIN_DATA/audit.jsonl"
echo >> "$CLAUDE_PLUGIN_DATA/audit.jsonl"
