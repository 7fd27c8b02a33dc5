"""Bounded execution on long-lived per-callback workers.

Starting a thread per call costs far more than handing work to a thread that already
exists, so each bounded callback keeps a small pool of idle workers.  A firing takes an
idle worker (or starts one), hands it the call and waits up to the limit.  A worker
that misses the limit is *abandoned*: the caller moves on, the worker finishes its call
in the background and then exits.  Abandoned workers never come back to the pool.

Per callback: after a timeout the callback is suppressed for 60 s (firings count
as timeouts); one ``tool_call_id`` never runs twice at once; at most three abandoned
workers may be alive, and at that cap the callback is skipped.

Threads are bounded as a whole, not only per callback:

* idle workers are reclaimed: a callback keeps at most :data:`MAX_IDLE_PER_CALLBACK`
  of them, and one unused for :data:`IDLE_SECONDS` exits;
* at most :data:`MAX_WORKERS` workers (busy or idle, over all callbacks) are alive;
  a firing that needs one more takes the longest-idle worker of another callback, or
  waits for one within its own time limit (then it counts as a timeout, without the
  60 s window: the callback never ran);
* a callback that fires hooks itself runs the nested callbacks on its own worker, so
  a callback re-firing ``pre_tool_call`` costs no thread at all;
* abandoned workers are not counted there (they are bounded by three per callback).

So the worker threads alive never exceed ``MAX_WORKERS + 3 x callbacks``.
"""

from __future__ import annotations

import contextlib
import inspect
import queue
import threading
import time
import types
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # asyncio loads with the first async call, not with the package
    import asyncio

__all__ = [
    "ABANDONED_CAP",
    "IDLE_SECONDS",
    "MAX_IDLE_PER_CALLBACK",
    "MAX_WORKERS",
    "SUPPRESSION_SECONDS",
    "BoundedRunner",
    "Busy",
    "Hung",
    "Suppressed",
    "TimedOut",
    "drive",
    "on_worker",
    "run_coroutine",
    "running_twice",
    "workers_alive",
]

SUPPRESSION_SECONDS = 60.0
ABANDONED_CAP = 3
#: Worker threads (busy or idle, abandoned ones aside) alive at once, over all callbacks.
MAX_WORKERS = 64
#: Idle workers one callback keeps for its next firings; more stop on their return.
MAX_IDLE_PER_CALLBACK = 2
#: Seconds an idle worker waits for work before it exits.
IDLE_SECONDS = 30.0
_STOP = object()
_COROUTINE = types.CoroutineType


class _ThreadState(threading.local):
    """Per thread: the worker it is (None: not a worker) and that worker's private
    loop.  Class defaults, so that reading them on any other thread is a plain
    lookup, not a caught ``AttributeError`` (every bounded firing asks)."""

    worker: _Worker | None = None
    loop: asyncio.AbstractEventLoop | None = None


_local = _ThreadState()
#: Seconds an awaited call may block the loop for a worker slot at the thread limit.
_LOOP_WAIT = 0.05
#: Seconds between two looks for a slot while every worker thread is taken.
_SLOT_LOOK = 0.05


class TimedOut(Exception):
    """The call did not return within the limit (its worker was abandoned)."""


class Suppressed(TimedOut):
    """The callback is in its post-timeout window, or this tool call is still running."""


class Hung(TimedOut):
    """The callback already has the maximum number of abandoned workers alive."""


class Busy(TimedOut):
    """Every worker thread was busy for the whole time limit (the callback never ran)."""


def running_twice(tool_call_id: str) -> Suppressed:
    """The refusal of a call whose ``tool_call_id`` this callback is still running."""
    return Suppressed(f"tool call {tool_call_id} is still running")


class _Pool:
    """The process-wide budget of :data:`MAX_WORKERS` worker threads.

    A worker holds a *slot* from its start until its thread ends (or it is abandoned);
    idle workers are listed oldest first so a firing at the limit can stop one and
    take the slot it frees.  Lock order: a runner's lock may be held while taking the
    pool's, never the reverse.

    The idle list is kept without the lock (each change is one atomic ``dict`` call):
    every bounded firing takes a worker off it and puts one back, and a lock is most of
    what that would cost.  The lock guards the slot count and the waits for a slot.
    """

    def __init__(self) -> None:
        # A plain lock under the condition, and a notify only when someone waits.
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._waiting = 0
        self.live = 0
        self._idle: dict[_Worker, BoundedRunner] = {}

    def reserve(self, timeout: float | None) -> bool:
        """Take a slot, stopping the longest-idle worker if none is free; False after
        ``timeout`` seconds (None: wait as long as it takes)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._lock:
                if self.live < MAX_WORKERS:
                    self.live += 1
                    return True
                victim = next(iter(self._idle.items()), None)
                if victim is not None:
                    self._idle.pop(victim[0], None)  # taken back meanwhile: no matter
            if victim is not None:
                victim[1]._retire(victim[0], stop=True)  # its slot frees as it exits
            with self._lock:
                if self.live < MAX_WORKERS:
                    continue
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                self._waiting += 1
                try:
                    # A worker listed idle without the lock may not wake this wait:
                    # look again after a short while anyway.
                    self._cond.wait(_SLOT_LOOK if remaining is None else min(remaining, _SLOT_LOOK))
                finally:
                    self._waiting -= 1

    def release(self) -> None:
        """Give a slot back (a worker stopped, exited or was abandoned)."""
        with self._lock:
            self.live -= 1
            if self._waiting:
                self._cond.notify()

    def idle(self, worker: _Worker, runner: BoundedRunner) -> None:
        """``worker`` waits in ``runner``'s pool (another callback may reclaim it)."""
        self._idle[worker] = runner
        if self._waiting:
            with self._lock:
                self._cond.notify()

    def busy(self, worker: _Worker) -> None:
        """``worker`` left the idle list (checked out, stopped or exited)."""
        self._idle.pop(worker, None)


_POOL = _Pool()


def workers_alive() -> int:
    """Worker threads holding a slot (busy or idle; abandoned ones aside)."""
    return _POOL.live


def run_coroutine(
    coro: Coroutine[Any, Any, Any], loop: asyncio.AbstractEventLoop | None = None
) -> Any:
    """Run ``coro`` to completion on ``loop``, or on a fresh loop of its own.

    Workers pass their private loop so repeated async callbacks do not pay for a new
    loop each time.  A thread that is already running a loop (an async host calling a
    sync entry point) hands the coroutine to a helper thread and waits up to 30 s, as
    the policy says for hooks that run on the caller's thread.
    """
    import asyncio

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


def on_worker() -> bool:
    """Whether the calling thread is a worker (a callback firing hooks itself)."""
    return _local.worker is not None


def drive(result: Any) -> Any:
    """``result``, or what it resolves to when it is a coroutine: run on this worker's
    private loop (made on the first async call, closed when the worker ends), so
    repeated async callbacks do not pay for a new loop each time."""
    if not inspect.iscoroutine(result):
        return result
    loop = _local.loop
    if loop is None and on_worker():
        import asyncio

        loop = _local.loop = asyncio.new_event_loop()
    return run_coroutine(result, loop)


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
    caller (a queue) and an awaiting one (a loop future).  ``kwargs`` may be None (no
    keywords), and ``deliver`` None puts ``(ok, value)`` on :attr:`outbox`.
    """

    def __init__(self, name: str, runner: BoundedRunner) -> None:
        super().__init__(name=name, daemon=True)
        self.runner = runner
        #: Holds a pool slot until its thread ends (False once abandoned).
        self.counted = True
        self.inbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.outbox: queue.SimpleQueue[tuple[bool, Any]] = queue.SimpleQueue()

    def run(self) -> None:
        _local.worker = self  # nested firings from this thread run inline
        try:
            while True:
                try:
                    job = self.inbox.get(timeout=IDLE_SECONDS)
                except queue.Empty:
                    if self.runner._retire(self):
                        return  # idle too long: exit, which frees the slot
                    continue  # checked out just now: its job is on the way
                if job is _STOP:
                    return
                function, args, kwargs, deliver = job
                try:
                    value = function(*args, **kwargs) if kwargs else function(*args)
                    outcome = (True, drive(value) if type(value) is _COROUTINE else value)
                except BaseException as exc:  # handed to the caller, which decides
                    outcome = (False, exc)
                if deliver is None:
                    self.outbox.put(outcome)
                else:
                    deliver(*outcome)
        finally:
            loop = _local.loop
            if loop is not None:
                loop.close()
            if self.counted:
                _POOL.release()


class BoundedRunner:
    """Runs one callback under a time limit, on reusable workers.

    ``suppress_after_timeout`` turns on the 60 s window after a timeout for plugin callbacks; the
    gateway's per-hook lanes use the abandonment cap without it.
    """

    __slots__ = (
        "_abandoned",
        "_closed",
        "_idle",
        "_lock",
        "_max_idle",
        "_name",
        "_suppress",
        "_suppressed_until",
        "calm",
        "in_flight",
    )

    def __init__(
        self,
        name: str,
        *,
        suppress_after_timeout: bool = True,
        max_idle: int = MAX_IDLE_PER_CALLBACK,
    ) -> None:
        self._name = name
        self._suppress = suppress_after_timeout
        self._max_idle = max_idle
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []
        self._abandoned: list[_Worker] = []
        #: tool_call_id -> the mark of the call running it (see :meth:`admit`).
        self.in_flight: dict[str, object] = {}
        #: No timeout window and no abandoned worker: the only refusal is a running
        #: ``tool_call_id``, so a caller may mark :attr:`in_flight` itself (one atomic
        #: ``setdefault``, refusing with :func:`running_twice`) instead of calling
        #: :meth:`admit`, and unmark it with ``pop``.
        self.calm = True
        self._suppressed_until = 0.0
        self._closed = False

    def admit(self, tool_call_id: str | None) -> bool:
        """The refusals of a callback that timed out or hung (raised as
        :class:`Suppressed` or :class:`Hung`); marks ``tool_call_id`` in flight until
        :meth:`finish` and says whether it did.

        Each check only when its state is set, and the mark without a lock (a guard
        with a ``tool_call_id`` comes here on every firing): ``dict.setdefault`` is
        atomic, so of two calls with one id exactly one finds its own mark there.
        """
        until = self._suppressed_until
        if until and time.monotonic() < until:
            raise Suppressed("suppressed after a recent timeout")
        marked = False
        if tool_call_id:
            mark = object()
            if self.in_flight.setdefault(tool_call_id, mark) is not mark:
                raise running_twice(tool_call_id)
            marked = True
        if self._abandoned:
            with self._lock:
                self._abandoned = [w for w in self._abandoned if w.is_alive()]
                alive = len(self._abandoned)
            if alive >= ABANDONED_CAP:
                if marked:
                    self.finish(tool_call_id)
                raise Hung(f"{alive} abandoned worker(s) still running")
        if not self.calm:
            with self._lock:  # calm again once the window is over and none is left
                until = self._suppressed_until
                if not self._abandoned and (not until or time.monotonic() >= until):
                    self._suppressed_until = 0.0
                    self.calm = True
        return marked

    def finish(self, tool_call_id: str | None) -> None:
        """The call :meth:`admit` let in (and marked) returned: ``tool_call_id`` may run
        again.  Only that call removes the mark, so no lock is needed."""
        if tool_call_id:
            self.in_flight.pop(tool_call_id, None)

    def _checkout(self, tool_call_id: str | None, wait: float | None) -> _Worker:
        """An idle worker, or a new one within the thread budget (waiting up to
        ``wait`` seconds for a slot), after those refusals."""
        self.admit(tool_call_id)
        worker = self._take_idle()
        if worker is not None:
            return worker
        if not _POOL.reserve(wait):
            self.finish(tool_call_id)
            raise Busy(f"all {MAX_WORKERS} worker threads stayed busy")
        try:
            return self._start_worker()
        except BaseException:  # the thread never started: nothing will free the slot
            _POOL.release()
            self.finish(tool_call_id)
            raise

    def _take_idle(self) -> _Worker | None:
        """An idle worker of this callback, taken off the idle lists; None if none.

        Idle lists change by single atomic list calls, no lock (every bounded firing
        takes and returns a worker): ``pop`` here, ``append`` in :meth:`_checkin`, and
        ``remove`` in :meth:`_retire`, so exactly one of them gets a given worker.
        """
        try:
            worker = self._idle.pop()
        except IndexError:
            return None
        _POOL.busy(worker)
        return worker

    def _checkin(self, worker: _Worker, finished: bool) -> None:
        """Return a worker to the pool, or abandon it when its call did not finish."""
        if not finished:
            self.abandon(worker)
            return
        if not self._closed and len(self._idle) < self._max_idle:  # a soft cap
            self._idle.append(worker)
            _POOL.idle(worker, self)
            if self._closed:  # close() may have emptied the list before the append
                self._retire(worker, stop=True)
            return
        worker.inbox.put(_STOP)  # closed, or enough idle ones already: it exits

    def lend(self, wait: float | None) -> _Worker:
        """A worker for a job of the caller's own (an idle one, or a new one within the
        thread budget, waiting up to ``wait`` seconds); raises :class:`Busy`.  Give it
        back with :meth:`give_back`, or charge it to the callback it was stuck in with
        that callback's :meth:`abandon`."""
        if not self._abandoned and not self._suppressed_until:  # nothing to refuse
            worker = self._take_idle()
            if worker is not None:
                return worker
        return self._checkout(None, wait)

    def give_back(self, worker: _Worker) -> None:
        """A lent worker finished its job: it waits for the next one."""
        self._checkin(worker, finished=True)

    def abandon(self, worker: _Worker) -> None:
        """``worker`` is stuck in this callback past its limit: it counts against the
        callback's abandoned cap (and starts its post-timeout window), and exits once
        the call returns."""
        with self._lock:
            self.calm = False
            self._abandoned.append(worker)
            if self._suppress:
                self._suppressed_until = time.monotonic() + SUPPRESSION_SECONDS
        # Abandoned workers are bounded per callback, not by the pool: the slot goes
        # back now, though the thread lives until its call returns.
        if worker.counted:
            worker.counted = False
            _POOL.release()
        worker.inbox.put(_STOP)

    def _retire(self, worker: _Worker, stop: bool = False) -> bool:
        """Take ``worker`` off this callback's idle list; True if it was idle here.
        With ``stop`` it is told to exit (a firing at the thread limit needs its slot)."""
        try:
            self._idle.remove(worker)  # atomic: see _take_idle
        except ValueError:
            return False
        _POOL.busy(worker)
        if stop:
            worker.inbox.put(_STOP)
        return True

    def call(
        self,
        function: Callable[..., Any],
        kwargs: dict[str, Any],
        timeout: float | None,
        tool_call_id: str | None = None,
    ) -> Any:
        """Run ``function(**kwargs)`` and return its result within ``timeout`` seconds
        (``None``: wait as long as it takes, still off the calling thread).

        Called from a worker (a callback firing hooks itself), the function runs right
        here: the outer call's limit already bounds it, and no thread is spent.

        Raises what the callback raised, or a :class:`TimedOut` subclass.
        """
        if _local.worker is not None:
            return self._call_inline(function, kwargs, tool_call_id)
        worker = self._checkout(tool_call_id, timeout)
        outbox = worker.outbox

        def deliver(ok: bool, value: Any) -> None:
            self.finish(tool_call_id)
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

    def _call_inline(
        self, function: Callable[..., Any], kwargs: dict[str, Any], tool_call_id: str | None
    ) -> Any:
        self.admit(tool_call_id)
        try:
            return drive(function(**kwargs))
        finally:
            self.finish(tool_call_id)

    async def acall(
        self,
        function: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        timeout: float | None,
    ) -> Any:
        """Await ``function(*args, **kwargs)`` run on a worker, for at most ``timeout``
        seconds, without blocking the running loop.  At the thread limit
        it fails quickly with :class:`Busy` rather than block the loop."""
        import asyncio

        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()

        def deliver(ok: bool, value: Any) -> None:
            with contextlib.suppress(RuntimeError):  # the loop closed: nobody to tell
                loop.call_soon_threadsafe(_settle, future, ok, value)

        # At the thread limit an idle worker needs a moment to exit: wait that long at
        # most, never the whole limit, since this blocks the loop.
        worker = self._checkout(None, _LOOP_WAIT)
        worker.inbox.put((function, args, kwargs, deliver))
        try:
            return await asyncio.wait_for(future, timeout)
        except asyncio.TimeoutError:
            raise TimedOut(f"no result within {timeout} s") from None
        finally:
            self._checkin(worker, finished=future.done() and not future.cancelled())

    def _start_worker(self) -> _Worker:
        worker = _Worker(f"hermes-hooks:{self._name}", self)
        worker.start()
        return worker

    def close(self, wait: float = 0.0) -> None:
        """Stop the idle workers (abandoned ones exit when their call returns); workers
        busy with a call stop when it returns instead of going back to the pool.
        ``wait``: seconds in all to wait for the idle ones to have exited."""
        self._closed = True  # before emptying: a worker returned after it is stopped
        idle: list[_Worker] = []
        while (worker := self._take_idle()) is not None:
            idle.append(worker)
            worker.inbox.put(_STOP)
        deadline = time.monotonic() + wait
        for worker in idle if wait > 0 else ():
            if worker is not threading.current_thread():
                worker.join(max(0.0, deadline - time.monotonic()))

    @property
    def abandoned_alive(self) -> int:
        """How many abandoned workers are still running (for doctor and tests)."""
        with self._lock:
            return sum(1 for w in self._abandoned if w.is_alive())
