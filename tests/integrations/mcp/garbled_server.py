"""An upstream that speaks the protocol until a tool is called, then answers with a
line that is not JSON-RPC (no SDK server would: this is the broken server the proxy
must survive).  ``python garbled_server.py``."""

from __future__ import annotations

import json
import sys

TOOL = {"name": "echo", "description": "Echo.", "inputSchema": {"type": "object"}}
DISCOVER = {
    "supportedVersions": ["2026-07-28"],
    "capabilities": {"tools": {}},
    "resultType": "complete",
    "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "garbled", "version": "1"}},
}

for line in sys.stdin:
    request = json.loads(line)
    method, ident = request.get("method"), request.get("id")
    if method == "server/discover":
        result = DISCOVER
    elif method == "tools/list":
        result = {"tools": [TOOL], "resultType": "complete", "cacheScope": "private", "ttlMs": 0}
    elif method == "tools/call":
        print("Traceback (most recent call last): oops", flush=True)
        continue
    else:
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}), flush=True)
