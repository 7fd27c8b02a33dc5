#!/usr/bin/env python3
"""SubagentStop — records which agent finished and what it said."""

import json
import os
import sys

data = json.load(sys.stdin)
keys = ("agent_id", "agent_type", "stop_hook_active", "last_assistant_message")
with open(os.path.join(os.environ["RECORD_DIR"], "subagents.jsonl"), "a", encoding="utf-8") as f:
    f.write(json.dumps({k: data[k] for k in keys}) + "\n")
