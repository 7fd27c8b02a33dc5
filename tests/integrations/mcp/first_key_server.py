"""An upstream whose JSON reader keeps the first of a key written twice, where the
proxy's (and Python's) keeps the last: a server built on such a reader would run
another tool than the one the proxy judged, were the client's bytes relayed as they
came.  ``python first_key_server.py LOG``: each call is appended to LOG as
``{"tool": name, "arguments": {...}}`` as this reader sees it, then answered."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from raw_upstream import answer, answered_as_server, record

LOG = Path(sys.argv[1])


def first_wins(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        found.setdefault(key, value)
    return found


for line in sys.stdin:
    message = json.loads(line, object_pairs_hook=first_wins)
    if answered_as_server(message, "first-key", ["echo", "delete"]):
        continue
    if message.get("method") == "tools/call":
        params = message["params"]
        record(LOG, params["name"], params["arguments"])
        content = [{"type": "text", "text": f"ran {params['name']}"}]
        answer(message.get("id"), {"content": content, "resultType": "complete"})
