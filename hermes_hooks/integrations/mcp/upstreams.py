"""The two ways to reach the upstream server, behind one small interface of lines.

The relay speaks newline-delimited JSON-RPC (the stdio transport's framing) towards the
upstream whatever carries it: :class:`StdioUpstream` is a child process, its pipes
relayed byte for byte; :class:`HttpUpstream` is a streamable HTTP endpoint reached
through the SDK's own client transport, each line decoded into the SDK's message type
on the way out and encoded back on the way in.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from contextlib import AsyncExitStack
from typing import Any, Protocol

__all__ = ["LINE_LIMIT", "HttpUpstream", "StdioUpstream", "Upstream"]

#: Lines up to this size (a large resource, a base64 image) are relayed.
LINE_LIMIT = 64 * 1024 * 1024
#: How long a child gets to exit after its stdin closes, then after SIGTERM: the whole
#: escalation stays inside the two seconds clients give the proxy itself.
_GRACE = 0.5


class Upstream(Protocol):
    """One connection to the upstream server, as JSON-RPC lines."""

    async def start(self) -> None:
        """Connect (start the child); raises ``OSError`` when it cannot."""

    async def send(self, line: bytes) -> None:
        """Send one line (lost silently once the upstream is gone: the reader reports)."""

    async def receive(self) -> bytes:
        """The next line; ``b""`` once the upstream is gone (then :meth:`ended` says
        why).  Raises ``ValueError`` for a line over :data:`LINE_LIMIT`."""

    def ended(self) -> str:
        """Why :meth:`receive` returned ``b""``."""

    async def stop(self) -> None:
        """Disconnect, ending the child's whole process group."""


class StdioUpstream:
    """The upstream as a child process in its own process group."""

    def __init__(self, command: list[str]) -> None:
        self.command = command
        self.process: asyncio.subprocess.Process | None = None
        self._code: int | None = None

    async def start(self) -> None:
        """Start the child with pipes for stdin and stdout (stderr is ours)."""
        self.process = await asyncio.create_subprocess_exec(
            *self.command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=LINE_LIMIT,
            start_new_session=True,  # its own process group: ended whole at the end
        )

    async def send(self, line: bytes) -> None:
        """Write ``line`` to the child's stdin."""
        process = self.process
        if process is None or process.stdin is None:
            return
        try:
            process.stdin.write(line)
            await process.stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the reader sees the exit and reports it once

    async def receive(self) -> bytes:
        """A line of the child's stdout; at its end, wait for the exit code."""
        assert self.process is not None and self.process.stdout is not None
        line = await self.process.stdout.readline()
        if not line:
            self._code = await self.process.wait()
        return line

    def ended(self) -> str:
        """The exit, with its code."""
        return f"the upstream server exited (code {self._code})"

    async def stop(self) -> None:
        """Close the child's stdin, then end its process group if it lingers."""
        process = self.process
        if process is None:
            return
        if process.stdin is not None:
            with contextlib.suppress(OSError):
                process.stdin.close()
        for sig in (None, signal.SIGTERM, signal.SIGKILL):
            if sig is not None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, sig)
            try:
                await asyncio.wait_for(process.wait(), _GRACE)
                break
            except asyncio.TimeoutError:
                continue
        # Whatever it started in its group goes too, even after it exited itself.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)


class HttpUpstream:
    """The upstream as a streamable HTTP endpoint, through the SDK's client transport."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._stack = AsyncExitStack()
        self._read: Any = None
        self._write: Any = None
        self._why = f"the upstream server at {url} closed the connection"

    async def start(self) -> None:
        """Open the transport (the SDK connects lazily, at the first message)."""
        from mcp.client.streamable_http import streamable_http_client

        self._read, self._write = await self._stack.enter_async_context(
            streamable_http_client(self.url)
        )

    async def send(self, line: bytes) -> None:
        """Decode ``line`` into the SDK's message type and hand it to the transport."""
        import anyio
        from mcp.shared.message import SessionMessage
        from mcp_types.jsonrpc import jsonrpc_message_adapter

        message = jsonrpc_message_adapter.validate_json(line)
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            await self._write.send(SessionMessage(message))

    async def receive(self) -> bytes:
        """The next message as a line; a transport error as a line that is not
        JSON-RPC (the relay treats it as a garbled answer)."""
        import anyio

        try:
            item = await self._read.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            return b""
        if isinstance(item, Exception):
            return f"transport error: {item}\n".encode()
        text: str = item.message.model_dump_json(by_alias=True, exclude_unset=True)
        return text.encode() + b"\n"

    def ended(self) -> str:
        """The connection's end."""
        return self._why

    async def stop(self) -> None:
        """Close the transport (it ends the HTTP session)."""
        with contextlib.suppress(Exception):
            await self._stack.aclose()
