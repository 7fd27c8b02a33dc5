"""An upstream that speaks the protocol until a tool is called, then answers with a
line that is not JSON-RPC (no SDK server would: this is the broken server the proxy
must survive).  ``python garbled_server.py``."""

from __future__ import annotations

import json
import sys

from raw_upstream import answered_as_server

for line in sys.stdin:
    request = json.loads(line)
    if answered_as_server(request, "garbled", ["echo"]):
        continue
    if request.get("method") == "tools/call":
        print("Traceback (most recent call last): oops", flush=True)
