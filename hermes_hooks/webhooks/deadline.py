"""One time limit for a whole HTTP attempt: connect, send, headers and body together.

httpx's timeouts apply to each network operation, so a receiver that trickles its
answer a byte at a time (each byte inside the read timeout) holds an attempt, and the
target's lane, for as long as it likes.  An :class:`AttemptGuard` ends that: it learns
the lane's socket from httpcore's documented ``trace`` extension, and a single
:class:`Watchdog` thread shuts that socket down when the attempt outlives its budget,
which wakes the blocked read at once.  The attempt then counts as a timeout.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["AttemptGuard", "Watchdog"]

#: httpcore trace events whose ``return_value`` is a freshly opened network stream.
_CONNECTED = ("connection.connect_tcp.complete", "connection.connect_unix_socket.complete")


class Watchdog:
    """Runs actions at deadlines on one daemon thread shared by every lane.

    Cancelling is cheap (the entry is marked and dropped when it reaches the top), so
    a lane pays no thread start per attempt.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._heap: list[list[Any]] = []
        self._order = itertools.count()
        self._thread: threading.Thread | None = None

    def schedule(self, delay: float, action: Callable[[], None]) -> list[Any]:
        """Run ``action`` in ``delay`` seconds unless cancelled; returns the handle."""
        entry = [time.monotonic() + delay, next(self._order), action]
        with self._cond:
            heapq.heappush(self._heap, entry)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="hermes-hooks-watchdog", daemon=True
                )
                self._thread.start()
            self._cond.notify()
        return entry

    def cancel(self, entry: list[Any]) -> None:
        """Forget a scheduled action (a no-op once it has run)."""
        with self._cond:
            entry[2] = None
            while self._heap and self._heap[0][2] is None:
                heapq.heappop(self._heap)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._heap:
                    self._cond.wait()
                when, _, action = self._heap[0]
                wait = when - time.monotonic()
                if action is not None and wait > 0:
                    self._cond.wait(wait)
                    continue
                heapq.heappop(self._heap)
            if action is not None:
                with contextlib.suppress(Exception):  # an action must not end the thread
                    action()


_WATCHDOG = Watchdog()


class AttemptGuard:
    """The whole-attempt limit of one lane's client (one attempt at a time).

    Pass :meth:`trace` as the request's ``trace`` extension and run the attempt inside
    :meth:`limit`; :attr:`expired` tells afterwards whether the limit ended it.
    """

    def __init__(self, watchdog: Watchdog | None = None) -> None:
        self._watchdog = watchdog or _WATCHDOG
        self._lock = threading.Lock()
        self._socket: socket.socket | None = None
        self._running = False
        self.expired = False

    def trace(self, event: str, info: dict[str, Any]) -> None:
        """httpcore trace callback: remember the socket of each new connection."""
        if event not in _CONNECTED:
            return
        stream = info.get("return_value")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if not isinstance(sock, socket.socket):
            return
        with self._lock:
            self._socket = sock
            late = self._running and self.expired
        if late:  # the limit passed while connecting
            _shut(sock)

    def _expire(self) -> None:
        with self._lock:
            if not self._running:
                return
            self.expired = True
            sock = self._socket
        if sock is not None:
            _shut(sock)

    @contextlib.contextmanager
    def limit(self, seconds: float) -> Iterator[None]:
        """Run one attempt within ``seconds`` in total."""
        with self._lock:
            self.expired = False
            self._running = True
        entry = self._watchdog.schedule(seconds, self._expire)
        try:
            yield
        finally:
            self._watchdog.cancel(entry)
            with self._lock:
                self._running = False


def _shut(sock: socket.socket) -> None:
    # shutdown() (unlike close()) wakes a thread blocked reading the socket.
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
