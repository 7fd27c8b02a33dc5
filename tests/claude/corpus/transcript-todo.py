#!/usr/bin/env python3
"""Stop — reads the transcript (JSONL) and keeps the turn going while the last assistant
message still promises work ("TODO"); stop_hook_active avoids an endless loop."""

import json
import sys

data = json.load(sys.stdin)
if data.get("stop_hook_active"):
    sys.exit(0)
last = ""
with open(data["transcript_path"], encoding="utf-8") as handle:
    for line in handle:
        entry = json.loads(line)
        if entry.get("type") != "assistant":
            continue
        content = entry["message"]["content"]
        texts = (
            [b["text"] for b in content if b.get("type") == "text"]
            if isinstance(content, list)
            else [content]
        )
        if texts:
            last = "\n".join(texts)
if "TODO" in last:
    print(
        json.dumps({"decision": "block", "reason": "The last answer still has a TODO: finish it."})
    )
