"""Bounded execution on long-lived per-callback workers (D-11, D-14).

Starting a thread per call costs far more than handing work to a thread that already
exists, so each bounded callback keeps a small pool of idle workers.  A firing takes an
idle worker (or starts one), hands it the call and waits up to the limit.  A worker
that misses the limit is *abandoned*: the caller moves on, the worker finishes its call
in the background and then exits.  Abandoned workers never come back to the pool.

Per callback (D-14): after a timeout the callback is suppressed for 60 s (firings count
as timeouts); one ``tool_call_id`` never runs twice at once; at most three abandoned
workers may be alive, and at that cap the callback is skipped.
"""

from __future__ import annotations

import asyncio
import inspect
import queue
import threading
import time
from collections.abc import Callable, Coroutine
from typing import Any

__all__ = [
    "ABANDONED_CAP",
    "SUPPRESSION_SECONDS",
    "BoundedRunner",
    "Hung",
    "Suppressed",
    "TimedOut",
    "run_coroutine",
]

SUPPRESSION_SECONDS = 60.0
ABANDONED_CAP = 3
_STOP = object()


class TimedOut(Exception):
    """The call did not return within the limit (its worker was abandoned)."""


class Suppressed(TimedOut):
    """The callback is in its post-timeout window, or this tool call is still running."""


class Hung(TimedOut):
    """The callback already has the maximum number of abandoned workers alive."""


def run_coroutine(
    coro: Coroutine[Any, Any, Any], loop: asyncio.AbstractEventLoop | None = None
) -> Any:
    """Run ``coro`` to completion on ``loop``, or on a fresh loop of its own (D-10).

    Workers pass their private loop so repeated async callbacks do not pay for a new
    loop each time.  A thread that is already running a loop (an async host calling a
    sync entry point) hands the coroutine to a helper thread and waits up to 30 s, as
    D-10 says for caller-thread hooks.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        if loop is not None:
            return loop.run_until_complete(coro)
        return asyncio.run(coro)
    box: queue.SimpleQueue[tuple[bool, Any]] = queue.SimpleQueue()

    def helper() -> None:
        try:
            box.put((True, asyncio.run(coro)))
        except BaseException as exc:
            box.put((False, exc))

    threading.Thread(target=helper, name="hermes-hooks-async", daemon=True).start()
    try:
        ok, value = box.get(timeout=30.0)
    except queue.Empty:
        raise TimedOut("async callback did not finish within 30 s") from None
    if ok:
        return value
    raise value


class _Worker(threading.Thread):
    """A daemon thread that runs calls handed to it until told to stop."""

    def __init__(self, name: str) -> None:
        super().__init__(name=name, daemon=True)
        self.inbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.outbox: queue.SimpleQueue[tuple[bool, Any]] = queue.SimpleQueue()

    def run(self) -> None:
        loop: asyncio.AbstractEventLoop | None = None  # created on the first async call
        try:
            while True:
                job = self.inbox.get()
                if job is _STOP:
                    return
                function, kwargs, done = job
                try:
                    result = function(**kwargs)
                    if inspect.iscoroutine(result):
                        loop = loop or asyncio.new_event_loop()
                        result = run_coroutine(result, loop)
                    self.outbox.put((True, result))
                except BaseException as exc:  # handed to the caller, which decides
                    self.outbox.put((False, exc))
                finally:
                    done()
        finally:
            if loop is not None:
                loop.close()


class BoundedRunner:
    """Runs one callback under a time limit, on reusable workers."""

    __slots__ = ("_abandoned", "_idle", "_in_flight", "_lock", "_name", "_suppressed_until")

    def __init__(self, name: str) -> None:
        self._name = name
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []
        self._abandoned: list[_Worker] = []
        self._in_flight: set[str] = set()
        self._suppressed_until = 0.0

    def call(
        self,
        function: Callable[..., Any],
        kwargs: dict[str, Any],
        timeout: float | None,
        tool_call_id: str | None = None,
    ) -> Any:
        """Run ``function(**kwargs)`` and return its result within ``timeout`` seconds
        (``None``: wait as long as it takes, still off the calling thread).

        Raises what the callback raised, or a :class:`TimedOut` subclass.
        """
        with self._lock:
            if time.monotonic() < self._suppressed_until:
                raise Suppressed("suppressed after a recent timeout")
            if tool_call_id and tool_call_id in self._in_flight:
                raise Suppressed(f"tool call {tool_call_id} is still running")
            self._abandoned = [w for w in self._abandoned if w.is_alive()]
            if len(self._abandoned) >= ABANDONED_CAP:
                raise Hung(f"{len(self._abandoned)} abandoned worker(s) still running")
            worker = self._idle.pop() if self._idle else self._start_worker()
            if tool_call_id:
                self._in_flight.add(tool_call_id)

        def done() -> None:
            if tool_call_id:
                with self._lock:
                    self._in_flight.discard(tool_call_id)

        worker.inbox.put((function, kwargs, done))
        try:
            ok, value = worker.outbox.get(timeout=timeout)
        except queue.Empty:
            with self._lock:
                self._abandoned.append(worker)
                self._suppressed_until = time.monotonic() + SUPPRESSION_SECONDS
            worker.inbox.put(_STOP)  # it exits after the call it is stuck in
            raise TimedOut(f"no result within {timeout} s") from None
        with self._lock:
            self._idle.append(worker)
        if ok:
            return value
        raise value

    def _start_worker(self) -> _Worker:
        worker = _Worker(f"hermes-hooks:{self._name}")
        worker.start()
        return worker

    def close(self) -> None:
        """Stop the idle workers (abandoned ones exit when their call returns)."""
        with self._lock:
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.inbox.put(_STOP)

    @property
    def abandoned_alive(self) -> int:
        """How many abandoned workers are still running (for doctor and tests)."""
        with self._lock:
            return sum(1 for w in self._abandoned if w.is_alive())
