"""Delivery lanes: one bounded queue, one worker thread and one keep-alive
``httpx.Client`` per outbound target.

The agent's thread only hands a ready :class:`Delivery` to :meth:`Lane.submit`, which
appends it to the lane's queue and returns; everything that can wait (connecting,
sending, retrying) happens on the lane's worker.  A dead endpoint therefore delays
only its own lane, never the agent and never another target.

Ordinary lanes: at most 256 pending events (the next one is dropped with
a warning); 2xx is done; 3xx is logged as a redirect and never followed; 4xx is logged
and not retried; 5xx, connection errors and timeouts are retried once after 1 s with
the byte-identical body and headers, then dropped with a warning.

Durable lanes (``durable: true``) read from the SQLite :class:`~.outbox.Outbox`
instead: the event is committed there by the caller before the first attempt, retried
on the target's longer schedule with ±20 % jitter (``Retry-After`` honoured, capped at
one hour), and dead-lettered after the last attempt; ``hermes-hooks outbox`` lists and
redelivers dead events.

At exit every live lane is flushed together within 5 s in total (``Hooks.close`` does
the same with its own budget; an ``atexit`` hook covers hosts that forget to close).
"""

from __future__ import annotations

import atexit
import contextlib
import email.utils
import random
import sqlite3
import threading
import time
import weakref
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import httpx

from hermes_hooks._log import WarnOnce, get_logger
from hermes_hooks.webhooks.deadline import AttemptGuard
from hermes_hooks.webhooks.wire import build_headers

if TYPE_CHECKING:
    from hermes_hooks.webhooks.outbox import Outbox, Row
    from hermes_hooks.webhooks.targets import Target

__all__ = [
    "DURABLE_CAPACITY",
    "EXIT_FLUSH_SECONDS",
    "JITTER",
    "MAX_RETRY_AFTER",
    "QUEUE_CAPACITY",
    "Delivery",
    "DurableLane",
    "Lane",
    "LaneStats",
    "Outcome",
    "flush_lanes",
    "parse_retry_after",
    "post",
]

log = get_logger("hermes_hooks.outbound")

#: Pending events per ordinary target.
QUEUE_CAPACITY = 256
#: Pending events per durable target (they live on disk, not in memory).
DURABLE_CAPACITY = 10_000
#: The total flush budget at interpreter exit.
EXIT_FLUSH_SECONDS = 5.0
#: Durable retries wait their scheduled delay times a factor in [1 - JITTER, 1 + JITTER].
JITTER = 0.2
#: The longest ``Retry-After`` a durable target may impose, in seconds.
MAX_RETRY_AFTER = 3600.0
_MAX_RESPONSE_BYTES = 64 * 1024  # the response is ignored; read a little of it
_CLAIM_SLACK = 30.0
_IDLE_POLL = 30.0  # a durable lane re-checks the outbox this often (other processes)
_THROTTLE_STATUSES = frozenset({408, 429})


@dataclass
class Delivery:
    """One event ready to send: the serialised body and the headers of its first
    attempt (an ordinary lane re-sends exactly these bytes)."""

    event: str
    delivery_id: str
    timestamp: str
    body: bytes
    headers: dict[str, str]


@dataclass(frozen=True)
class Outcome:
    """What one HTTP attempt came to."""

    kind: str  # ok | redirect | client_error | throttled | server_error | timeout | connection
    status: int | None = None
    detail: str = ""
    retry_after: float | None = None

    @property
    def ok(self) -> bool:
        """A 2xx answer."""
        return self.kind == "ok"

    def retryable(self, durable: bool) -> bool:
        """Worth a retry: 5xx, a timeout or a connection error; durable targets also retry
        408 and 429."""
        if self.kind in ("server_error", "timeout", "connection"):
            return True
        return durable and self.kind == "throttled"

    def describe(self) -> str:
        """A short text for logs and the outbox's ``last_error``."""
        if self.status is not None:
            return f"HTTP {self.status}" + (f" ({self.detail})" if self.detail else "")
        return self.detail or self.kind


@dataclass
class LaneStats:
    """Counters of one lane (for tests, benchmarks and debugging)."""

    attempts: int = 0
    delivered: int = 0
    failed: int = 0
    dropped: int = 0
    statuses: deque[int] = field(default_factory=lambda: deque(maxlen=100))  # latest


def parse_retry_after(value: str | None, now: float) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - now)


def make_client(timeout: float) -> httpx.Client:
    """The lane's client: one kept-alive connection, redirects never followed."""
    return httpx.Client(
        timeout=httpx.Timeout(float(timeout)),
        follow_redirects=False,
        limits=httpx.Limits(max_connections=1, max_keepalive_connections=1),
    )


def post(
    client: httpx.Client,
    url: str,
    body: bytes,
    headers: dict[str, str],
    guard: AttemptGuard | None = None,
    limit: float | None = None,
) -> Outcome:
    """POST once and classify the answer; never raises for network trouble.

    With a ``guard``, the whole attempt (connect, send, headers, body) ends after
    ``limit`` seconds, however slowly the receiver trickles its answer.
    """
    extensions = {"trace": guard.trace} if guard is not None else None
    limited = guard.limit(limit) if guard is not None and limit else contextlib.nullcontext()
    status: int | None = None
    location, retry_after = "", None
    try:
        with (
            limited,
            client.stream(
                "POST", url, content=body, headers=headers, extensions=extensions
            ) as response,
        ):
            status = response.status_code
            location = response.headers.get("location", "")
            retry_after = parse_retry_after(response.headers.get("retry-after"), time.time())
            read = 0
            for chunk in response.iter_raw():  # drain, so the connection can be reused
                read += len(chunk)
                if read > _MAX_RESPONSE_BYTES:
                    break
    except httpx.TimeoutException as exc:
        if status is None:
            return Outcome("timeout", detail=f"timed out ({type(exc).__name__})")
    except httpx.TransportError as exc:
        expired = guard is not None and guard.expired
        if status is None and expired:  # the watchdog cut a trickling answer
            return Outcome("timeout", detail=f"no complete answer within {limit:g} s")
        if status is None:
            return Outcome("connection", detail=f"{type(exc).__name__}: {exc}"[:300])
    # From here the receiver has answered; a body cut short does not change that.
    if 200 <= status < 300:
        return Outcome("ok", status)
    if 300 <= status < 400:
        return Outcome("redirect", status, f"to {location}" if location else "")
    if status in _THROTTLE_STATUSES:
        return Outcome("throttled", status, retry_after=retry_after)
    if 400 <= status < 500:
        return Outcome("client_error", status)
    return Outcome("server_error", status, retry_after=retry_after)


# -- the exit flush ----------------------------------------------------------------------

_LANES: weakref.WeakSet[_LaneBase] = weakref.WeakSet()
_registry_lock = threading.Lock()
_atexit_registered = False


def _remember(lane: _LaneBase) -> None:
    global _atexit_registered
    with _registry_lock:
        _LANES.add(lane)
        if not _atexit_registered:
            atexit.register(_flush_at_exit)
            _atexit_registered = True


def _flush_at_exit() -> None:
    flush_lanes(list(_LANES), EXIT_FLUSH_SECONDS)


def flush_lanes(lanes: Iterable[_LaneBase], timeout: float) -> int:
    """Flush ``lanes`` together within ``timeout`` seconds in total; return how many
    events were left undelivered in memory (durable events stay in the outbox)."""
    lanes = list(lanes)
    deadline = time.monotonic() + max(0.0, timeout)
    for lane in lanes:
        lane.begin_close(deadline)
    return sum(lane.join(deadline) for lane in lanes)


# -- lanes -------------------------------------------------------------------------------


class _LaneBase:
    """The queue, the worker thread and the shutdown logic shared by both lanes."""

    durable = False

    def __init__(self, target: Target, capacity: int, warnings: WarnOnce | None) -> None:
        self.target = target
        self.capacity = capacity
        # The load's warn-once record (its manager's), so two loads warn separately.
        self._warnings = warnings or WarnOnce()
        self.stats = LaneStats()
        self._items: deque[Delivery] = deque()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._deadline: float | None = None  # monotonic; set by begin_close
        self._in_flight = False
        #: Bounds each attempt as a whole (``timeout`` per attempt, not per read).
        self._guard = AttemptGuard()
        _remember(self)

    # -- caller side

    def _drop(self, event: str, pending: int) -> bool:
        self.stats.dropped += 1
        self._warnings.warn(
            log,
            ("outbound-queue-full", self.target.label, event),
            "outbound webhook queue full (%d pending) — dropping %s event for %s",
            pending,
            event,
            self.target.label,
        )
        return False

    def _enqueue(self, delivery: Delivery) -> bool:
        """Append to the in-memory queue (bounded); start the worker on first use."""
        with self._cond:
            if self._stopping:
                self._warnings.warn(
                    log,
                    ("outbound-closed", self.target.label),
                    "outbound webhook %s: delivery lane is closed — dropping %s event",
                    self.target.label,
                    delivery.event,
                )
                return False
            if len(self._items) >= QUEUE_CAPACITY:
                return self._drop(delivery.event, len(self._items))
            self._items.append(delivery)
            self._start_locked()
            self._cond.notify()
        return True

    def _start_locked(self) -> None:
        if self._thread is not None:
            return
        thread = threading.Thread(
            target=self._run, name=f"hermes-outbound:{self.target.label}", daemon=True
        )
        try:
            thread.start()
        except RuntimeError:  # interpreter shutting down: nothing can be sent any more
            return
        self._thread = thread

    # -- shutdown

    def begin_close(self, deadline: float | None) -> None:
        """Stop accepting events; the worker drains what is queued, until ``deadline``
        (monotonic seconds; None = no limit), then exits."""
        with self._cond:
            self._stopping = True
            if deadline is not None and (self._deadline is None or deadline < self._deadline):
                self._deadline = deadline
            self._cond.notify_all()

    def join(self, deadline: float) -> int:
        """Wait for the worker until ``deadline``; log and return what is left."""
        thread = self._thread
        if thread is not None:
            thread.join(max(0.0, deadline - time.monotonic()))
        with self._cond:
            # Past the deadline the worker sends nothing more: what is left is lost.
            left = len(self._items) + (1 if self._in_flight else 0)
            self._items.clear()
            self._in_flight = False
        if left:
            log.warning(
                "outbound webhook %s: %d event(s) not delivered before the flush deadline",
                self.target.label,
                left,
            )
        return left

    @property
    def worker_alive(self) -> bool:
        """Whether the worker thread is still running."""
        return self._thread is not None and self._thread.is_alive()

    def close(self, timeout: float) -> int:
        """Flush this lane alone within ``timeout`` seconds."""
        return flush_lanes([self], timeout)

    def _past_deadline(self) -> bool:
        deadline = self._deadline
        return deadline is not None and time.monotonic() >= deadline

    def _sleep(self, seconds: float) -> bool:
        """Wait ``seconds``; False at once if the flush deadline comes first."""
        end = time.monotonic() + seconds
        with self._cond:
            while True:
                if self._deadline is not None and self._deadline < end:
                    return False
                remaining = end - time.monotonic()
                if remaining <= 0:
                    return True
                self._cond.wait(remaining)

    # -- worker side

    def _run(self) -> None:
        client = make_client(self.target.timeout)
        try:
            self._work(client)
        except Exception:
            log.exception("outbound webhook %s: delivery worker crashed", self.target.label)
        finally:
            client.close()

    def _work(self, client: httpx.Client) -> None:
        raise NotImplementedError

    def _next_memory_item(self, block: bool) -> Delivery | None:
        """The next queued delivery (waiting for one if ``block``), or None when the
        lane should stop (stopping and drained, or past the deadline)."""
        with self._cond:
            while block and not self._items and not self._stopping:
                self._cond.wait()
            if not self._items or self._past_deadline():
                return None
            self._in_flight = True
            return self._items.popleft()

    def _attempt(self, client: httpx.Client, body: bytes, headers: dict[str, str]) -> Outcome:
        outcome = post(client, self.target.url, body, headers, self._guard, self.target.timeout)
        self.stats.attempts += 1
        if outcome.status is not None:
            self.stats.statuses.append(outcome.status)
        return outcome

    def _send_memory(self, client: httpx.Client, delivery: Delivery) -> None:
        """One in-memory delivery: at most two attempts (one retry), identical bytes."""
        try:
            attempts = 0
            delay = self.target.schedule[0] if not self.durable else 1.0
            while True:
                outcome = self._attempt(client, delivery.body, delivery.headers)
                attempts += 1
                if outcome.ok:
                    self.stats.delivered += 1
                    return
                if not outcome.retryable(durable=False) or attempts >= 2:
                    self._report_failure(delivery.event, delivery.delivery_id, outcome, attempts)
                    return
                if not self._sleep(delay):
                    return  # the flush deadline comes first; join() reports it
        finally:
            with self._cond:
                self._in_flight = False

    def _report_failure(
        self, event: str, delivery_id: str, outcome: Outcome, attempts: int
    ) -> None:
        label = self.target.label
        if outcome.kind == "redirect":
            self._warnings.warn(
                log,
                ("outbound-redirect", label, outcome.status),
                "outbound webhook %s: %s answered HTTP %s, a redirect %s — redirects are "
                "never followed (the signed POST would be lost); point url at the final "
                "endpoint. %s event %s not delivered",
                label,
                self.target.url,
                outcome.status,
                outcome.detail or "without Location",
                event,
                delivery_id,
            )
        elif outcome.kind in ("client_error", "throttled") and not (
            self.durable and outcome.kind == "throttled"
        ):
            self._warnings.warn(
                log,
                ("outbound-4xx", label, outcome.status),
                "outbound webhook %s: %s event %s rejected with HTTP %s; not retried",
                label,
                event,
                delivery_id,
                outcome.status,
            )
        else:
            self._warnings.warn(
                log,
                ("outbound-failed", label, outcome.kind),
                "outbound webhook %s: %s event %s: delivery failed after %d attempt(s) (%s)",
                label,
                event,
                delivery_id,
                attempts,
                outcome.describe(),
            )
        # Counted once said: whoever sees the count (a test, a metric reader) finds the
        # log line already written.
        self.stats.failed += 1


class Lane(_LaneBase):
    """An ordinary lane: in-memory queue of 256, one retry, best effort."""

    def __init__(self, target: Target, warnings: WarnOnce | None = None) -> None:
        super().__init__(target, QUEUE_CAPACITY, warnings)

    def submit(self, delivery: Delivery) -> bool:
        """Queue ``delivery``; False if it was dropped (queue full or lane closed)."""
        return self._enqueue(delivery)

    def _work(self, client: httpx.Client) -> None:
        while True:
            delivery = self._next_memory_item(block=True)
            if delivery is None:
                return
            self._send_memory(client, delivery)


class DurableLane(_LaneBase):
    """A durable lane: events live in the outbox until delivered or dead-lettered."""

    durable = True

    def __init__(self, target: Target, outbox: Outbox, warnings: WarnOnce | None = None) -> None:
        super().__init__(target, DURABLE_CAPACITY, warnings)
        self.outbox = outbox
        self._kicked = False
        self._pending_lock = threading.Lock()
        self._pending = outbox.count(target=target.label, state="pending")
        #: Events the agent's thread found the outbox locked for; the worker stores them.
        self._unstored: deque[Delivery] = deque()

    def start_if_pending(self) -> None:
        """Start the worker now if earlier processes left events for this target."""
        if self._pending:
            with self._cond:
                self._start_locked()

    @property
    def pending(self) -> int:
        """Pending events of this target in the outbox (as this process counts them)."""
        return self._pending

    def submit(self, delivery: Delivery) -> bool:
        """Commit ``delivery`` to the outbox and wake the worker; False if dropped."""
        with self._pending_lock:
            if self._pending >= self.capacity:
                return self._drop(delivery.event, self._pending)
            self._pending += 1
        try:
            stored = self.outbox.try_add(**self._row_of(delivery))
        except sqlite3.Error as exc:
            with self._pending_lock:
                self._pending -= 1
            self._warnings.warn(
                log,
                ("outbound-outbox-write", self.target.label, type(exc).__name__),
                "outbound webhook %s: cannot write the outbox %s (%s); delivering without it",
                self.target.label,
                self.outbox.path,
                exc,
            )
            return self._enqueue(delivery)
        with self._cond:
            if stored is None:
                # The outbox is locked (another process, or our worker waiting for it):
                # the worker stores the event, so the agent's thread never waits.
                self._unstored.append(delivery)
            elif self._stopping:
                return True  # stored; the next process delivers it
            self._kicked = True
            self._start_locked()
            self._cond.notify()
        return True

    def _row_of(self, delivery: Delivery) -> dict[str, Any]:
        return {
            "target": self.target.label,
            "url": self.target.url,
            "event": delivery.event,
            "delivery_id": delivery.delivery_id,
            "timestamp": delivery.timestamp,
            "body": delivery.body,
            "now": time.time(),
        }

    def _store_unstored(self) -> None:
        """Store the events the agent's thread could not (the outbox was locked); the
        worker may wait for the lock.  Raises :class:`sqlite3.Error` to retry later."""
        while True:
            with self._cond:
                if not self._unstored:
                    return
                delivery = self._unstored[0]
            self.outbox.add(**self._row_of(delivery))
            with self._cond:
                self._unstored.popleft()

    def _base_delay(self, attempts: int) -> float:
        schedule = self.target.schedule
        return schedule[min(attempts, len(schedule)) - 1]

    def _work(self, client: httpx.Client) -> None:
        try:
            self._work_rows(client)
        finally:
            with self._cond:
                lost = len(self._unstored)
            if lost:
                log.warning(
                    "outbound webhook %s: %d event(s) not stored: the outbox %s stayed "
                    "locked until shutdown",
                    self.target.label,
                    lost,
                    self.outbox.path,
                )

    def _work_rows(self, client: httpx.Client) -> None:
        label = self.target.label
        self.outbox.release_stale_claims()
        self.outbox.reschedule(label, self._base_delay)
        lease = self.target.timeout + _CLAIM_SLACK
        while True:
            fallback = self._next_memory_item(block=False)
            if fallback is not None:
                self._send_memory(client, fallback)
                continue
            try:
                self._store_unstored()
                if self._past_deadline():
                    return
                if not self._step(client, lease):
                    return
            except sqlite3.Error as exc:
                self._warnings.warn(
                    log,
                    ("outbound-outbox-read", label, type(exc).__name__),
                    "outbound webhook %s: outbox %s failed (%s); retrying",
                    label,
                    self.outbox.path,
                    exc,
                )
                if not self._sleep(1.0):
                    return

    def _step(self, client: httpx.Client, lease: float) -> bool:
        """Send the next due row, or wait for one; False when the lane should stop."""
        label = self.target.label
        row = self.outbox.claim_next(label, time.time(), lease)
        if row is not None:
            self._send_row(client, row)
            return True
        with self._cond:
            if self._stopping:
                return False  # nothing due now; later events wait in the outbox
            if not self._kicked:
                due = self.outbox.next_due(label)
                wait = _IDLE_POLL if due is None else due - time.time()
                if wait > 0:
                    self._cond.wait(min(wait, _IDLE_POLL))
            self._kicked = False
        return True

    def _send_row(self, client: httpx.Client, row: Row) -> None:
        target = self.target
        headers = build_headers(
            row.event,
            row.delivery_id,
            row.body,
            secret=target.github_secret,
            standard_keys=target.standard_keys,
            stamp=int(time.time()),  # Standard Webhooks: the attempt's time, signed
        )
        outcome = self._attempt(client, row.body, headers)
        attempts = row.attempts + 1
        now = time.time()
        if outcome.ok:
            self.outbox.delivered(row.id)
            self.stats.delivered += 1
            self._settled()
        elif not outcome.retryable(durable=True) or attempts >= target.max_attempts:
            self.outbox.dead(row.id, attempts=attempts, now=now, error=outcome.describe())
            self._report_failure(row.event, row.delivery_id, outcome, attempts)
            self._warnings.warn(
                log,
                ("outbound-dead", target.label),
                "outbound webhook %s: undeliverable events are kept as dead letters in %s; "
                "see them with `hermes-hooks outbox` and resend with "
                "`hermes-hooks outbox redeliver`",
                target.label,
                self.outbox.path,
            )
            self._settled()
        else:
            jitter = random.uniform(1.0 - JITTER, 1.0 + JITTER)
            not_before = 0.0
            if outcome.retry_after is not None:
                not_before = now + min(outcome.retry_after, MAX_RETRY_AFTER)
            self.outbox.retry_later(
                row.id,
                attempts=attempts,
                now=now,
                next_attempt=max(now + self._base_delay(attempts) * jitter, not_before),
                not_before=not_before,
                jitter=jitter,
                error=outcome.describe(),
            )

    def _settled(self) -> None:
        with self._pending_lock:
            self._pending = max(0, self._pending - 1)
