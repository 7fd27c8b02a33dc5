"""What the hand-written upstreams in this folder share (the broken servers no SDK
would build): answering discovery and a tool listing the way the SDK client expects,
writing an answer line, and logging each call for the test to read.  The servers run
as scripts from this folder, so they import it by its bare name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["answer", "answered_as_server", "record"]


def answer(ident: object, result: dict[str, Any]) -> None:
    """Write the JSON-RPC answer ``result`` to request ``ident``."""
    print(json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}), flush=True)


def answered_as_server(message: dict[str, Any], name: str, tools: list[str]) -> bool:
    """Answer ``message`` if it is ``server/discover`` or ``tools/list`` (of ``tools``,
    each taking any object) for a server called ``name``; whether it was one of them."""
    method, ident = message.get("method"), message.get("id")
    if method == "server/discover":
        info = {"io.modelcontextprotocol/serverInfo": {"name": name, "version": "1"}}
        answer(
            ident,
            {
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {}},
                "resultType": "complete",
                "_meta": info,
            },
        )
        return True
    if method == "tools/list":
        listed = [
            {
                "name": tool,
                "description": tool.capitalize() + ".",
                "inputSchema": {"type": "object"},
            }
            for tool in tools
        ]
        listing = {"tools": listed, "resultType": "complete", "cacheScope": "private"}
        answer(ident, {**listing, "ttlMs": 0})
        return True
    return False


def record(log: Path, tool: str, arguments: Any) -> None:
    """Append ``{"tool": ..., "arguments": ...}`` to ``log``, as the SDK fixture does."""
    with log.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"tool": tool, "arguments": arguments}) + "\n")
