"""An upstream that holds every tool call until the proxy cancels it, then answers it
anyway (no SDK server would: a server should not answer a cancelled request, and this
is the server the proxy must not trust).  ``python late_server.py LOG``: each call is
appended to LOG as ``{"tool": name, "arguments": {...}}`` when it arrives."""

from __future__ import annotations

import json
import sys
from pathlib import Path

LOG = Path(sys.argv[1])
TOOL = {"name": "echo", "description": "Echo.", "inputSchema": {"type": "object"}}
DISCOVER = {
    "supportedVersions": ["2026-07-28"],
    "capabilities": {"tools": {}},
    "resultType": "complete",
    "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "late", "version": "1"}},
}


def answer(ident: object, result: dict[str, object]) -> None:
    print(json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}), flush=True)


held: dict[object, dict[str, object]] = {}
for line in sys.stdin:
    message = json.loads(line)
    method, ident = message.get("method"), message.get("id")
    params = message.get("params") or {}
    if method == "server/discover":
        answer(ident, DISCOVER)
    elif method == "tools/list":
        answer(ident, {"tools": [TOOL], "resultType": "complete", "cacheScope": "private"})
    elif method == "ping":
        answer(ident, {})
    elif method == "tools/call":
        with LOG.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps({"tool": params["name"], "arguments": params["arguments"]}))
            handle.write("\n")
        held[ident] = params["arguments"]
    elif method == "notifications/cancelled" and params.get("requestId") in held:
        text = held.pop(params["requestId"]).get("text")
        content = [{"type": "text", "text": f"late: {text}"}]
        answer(params["requestId"], {"content": content, "resultType": "complete"})
