#!/usr/bin/env python3
"""PostToolUseFailure — records the failed tool, its error and is_interrupt."""

import json
import os
import sys

data = json.load(sys.stdin)
keys = ("tool_name", "error", "is_interrupt", "tool_use_id")
with open(os.path.join(os.environ["RECORD_DIR"], "failures.jsonl"), "a", encoding="utf-8") as f:
    f.write(json.dumps({k: data[k] for k in keys}) + "\n")
