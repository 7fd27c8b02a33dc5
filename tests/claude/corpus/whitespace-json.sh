#!/usr/bin/env bash
# PreToolUse (matcher: Bash) — indented, CRLF-terminated JSON after blank lines (a
# heredoc written on Windows); Claude Code trims it and reads the deny.
cat > /dev/null
printf '\r\n\t  {"decision": "block", "reason": "Use the make targets"}\r\n\r\n'
