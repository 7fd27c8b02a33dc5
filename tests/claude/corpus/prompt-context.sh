#!/usr/bin/env bash
# UserPromptSubmit — bash + jq, plain-text style: stdout becomes context.
PROMPT=$(jq -r '.prompt')
echo "Project: $(basename "$CLAUDE_PROJECT_DIR")"
case "$PROMPT" in
  *deploy*) echo "Deploys go through the release checklist in docs/release.md." ;;
esac
