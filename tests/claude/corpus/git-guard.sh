#!/usr/bin/env bash
# PreToolUse (matcher: Bash, if: "Bash(git *)") — every run leaves a line in
# $RECORD_DIR/git-guard.log, so a test can see it only spawns for git commands;
# force pushes are blocked.
input=$(cat)
command=$(printf '%s' "$input" | python3 -c 'import json,sys; print(json.load(sys.stdin)["tool_input"]["command"])')
printf '%s\n' "$command" >> "$RECORD_DIR/git-guard.log"
case "$command" in
  *"push --force"*|*"push -f"*) echo "Force pushes are not allowed" >&2; exit 2 ;;
esac
exit 0
