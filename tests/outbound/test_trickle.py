"""A receiver that trickles its answer cannot hold an attempt past the target's
``timeout``: the limit covers the whole attempt, not each read."""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from tests.outbound.helpers import OutboundEnv
from tests.outbound.test_delivery import SESSION_END

ANSWER = b"HTTP/1.1 200 OK\r\nContent-Length: 60\r\n\r\n" + b"x" * 60


class Trickler:
    """A raw HTTP endpoint on 127.0.0.1 that sends its 200 answer one byte every
    ``gap`` seconds (each byte well inside a 1 s read timeout), and records, per
    connection, whether the client hung up before the answer was complete."""

    def __init__(self, gap: float = 0.1) -> None:
        self.gap = gap
        self.server = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.server.getsockname()[1]}/hook"
        self.outcomes: list[str] = []
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        self.server.settimeout(0.2)
        while not self.stopped.is_set():
            try:
                conn, _ = self.server.accept()
            except OSError:
                continue
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            head, _, body = data.partition(b"\r\n\r\n")
            length = int(
                next(
                    line.split(b":")[1]
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length")
                )
            )
            while len(body) < length:
                body += conn.recv(65536)
            try:
                for byte in ANSWER:
                    if self.stopped.is_set():
                        self.outcomes.append("stopped")
                        return
                    conn.sendall(bytes([byte]))
                    time.sleep(self.gap)
            except OSError:
                self.outcomes.append("client hung up")
                return
            self.outcomes.append("complete")

    def close(self) -> None:
        self.stopped.set()
        self.server.close()


@pytest.fixture
def trickler() -> Iterator[Trickler]:
    endpoint = Trickler()
    yield endpoint
    endpoint.close()


def test_a_trickling_receiver_times_out_at_the_attempt_limit(
    env: OutboundEnv, trickler: Trickler, caplog: pytest.LogCaptureFixture
) -> None:
    hooks = env.load(
        f"""
        hooks:
          outbound:
            - url: {trickler.url}
              events: [on_session_end]
              timeout: 1
        """
    )
    hooks.on_session_end(**SESSION_END)
    (lane,) = env.source(hooks).lanes.values()
    deadline = time.monotonic() + 60  # a hang guard only
    while lane.stats.failed + lane.stats.delivered == 0 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert (lane.stats.attempts, lane.stats.delivered, lane.stats.failed) == (2, 0, 1)
    failures = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(
        m.endswith("delivery failed after 2 attempt(s) (no complete answer within 1 s)")
        for m in failures
    ), failures
    deadline = time.monotonic() + 10
    while len(trickler.outcomes) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert trickler.outcomes[:2] == ["client hung up", "client hung up"]
