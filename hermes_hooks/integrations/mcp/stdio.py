"""Serving the client over the proxy's own stdin and stdout.

Clients connect pipes; a regular file (``mcp-proxy < requests.jsonl > answers.jsonl``,
a test harness capturing output) cannot be watched by the event loop, so it is read
in one worker thread and written synchronously instead.
"""

from __future__ import annotations

import asyncio
import os
import stat
from typing import IO, Any

from hermes_hooks.integrations.mcp.proxy import Proxy
from hermes_hooks.integrations.mcp.upstreams import LINE_LIMIT

__all__ = ["serve_stdio"]


class _FileWriter:
    """A regular file as the client's end: the writes the proxy needs, synchronously."""

    def __init__(self, descriptor: int) -> None:
        self._descriptor = descriptor

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self._descriptor, view) :]

    def is_closing(self) -> bool:
        return False

    def close(self) -> None:
        os.close(self._descriptor)


def _regular(descriptor: int) -> bool:
    return stat.S_ISREG(os.fstat(descriptor).st_mode)


async def serve_stdio(proxy: Proxy, stdin: IO[Any], stdout: IO[Any]) -> int:
    """Relay the client on ``stdin``/``stdout`` (the protocol's own file objects: hooks
    must print elsewhere) through ``proxy`` until the client closes stdin."""
    loop = asyncio.get_running_loop()
    # Duplicates: the transports close what they are given, the caller owns its files.
    read_fd, write_fd = os.dup(stdin.fileno()), os.dup(stdout.fileno())
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    if _regular(read_fd):
        with os.fdopen(read_fd, "rb") as handle:
            reader.feed_data(await asyncio.to_thread(handle.read))
        reader.feed_eof()
    else:
        source = os.fdopen(read_fd, "rb", buffering=0)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), source)
    if _regular(write_fd):
        file_writer = _FileWriter(write_fd)
        try:
            return await proxy.serve(reader, file_writer)  # type: ignore[arg-type]
        finally:
            file_writer.close()
    sink = os.fdopen(write_fd, "wb", buffering=0)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, sink)
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    try:
        return await proxy.serve(reader, writer)
    finally:
        transport.close()
