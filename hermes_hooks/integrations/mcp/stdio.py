"""Serving the client over the proxy's own stdin and stdout.

A client ends a server with SIGTERM when it does not exit soon after stdin closes: the
signal (or SIGHUP, SIGINT) counts as the client's end of the session, so the relay ends
the upstream first instead of leaving it running in its own process group.  Clients
connect pipes; a regular file (``mcp-proxy < requests.jsonl > answers.jsonl``,
a test harness capturing output) cannot be watched by the event loop, so it is read
in one worker thread and written synchronously instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
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


class _PipeEnd:
    """The client's end as a stream reader and a writer: the :class:`ClientEnd` of stdio."""

    def __init__(self, reader: asyncio.StreamReader, writer: Any) -> None:
        self._reader = reader
        self._writer = writer

    async def receive(self) -> bytes:
        return await self._reader.readline()

    def send(self, data: bytes) -> None:
        if not self._writer.is_closing():
            self._writer.write(data)


def _regular(descriptor: int) -> bool:
    return stat.S_ISREG(os.fstat(descriptor).st_mode)


async def serve_stdio(proxy: Proxy, stdin: IO[Any], stdout: IO[Any]) -> int:
    """Relay the client on ``stdin``/``stdout`` (the protocol's own file objects: hooks
    must print elsewhere) through ``proxy`` until the client closes stdin."""
    loop = asyncio.get_running_loop()
    # Duplicates: the transports close what they are given, the caller owns its files.
    read_fd, write_fd = os.dup(stdin.fileno()), os.dup(stdout.fileno())
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    pipe: asyncio.BaseTransport | None = None

    def client_gone() -> None:
        if pipe is not None:
            pipe.close()  # nothing more is read: the reader's end stays final
        reader.feed_eof()

    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, client_gone)
    if _regular(read_fd):
        with os.fdopen(read_fd, "rb") as handle:
            reader.feed_data(await asyncio.to_thread(handle.read))
        reader.feed_eof()
    else:
        source = os.fdopen(read_fd, "rb", buffering=0)
        pipe, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), source)
    if _regular(write_fd):
        file_writer = _FileWriter(write_fd)
        try:
            return await proxy.serve(_PipeEnd(reader, file_writer))
        finally:
            file_writer.close()
    sink = os.fdopen(write_fd, "wb", buffering=0)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, sink)
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    try:
        return await proxy.serve(_PipeEnd(reader, writer))
    finally:
        transport.close()
