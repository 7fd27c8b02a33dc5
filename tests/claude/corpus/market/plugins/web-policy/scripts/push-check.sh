#!/usr/bin/env bash
# Runs only for git push (the handler's if: rule); pushes to main are refused.
input=$(cat)
printf '%s\n' "$input" >> "$CLAUDE_PLUGIN_DATA/pushes.jsonl"
case "$input" in
  *"push origin main"*) echo "web-policy: push to a branch and open a pull request" >&2; exit 2 ;;
esac
