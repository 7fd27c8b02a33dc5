"""command-logger: one JSON line per slash command, in ~/.hermes/logs/command_usage.jsonl.

A plain ``def`` handler on the ``command:*`` wildcard: it runs on a worker thread, so
its file write never blocks the gateway loop.
"""

import json
import os
from datetime import datetime
from pathlib import Path


def _hermes_home() -> Path:
    home = os.environ.get("HERMES_HOME", "").strip()
    return Path(home).expanduser() if home else Path.home() / ".hermes"


LOG = _hermes_home() / "logs" / "command_usage.jsonl"


def handle(event_type: str, context: dict) -> None:
    LOG.parent.mkdir(parents=True, exist_ok=True)
    entry = {
        "ts": datetime.now().isoformat(),
        "command": context.get("command"),
        "args": context.get("args"),
        "platform": context.get("platform"),
        "user": context.get("user_id"),
    }
    with open(LOG, "a", encoding="utf-8") as f:
        f.write(json.dumps(entry) + "\n")
