"""Prototypes of the two designs the MCP proxy did not take, kept to measure against:

* ``transport``: a message relay on the SDK's own transports (``stdio_server``
  towards the client, ``stdio_client`` towards the upstream), forwarding
  ``SessionMessage`` objects;
* ``session``: a proxy at the SDK's session level: a low-level ``Server`` whose
  ``tools/list`` and ``tools/call`` handlers ask an SDK ``Client`` of the upstream
  (only tools: each other method would need a handler of its own).

    python bench/_mcp_sdk_relay.py transport|session COMMAND [ARGS...]
"""

from __future__ import annotations

import os
import sys
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server


def _params(command: list[str]) -> StdioServerParameters:
    return StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))


async def transport(command: list[str]) -> None:
    """Forward every message both ways until the client closes its end."""
    async with (
        stdio_client(_params(command)) as (up_read, up_write),
        stdio_server() as (
            read,
            write,
        ),
    ):

        async def pump(source: Any, sink: Any, stop: Any) -> None:
            async for message in source:
                if not isinstance(message, Exception):
                    await sink.send(message)
            stop.cancel()

        async with anyio.create_task_group() as group:
            group.start_soon(pump, read, up_write, group.cancel_scope)
            group.start_soon(pump, up_read, write, group.cancel_scope)


async def session(command: list[str]) -> None:
    """Serve tools/list and tools/call by asking the upstream through an SDK client."""
    async with Client(_params(command)) as upstream:

        async def list_tools(_context: Any, _params: Any) -> Any:
            return await upstream.list_tools()

        async def call_tool(_context: Any, params: Any) -> Any:
            return await upstream.call_tool(params.name, params.arguments)

        server: Server[Any] = Server(
            "session-proxy", on_list_tools=list_tools, on_call_tool=call_tool
        )
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run({"transport": transport, "session": session}[sys.argv[1]], sys.argv[2:])
