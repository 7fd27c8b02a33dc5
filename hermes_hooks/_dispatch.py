"""The dispatcher: the one place where hook callbacks are called.

For each firing it takes the callbacks in firing order from the manager, gives each its
own copy of the payload narrowed to the names it accepts, runs it isolated and
bounded as the hook's contract says, and feeds each result to the hook's
aggregator (``_select``), which produces the one typed answer.  It also reports one
:class:`~hermes_hooks.types.DecisionRecord` per callback run to subscribers.
"""

from __future__ import annotations

import logging
import time
import types
import weakref
from collections.abc import Callable
from typing import Any

from hermes_hooks._callback import Answers, Callback, Degraded, describe
from hermes_hooks._contract import Contract, ShellUse, Thread
from hermes_hooks._handoff import HELD_RECORDS, run_bounded
from hermes_hooks._isolation import Listeners, escapes, fault_of, warn_fault
from hermes_hooks._log import get_logger
from hermes_hooks._manager import HookManager, contract_of, unknown_hook
from hermes_hooks._plan import PLANS, Cursor, Plan, callback_kwargs, prepare
from hermes_hooks._select import Aggregator, Failure, Ignored
from hermes_hooks._stream import StreamLane, event_problem
from hermes_hooks._workers import BoundedRunner, TimedOut, on_worker, run_coroutine
from hermes_hooks.types import DecisionRecord, Verdict

__all__ = ["Dispatcher"]

log = get_logger("hermes_hooks.dispatch")

Listener = Callable[[DecisionRecord], None]


#: Idle firing workers kept for the next firings (each serves one firing at a time).
FIRING_WORKERS_IDLE = 4
# How long closing waits for the idle firing workers to have exited.
_CLOSE_WAIT = 1.0

_COROUTINE = types.CoroutineType


def _timeout_message(hook: str) -> str:
    # The failure policy's block message: byte-exact for pre_tool_call; the same shape
    # for every other hook.
    return f"{hook} plugin callback timed out or is still running"


def _error_message(hook: str, callback: Callback, exc: BaseException, text: str) -> str:
    # "<hook> plugin callback <qualname> raised <Type>: <first 200 chars>"
    return (
        f"{hook} plugin callback {describe(callback.function)} raised {type(exc).__name__}: {text}"
    )


class Dispatcher:
    """Calls the callbacks of one :class:`HookManager`.

    ``timeout`` is ``plugins.hook_callback_timeout`` as parsed at load;
    0 runs every callback on the calling thread with no limit.
    """

    __slots__ = ("__weakref__", "_lanes", "_listeners", "carry", "manager", "pool", "timeout")

    def __init__(self, manager: HookManager, timeout: float = 30.0) -> None:
        self.manager = manager
        self.timeout = timeout
        #: Binds a callback that runs off the firing's thread (a bounded worker, a
        #: stream lane) to the firing's context; set by telemetry, None otherwise.
        self.carry: Callable[[Callable[..., Any]], Callable[..., Any]] | None = None
        self._listeners: Listeners[DecisionRecord] = Listeners(log, "decision-record")
        self._lanes: dict[str, StreamLane] = {}  # owner -> streaming lane
        #: The workers firings hand their bounded callbacks to (one per firing at a
        #: time); timeouts are charged to each callback's own runner.
        self.pool = BoundedRunner(
            "firing", suppress_after_timeout=False, max_idle=FIRING_WORKERS_IDLE
        )
        # A Hooks dropped without close() must not leave its idle workers behind.
        weakref.finalize(self, self.pool.close, _CLOSE_WAIT)

    # -- subscribers -------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` with every decision record; returns an unsubscribe function."""
        return self._listeners.subscribe(listener)

    @property
    def listeners(self) -> Listeners[DecisionRecord]:
        """The decision-record subscribers (falsy when there are none)."""
        return self._listeners

    def report(self, record: DecisionRecord) -> None:
        """Give ``record`` (a callback run made outside a firing, such as middleware) to
        every subscriber, as if the dispatcher had made it."""
        self._listeners.emit(record)

    def close_lanes(self, deadline: float) -> None:
        """Deliver pending stream events until ``deadline`` (monotonic), then stop; the
        idle firing workers stop too (a later firing still runs, keeping none idle)."""
        for lane in list(self._lanes.values()):
            lane.close(deadline)
        self._lanes.clear()
        self.pool.close(max(0.0, min(_CLOSE_WAIT, deadline - time.monotonic())))

    def lane(self, owner: str) -> StreamLane | None:
        """The streaming lane of ``owner``, if it has received events."""
        return self._lanes.get(owner)

    # -- firing ------------------------------------------------------------------------

    @staticmethod
    def contract(hook: str) -> Contract:
        """The contract of ``hook``, or :class:`UnknownHookError` with a suggestion."""
        return contract_of(hook)

    def fire(self, hook: str, payload: dict[str, Any]) -> Any:
        """Run every callback of ``hook`` on ``payload``; return the aggregated answer.

        The firing owns ``payload`` (the facade passes its fresh keyword dict): the
        envelope marker is added to it in place.
        """
        try:
            plan = PLANS[hook]
        except KeyError:
            raise unknown_hook(hook) from None
        aggregator = plan.aggregator(plan.contract, payload)
        self._run_all(plan, aggregator, None)
        return aggregator.answer()

    def fire_all(self, hook: str, payload: dict[str, Any]) -> list[Any]:
        """Run every callback of ``hook``; return the non-None raw results, isolated."""
        contract = self.contract(hook)
        results: list[Any] = []
        self._run_all(PLANS[hook], Aggregator(contract, payload), results)
        return results

    def fire_one(self, hook: str, callback: Callback, payload: dict[str, Any]) -> Any:
        """Run ``callback`` alone as a firing of ``hook`` runs it (isolated, bounded,
        its answer read by the hook's selection, its decision record given to the
        subscribers); return what it returned (None when it returned nothing, failed,
        or was queued).  For tools that fire one callback to show what it does."""
        try:
            plan = PLANS[hook]
        except KeyError:
            raise unknown_hook(hook) from None
        results: list[Any] = []
        self._run_all(plan, plan.aggregator(plan.contract, payload), results, (callback,))
        return results[0] if results else None

    def _run_all(
        self,
        plan: Plan,
        aggregator: Aggregator,
        results: list[Any] | None,
        only: tuple[Callback, ...] | None = None,
    ) -> None:
        """The firing loop shared by :meth:`fire`, :meth:`fire_all` and
        :meth:`fire_one` (``only``: these callbacks instead of the hook's).

        It is the hot path of every tool call, so the per-callback work is kept to a
        dict copy plus container copies for the kwargs, the call, and a None check;
        everything else (records, failures, selection) happens only when needed.
        """
        contract = plan.contract
        callbacks = self.manager.firing_callbacks(contract.name) if only is None else only
        if not callbacks:
            return
        if plan.queued:
            self._enqueue_all(plan, aggregator.current, callbacks)
            return
        bounded = plan.bounded and self.timeout > 0
        # A callback firing hooks itself is on a worker already: its nested callbacks
        # run right there (the outer limit bounds them), one by one.
        handoff = bounded and not on_worker()
        listeners = self._listeners
        cursor = Cursor(plan)
        started = 0.0
        index, count = 0, len(callbacks)
        while index < count:
            callback = callbacks[index]
            if handoff and callback.runs_bounded:
                # This callback and the bounded ones right after it: one hand-off.
                end = index + 1
                while end < count and callbacks[end].runs_bounded:
                    end += 1
                run_bounded(self, aggregator, callbacks[index:end], results, cursor)
                index = end
                continue
            index += 1
            if listeners:
                started = time.perf_counter()
            base = aggregator.current
            if base is not cursor.current:  # the first callback, or args changed by a modify
                cursor.current = base
                cursor.copies = prepare(base, plan)
            try:
                # Inside the isolation: args an earlier modify returned may not copy
                # (a cycle), and that must fail this callback, not the host.
                kwargs = callback_kwargs(callback, base, cursor.copies)
                if bounded and callback.runs_bounded:
                    value = self._bounded(plan, callback, kwargs)
                else:
                    value = callback.function(**kwargs)
                    if value is not None and type(value) is _COROUTINE:
                        value = run_coroutine(value)
            except BaseException as exc:  # a plugin's SystemExit never ends the host
                if escapes(exc):
                    raise
                self._settle(aggregator, callback, exc, started, ok=False)
                continue
            if value is None:
                if listeners:
                    self._record(contract, callback, "none", None, started)
                continue
            self.finish(aggregator, callback, True, value, started, results)

    def finish(
        self,
        aggregator: Aggregator,
        callback: Callback,
        ok: bool,
        value: Any,
        started: float,
        results: list[Any] | None,
    ) -> None:
        """Settle one callback's outcome: a failure, nothing (None), or a result."""
        if not ok:
            self._settle(aggregator, callback, value, started, ok=False)
            return
        if value is None:
            if self._listeners:
                self._record(aggregator.contract, callback, "none", None, started)
            return
        if results is not None:
            results.append(value)
        self._settle(aggregator, callback, value, started, ok=True)

    def _enqueue_all(
        self, plan: Plan, payload: dict[str, Any], callbacks: tuple[Callback, ...]
    ) -> None:
        """Streaming observers: check the event once, then queue a copy per
        callback; the token path never waits for a callback."""
        contract = plan.contract
        problem = event_problem(payload)
        if problem:
            self.manager.warnings.warn(
                log, (contract.name, "stream-drop", problem),
                "%s event dropped: it %s", contract.name, problem,
            )  # fmt: skip
            return
        copies = prepare(payload, plan)
        carry = self.carry
        for callback in callbacks:
            lane = self._lanes.get(callback.owner)
            if lane is None:
                lane = self._lanes.setdefault(
                    callback.owner, StreamLane(callback.owner, self.manager.warnings)
                )
            function = callback.function if carry is None else carry(callback.function)
            lane.put(function, callback_kwargs(callback, payload, copies))
            if self._listeners:
                self._record(contract, callback, "none", "queued", time.perf_counter())

    async def afire(self, hook: str, payload: dict[str, Any]) -> Any:
        """The async twin of :meth:`fire`.

        Hooks that live on the gateway loop (``pre_gateway_dispatch``) await async
        callbacks natively, cancelled at the limit, and run sync ones on a bounded
        worker.  Every other hook runs its whole firing in a thread, so the
        caller's loop never blocks.
        """
        import asyncio  # only async hosts need it: not loaded with the package

        contract = self.contract(hook)
        if contract.policy.thread is not Thread.LOOP:
            return await asyncio.to_thread(self.fire, hook, payload)
        plan = PLANS[hook]
        aggregator = plan.aggregator(contract, payload)
        limit = self.timeout or None
        for callback in self.manager.firing_callbacks(hook):
            base = aggregator.current
            started = time.perf_counter()
            try:
                kwargs = callback_kwargs(callback, base, prepare(base, plan))
                if not callback.runs_bounded:  # it bounds itself
                    value = await asyncio.to_thread(callback.function, **kwargs)
                elif callback.is_async:
                    try:
                        value = await asyncio.wait_for(callback.function(**kwargs), limit)
                    except asyncio.TimeoutError:
                        raise TimedOut(f"no result within {limit} s") from None
                else:
                    runner = self.runner(callback)
                    function = (
                        callback.function if self.carry is None else self.carry(callback.function)
                    )
                    value = await runner.acall(function, (), kwargs, limit)
            except BaseException as exc:  # a plugin's SystemExit never ends the host
                if escapes(exc):
                    raise
                self._settle(aggregator, callback, exc, started, ok=False)
            else:
                self._settle(aggregator, callback, value, started, ok=True)
        return aggregator.answer()

    # -- one callback ------------------------------------------------------------------

    def runner(self, callback: Callback) -> BoundedRunner:
        """``callback``'s runner: its failure state (timeouts, suppression) and its
        workers when it runs alone."""
        runner = callback.runner
        if runner is None:
            runner = BoundedRunner(callback.name)
            if callback.retired:  # fired from a reload's frozen set after it was removed
                runner.close()
            callback.runner = runner
        return runner

    def _bounded(self, plan: Plan, callback: Callback, kwargs: dict[str, Any]) -> Any:
        """Run one callback on its worker under ``hook_callback_timeout``."""
        tool_call_id = kwargs.get("tool_call_id") if plan.one_per_call else None
        return self.runner(callback).call(
            callback.function if self.carry is None else self.carry(callback.function),
            kwargs,
            self.timeout,
            tool_call_id if isinstance(tool_call_id, str) else None,
        )

    def _settle(
        self,
        aggregator: Aggregator,
        callback: Callback,
        value: Any,
        started: float,
        *,
        ok: bool,
    ) -> None:
        """Hand one outcome to the aggregator, log a failure once, emit the record."""
        contract = aggregator.contract
        error: BaseException | None = None
        degraded: Degraded | None = None
        if ok and type(value) is Degraded:  # a failure the callback handled itself
            degraded, value = value, value.value
        if ok:
            answers = callback.answers
            if answers is not Answers.ALWAYS and (
                answers is Answers.NEVER or contract.shell is not ShellUse.DIRECTIVE
            ):
                # Only the directives a shell hook may give count (block, modify, context,
                # continue).
                value = None
            try:
                verdict, reason = aggregator.add(callback, value)
                if type(reason) is Ignored and contract.fail_closed:
                    # Still ignored for the decision (the action goes ahead, as in
                    # hermes-agent), but a guard whose answer is lost has failed: it
                    # counts as a callback error wherever errors are counted.
                    self._ignored(contract, callback, reason)
                    verdict = "error"
            except BaseException as exc:  # a return value that cannot be read (a
                # raising dict subclass, a context whose str() raises) counts as raising
                if escapes(exc):
                    raise
                failure = self._failure(contract, callback, exc)
                verdict, reason = aggregator.fail(callback, failure, closed=contract.fail_closed)
                error = exc
        else:
            error = value
            failure = self._failure(contract, callback, value)
            # The policy's on_error decides whether the failure blocks.
            verdict, reason = aggregator.fail(callback, failure, closed=contract.fail_closed)
        if degraded is not None:  # reported as the failure it was, whatever it returned
            verdict = "timeout" if degraded.kind == "timeout" else "error"
            reason = degraded.problem
        if self._listeners:
            self._record(contract, callback, verdict, reason, started, error)

    def _record(
        self,
        contract: Contract,
        callback: Callback,
        verdict: Verdict,
        reason: str | None,
        started: float,
        error: BaseException | None = None,
    ) -> None:
        # extra: who owns the callback, and what it raised (for telemetry's spans)
        extra: dict[str, Any] = {"owner": callback.owner}
        if error is not None:
            extra["error"] = error
        record = DecisionRecord(
            hook=contract.name,
            callback=callback.name,
            source=callback.source,
            verdict=verdict,
            reason=reason,
            duration=time.perf_counter() - started,
            extra=extra,
        )
        held = HELD_RECORDS.records
        if held is not None:  # settled on a firing's worker: its caller emits them
            held.append(record)
        else:
            self._listeners.emit(record)

    def emit_held(self, records: list[DecisionRecord]) -> None:
        """Emit the records a worker held for this (the firing's) thread, in order."""
        emit = self._listeners.emit
        for record in records:
            emit(record)
        records.clear()

    def _ignored(self, contract: Contract, callback: Callback, reason: Ignored) -> None:
        # Once per callback and reason: it answers the same way on every firing.
        self.manager.warnings.warn(
            log,
            (contract.name, callback.name, "ignored", str(reason)),
            "%s callback %s: %s, so the guarded action went ahead. Fix: %s",
            contract.name,
            callback.name,
            reason,
            reason.fix,
            level=logging.ERROR,
        )

    def _failure(self, contract: Contract, callback: Callback, exc: BaseException) -> Failure:
        hook = contract.name
        fault = fault_of(exc)
        who = (hook, callback.name)
        warnings = self.manager.warnings
        if fault.kind == "skipped":
            warn_fault(
                warnings,
                log,
                who,
                fault,
                "%s callback %s skipped: %s — the plugin is hung; fix or disable it",
                hook,
                callback.name,
                exc,
            )
            return Failure("skipped", _timeout_message(hook))
        if fault.kind == "timeout":
            warn_fault(
                warnings, log, who, fault, "%s (%s: %s)", _timeout_message(hook), callback.name, exc
            )
            return Failure("timeout", _timeout_message(hook))
        # The log line is redacted before it is cut, so no secret survives as a prefix;
        # it is also the warn-once key: distinct huge messages must not pin memory.
        logged = _error_message(hook, callback, exc, fault.excerpt(200))
        warn_fault(warnings, log, who, fault, "%s", logged)
        return Failure("error", _error_message(hook, callback, exc, fault.text[:200]))
