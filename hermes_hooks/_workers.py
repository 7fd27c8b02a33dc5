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
import contextlib
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


def _settle(future: asyncio.Future[Any], ok: bool, value: Any) -> None:
    """Resolve an awaited call's future on its own loop (unless it was given up)."""
    if future.done():  # cancelled at the limit: nobody is waiting any more
        return
    if ok:
        future.set_result(value)
    else:
        future.set_exception(value)


class _Worker(threading.Thread):
    """A daemon thread that runs calls handed to it until told to stop.

    A job is ``(function, args, kwargs, deliver)``; the worker calls ``deliver(ok,
    value)`` with the result or the exception, so the same worker serves a blocking
    caller (a queue) and an awaiting one (a loop future).
    """

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
                function, args, kwargs, deliver = job
                try:
                    result = function(*args, **kwargs)
                    if inspect.iscoroutine(result):
                        loop = loop or asyncio.new_event_loop()
                        result = run_coroutine(result, loop)
                    outcome = (True, result)
                except BaseException as exc:  # handed to the caller, which decides
                    outcome = (False, exc)
                deliver(*outcome)
        finally:
            if loop is not None:
                loop.close()


class BoundedRunner:
    """Runs one callback under a time limit, on reusable workers.

    ``suppress_after_timeout`` turns on D-14's 60 s window for plugin callbacks; the
    gateway's per-hook lanes (D-01) use the abandonment cap without it.
    """

    __slots__ = (
        "_abandoned",
        "_closed",
        "_idle",
        "_in_flight",
        "_lock",
        "_name",
        "_suppress",
        "_suppressed_until",
    )

    def __init__(self, name: str, *, suppress_after_timeout: bool = True) -> None:
        self._name = name
        self._suppress = suppress_after_timeout
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []
        self._abandoned: list[_Worker] = []
        self._in_flight: set[str] = set()
        self._suppressed_until = 0.0
        self._closed = False

    def _checkout(self, tool_call_id: str | None) -> _Worker:
        """An idle worker (or a new one), after the D-14 refusals."""
        with self._lock:
            if time.monotonic() < self._suppressed_until:
                raise Suppressed("suppressed after a recent timeout")
            if tool_call_id and tool_call_id in self._in_flight:
                raise Suppressed(f"tool call {tool_call_id} is still running")
            self._abandoned = [w for w in self._abandoned if w.is_alive()]
            if len(self._abandoned) >= ABANDONED_CAP:
                raise Hung(f"{len(self._abandoned)} abandoned worker(s) still running")
            if tool_call_id:
                self._in_flight.add(tool_call_id)
            return self._idle.pop() if self._idle else self._start_worker()

    def _checkin(self, worker: _Worker, finished: bool) -> None:
        """Return a worker to the pool, or abandon it when its call did not finish."""
        with self._lock:
            if finished and not self._closed:
                self._idle.append(worker)
                return
            if finished:  # closed while this call ran (an unload): the pool is gone
                worker.inbox.put(_STOP)
                return
            self._abandoned.append(worker)
            if self._suppress:
                self._suppressed_until = time.monotonic() + SUPPRESSION_SECONDS
        worker.inbox.put(_STOP)  # it exits after the call it is stuck in

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
        worker = self._checkout(tool_call_id)
        outbox = worker.outbox

        def deliver(ok: bool, value: Any) -> None:
            if tool_call_id:
                with self._lock:
                    self._in_flight.discard(tool_call_id)
            outbox.put((ok, value))

        worker.inbox.put((function, (), kwargs, deliver))
        try:
            ok, value = outbox.get(timeout=timeout)
        except queue.Empty:
            self._checkin(worker, finished=False)
            raise TimedOut(f"no result within {timeout} s") from None
        self._checkin(worker, finished=True)
        if ok:
            return value
        raise value

    async def acall(
        self,
        function: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        timeout: float | None,
    ) -> Any:
        """Await ``function(*args, **kwargs)`` run on a worker, for at most ``timeout``
        seconds, without blocking the running loop (D-01, D-48)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()

        def deliver(ok: bool, value: Any) -> None:
            with contextlib.suppress(RuntimeError):  # the loop closed: nobody to tell
                loop.call_soon_threadsafe(_settle, future, ok, value)

        worker = self._checkout(None)
        worker.inbox.put((function, args, kwargs, deliver))
        try:
            return await asyncio.wait_for(future, timeout)
        except asyncio.TimeoutError:
            raise TimedOut(f"no result within {timeout} s") from None
        finally:
            self._checkin(worker, finished=future.done() and not future.cancelled())

    def _start_worker(self) -> _Worker:
        worker = _Worker(f"hermes-hooks:{self._name}")
        worker.start()
        return worker

    def close(self) -> None:
        """Stop the idle workers (abandoned ones exit when their call returns); workers
        busy with a call stop when it returns instead of going back to the pool."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.inbox.put(_STOP)

    @property
    def abandoned_alive(self) -> int:
        """How many abandoned workers are still running (for doctor and tests)."""
        with self._lock:
            return sum(1 for w in self._abandoned if w.is_alive())
