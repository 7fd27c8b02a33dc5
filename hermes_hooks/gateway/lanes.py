"""Per-hook lanes: a bounded FIFO per gateway hook, drained by one worker.

A :class:`Lane` holds the hook's pending events and, while it has any, one asyncio task
that delivers them in order: on the hook's own :class:`~hermes_hooks.gateway.loops.
HandlerLoop` for an async hook, else on the emitting loop.  The task ends when the lane is
empty and the next emit starts a new one, so an idle gateway keeps no tasks, and a
lane never needs an ``asyncio`` primitive bound to a loop that may since have closed.

Each call of an async handler is bounded, but one loop timer serves a whole batch (and
the next batches on the same loop): a lane's task arms a :class:`BatchTimer` at the
first call's deadline, and when it fires it either cancels the call that overran or
re-arms for the call now running.  A batch of quick calls costs no timer of its own,
not a timeout scope and a timer per call.

Sync handlers must never block the loop, so they run on the hook's
:class:`~hermes_hooks._workers.BoundedRunner` (the same reusable, abandon-at-the-limit
workers plugin callbacks use, awaited through ``acall``).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import sys
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from hermes_hooks._workers import TimedOut

if TYPE_CHECKING:
    from hermes_hooks.gateway.loops import HandlerLoop

__all__ = [
    "LANE_CAPACITY",
    "Batch",
    "BatchTimer",
    "Entry",
    "Lane",
    "Overran",
    "await_bounded",
    "offer_each",
]

#: Pending events per hook before new ones are dropped.
LANE_CAPACITY = 256


class Overran(TimedOut):
    """An async handler finished after its limit without ever yielding to the loop (a
    blocking call such as ``time.sleep``), so it could not be cancelled; what it
    returned is ignored, as a handler cut off at the limit would have returned nothing.
    """


async def await_bounded(awaitable: Awaitable[Any], limit: float | None) -> Any:
    """Await ``awaitable`` in the *current* task, cancelling it after ``limit`` seconds.

    Not wrapped in a task of its own (as ``asyncio.wait_for`` would): a handler that
    raises ``SystemExit`` inside a task of its own escapes the loop instead of reaching
    our isolation.  Raises :class:`TimedOut` at the limit.
    """
    if limit is None:
        return await awaitable
    if sys.version_info >= (3, 11):
        scope = asyncio.timeout(limit)
        try:
            async with scope:
                return await awaitable
        except TimeoutError:
            if scope.expired():
                raise TimedOut(f"cancelled after {limit:g} s") from None
            raise
    return await _bounded_by_timer(awaitable, limit)


async def _bounded_by_timer(awaitable: Awaitable[Any], limit: float) -> Any:
    """:func:`await_bounded` for Python 3.10, which has no ``asyncio.timeout``."""
    task = asyncio.current_task()
    assert task is not None
    expired = False

    def expire() -> None:
        nonlocal expired
        expired = True
        task.cancel()

    timer = asyncio.get_running_loop().call_later(limit, expire)
    try:
        return await awaitable
    except asyncio.CancelledError:
        if not expired:
            raise
        uncancel = getattr(task, "uncancel", None)  # 3.11+: keep the cancel count honest
        if uncancel is not None:
            uncancel()
        raise TimedOut(f"cancelled after {limit:g} s") from None
    finally:
        timer.cancel()


class BatchTimer:
    """Bounds each call awaited in one task with one loop timer for the whole batch.

    The per-call protocol is mostly attribute writes, because a lane runs it for every
    event and hook: set :attr:`since` to ``time.perf_counter()`` when a call starts
    (and call :meth:`watch` when its limit differs from :attr:`limit`), and back to
    None when it ends, then call :meth:`forgive_swallowed` (needed only when
    :attr:`expired` is set).  The timer, armed once, wakes
    at the earliest moment the running call could overrun: it cancels the task when
    that call has, else sleeps until the running call's deadline, or for a whole limit
    between calls.  :meth:`run` wraps one awaitable in that protocol.  :meth:`close`
    drops the timer when the batch ends; or :meth:`end` leaves it armed for the next
    batch on the same loop, which :meth:`begin` hands it.
    """

    __slots__ = ("_handle", "_task", "expired", "limit", "loop", "since")

    def __init__(self) -> None:
        task = asyncio.current_task()
        assert task is not None, "a BatchTimer belongs to a running task"
        #: The task running the batch; None between batches.
        self._task: asyncio.Task[Any] | None = task
        #: The loop the timer wakes on (every batch it serves runs there).
        self.loop = task.get_loop()
        #: ``time.perf_counter()`` when the running call started; None between calls.
        self.since: float | None = None
        #: The limit the timer watches for, in seconds (None: none).
        self.limit: float | None = None
        self._handle: asyncio.TimerHandle | None = None
        #: Set when this timer cancelled the running call; read by the caller, which
        #: takes the cancellation back (:meth:`forgive_swallowed`).
        self.expired = False

    async def run(self, awaitable: Awaitable[Any], limit: float | None) -> Any:
        """Await ``awaitable`` in this task, cancelled after ``limit`` seconds (None:
        no limit); raises :class:`TimedOut` at the limit."""
        self.since = time.perf_counter()
        if limit != self.limit:
            self.watch(limit)
        try:
            return await awaitable
        except asyncio.CancelledError:
            self.raise_if_expired(limit)
            raise
        finally:
            self.since = None
            self.forgive_swallowed()

    def watch(self, limit: float | None) -> None:
        """From now on each call must end within ``limit`` seconds (None: no limit)."""
        self.limit = limit
        if limit is None:
            return
        if self._handle is not None:  # it may be due later than the running call's deadline
            self._handle.cancel()
        since = self.since
        left = limit if since is None else since + limit - time.perf_counter()
        self._wake_in(left)

    def raise_if_expired(self, limit: float | None) -> None:
        """In ``except CancelledError`` around a call: when the cancellation was this
        timer's, take it back and raise :class:`TimedOut` instead."""
        if self.expired:
            self._forgive()
            raise TimedOut(f"cancelled after {limit:g} s") from None

    def forgive_swallowed(self) -> None:
        """After a call (with :attr:`since` reset): if it swallowed this timer's
        cancellation and returned anyway, take the cancellation back."""
        if self.expired:
            self._forgive()

    def _forgive(self) -> None:
        # The cancellation was ours: take it back, so later awaits are not cancelled.
        self.expired = False
        uncancel = getattr(self._task, "uncancel", None)  # 3.11+
        if uncancel is not None:
            uncancel()

    def _check(self) -> None:
        self._handle = None
        limit = self.limit
        if limit is None or self._task is None:
            return  # no limit, or no batch since end(): begin() arms it again
        since = self.since
        if since is None:  # between calls: no call can overrun before a limit from now
            self._wake_in(limit)
            return
        left = since + limit - time.perf_counter()
        if left <= 0:
            self.expired = True
            self._task.cancel()
            left = limit  # the next call's, or this one's again if it will not stop
        self._wake_in(left)

    def _wake_in(self, delay: float) -> None:
        # Relative delays only: ``since`` is on perf_counter's clock, the loop on its own.
        self._handle = self.loop.call_later(max(0.0, delay), self._check)

    def close(self) -> None:
        """The batch is over: drop the timer."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def end(self) -> None:
        """The batch is over, but another may follow on this loop: leave the timer armed
        (at its next wake-up it stops, unless :meth:`begin` came first)."""
        self._task = None
        self.since = None

    def begin(self, task: asyncio.Task[Any]) -> None:
        """Serve the next batch, run by ``task`` on this timer's loop, after :meth:`end`."""
        self._task = task
        self.expired = False
        if self._handle is None and self.limit is not None:
            self._wake_in(self.limit)


#: One pending delivery: the event, the hook's private context, and the ``carry`` it was
#: offered with (the trace context it belongs to, or None).
Entry = tuple[str, dict[str, Any], Any]


def _no_more() -> bool:
    return False


class Batch:
    """The entries one task delivers, in order.

    Take them with ``pending.popleft()`` until it raises ``IndexError``, then call
    :meth:`more`: True when entries arrived meanwhile (take on), False when the batch
    is over (the lane has gone idle, or was taken away).  Iterating a batch does just
    that.  The deque and the call are exposed rather than only an iterator because a
    lane's batch runs this for every event and hook, and resuming a generator per entry
    cost more than the rest of a no-op handler's delivery.
    """

    __slots__ = ("more", "pending")

    def __init__(self, pending: deque[Entry], more: Callable[[], bool] = _no_more) -> None:
        self.pending = pending
        #: Whether to go on once ``pending`` is empty (see the class docstring).
        self.more = more

    @classmethod
    def of(cls, entries: Iterable[Entry]) -> Batch:
        """A batch of just ``entries``."""
        return cls(deque(entries))

    def __iter__(self) -> Iterator[Entry]:
        pending, more = self.pending, self.more
        while True:
            try:
                entry = pending.popleft()
            except IndexError:
                if more():
                    continue
                return
            yield entry


class Lane:
    """One hook's FIFO of pending ``(event, context, carry)`` entries and its
    delivering task.

    The task awaits ``serve`` once per batch with a :class:`Batch` of the lane's
    entries, in order, and the batch's :class:`BatchTimer`.  The batch ends when the
    lane is empty (the task then ends) or when :meth:`close` took the lane away.
    ``serve`` runs every entry in that one coroutine, so a batch of quick deliveries
    costs no coroutine per event; it must not raise (the emitter isolates handler
    failures before they get here).

    With a ``home`` (a :class:`~hermes_hooks.gateway.loops.HandlerLoop`) the task runs
    on that loop, whatever loop emits: it is started there by a thread-safe call, and
    :attr:`_starting` covers the moment between that call and the task.  That call is
    sent from the emitting loop's next turn (:attr:`_due`), not from inside ``emit``:
    waking another thread hands it the interpreter, so waking it once for the events
    of one turn, rather than once per event, is what keeps a burst of emits cheap.
    """

    __slots__ = (
        "_changed",
        "_closers",
        "_due",
        "_home",
        "_idle_waiters",
        "_lock",
        "_pending",
        "_serve",
        "_starting",
        "_task",
        "_task_loop",
        "_timer",
        "capacity",
    )

    def __init__(
        self,
        serve: Callable[[Batch, BatchTimer], Awaitable[object]],
        capacity: int = LANE_CAPACITY,
        home: HandlerLoop | None = None,
    ) -> None:
        self._serve = serve
        self.capacity = capacity
        self._home = home
        self._starting = False
        self._pending: deque[Entry] = deque()
        # One lock guards the queue and the task slot; emits may come from any loop.
        self._lock = threading.Lock()  # taken directly, not through _changed, on hot paths
        self._changed = threading.Condition(self._lock)
        #: How many close() calls wait on _changed: with none, nothing is notified (a
        #: notify costs about as much as a no-op handler's call).
        self._closers = 0
        self._task: asyncio.Task[None] | None = None
        self._task_loop: asyncio.AbstractEventLoop | None = None  # the loop _task runs on
        #: The timer the batches on one loop share (see _batch_timer).
        self._timer: BatchTimer | None = None
        #: The emitting loop whose next turn starts the task on the home loop (None:
        #: no start is waiting to be sent).
        self._due: asyncio.AbstractEventLoop | None = None
        #: Called once when the lane next goes idle (see :meth:`when_idle`).
        self._idle_waiters: list[Callable[[], object]] = []

    def offer(
        self,
        event: str,
        context: dict[str, Any],
        carry: Any = None,
        loop: asyncio.AbstractEventLoop | None = None,
    ) -> bool:
        """Queue one event; start the lane's task on the running loop if it has none.

        ``loop``: the running loop, if the caller has it at hand.  Returns False,
        queueing nothing, when ``capacity`` events are already pending.
        """
        return not offer_each((self,), event, context, None, carry, loop or _running_loop())

    def _start(self, loop: asyncio.AbstractEventLoop) -> bool:
        """Under the lock, with an event just queued: make sure a task will deliver it.
        True when the lane is now due to be started on its home loop from ``loop``'s
        next turn: the caller must then have :func:`_wake_due` called there."""
        task = self._task
        home = self._home
        if home is not None:
            if self._starting or (task is not None and not task.done()):
                return False  # a task on the home loop will get to the event
            home.origin = loop
            due = self._due
            if due is None:
                self._due = loop
                return True
            if due is not loop or due.is_closed():
                self._send_start()  # that loop may never turn again: do not wait for it
            return False
        if task is not None and self._task_loop is loop and not task.done():
            return False  # its task runs on this loop: it will get to the event
        if not _alive(task):
            if task is not None and not task.done():
                # Left on a loop that stopped: should that loop run again, its task
                # must find nothing to take (see _more); the entries go on here.
                old, self._pending = self._pending, deque(self._pending)
                old.clear()
            self._task = loop.create_task(self._work())
            self._task_loop = loop
        return False

    def _send_start(self) -> None:
        # Under the lock: ask the home loop to start the task (see _begin).
        self._mark_starting()
        self._post_begin()

    def _mark_starting(self) -> None:
        # Under the lock: a start is on its way to the home loop (see _begin).
        self._due = None
        self._starting = True

    def _post_begin(self) -> None:
        # With or without the lock: _begin re-checks _starting under it, so a close()
        # in between wins.
        assert self._home is not None
        self._home.call_soon(self._begin)

    def when_idle(self, callback: Callable[[], object]) -> bool:
        """Call ``callback`` (from any thread) once the lane's task is over; False,
        registering nothing, when the lane is idle already (as :meth:`busy` decides)."""
        with self._lock:
            if not self._busy():
                return False
            self._idle_waiters.append(callback)
            return True

    def _idle(self) -> None:
        # The task ended (or was never needed): wake whoever waits for that.
        with self._lock:
            waiters, self._idle_waiters = self._idle_waiters, []
        for callback in waiters:
            callback()

    def _begin(self) -> None:
        """On the home loop: start the task :meth:`_start` asked for (unless the lane
        was closed meanwhile)."""
        with self._lock:
            if not self._starting:
                return
            self._starting = False
            if self._pending:
                loop = asyncio.get_running_loop()
                self._task = loop.create_task(self._work())
                self._task_loop = loop
                self._notify_closers()
                return
            self._notify_closers()
        self._idle()

    def _notify_closers(self) -> None:
        # Under the lock: the task slot or the start flag changed.
        if self._closers:
            self._changed.notify_all()

    def _finished(self, task: asyncio.Task[None]) -> None:
        # A task that ended early: wake close() and whoever waits for the lane to go
        # idle, as _more does when a batch ends normally.
        with self._lock:
            self._notify_closers()
        self._idle()
        if not task.cancelled():
            # A KeyboardInterrupt from a handler already left the loop; reading it here
            # stops asyncio from logging it again, with a traceback, whenever the task
            # is garbage-collected.
            task.exception()

    async def _work(self) -> None:
        me = asyncio.current_task()
        assert me is not None
        with self._lock:
            if self._task is not me:
                return  # replaced before it ever ran (its loop had stopped)
            pending = self._pending  # swapped, from now on, only to stop this batch
        timer = self._batch_timer(me)
        try:
            await self._serve(Batch(pending, functools.partial(self._more, me)), timer)
        except BaseException:
            # Ended early (cancelled, or a handler's KeyboardInterrupt leaving the loop):
            # _finished runs once the task is over.  Only then: a batch that ends
            # normally has said so itself (see _more), and a done callback would
            # cost every batch a turn of its loop.
            me.add_done_callback(self._finished)
            raise
        finally:
            if timer is self._timer:
                timer.end()
            else:
                timer.close()

    def _batch_timer(self, me: asyncio.Task[None]) -> BatchTimer:
        """The timer for the batch ``me`` runs: the last batch's, left armed, when that
        ran on the same loop (a lane runs one batch per loop at a time), else a new
        one.  Arming and dropping a timer per batch cost as much as a few no-op calls,
        and a gateway whose events arrive one at a time starts a batch per hook for
        every event."""
        timer = self._timer
        if timer is not None and timer.loop is me.get_loop():
            timer.begin(me)
            return timer
        self._timer = timer = BatchTimer()
        return timer

    def _more(self, me: asyncio.Task[None]) -> bool:
        """For the batch of task ``me``, its deque found empty: True if entries arrived
        meanwhile; else the batch is over, and the lane idle unless it was taken away.

        A deque's popleft is atomic, so taking an entry needs no lock; only deciding
        that the lane is empty does, since an offer reads the task slot under the lock
        to know whether a task will get to its entry.  A lane taken away from ``me``
        (closed, or its task replaced) got a new deque, so ``me`` stops at its next
        take and never delivers alongside another task.
        """
        with self._lock:
            if self._task is not me:
                return False
            if self._pending:
                return True
            self._task = None
            waiters, self._idle_waiters = self._idle_waiters, []
            self._notify_closers()
        # Idle from here on (an offer now starts a new task): say so now, not from the
        # task's done callback a turn of this loop later, since on a hook's own loop
        # each turn may hand the interpreter to another thread before whoever waits
        # hears of it.
        for callback in waiters:
            callback()
        return False

    def busy(self) -> bool:
        """Whether a task delivers, or is about to start delivering, this lane's events."""
        with self._lock:
            return self._busy()

    def _busy(self) -> bool:
        # Under the lock.
        due = self._due
        if due is not None and (due.is_closed() or not due.is_running()):
            self._send_start()  # the loop that was to send it will not turn again
        return self._starting or self._due is not None or _alive(self._task)

    def close(self, deadline: float) -> int:
        """Stop the lane: wait for it to empty until ``deadline`` (a ``time.monotonic``
        value) when its loop runs on another thread, then cancel the task and drop what
        is left.  Returns the number of events dropped.
        """
        with self._changed:
            if self._due is not None:  # deliver what is pending before stopping
                self._send_start()
            task = self._task
            if self._starting or (task is not None and _alive(task) and not _on_this_thread(task)):
                self._closers += 1
                try:
                    self._changed.wait_for(
                        lambda: not self._starting and not _alive(self._task),
                        max(0.0, deadline - time.monotonic()),
                    )
                finally:
                    self._closers -= 1
            # A new deque, so a task still running stops at its next take (see _more).
            dropped = len(self._pending)
            self._pending.clear()
            self._pending = deque()
            self._starting = False
            task, self._task = self._task, None
        self._idle()
        if task is not None and not task.done():
            loop = task.get_loop()
            if _on_this_thread(task):
                task.cancel()
            elif not loop.is_closed():
                with contextlib.suppress(RuntimeError):  # closed in between
                    loop.call_soon_threadsafe(task.cancel)
        return dropped


def offer_each(
    lanes: Sequence[Lane],
    event: str,
    context: Any,
    copy: Callable[[Any], dict[str, Any]] | None,
    carry: Any,
    loop: asyncio.AbstractEventLoop,
) -> Sequence[Lane]:
    """Queue ``event`` on every lane, each with its own ``copy(context)`` (``copy``
    None: ``context`` itself), starting a lane's task on ``loop`` where it has none.

    Returns the lanes already holding ``capacity`` events, which queue nothing.  One
    function for a whole emission, written out with locals and without a list unless
    one is needed: an emit runs it for every event, and a method call and a copy call
    per lane were most of what an emit cost.
    """
    full: list[Lane] | None = None
    due: list[Lane] | None = None
    for lane in lanes:
        with lane._lock:
            pending = lane._pending
            if len(pending) >= lane.capacity:
                if full is None:
                    full = []
                full.append(lane)
                continue
            pending.append((event, context if copy is None else copy(context), carry))
            task = lane._task
            if task is not None and not task.done():
                # Its task will get to the event: one on the lane's home loop, or one
                # on this loop (a task left on another loop by a closed one will not).
                if lane._home is not None or lane._task_loop is loop:
                    continue
            elif lane._due is loop:
                continue  # this loop's next turn starts the task
            if lane._start(loop):
                if due is None:
                    due = []
                due.append(lane)
    if due is not None:
        # One callback for every lane this emission made due, not one per lane: their
        # home loops are then woken back to back on the next turn, each wake-up handing
        # another thread the interpreter.
        loop.call_soon(_wake_due, due)
    return () if full is None else full


def _wake_due(lanes: list[Lane]) -> None:
    """On the emitting loop's next turn: start, on its home loop, the task each lane's
    events of the last turn wait for (unless that was done meanwhile)."""
    starting = []
    for lane in lanes:
        with lane._lock:
            if lane._due is None:
                continue
            lane._mark_starting()
        starting.append(lane)
    # Woken outside the locks and back to back: each wake-up may hand that loop's
    # thread the interpreter at once, and its _begin takes its lane's lock.
    for lane in starting:
        lane._post_begin()


_running_loop = asyncio.get_running_loop


def _alive(task: asyncio.Task[None] | None) -> bool:
    """A task that can still run: not finished, and its loop not closed or stopped."""
    if task is None or task.done():
        return False
    loop = task.get_loop()
    return loop.is_running() and not loop.is_closed()


def _on_this_thread(task: asyncio.Task[None]) -> bool:
    try:
        return asyncio.get_running_loop() is task.get_loop()
    except RuntimeError:
        return False
