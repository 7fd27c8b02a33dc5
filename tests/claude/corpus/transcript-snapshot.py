#!/usr/bin/env python3
"""PreToolUse — audits what led to each call: copies the message types and the last user
text from the transcript (Claude Code's JSONL) into $RECORD_DIR/transcripts.jsonl."""

import json
import os
import sys

data = json.load(sys.stdin)
lines = []
with open(data["transcript_path"], encoding="utf-8") as handle:
    lines = [json.loads(line) for line in handle if line.strip()]
users = [e["message"]["content"] for e in lines if e["type"] == "user"]
texts = [u for u in users if isinstance(u, str)]
record = {
    "types": [e["type"] for e in lines],
    "last_user": texts[-1] if texts else None,
    "session": {e["sessionId"] for e in lines} == {data["session_id"]},
}
with open(os.path.join(os.environ["RECORD_DIR"], "transcripts.jsonl"), "a", encoding="utf-8") as f:
    f.write(json.dumps(record) + "\n")
