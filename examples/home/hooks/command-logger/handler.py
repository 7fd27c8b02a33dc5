"""command-logger (the spec's EX-03): one JSON line per slash command.

A plain ``def`` handler on the wildcard ``command:*``.  The log goes to this home's
``logs/command_usage.jsonl`` (EX-03 writes ``~/.hermes/logs/``; the home is two
directories above this file).
"""

import json
from datetime import datetime
from pathlib import Path

LOG_DIR = Path(__file__).resolve().parent.parent.parent / "logs"


def handle(event_type, context):
    LOG_DIR.mkdir(parents=True, exist_ok=True)
    entry = {
        "ts": datetime.now().isoformat(),
        "command": context.get("command"),
        "args": context.get("args"),
        "platform": context.get("platform"),
        "user": context.get("user_id"),
    }
    with (LOG_DIR / "command_usage.jsonl").open("a", encoding="utf-8") as log:
        log.write(json.dumps(entry, ensure_ascii=False) + "\n")
