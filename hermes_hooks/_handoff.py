"""One hand-off per firing: a firing's bounded callbacks run back to back on one worker.

Handing each bounded callback to a worker thread and waiting for it costs two thread
switches per callback, many times the cost of the callback itself.  So the dispatcher
hands a firing's run of bounded callbacks to one worker as a single job: the worker
runs them in order, settling each result with the firing's aggregator exactly as the
calling thread would, and the caller waits once.

Every per-callback rule stays with the callback's own
:class:`~hermes_hooks._workers.BoundedRunner`: the worker asks it before each call (the
60 s window after a timeout, one ``tool_call_id`` at a time, the cap of abandoned
workers), and a timeout is charged to it.  The caller waits with the deadline of the
callback that is running, which the worker publishes in a :class:`_Progress` as it
starts each one; the caller looks only when its wait expires, so a firing that keeps
to its limits costs the caller one wake-up.  At a timeout the worker is abandoned in
the callback it is stuck in (it settles nothing more) and the callbacks after it move
to a fresh worker.  Who settles a callback, the worker with its result or the caller
with a timeout, is decided by one atomic claim on its index: the worker takes no lock
per callback.

The decision records of callbacks settled on the worker are held and emitted on the
firing's own thread before it returns (:data:`HELD_RECORDS`), as an unbounded firing
emits them, so subscribers such as the replay timeline see no difference.

The hand-off sees the dispatcher only through :class:`Settler`, the few things it needs
of it, so this module does not import the dispatcher (which imports it).
"""

from __future__ import annotations

import functools
import queue
import threading
import time
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from hermes_hooks._isolation import escapes
from hermes_hooks._plan import callback_kwargs, prepare
from hermes_hooks._workers import Busy, TimedOut, drive, running_twice

if TYPE_CHECKING:
    from hermes_hooks._callback import Callback
    from hermes_hooks._plan import Cursor
    from hermes_hooks._select import Aggregator
    from hermes_hooks._workers import BoundedRunner
    from hermes_hooks.types import DecisionRecord

__all__ = ["HELD_RECORDS", "Settler", "run_bounded"]


class Settler(Protocol):
    """What a bounded hand-off needs of the dispatcher whose firing it runs."""

    #: ``hook_callback_timeout`` in seconds (above 0 here).
    timeout: float
    #: The workers firings borrow, one per firing at a time.
    pool: BoundedRunner
    #: Binds work run off the firing's thread to the firing's context (or None).
    carry: Callable[[Callable[..., Any]], Callable[..., Any]] | None

    @property
    def listeners(self) -> object:
        """Truthy when someone subscribes to decision records."""

    def runner(self, callback: Callback) -> BoundedRunner:
        """``callback``'s own runner: its timeout window and abandoned workers."""

    def finish(
        self,
        aggregator: Aggregator,
        callback: Callback,
        ok: bool,
        value: Any,
        started: float,
        results: list[Any] | None,
    ) -> None:
        """Settle one callback's outcome (a failure, nothing, or a result)."""

    def emit_held(self, records: list[DecisionRecord]) -> None:
        """Emit, on the firing's thread, the records the worker held for it."""


class _Held(threading.local):
    """Per thread: the list a worker holds its firing's records in (None: emit them)."""

    records: list[DecisionRecord] | None = None  # a class default: no AttributeError


#: Decision records settled on a firing's worker wait here (``records``, per thread) for
#: the firing's own thread, so that subscribers see every record on the thread that
#: fired, as with an unbounded firing (the replay timeline files them by thread).
HELD_RECORDS = _Held()

# While the worker is between callbacks (settling a result: our own code and the
# decision-record listeners) the caller checks back this often.
_BETWEEN = 0.01
_COROUTINE = types.CoroutineType


class _Progress:
    """Which callback the worker is running, and since when (shared with the caller).

    The worker writes ``deadline`` before ``index``, so a caller that reads ``index``
    first never pairs it with an earlier callback's deadline.  ``claims`` maps each
    callback's index to who settles it (:data:`_WORKER` or :data:`_CALLER`):
    ``dict.setdefault`` is atomic, so exactly one of them does.
    """

    __slots__ = ("claims", "deadline", "index", "started")

    def __init__(self) -> None:
        self.index = -1
        self.deadline = 0.0  # monotonic: when the running callback times out
        self.started = 0.0  # perf_counter: when it started, for its decision record
        self.claims: dict[int, bool] = {}


_WORKER, _CALLER = True, False


def run_bounded(
    dispatcher: Settler,
    aggregator: Aggregator,
    callbacks: tuple[Callback, ...],
    results: list[Any] | None,
    cursor: Cursor,
) -> None:
    """Run ``callbacks`` (all bounded) on one worker, each within the dispatcher's
    timeout; a timed-out one is settled as such and the rest move to a fresh worker."""
    timeout = dispatcher.timeout
    pool = dispatcher.pool
    pending = callbacks
    held: list[DecisionRecord] = []  # records the worker settles, emitted here
    while pending:
        progress = _Progress()
        # The worker runs _work on this firing's state, handed over as a function and a
        # tuple: a closure over the same seven names cost every bounded firing more
        # than the rest of its hand-off.
        function: Callable[..., None] = _work
        arguments: tuple[Any, ...]
        arguments = (dispatcher, aggregator, pending, results, cursor, progress, held)
        if dispatcher.carry is not None:  # telemetry: the whole run in the firing's context
            function, arguments = dispatcher.carry(functools.partial(_work, *arguments)), ()
        try:
            worker = pool.lend(timeout)
        except Busy as exc:  # no thread freed up in time: this callback never ran
            dispatcher.finish(aggregator, pending[0], False, exc, time.perf_counter(), results)
            pending = pending[1:]
            continue
        outbox = worker.outbox
        # No keywords, and no deliver: the outcome goes to the outbox.
        worker.inbox.put((function, arguments, None, None))
        try:
            # Straight to the wait: the worker needs the interpreter this thread holds.
            ok, value = outbox.get(timeout=timeout)
            stuck = None
        except queue.Empty:  # the first deadline is at least this far: look now
            stuck, (ok, value) = _wait(progress, outbox)
        if held:
            dispatcher.emit_held(held)  # the worker settles nothing more now
        if stuck is None:
            pool.give_back(worker)
            if not ok:  # KeyboardInterrupt and the like reach the host, as unbounded
                raise value
            return
        callback = pending[stuck]
        dispatcher.runner(callback).abandon(worker)
        failure = TimedOut(f"no result within {timeout} s")
        dispatcher.finish(aggregator, callback, False, failure, progress.started, results)
        pending = pending[stuck + 1 :]


_NOTHING = (False, None)


def _wait(
    progress: _Progress, outbox: queue.SimpleQueue[tuple[bool, Any]]
) -> tuple[int | None, tuple[bool, Any]]:
    """Go on waiting for the job, whose first wait ran out: (None, its outcome) when it
    finished, else (the index of the callback that ran past its deadline, nothing); the
    worker is then abandoned."""
    while True:
        index = progress.index  # before the deadline: see _Progress
        wait = progress.deadline - time.monotonic()
        if index < 0 or wait > 0:
            wait = max(wait, _BETWEEN)  # not started, or still within its limit
        elif progress.claims.setdefault(index, _CALLER) is _CALLER:
            return index, _NOTHING
        else:
            wait = _BETWEEN  # it returned just now; the worker is settling it
        try:
            return None, outbox.get(timeout=wait)
        except queue.Empty:
            pass


def _work(
    dispatcher: Settler,
    aggregator: Aggregator,
    callbacks: tuple[Callback, ...],
    results: list[Any] | None,
    cursor: Cursor,
    progress: _Progress,
    held: list[DecisionRecord],
) -> None:
    """The worker's side: each callback in order, admitted by its runner, its result
    settled unless the caller has claimed it (timed out) meanwhile."""
    # Written out (locals, few calls): this is the hot path of every bounded firing.
    timeout = dispatcher.timeout
    listening = bool(dispatcher.listeners)
    one_per_call = cursor.plan.one_per_call
    claim = progress.claims.setdefault
    monotonic, perf_counter = time.monotonic, time.perf_counter
    HELD_RECORDS.records = held
    try:
        index = 0
        for callback in callbacks:
            progress.deadline = monotonic() + timeout
            progress.index = index  # after the deadline: see _Progress
            if listening:
                progress.started = perf_counter()
            runner = callback.runner or dispatcher.runner(callback)
            try:
                # Inside the isolation: args an earlier modify returned may not copy.
                base = aggregator.current
                if base is not cursor.current:  # the first, or args a modify changed
                    cursor.current = base
                    cursor.copies = prepare(base, cursor.plan)
                kwargs = callback_kwargs(callback, base, cursor.copies)
                tool_call_id = kwargs.get("tool_call_id") if one_per_call else None
                if type(tool_call_id) is not str:
                    tool_call_id = None
                marked: str | None = None  # the tool_call_id marked in flight
                if not runner.calm:
                    if runner.admit(tool_call_id):
                        marked = tool_call_id
                elif tool_call_id is None:
                    pass
                elif runner.in_flight.setdefault(tool_call_id, progress) is progress:
                    marked = tool_call_id  # what admit() does for a calm runner, inline
                else:
                    raise running_twice(tool_call_id)
                try:
                    value = callback.function(**kwargs)
                    if value is not None and type(value) is _COROUTINE:
                        value = drive(value)
                finally:
                    if marked is not None:
                        runner.in_flight.pop(marked, None)
                ok = True
            except BaseException as exc:  # a plugin's SystemExit never ends the host
                if escapes(exc):
                    raise
                ok, value = False, exc
            if claim(index, _WORKER) is not _WORKER:
                return  # timed out: the caller settled it; the rest run elsewhere
            index += 1
            if ok and value is None and not listening:
                continue  # nothing to settle
            dispatcher.finish(aggregator, callback, ok, value, progress.started, results)
    finally:
        HELD_RECORDS.records = None
