#!/usr/bin/env python3
"""SessionEnd — appends session id, reason and transcript path to $RECORD_DIR/ends.log."""

import json
import os
import sys

data = json.load(sys.stdin)
with open(os.path.join(os.environ["RECORD_DIR"], "ends.log"), "a", encoding="utf-8") as handle:
    handle.write(f"{data['session_id']} {data['reason']} {data.get('transcript_path', '-')}\n")
