"""``hooks.gateway``: emitting gateway events to the hooks that subscribe to them.

``await hooks.gateway.emit(event, context)`` only enqueues and returns: each
matching hook, in handler order (exact-name subscribers, then wildcard ones, each by
directory name), gets its own deep copy of ``context`` on its own lane, and
a slow hook delays only itself.  An async handler runs on its hook's own event loop
(:mod:`hermes_hooks.gateway.loops`), so one that blocks instead of awaiting never
stalls the gateway's loop; ``host_loop: true`` in ``HOOK.yaml`` opts out.
``await hooks.gateway.emit_command(...)`` is the one awaited emission, for slash
commands.

Every handler call is isolated the way the plugin dispatcher isolates callbacks:
anything raised (``SystemExit`` included) is caught and logged once (WARNING the first time,
DEBUG for repeats) with the hook's name and handler path, ``KeyboardInterrupt`` is
never swallowed, and each call is bounded by ``plugins.hook_callback_timeout`` (0 = no
limit): async handlers are cancelled at the limit, sync ones abandoned on their thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import functools
import inspect
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from hermes_hooks._isolation import Fault, Listeners, escapes, fault_of, warn_fault
from hermes_hooks._log import WarnOnce, get_logger
from hermes_hooks._plan import clone_payload_value
from hermes_hooks._workers import BoundedRunner, Hung
from hermes_hooks.gateway.commands import CommandDecision, canonical_command, read_decision
from hermes_hooks.gateway.events import COMMAND_PREFIX, event_prefix, wildcard_prefix
from hermes_hooks.gateway.lanes import (
    LANE_CAPACITY,
    Batch,
    BatchTimer,
    Lane,
    Overran,
    await_bounded,
    offer_each,
)
from hermes_hooks.gateway.loops import HandlerLoop
from hermes_hooks.telemetry.context import carried, entered

__all__ = ["CallRecord", "GatewayEmitter", "GatewayHook"]

log = get_logger("gateway.hooks")

Outcome = Literal["ok", "error", "timeout", "skipped", "dropped"]
Listener = Callable[["CallRecord"], None]
_CACHE_LIMIT = 1024  # distinct event names remembered; command names are open-ended
#: Seconds past the limit the host waits for a command handler on its own loop: that
#: loop cancels an awaiting handler at the limit, and the answer needs a moment to come
#: back.  No answer by then means a handler blocks that loop.
_COMMAND_GRACE = 0.5
#: Seconds :meth:`GatewayEmitter.drain` waits at most between two looks at lanes that
#: run on other loops (each says when it goes idle; this only bounds a missed word).
_DRAIN_POLL = 0.05


@dataclass(frozen=True)
class CallRecord:
    """What happened to one event at one hook (for ``hermes-hooks emit`` and tests)."""

    hook: str
    path: str
    event: str
    outcome: Outcome
    detail: str = ""
    result: Any = None
    duration: float = 0.0


class GatewayHook:
    """One loaded gateway hook: its subscriptions, its handler, its lane."""

    __slots__ = (
        "exact",
        "handle",
        "home",
        "is_async",
        "key",
        "lane",
        "name",
        "path",
        "prefixes",
        "runner",
    )

    def __init__(
        self,
        key: str,
        name: str,
        path: Path,
        events: tuple[str, ...],
        handle: Callable[..., Any],
        host_loop: bool = False,
    ) -> None:
        self.key = key  # the directory name: order and identity
        self.name = name
        self.path = path  # handler.py, named in every message about this hook
        self.handle = handle
        # async callable objects (an ``async def __call__``) count as async too
        call = type(handle).__call__ if not inspect.isroutine(handle) else handle
        self.is_async = inspect.iscoroutinefunction(handle) or inspect.iscoroutinefunction(call)
        prefixes = {wildcard_prefix(e) for e in events}
        self.prefixes: frozenset[str] = frozenset(p for p in prefixes if p is not None)
        self.exact: frozenset[str] = frozenset(e for e in events if wildcard_prefix(e) is None)
        # Each call is bounded by the hook timeout; the suppression window after a timeout is
        # for plugin callbacks only.
        self.runner = BoundedRunner(f"gateway:{key}", suppress_after_timeout=False)
        #: The async handler's own event loop; None for a plain ``def`` (it runs on a
        #: worker thread) and for ``host_loop: true`` (it runs where the host emits).
        self.home = HandlerLoop(key) if self.is_async and not host_loop else None
        self.lane: Lane | None = None  # set when added to an emitter

    def __repr__(self) -> str:
        return f"<GatewayHook {self.name} ({self.path})>"


_SCALARS = frozenset({str, int, float, bool, type(None)})


class _NotPlain(Exception):
    """A value outside plain JSON-like data: copy it with ``copy.deepcopy``."""


def _plain_copy(value: Any) -> Any:
    # Contexts are JSON-like; copying them by hand is about 3x faster than deepcopy.
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is dict:
        return {k: _plain_copy(v) for k, v in value.items()}
    if kind is list:
        return [_plain_copy(v) for v in value]
    if kind is tuple:
        return tuple(_plain_copy(v) for v in value)
    raise _NotPlain


def _is_flat(context: Mapping[str, Any]) -> bool:
    """Whether every value of ``context`` is a scalar, so a plain dict copy is a deep one."""
    # issuperset over map(): the whole check in C, no generator per event
    return type(context) is dict and _SCALARS.issuperset(map(type, context.values()))


def _copy_context(context: Mapping[str, Any], flat: bool = False) -> dict[str, Any]:
    """A private deep copy per call; uncopyable values fall back to sharing.
    ``flat``: the caller checked :func:`_is_flat` (once per event, not per hook).

    Never raises: a context nested past the recursion limit, or holding a cycle (which
    the plain copy would follow forever), is copied by ``copy.deepcopy`` where it can
    be, else value by value, else shared as it is.
    """
    if flat:
        return context.copy()  # type: ignore[attr-defined]  # a dict, per _is_flat
    try:
        return {k: _plain_copy(v) for k, v in context.items()}
    except (_NotPlain, RecursionError):
        pass
    try:
        return copy.deepcopy(dict(context))
    except Exception:  # RecursionError included: too deep to copy at all
        pass
    try:
        return {k: clone_payload_value(v) for k, v in context.items()}
    except Exception:
        return dict(context)


class GatewayEmitter:
    """Delivers gateway events to the hooks of one load.

    ``timeout`` is ``plugins.hook_callback_timeout`` as parsed at load (0 = no limit).
    """

    def __init__(self, timeout: float = 30.0, warnings: WarnOnce | None = None) -> None:
        self.timeout = timeout
        # The load's warn-once record (its manager's), so two loads warn separately.
        self._warnings = warnings or WarnOnce()
        self._lock = threading.Lock()
        self._hooks: tuple[GatewayHook, ...] = ()
        self._cache: dict[str, tuple[tuple[GatewayHook, ...], tuple[Lane, ...]]] = {}
        self._listeners: Listeners[CallRecord] = Listeners(log, "gateway call-record")
        self._closed = False
        #: Set by telemetry: opens a span for an emission of ``event`` to ``n``
        #: handlers and returns the context its handlers run in; None otherwise.
        self.trace: Callable[[str, int], Any] | None = None

    # -- membership (the adapter's side) -----------------------------------------------

    @property
    def hooks(self) -> tuple[GatewayHook, ...]:
        """The hooks, in discovery order (ascending directory name)."""
        return self._hooks

    def add(self, hook: GatewayHook) -> None:
        """Give ``hook`` a lane and start delivering to it."""

        hook.lane = Lane(functools.partial(self._serve, hook), home=hook.home)
        with self._lock:
            others = tuple(h for h in self._hooks if h.key != hook.key)
            self._hooks = tuple(sorted((*others, hook), key=lambda h: h.key))
            self._cache.clear()

    def remove(self, key: str) -> None:
        """Stop delivering to the hook of directory ``key``; its pending events drop."""
        with self._lock:
            gone = [h for h in self._hooks if h.key == key]
            self._hooks = tuple(h for h in self._hooks if h.key != key)
            self._cache.clear()
        for hook in gone:
            self._stop(hook, time.monotonic())

    def subscribers(self, event: str) -> tuple[GatewayHook, ...]:
        """The hooks that receive ``event``, in handler order.

        Exact subscribers first, then ``<prefix>:*`` subscribers, each group in
        directory-name order; a hook subscribed both ways appears once, as exact.
        """
        return self._route(event)[0]

    def _route(self, event: str) -> tuple[tuple[GatewayHook, ...], tuple[Lane, ...]]:
        """:meth:`subscribers` of ``event`` and their lanes, in the same order (cached
        per event name until the hooks change)."""
        cached = self._cache.get(event)
        if cached is not None:
            return cached
        hooks = self._hooks
        exact = [h for h in hooks if event in h.exact]
        prefix = event_prefix(event)
        wild = [h for h in hooks if prefix in h.prefixes and h not in exact] if prefix else []
        # Every added hook has its lane; the filter keeps both tuples aligned regardless.
        found = tuple(h for h in (*exact, *wild) if h.lane is not None)
        route = (found, tuple(h.lane for h in found if h.lane is not None))
        with self._lock:
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            if hooks is self._hooks:  # not changed while we looked
                self._cache[event] = route
        return route

    # -- observers ---------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` with a :class:`CallRecord` per delivery; returns an
        unsubscribe function."""
        return self._listeners.subscribe(listener)

    # -- emission ----------------------------------------------------------------------

    async def emit(self, event: str, context: Mapping[str, Any] | None = None) -> None:
        """Queue ``event`` for every subscribed hook and return at once.

        Each hook gets its own deep copy of ``context``.  A hook whose lane already holds
        256 events drops this one with a WARNING.  Never raises into the host.
        """
        if self._closed or not self._hooks:
            return
        if type(event) is not str or type(context) is not dict:  # the usual call skips this
            checked = self._checked(event, context)
            if checked is None:
                return
            context = checked
        route = self._cache.get(event)  # _route's cache, read inline: it runs per event
        subscribers, lanes = route if route is not None else self._route(event)
        if not subscribers:
            return
        carry = self.trace(event, len(subscribers)) if self.trace else None
        # A flat context's plain dict copy is a deep one (checked once per event).
        copy = dict.copy if _is_flat(context) else _copy_context
        full = offer_each(lanes, event, context, copy, carry, asyncio.get_running_loop())
        if full:
            self._dropped(event, [hook for hook in subscribers if hook.lane in full])

    def _dropped(self, event: str, hooks: list[GatewayHook]) -> None:
        """``hooks`` dropped ``event``: their lanes were full."""
        for hook in hooks:
            # Once per hook and event, as for outbound queues: a stuck hook under a busy
            # gateway drops every event, and a log line each would flood the log and
            # slow the loop; the call records still count every drop.
            self._warnings.warn(
                log,
                ("queue-full", str(hook.path), event),
                "[hooks] Queue full for %s (%d pending) — dropping %s",
                hook.name,
                LANE_CAPACITY,
                event,
            )
            self._listeners.emit(
                CallRecord(hook.name, str(hook.path), event, "dropped", "queue full")
            )

    def _checked(self, event: object, context: object) -> Mapping[str, Any] | None:
        """``context`` as emit() takes it (None: an empty dict), or None, with a WARNING
        once, when ``event`` is not a name or ``context`` not a mapping."""
        if not isinstance(event, str):
            self._warnings.warn(
                log, ("emit-type", type(event)), "[hooks] emit() needs an event name, got %r", event
            )
            return None
        if context is None:
            return {}
        if not isinstance(context, Mapping):
            self._warnings.warn(
                log,
                ("emit-context", event),
                "[hooks] emit(%r) needs a dict context, got %s; event dropped",
                event,
                type(context).__name__,
            )
            return None
        return context

    async def emit_command(
        self,
        command: str,
        args: str = "",
        context: Mapping[str, Any] | None = None,
        *,
        raw_command: str | None = None,
        raw_args: str | None = None,
    ) -> CommandDecision:
        """Fire ``command:<canonical>`` and await the hooks' decision.

        ``command`` is the canonical name (an alias already resolved by the host; it is
        trimmed, stripped of ``/`` and lower-cased here), ``args`` the argument text.
        The context gets ``command``, ``args`` (trimmed), ``raw_command`` (the name as
        typed, default ``command``) and ``raw_args`` (default ``args`` as received), on
        top of the host's keys (``platform``, ``user_id``).  Handlers run one after
        another in handler order, each bounded and isolated; the first non-allow decision
        wins.  Returns an allow decision when no hook decides.
        """
        canonical = canonical_command(command) if isinstance(command, str) else ""
        if self._closed or not self._hooks or not canonical:
            return CommandDecision()
        base = dict(context or {})
        typed = raw_command if raw_command is not None else base.get("raw_command")
        typed = canonical_command(typed) if isinstance(typed, str) and typed.strip() else None
        received = raw_args if raw_args is not None else base.get("raw_args")
        base.update(
            command=canonical,
            args=args.strip(),
            raw_command=typed or canonical,
            raw_args=received if isinstance(received, str) else args,
        )
        event = f"{COMMAND_PREFIX}{canonical}"
        decision: CommandDecision | None = None
        subscribers = self.subscribers(event)
        carry = self.trace(event, len(subscribers)) if self.trace and subscribers else None
        with entered(carry):
            for hook in subscribers:
                ok, result = await self._serve(
                    hook, Batch.of(((event, _copy_context(base), None),))
                )
                if ok and decision is None:
                    decision = read_decision(result, base["raw_command"], hook.name)
        return decision or CommandDecision()

    # -- one call ----------------------------------------------------------------------

    async def _serve(
        self,
        hook: GatewayHook,
        batch: Batch,
        timer: BatchTimer | None = None,
    ) -> tuple[bool, Any]:
        """Run ``hook``'s handler on each ``(event, context, carry)`` entry of ``batch``
        in order, isolated; returns the last call's outcome, (succeeded, result).

        A lane serves each batch with this (on the hook's own loop for an async hook),
        its ``timer`` bounding every call; a command serves its one entry from the
        host's loop, sending the call to the hook's own loop when it has one.  The
        whole batch runs in this one coroutine (a lane runs it for every event and
        hook, and a coroutine per call would cost more than a no-op handler does); an
        entry's ``carry`` (the emission's trace context) is entered around its call.
        """
        outcome: tuple[bool, Any] = (False, None)
        listeners = self._listeners
        # Locals: this loop runs for every event and hook.
        handle, is_async, perf_counter = hook.handle, hook.is_async, time.perf_counter
        limit = self.timeout or None
        # One clock read per call: a call's end is the next one's start, since only
        # this loop's own bookkeeping lies between them (a clock read is a good part of
        # what a no-op handler costs).  Anything slower in between reads it afresh.
        if timer is not None and timer.limit != limit:
            timer.watch(limit)  # the batch's calls all share this limit
        started = perf_counter()
        pending, more = batch.pending, batch.more
        while True:
            try:
                event, context, carry = pending.popleft()
            except IndexError:
                if more():
                    continue
                return outcome
            if carry is not None:
                with entered(carry):  # the handler runs inside the emission's trace
                    outcome = await self._serve(hook, Batch.of(((event, context, None),)), timer)
                started = perf_counter()
                continue
            try:
                if not is_async:
                    # a worker thread does not inherit the emission's trace context
                    handle = hook.handle if self.trace is None else carried(hook.handle)
                    result = await hook.runner.acall(handle, (event, context), {}, limit)
                elif timer is not None:  # a lane's batch: one timer bounds every call
                    # The timer's protocol written out, not timer.run(): no coroutine
                    # per call, and only attribute writes to start and end one.
                    timer.since = started
                    try:
                        result = await handle(event, context)
                    except asyncio.CancelledError:
                        timer.raise_if_expired(limit)
                        raise
                    finally:
                        timer.since = None
                        if timer.expired:  # rare: forgive_swallowed(), without its call
                            timer.forgive_swallowed()
                elif hook.home is not None:
                    result = await _call_at_home(hook.home, hook.handle(event, context), limit)
                else:
                    result = await await_bounded(hook.handle(event, context), limit)
                ended = perf_counter()
                if is_async and limit and ended - started > limit:
                    # It blocked the loop instead of awaiting, so the bound could not
                    # cancel it: an answer that late must not count (a late deny would
                    # still block).
                    raise Overran(f"blocked the event loop past {limit:g} s")
            except BaseException as exc:  # a handler's SystemExit never ends the gateway
                if escapes(exc):
                    raise
                fault = fault_of(exc)
                detail = self._report(hook, event, fault)
                listeners.emit(
                    CallRecord(
                        hook.name,
                        str(hook.path),
                        event,
                        fault.kind,
                        detail,
                        None,
                        perf_counter() - started,
                    )
                )
                outcome = (False, None)
                started = perf_counter()
                continue
            outcome = (True, result)
            if listeners:
                listeners.emit(
                    CallRecord(hook.name, str(hook.path), event, "ok", "", result, ended - started)
                )
                started = perf_counter()
            else:
                started = ended

    def _report(self, hook: GatewayHook, event: str, fault: Fault) -> str:
        """Log a failed handler call once (per hook and kind); return the record's detail."""
        where = ("gateway", str(hook.path))
        if fault.kind == "skipped":
            warn_fault(
                self._warnings,
                log,
                where,
                fault,
                "[hooks] %s (%s) skipped %s: %s — the handler is hung; fix or disable it",
                hook.name,
                hook.path,
                event,
                fault.exc,
            )
            return fault.text
        if fault.kind == "timeout":
            how = "cancelled" if hook.is_async else "abandoned on its thread"
            if isinstance(fault.exc, Overran):
                loop = "its own event loop" if hook.home is not None else "the gateway's event loop"
                how = (
                    f"it blocked {loop} instead of awaiting, so it could not be "
                    "cancelled; its answer is ignored. Fix: await (asyncio.sleep, "
                    "asyncio.to_thread for blocking work) inside async handlers"
                )
            warn_fault(
                self._warnings,
                log,
                where,
                fault,
                "[hooks] %s (%s) timed out after %g s handling %s — %s",
                hook.name,
                hook.path,
                self.timeout,
                event,
                how,
            )
            return f"timed out after {self.timeout:g} s ({how})"
        detail = f"{type(fault.exc).__name__}: {fault.excerpt(500)}"
        warn_fault(
            self._warnings,
            log,
            where,
            fault,
            "[hooks] Error in %s (%s) handling %s: %s",
            hook.name,
            hook.path,
            event,
            detail,
        )
        log.debug("traceback of %s handling %s", hook.name, event, exc_info=fault.exc)
        return detail

    # -- waiting and stopping ----------------------------------------------------------

    async def drain(self, timeout: float | None = None) -> bool:
        """Wait until every lane is empty and idle; False if ``timeout`` ran out first.

        For tests, tools and orderly shutdown; the gateway itself never needs to wait.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        loop = asyncio.get_running_loop()
        while True:
            # Each busy lane says when it goes idle (from whichever loop delivers it),
            # and the last of them wakes this loop; the short cap only guards against a
            # word that never comes (a task cancelled before it ever ran).
            idle = _AllIdle(loop)
            busy = 0
            for hook in self._hooks:
                if hook.lane is not None and idle.watch(hook.lane):
                    busy += 1
            if not busy:
                return True
            idle.watched()
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                return False
            cap = _DRAIN_POLL if remaining is None else min(_DRAIN_POLL, remaining)
            # The future itself, resolved early by the cap (the loop re-checks anyway):
            # asyncio.wait would cost this loop another turn after the wake-up.
            guard = loop.call_later(cap, _resolve, idle.future)
            try:
                await idle.future
            finally:
                guard.cancel()

    async def aclose(self, timeout: float = 5.0) -> bool:
        """Drain for up to ``timeout`` seconds, then :meth:`close`; True if drained."""
        drained = await self.drain(timeout)
        self.close(0.0)
        return drained

    def close(self, timeout: float = 5.0) -> None:
        """Stop accepting events and stop every lane.

        Lanes whose loop runs on another thread get up to ``timeout`` seconds in total
        to finish; what is still pending then is dropped with a WARNING.
        """
        self._closed = True
        deadline = time.monotonic() + timeout
        for hook in self._hooks:
            self._stop(hook, deadline)

    def _stop(self, hook: GatewayHook, deadline: float) -> None:
        dropped = hook.lane.close(deadline) if hook.lane is not None else 0
        if hook.home is not None:
            hook.home.close(deadline)
        if dropped:
            log.warning(
                "[hooks] %s (%s): stopped with %d pending event(s) not delivered",
                hook.name,
                hook.path,
                dropped,
            )
        hook.runner.close()

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called (emits are then ignored)."""
        return self._closed


class _AllIdle:
    """A future of ``loop`` resolved once every watched lane has gone idle: lanes on
    other loops report from their own threads, and only the last one wakes ``loop``
    (each wake-up hands that thread the interpreter)."""

    __slots__ = ("_left", "_lock", "_loop", "_watching", "future")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._lock = threading.Lock()
        # Registered lanes not yet idle.  A lane may report before it is counted (it
        # reports from its own thread), so this can dip below zero while watching.
        self._left = 0
        self._watching = True  # until watched(): no count of zero is final before
        self.future: asyncio.Future[None] = loop.create_future()

    def watch(self, lane: Lane) -> bool:
        """Wait for ``lane`` to go idle; False, and nothing to wait for, if it is idle
        already (the cheap case drain() ends on: one lock per lane)."""
        if not lane.when_idle(self._one_idle):
            return False
        with self._lock:
            self._left += 1
        return True

    def watched(self) -> None:
        """Every lane is watched: the last to go idle resolves :attr:`future`."""
        with self._lock:
            self._watching = False
            if self._left:
                return
        self._resolve()

    def _one_idle(self) -> None:
        with self._lock:
            self._left -= 1
            if self._left or self._watching:
                return
        self._resolve()

    def _resolve(self) -> None:
        if _on_loop(self._loop):  # the last one was idle when watched: no wake-up
            _resolve(self.future)
            return
        with contextlib.suppress(RuntimeError):  # that loop closed meanwhile
            self._loop.call_soon_threadsafe(_resolve, self.future)


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


async def _call_at_home(home: HandlerLoop, call: Any, limit: float | None) -> Any:
    """Await the handler coroutine ``call`` on its hook's own loop ``home``, from the
    host's loop, for a command (whose answer the host waits for).

    ``home`` cancels an awaiting handler at ``limit``; one that blocks that loop does
    not answer by ``limit`` plus a grace, and then the host goes on without it
    (:class:`Overran`), never waiting longer.  Until that call ends, later calls are
    skipped (:class:`~hermes_hooks._workers.Hung`) rather than each waiting in turn.
    Raises what the handler raised.
    """
    stuck = home.abandoned
    if stuck is not None and not stuck.is_set():
        call.close()  # never started: no "never awaited" warning
        raise Hung("its event loop is still blocked by an earlier call")
    home.origin = asyncio.get_running_loop()
    ended = threading.Event()
    future = asyncio.run_coroutine_threadsafe(_settled(call, limit, ended), home.loop())
    wait = None if limit is None else limit + _COMMAND_GRACE
    try:
        ok, value = await asyncio.wait_for(asyncio.wrap_future(future), wait)
    except asyncio.TimeoutError:
        home.abandoned = ended
        future.cancel()
        raise Overran(f"blocked its event loop past {limit:g} s") from None
    if ok:
        return value
    raise value


async def _settled(call: Any, limit: float | None, ended: threading.Event) -> tuple[bool, Any]:
    """On the hook's own loop: ``call`` bounded by ``limit``, as (succeeded, result or
    exception), so a ``SystemExit`` or ``KeyboardInterrupt`` travels back to the host's
    side (which isolates the one and re-raises the other) instead of ending this loop.
    ``ended`` is set when the call is over, however it ends."""
    try:
        return True, await await_bounded(call, limit)
    except asyncio.CancelledError:
        raise  # the host gave up on the call
    except BaseException as exc:
        return False, exc
    finally:
        ended.set()
