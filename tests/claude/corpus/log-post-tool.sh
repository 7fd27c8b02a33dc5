#!/usr/bin/env bash
# PostToolUse (matcher: Write|Edit) — bash + jq: appends what was written to a log.
INPUT=$(cat)
echo "$(echo "$INPUT" | jq -r '.tool_name') $(echo "$INPUT" | jq -r '.tool_input.file_path') $(echo "$INPUT" | jq -r '.tool_response.success')" >> "$CLAUDE_PROJECT_DIR/post-tool.log"
exit 0
