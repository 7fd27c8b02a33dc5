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

LOG = Path(sys.argv[1])
TOOLS = [
    {"name": name, "description": name, "inputSchema": {"type": "object"}}
    for name in ("echo", "delete")
]
DISCOVER = {
    "supportedVersions": ["2026-07-28"],
    "capabilities": {"tools": {}},
    "resultType": "complete",
    "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "first-key", "version": "1"}},
}


def first_wins(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        found.setdefault(key, value)
    return found


def answer(ident: object, result: dict[str, object]) -> None:
    print(json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}), flush=True)


for line in sys.stdin:
    message = json.loads(line, object_pairs_hook=first_wins)
    method, ident = message.get("method"), message.get("id")
    params = message.get("params") or {}
    if method == "server/discover":
        answer(ident, DISCOVER)
    elif method == "tools/list":
        answer(ident, {"tools": TOOLS, "resultType": "complete", "cacheScope": "private"})
    elif method == "tools/call":
        with LOG.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps({"tool": params["name"], "arguments": params["arguments"]}))
            handle.write("\n")
        content = [{"type": "text", "text": f"ran {params['name']}"}]
        answer(ident, {"content": content, "resultType": "complete"})
