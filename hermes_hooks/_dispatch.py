"""The dispatcher: the one place where hook callbacks are called.

For each firing it takes the callbacks in D-19 order from the manager, gives each its
own copy of the payload narrowed to the names it accepts (D-09), runs it isolated and
bounded as the hook's contract says (D-11..D-15), and feeds each result to the hook's
aggregator (``_select``), which produces the one typed answer.  It also reports one
:class:`~hermes_hooks.types.DecisionRecord` per callback run to subscribers.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import Callable
from typing import Any

from hermes_hooks._callback import Callback, describe
from hermes_hooks._contract import Contract, ShellUse, Thread
from hermes_hooks._log import warn_once
from hermes_hooks._manager import HookManager, suggest_hook
from hermes_hooks._select import AGGREGATORS, Aggregator, Failure
from hermes_hooks._workers import BoundedRunner, Hung, TimedOut, run_coroutine
from hermes_hooks.errors import UnknownHookError
from hermes_hooks.hookspecs import CATALOGUE, TELEMETRY_FIELD, TELEMETRY_VERSION
from hermes_hooks.types import DecisionRecord

__all__ = ["Dispatcher", "clone_payload_value"]

log = logging.getLogger("hermes_hooks.dispatch")

Listener = Callable[[DecisionRecord], None]
_CONTAINERS = (dict, list)


def clone_payload_value(value: Any) -> Any:
    """Copy the JSON-like containers of ``value`` (dicts and lists, recursively).

    Other objects are shared: host handles such as ``gateway`` must stay live, and a
    generic deep copy would choke on locks and sockets.
    """
    kind = type(value)
    if kind is dict:
        return {k: clone_payload_value(v) for k, v in value.items()}
    if kind is list:
        return [clone_payload_value(v) for v in value]
    return value


def _timeout_message(hook: str) -> str:
    # D-14, byte-exact for pre_tool_call; the same shape for every other hook.
    return f"{hook} plugin callback timed out or is still running"


def _error_message(hook: str, callback: Callback, exc: BaseException) -> str:
    # D-14: "<hook> plugin callback <qualname> raised <Type>: <first 200 chars>"
    return (
        f"{hook} plugin callback {describe(callback.function)} raised "
        f"{type(exc).__name__}: {str(exc)[:200]}"
    )


class Dispatcher:
    """Calls the callbacks of one :class:`HookManager`.

    ``timeout`` is ``plugins.hook_callback_timeout`` as parsed at load (D-13);
    0 runs every callback on the calling thread with no limit.
    """

    __slots__ = ("_listeners", "manager", "timeout")

    def __init__(self, manager: HookManager, timeout: float = 30.0) -> None:
        self.manager = manager
        self.timeout = timeout
        self._listeners: list[Listener] = []

    # -- subscribers -------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` with every decision record; returns an unsubscribe function."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def _emit(self, record: DecisionRecord) -> None:
        for listener in list(self._listeners):
            try:
                listener(record)
            except Exception:
                log.exception("decision-record listener %s failed", describe(listener))

    # -- firing ------------------------------------------------------------------------

    @staticmethod
    def contract(hook: str) -> Contract:
        """The contract of ``hook``, or :class:`UnknownHookError` with a suggestion."""
        try:
            return CATALOGUE[hook]
        except KeyError:
            raise UnknownHookError(f"unknown hook '{hook}' — {suggest_hook(hook)}") from None

    def fire(self, hook: str, payload: dict[str, Any]) -> Any:
        """Run every callback of ``hook`` on ``payload``; return the aggregated answer."""
        contract = self.contract(hook)
        aggregator = AGGREGATORS[contract.selection](contract, payload)
        for callback in self.manager.callbacks(hook):
            kwargs = self._kwargs(contract, callback, aggregator.payload())
            started = time.perf_counter()
            try:
                value = self._run(contract, callback, kwargs)
            except (Exception, SystemExit) as exc:
                self._settle(aggregator, callback, exc, started)
            else:
                self._settle(aggregator, callback, value, started, ok=True)
        return aggregator.answer()

    def fire_all(self, hook: str, payload: dict[str, Any]) -> list[Any]:
        """Run every callback of ``hook``; return the non-None raw results, isolated."""
        contract = self.contract(hook)
        observer = AGGREGATORS[contract.selection](contract, payload)
        results: list[Any] = []
        for callback in self.manager.callbacks(hook):
            kwargs = self._kwargs(contract, callback, payload)
            started = time.perf_counter()
            try:
                value = self._run(contract, callback, kwargs)
            except (Exception, SystemExit) as exc:
                self._settle(observer, callback, exc, started)
                continue
            self._settle(observer, callback, value, started, ok=True)
            if value is not None:
                results.append(value)
        return results

    async def afire(self, hook: str, payload: dict[str, Any]) -> Any:
        """The async twin of :meth:`fire`.

        Hooks that live on the gateway loop (``pre_gateway_dispatch``) await async
        callbacks natively, cancelled at the limit, and run sync ones on a bounded
        worker (D-10, D-48).  Every other hook runs its whole firing in a thread, so the
        caller's loop never blocks.
        """
        contract = self.contract(hook)
        if contract.policy.thread is not Thread.LOOP:
            return await asyncio.to_thread(self.fire, hook, payload)
        aggregator = AGGREGATORS[contract.selection](contract, payload)
        limit = self.timeout or None
        for callback in self.manager.callbacks(hook):
            kwargs = self._kwargs(contract, callback, aggregator.payload())
            started = time.perf_counter()
            try:
                if callback.is_async:
                    try:
                        value = await asyncio.wait_for(callback.function(**kwargs), limit)
                    except asyncio.TimeoutError:
                        raise TimedOut(f"no result within {limit:g} s") from None
                else:
                    runner = self._runner(callback)
                    value = await asyncio.to_thread(runner.call, callback.function, kwargs, limit)
            except (Exception, SystemExit) as exc:
                self._settle(aggregator, callback, exc, started)
            else:
                self._settle(aggregator, callback, value, started, ok=True)
        return aggregator.answer()

    # -- one callback ------------------------------------------------------------------

    @staticmethod
    def _kwargs(contract: Contract, callback: Callback, payload: dict[str, Any]) -> dict[str, Any]:
        """The callback's own copy of the payload, narrowed to what it accepts (D-09)."""
        if callback.accepts_all:
            kwargs = {
                k: clone_payload_value(v) if type(v) in _CONTAINERS else v
                for k, v in payload.items()
            }
            if contract.marker and TELEMETRY_FIELD not in kwargs:
                kwargs[TELEMETRY_FIELD] = TELEMETRY_VERSION
            return kwargs
        kwargs = {}
        for name in callback.names:
            if name in payload:
                value = payload[name]
                kwargs[name] = clone_payload_value(value) if type(value) in _CONTAINERS else value
            elif name == TELEMETRY_FIELD and contract.marker:
                kwargs[name] = TELEMETRY_VERSION
        return kwargs

    def _runner(self, callback: Callback) -> BoundedRunner:
        runner = callback.runner
        if runner is None:
            runner = callback.runner = BoundedRunner(callback.name)
        return runner

    def _run(self, contract: Contract, callback: Callback, kwargs: dict[str, Any]) -> Any:
        """Call one callback where its contract says, under its bound."""
        if (
            self.timeout > 0
            and contract.policy.bounded
            and callback.source in ("python", "gateway")
        ):
            tool_call_id = kwargs.get("tool_call_id") if contract.name == "pre_tool_call" else None
            return self._runner(callback).call(
                callback.function,
                kwargs,
                self.timeout,
                tool_call_id if isinstance(tool_call_id, str) else None,
            )
        result = callback.function(**kwargs)
        if inspect.iscoroutine(result):
            return run_coroutine(result)
        return result

    def _settle(
        self,
        aggregator: Aggregator,
        callback: Callback,
        value: Any,
        started: float,
        ok: bool = False,
    ) -> None:
        """Hand one outcome to the aggregator, log a failure once, emit the record."""
        contract = aggregator.contract
        if ok:
            if callback.source in ("shell", "webhook") and contract.shell is not ShellUse.DIRECTIVE:
                value = None  # D-74: shell output counts only for SH-29 directives
            verdict, reason = aggregator.add(callback, value)
        else:
            failure = self._failure(contract, callback, value)
            verdict, reason = aggregator.fail(callback, failure)
        if self._listeners:
            self._emit(
                DecisionRecord(
                    hook=contract.name,
                    callback=callback.name,
                    source=callback.source,
                    verdict=verdict,
                    reason=reason,
                    duration=time.perf_counter() - started,
                )
            )

    @staticmethod
    def _failure(contract: Contract, callback: Callback, exc: BaseException) -> Failure:
        hook = contract.name
        if isinstance(exc, Hung):
            warn_once(
                log,
                (hook, callback.name, "hung"),
                "%s callback %s skipped: %s — the plugin is hung; fix or disable it",
                hook,
                callback.name,
                exc,
            )
            return Failure("skipped", _timeout_message(hook))
        if isinstance(exc, TimedOut):
            warn_once(
                log,
                (hook, callback.name, "timeout"),
                "%s (%s: %s)",
                _timeout_message(hook),
                callback.name,
                exc,
            )
            return Failure("timeout", _timeout_message(hook))
        message = _error_message(hook, callback, exc)
        warn_once(log, (hook, callback.name, type(exc), str(exc)), "%s", message)
        return Failure("error", message)
