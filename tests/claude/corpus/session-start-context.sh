#!/usr/bin/env bash
# SessionStart — bash + jq, plain-text style: stdout becomes context for the session.
SOURCE=$(jq -r '.source')
echo "Session source: $SOURCE. Conventions: use pnpm, never npm; run pnpm test before committing."
