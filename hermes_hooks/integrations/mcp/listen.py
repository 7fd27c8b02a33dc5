"""Serving clients over streamable HTTP: ``mcp-proxy --listen HOST:PORT``.

The HTTP protocol is the SDK's: each client session gets the SDK's server-side
:class:`~mcp.server.streamable_http.StreamableHTTPServerTransport` (POST, the SSE
streams, ``Mcp-Session-Id``, DELETE, the DNS-rebinding checks), whose ``connect()``
hands over the session's streams of ``SessionMessage``.  :class:`_HttpEnd` turns those
streams into the relay's lines, so the very :class:`~.proxy.Proxy` that guards a stdio
client guards the HTTP session: one core, every hook decision made in one place.  The
SDK's own session manager is not used because it runs an SDK ``Server`` on each
session; :class:`Sessions` is the small part of it a relay needs (admit, route by
session id, forget).

One upstream per client session.  A stdio server is written for one client: its
state, its ``initialize`` and the requests it sends the client (sampling, elicitation)
belong to one session, and two clients' request ids would collide on one pipe.  So
each session starts its own child (or opens its own session with ``--upstream-url``),
and the session's end (the client's DELETE, the idle timeout, the proxy stopping) ends
that child's process group and fires ``on_session_end``.

Served is the handshake-era protocol (``initialize``, then a session).  A request
naming a newer, session-less protocol version gets an HTTP 400 with a JSON-RPC error,
which SDK clients in ``auto`` mode answer by falling back to ``initialize``.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import signal
import socket
import uuid
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any

import anyio
from mcp_types.jsonrpc import (
    INVALID_REQUEST,
    JSONRPCError,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
    jsonrpc_message_adapter,
)
from pydantic import ValidationError

from hermes_hooks._log import get_logger

if TYPE_CHECKING:
    from hermes_hooks.integrations.mcp.proxy import Proxy

__all__ = ["PATH", "Sessions", "is_loopback", "parse_listen", "serve_http"]

log = get_logger("hermes_hooks.mcp")

#: Where the MCP endpoint is served (the path SDK servers use by default).
PATH = "/mcp"
#: How long a session may go with no request in flight (no call, no open GET stream)
#: before it is ended: a client that vanished without a DELETE must not leave its
#: upstream running until the proxy stops.
IDLE_TIMEOUT = 30 * 60.0
_SESSION_HEADER = "mcp-session-id"
_VERSION_HEADER = "mcp-protocol-version"


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6) as a pair; ``ValueError`` naming the fix."""
    host, sep, port = text.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"--listen {text!r}: expected HOST:PORT, such as 127.0.0.1:8931")
    return host, int(port)


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (only this machine can connect)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _security(host: str) -> Any:
    """The SDK's DNS-rebinding checks: on a loopback address, only requests naming a
    loopback host (and from a loopback origin, when a browser sends one) are served;
    a web page cannot reach the tools through a name that resolves to 127.0.0.1."""
    from mcp.server.transport_security import TransportSecuritySettings

    if not is_loopback(host):
        # Remote clients name this machine as they know it: the Host header cannot be
        # checked against a list (--allow-remote says the network is trusted).
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    names = ("127.0.0.1", "localhost", "[::1]")
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{name}:*" for name in names],
        allowed_origins=[f"http://{name}:*" for name in names],
    )


#: The JSON-RPC error code the SDK's own servers answer a cancelled request with on this
#: (handshake-era) HTTP wire, where only an answer ends a request's SSE stream.
REQUEST_CANCELLED = -32800


class _HttpEnd:
    """One HTTP session's streams as the relay's :class:`~.proxy.ClientEnd`.

    Lines go out through a queue drained by :meth:`pump` (the relay never waits on a
    client).  A progress notification is tied to the request it reports on, so the
    transport sends it on that request's own SSE stream; everything else the upstream
    starts (its requests, other notifications) goes on the session's GET stream.

    A request the client cancels is answered here with ``REQUEST_CANCELLED``, as the
    SDK's own servers answer on this wire: the cancellation goes on to the upstream,
    which sends no answer, and without one the request's SSE stream would stay open
    until the session ends.  Each request gets at most one answer, whichever reaches
    :meth:`pump` first (an upstream answer racing the cancellation included)."""

    def __init__(self, read: Any, write: Any) -> None:
        self._read = read
        self._write = write
        self._outbox: asyncio.Queue[bytes] = asyncio.Queue()
        self._progress: dict[Any, Any] = {}  # progress token -> the request's id
        self._tokens: dict[Any, Any] = {}  # the request's id -> its progress token
        self._unanswered: set[Any] = set()  # the client's requests not answered yet

    async def receive(self) -> bytes:
        """The client's next message as a line; ``b""`` once the session has ended."""
        while True:
            try:
                item = await self._read.receive()
            except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                return b""
            if isinstance(item, Exception):  # the transport already answered the POST
                log.warning("an HTTP request of the client failed: %s", item)
                continue
            message = item.message
            if isinstance(message, JSONRPCRequest):
                self._unanswered.add(message.id)
                meta = (message.params or {}).get("_meta")
                if isinstance(meta, dict) and meta.get("progressToken") is not None:
                    self._progress[meta["progressToken"]] = message.id
                    self._tokens[message.id] = meta["progressToken"]
            elif (
                isinstance(message, JSONRPCNotification)
                and message.method == "notifications/cancelled"
            ):
                self._answer_cancelled((message.params or {}).get("requestId"))
            text: str = message.model_dump_json(by_alias=True, exclude_unset=True)
            return text.encode() + b"\n"

    def _answer_cancelled(self, request_id: Any) -> None:
        """Queue the answer that ends a cancelled request's SSE stream (see the class
        docstring); nothing for a request already answered or never made."""
        if request_id is None or request_id not in self._unanswered:
            return
        error = {"code": REQUEST_CANCELLED, "message": "Request cancelled"}
        answer = JSONRPCError(jsonrpc="2.0", id=request_id, error=error)
        self.send(answer.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n")

    def send(self, data: bytes) -> None:
        """Queue one line for the client."""
        self._outbox.put_nowait(data)

    async def pump(self) -> None:
        """Hand the queued lines to the transport, in order, as ``SessionMessage``."""
        from mcp.shared.message import ServerMessageMetadata, SessionMessage

        while True:
            data = await self._outbox.get()
            try:
                message = jsonrpc_message_adapter.validate_json(data)
            except ValidationError:  # the relay forwards only decoded lines
                log.error("dropped a line for the client that is not JSON-RPC: %r", data[:200])
                continue
            metadata = None
            if isinstance(message, JSONRPCNotification):
                if message.method == "notifications/progress":
                    related = self._progress.get((message.params or {}).get("progressToken"))
                    if related is not None:
                        metadata = ServerMessageMetadata(related_request_id=related)
            elif isinstance(message, JSONRPCResponse | JSONRPCError):
                if message.id is not None:
                    if message.id not in self._unanswered:
                        # answered already (cancelled here, or a repeat): a second
                        # answer would land on no request's stream
                        log.debug("dropped a second answer to request %r", message.id)
                        continue
                    self._unanswered.discard(message.id)
                token = self._tokens.pop(message.id, None)
                if token is not None:
                    self._progress.pop(token, None)
            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                await self._write.send(SessionMessage(message, metadata=metadata))


async def _answer(send: Any, status: int, message: str, code: int = INVALID_REQUEST) -> None:
    """An HTTP answer carrying a JSON-RPC error (no id), as the SDK's transport answers."""
    body = JSONRPCError(jsonrpc="2.0", id=None, error={"code": code, "message": message})
    payload = body.model_dump_json(by_alias=True, exclude_unset=True).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(payload))]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})


class Sessions:
    """The proxy's ASGI application: one SDK transport and one relay per client session.

    ``open_proxy(session_id)`` builds the session's :class:`~.proxy.Proxy` (with its own
    upstream); the hooks see ``session_id``, the ``Mcp-Session-Id`` the client sends."""

    def __init__(
        self,
        open_proxy: Callable[[str], Proxy],
        security: Any,
        idle_timeout: float = IDLE_TIMEOUT,
    ) -> None:
        self._open_proxy = open_proxy
        self._security = security
        self._idle_timeout = idle_timeout
        self._transports: dict[str, Any] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Route one HTTP request: to its session's transport, or open a session."""
        if scope["type"] != "http":
            return
        if scope["path"].rstrip("/") != PATH:
            await _answer(send, 404, f"not found: the MCP endpoint is {PATH}")
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

        version = headers.get(_VERSION_HEADER)
        if version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS:
            await _answer(
                send,
                400,
                f"protocol version {version} is not served here: this proxy serves MCP "
                "sessions over HTTP (start one with initialize)",
            )
            return
        session_id = headers.get(_SESSION_HEADER)
        if session_id is None:
            if scope["method"] != "POST":
                await _answer(send, 400, "Bad Request: Missing session ID")
                return
            await self._open(scope, receive, send)
            return
        transport = self._transports.get(session_id)
        if transport is None:
            await _answer(send, 404, "Session not found")
            return
        await transport.handle_request(scope, receive, send)

    async def _open(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Start a session (its upstream first) and let its transport answer the POST
        that opens it (an ``initialize``); a refused opening ends the session again."""
        from mcp.server.streamable_http import StreamableHTTPServerTransport
        from mcp.server.transport_security import TransportSecurityMiddleware
        from starlette.requests import Request

        # The transport checks Host and Origin too, but only once the session (and its
        # upstream child) exists: a web page must not get children started at all.
        refused = await TransportSecurityMiddleware(self._security).validate_request(
            Request(scope, receive), is_post=True
        )
        if refused is not None:
            await refused(scope, receive, send)
            return
        transport = StreamableHTTPServerTransport(
            mcp_session_id=uuid.uuid4().hex,
            security_settings=self._security,
            idle_timeout=self._idle_timeout,
        )
        session_id: str = transport.mcp_session_id
        opened: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self._transports[session_id] = transport
        self._tasks[session_id] = asyncio.create_task(self._run(transport, opened))
        status: int | None = None

        async def watch(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            failed = await opened
            if failed is not None:
                await _answer(send, 502, failed, code=-32603)
                return
            await transport.handle_request(scope, receive, watch)
        finally:
            # Refused, failed or cancelled (the client hung up): no session was
            # established, so none may keep an upstream running.
            if status is None or status >= 400:
                with anyio.CancelScope(shield=True):
                    await self._end(session_id)

    async def _run(self, transport: Any, opened: asyncio.Future[str | None]) -> None:
        """One session: the upstream, the transport's streams, the relay between them."""
        session_id: str = transport.mcp_session_id
        proxy: Proxy | None = None
        relayed = False
        try:
            proxy = self._open_proxy(session_id)
            try:
                await proxy.start()
            except OSError as exc:
                log.error("session %s: cannot start the upstream server: %s", session_id, exc)
                opened.set_result(f"the proxy cannot start the upstream server: {exc}")
                proxy = None
                return
            async with transport.connect() as (read, write):
                end = _HttpEnd(read, write)
                pump = asyncio.create_task(end.pump())
                opened.set_result(None)
                idle = transport.idle_scope or anyio.CancelScope()
                try:
                    relayed = True  # from here the relay ends the upstream however it ends
                    with idle:
                        await proxy.relay(end)
                    if idle.cancelled_caught:
                        log.info("session %s: idle for %s s, ended", session_id, self._idle_timeout)
                finally:
                    pump.cancel()
                    # Ended here (idle, the proxy stopping): terminate before the
                    # streams close, or the transport reports their closing as a fault.
                    if not transport.is_terminated:
                        with anyio.CancelScope(shield=True):
                            await transport.terminate()
        except Exception as exc:  # one session failing must not stop the others
            log.error("session %s failed: %r", session_id, exc)
        finally:
            if proxy is not None and not relayed:  # started, but never relayed
                with anyio.CancelScope(shield=True):
                    await proxy.upstream.stop()
            if not opened.done():
                opened.set_result("the session could not start")
            self._transports.pop(session_id, None)
            self._tasks.pop(session_id, None)
            if not transport.is_terminated:
                with anyio.CancelScope(shield=True):
                    await transport.terminate()

    async def _end(self, session_id: str) -> None:
        """End one session: its transport closes, so its relay ends the upstream."""
        transport = self._transports.get(session_id)
        if transport is not None and not transport.is_terminated:
            await transport.terminate()
        task = self._tasks.get(session_id)
        if task is not None:
            await asyncio.wait({task}, timeout=10)

    async def close(self) -> None:
        """End every session (the proxy is stopping)."""
        await asyncio.gather(*(self._end(sid) for sid in list(self._transports)))


def _server(config: Any, sessions: Sessions) -> Any:
    """A uvicorn server that ends the sessions (and their upstreams) before it waits
    for connections to close, and stops on SIGTERM, SIGHUP or SIGINT with exit 0."""
    import uvicorn

    class _Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Generator[None, None, None]:
            # uvicorn's own handlers re-raise the signal after shutting down, which
            # would turn a clean stop into death by SIGTERM.
            loop = asyncio.get_running_loop()
            signals = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
            for sig in signals:
                loop.add_signal_handler(sig, setattr, self, "should_exit", True)
            try:
                yield
            finally:
                for sig in signals:
                    loop.remove_signal_handler(sig)

        async def shutdown(self, sockets: Any = None) -> None:
            # An open GET stream would otherwise hold the shutdown for its whole grace.
            await sessions.close()
            await super().shutdown(sockets)

    return _Server(config)


def bind(host: str, port: int) -> socket.socket:
    """The listening socket (``OSError`` when the address is taken or not local)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        # Listening now: a client told the address may connect before uvicorn starts.
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


async def serve_http(
    open_proxy: Callable[[str], Proxy],
    sock: socket.socket,
    host: str,
    idle_timeout: float = IDLE_TIMEOUT,
) -> int:
    """Serve MCP sessions on ``sock`` until a signal stops the proxy; return 0."""
    import uvicorn

    sessions = Sessions(open_proxy, _security(host), idle_timeout)
    config = uvicorn.Config(
        sessions,
        lifespan="off",
        log_config=None,  # keep the proxy's own logging as it is
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=2,
    )
    await _server(config, sessions).serve(sockets=[sock])
    return 0
