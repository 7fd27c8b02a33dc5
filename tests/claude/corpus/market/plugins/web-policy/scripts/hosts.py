#!/usr/bin/env python3
"""WebFetch gate: the plugin's allow list is a file next to this script."""

import json
import os
import sys
from urllib.parse import urlsplit

root = os.environ["CLAUDE_PLUGIN_ROOT"]
with open(os.path.join(root, "scripts", "allowed-hosts.txt"), encoding="utf-8") as handle:
    allowed = {line.strip() for line in handle if line.strip()}
data = json.load(sys.stdin)
host = urlsplit(data["tool_input"].get("url", "")).hostname or ""
if host not in allowed:
    print(f"web-policy: {host} is not on the allow list", file=sys.stderr)
    sys.exit(2)
