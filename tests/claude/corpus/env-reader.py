#!/usr/bin/env python3
"""PreToolUse (matcher: Bash) — refuses deploys unless a SessionStart hook exported
DEPLOY_TARGET for this session; records what it saw in $RECORD_DIR/env.json."""

import json
import os
import sys

data = json.load(sys.stdin)
seen = {k: os.environ.get(k) for k in ("NODE_ENV", "DEPLOY_TARGET", "TOOLS_PATH")}
record = os.environ.get("RECORD_DIR")
if record:
    with open(os.path.join(record, "env.json"), "w", encoding="utf-8") as handle:
        json.dump(seen, handle)
if "deploy" in data["tool_input"].get("command", "") and not seen["DEPLOY_TARGET"]:
    print("No deploy target for this session", file=sys.stderr)
    sys.exit(2)
