"""A real HTTP endpoint on 127.0.0.1 for outbound-webhook tests.

Each :class:`Endpoint` is a ``ThreadingHTTPServer`` speaking HTTP/1.1 (keep-alive)
that records every request and answers from a script: a list of :class:`Reply`
objects consumed in order (the last one repeats).  A reply may *hold* the request
until :meth:`Endpoint.release` is called, which turns the endpoint into a dead or
slow one without any sleeping.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["Endpoint", "Reply", "Request", "closed_port", "wait_until"]


def wait_until(predicate: Callable[[], Any], timeout: float = 10.0) -> Any:
    """Poll ``predicate`` until it is truthy; a hang guard, not a timing assertion."""
    end = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"condition not reached within {timeout} s")
        time.sleep(0.005)


def closed_port() -> int:
    """A 127.0.0.1 port nothing listens on (connections are refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Reply:
    """How to answer one request."""

    status: int = 204
    headers: dict[str, str] = field(default_factory=dict)
    hold: bool = False  # wait for Endpoint.release() before answering


@dataclass
class Request:
    """One request as the endpoint saw it."""

    method: str
    path: str
    headers: list[tuple[str, str]]
    body: bytes
    client_port: int

    def header(self, name: str) -> str | None:
        """The first header called ``name`` (case-insensitive)."""
        for key, value in self.headers:
            if key.lower() == name.lower():
                return value
        return None


class Endpoint:
    """A scripted HTTP server on 127.0.0.1 (see the module docstring)."""

    def __init__(self, *replies: Reply) -> None:
        self.script = list(replies) or [Reply()]
        self.requests: list[Request] = []  # in arrival order, held ones included
        self._cond = threading.Condition()
        self._released = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()

    @property
    def url(self) -> str:
        """The endpoint's base URL."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/hook"

    def _arrive(self, request: Request) -> Reply:
        with self._cond:
            index = len(self.requests)
            self.requests.append(request)
            self._cond.notify_all()
        return self.script[min(index, len(self.script) - 1)]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                request = Request(
                    self.command,
                    self.path,
                    list(self.headers.items()),
                    body,
                    self.client_address[1],
                )
                reply = endpoint._arrive(request)
                if reply.hold:
                    endpoint._released.wait()
                try:
                    self.send_response(reply.status)
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                except OSError:
                    pass  # the client gave up (timeout) and closed the connection

            do_POST = _handle
            do_GET = _handle

            def log_message(self, format: str, *args: Any) -> None:
                return

        return Handler

    def wait_requests(self, count: int, timeout: float = 10.0) -> list[Request]:
        """Block until ``count`` requests have arrived; return all arrived so far."""
        with self._cond:
            if not self._cond.wait_for(lambda: len(self.requests) >= count, timeout):
                raise AssertionError(f"{len(self.requests)} of {count} requests arrived")
            return list(self.requests)

    @property
    def released(self) -> bool:
        """Whether held requests have been let go."""
        return self._released.is_set()

    def release(self) -> None:
        """Let every held request (and every later one) be answered."""
        self._released.set()

    def close(self) -> None:
        """Release held requests and stop the server."""
        self.release()
        self._server.shutdown()
        self._server.server_close()
