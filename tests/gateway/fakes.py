"""A real HTTP server on 127.0.0.1 for the hooks that POST (stdlib, in a thread)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Request:
    """One request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        """The body parsed as JSON."""
        return json.loads(self.body.decode("utf-8"))


Responder = Callable[[Request], tuple[int, Any]]


class FakeServer:
    """Records every request; answers with ``respond(request) -> (status, json)``.

    ``hold`` makes each request wait until it is set (or 10 s), so a test can show
    that the caller did not wait; ``arrived`` is set when the first request arrives.
    """

    def __init__(self, respond: Responder | None = None) -> None:
        self.respond: Responder = respond or (lambda request: (200, {"ok": True}))
        self.requests: list[Request] = []
        self.arrived = threading.Event()
        self.hold: threading.Event | None = None
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                request = Request(
                    "POST",
                    self.path,
                    {k.lower(): v for k, v in self.headers.items()},
                    self.rfile.read(length),
                )
                server.requests.append(request)
                server.arrived.set()
                if server.hold is not None:
                    server.hold.wait(10)
                status, payload = server.respond(request)
                data = json.dumps(payload).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # keep test output clean

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        # A short poll interval keeps shutdown() quick (it waits for the next poll).
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def start(self) -> FakeServer:
        """Serve in a background thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Release held requests and shut down."""
        if self.hold is not None:
            self.hold.set()
        self._httpd.shutdown()
        self._httpd.server_close()


@contextmanager
def fake_server(respond: Responder | None = None) -> Iterator[FakeServer]:
    """A started :class:`FakeServer`, stopped on exit."""
    server = FakeServer(respond).start()
    try:
        yield server
    finally:
        server.stop()
