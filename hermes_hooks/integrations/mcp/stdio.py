"""Serving the client over the proxy's own stdin and stdout."""

from __future__ import annotations

import asyncio
import os
from typing import IO, Any

from hermes_hooks.integrations.mcp.proxy import Proxy
from hermes_hooks.integrations.mcp.upstreams import LINE_LIMIT

__all__ = ["serve_stdio"]


async def serve_stdio(proxy: Proxy, stdin: IO[Any], stdout: IO[Any]) -> int:
    """Relay the client on ``stdin``/``stdout`` (the protocol's own file objects: hooks
    must print elsewhere) through ``proxy`` until the client closes stdin."""
    loop = asyncio.get_running_loop()
    # Duplicates: the transports close what they are given, the caller owns its files.
    stdin = os.fdopen(os.dup(stdin.fileno()), "rb", buffering=0)
    stdout = os.fdopen(os.dup(stdout.fileno()), "wb", buffering=0)
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stdin)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, stdout)
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    try:
        return await proxy.serve(reader, writer)
    finally:
        transport.close()
