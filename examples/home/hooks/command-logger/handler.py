"""command-logger: one JSON line per slash command, in <home>/logs/command_usage.jsonl.

A plain ``def`` handler on the ``command:*`` wildcard: it runs on a worker thread, so
its file write never blocks the gateway loop.  The log goes to the Hermes home this
hook directory lives in (``<home>/hooks/command-logger/``), which for the usual
``~/.hermes`` is the ``~/.hermes/logs/`` of the spec's EX-03.
"""

import json
from datetime import datetime
from pathlib import Path

LOG = Path(__file__).absolute().parents[2] / "logs" / "command_usage.jsonl"


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
