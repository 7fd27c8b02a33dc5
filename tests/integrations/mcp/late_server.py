"""An upstream that holds every tool call until the proxy cancels it, then answers it
anyway (no SDK server would: a server should not answer a cancelled request, and this
is the server the proxy must not trust).  ``python late_server.py LOG``: each call is
appended to LOG as ``{"tool": name, "arguments": {...}}`` when it arrives."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from raw_upstream import answer, answered_as_server, record

LOG = Path(sys.argv[1])

held: dict[object, dict[str, object]] = {}
for line in sys.stdin:
    message = json.loads(line)
    method, ident = message.get("method"), message.get("id")
    params = message.get("params") or {}
    if answered_as_server(message, "late", ["echo"]):
        continue
    if method == "ping":
        answer(ident, {})
    elif method == "tools/call":
        record(LOG, params["name"], params["arguments"])
        held[ident] = params["arguments"]
    elif method == "notifications/cancelled" and params.get("requestId") in held:
        text = held.pop(params["requestId"]).get("text")
        content = [{"type": "text", "text": f"late: {text}"}]
        answer(params["requestId"], {"content": content, "resultType": "complete"})
