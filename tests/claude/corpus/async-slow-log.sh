#!/usr/bin/env bash
# PostToolUse (async: true) — a slow logger: uploads a record of the call (here: sleeps
# 5 seconds), then leaves a marker. Claude Code runs it in the background.
input=$(cat)
sleep 5
printf '%s\n' "$input" > "$RECORD_DIR/async-marker.json"
