"""Middleware: plugin callbacks that change what happens, not only observe it.

Four kinds, as in hermes-agent 0.19.0:

* ``tool_request`` / ``llm_request`` rewrite a request.  Each callback gets the current
  payload (``args`` or ``request``) and the original; returning ``{"args": {...}}`` (or
  ``{"request": {...}}``) replaces the payload for the callbacks after it and for the
  host.  Each accepted rewrite adds a trace entry (``source``/``reason``/``name`` from
  the returned dict, else ``{"source": "plugin"}``): this trace is what the host passes
  as the hooks' ``middleware_trace`` field.
* ``tool_execution`` / ``llm_execution`` wrap the real call.  Callbacks nest in
  registration order (the first is outermost); each gets ``next_call(payload=None)``,
  usable once, and returns the result.  A callback that raises before calling
  ``next_call`` is skipped; one that raises after a successful ``next_call`` yields that
  result; an error from downstream reaches the caller unchanged.

Callbacks come from ``hooks.registry`` (``ctx.register_middleware``); a callback that
raises is logged and skipped, never fatal, except as just said.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from copy import deepcopy
from dataclasses import dataclass, field
from typing import Any

from hermes_hooks._isolation import escapes
from hermes_hooks._log import get_logger
from hermes_hooks.types import DecisionRecord, Verdict

__all__ = [
    "LLM_EXECUTION",
    "LLM_REQUEST",
    "MIDDLEWARE_SCHEMA_VERSION",
    "OBSERVER_SCHEMA_VERSION",
    "TOOL_EXECUTION",
    "TOOL_REQUEST",
    "VALID_MIDDLEWARE",
    "MiddlewareRunner",
    "RequestResult",
    "apply_request",
    "run_execution",
]

log = get_logger("hermes_hooks.plugins")

TOOL_REQUEST = "tool_request"
TOOL_EXECUTION = "tool_execution"
LLM_REQUEST = "llm_request"
LLM_EXECUTION = "llm_execution"
VALID_MIDDLEWARE = frozenset({TOOL_REQUEST, TOOL_EXECUTION, LLM_REQUEST, LLM_EXECUTION})

OBSERVER_SCHEMA_VERSION = "hermes.observer.v1"
MIDDLEWARE_SCHEMA_VERSION = "hermes.middleware.v1"

#: kind → the payload keyword its callbacks receive and return.
_PAYLOAD_KEY = {
    TOOL_REQUEST: "args",
    TOOL_EXECUTION: "args",
    LLM_REQUEST: "request",
    LLM_EXECUTION: "request",
}


@dataclass
class RequestResult:
    """The request after every request middleware: effective payload, original, trace."""

    payload: Any
    original_payload: Any
    changed: bool = False
    trace: list[dict[str, Any]] = field(default_factory=list)


def _name(callback: Callable[..., Any]) -> str:
    return getattr(callback, "__name__", repr(callback))


def _copy(payload: Any) -> Any:
    """A deep copy, or a shallow one when the payload holds something uncopyable."""
    try:
        return deepcopy(payload)
    except Exception:
        return dict(payload) if isinstance(payload, dict) else payload


def _call_kwargs(**kwargs: Any) -> dict[str, Any]:
    kwargs.setdefault("telemetry_schema_version", OBSERVER_SCHEMA_VERSION)
    kwargs.setdefault("middleware_schema_version", MIDDLEWARE_SCHEMA_VERSION)
    return kwargs


def _trace_entry(result: dict[str, Any]) -> dict[str, Any]:
    entry = {
        k: result[k]
        for k in ("source", "reason", "name")
        if isinstance(result.get(k), str) and result[k]
    }
    return entry or {"source": "plugin"}


def apply_request(
    kind: str,
    callbacks: Sequence[Callable[..., Any]],
    payload: dict[str, Any],
    **context: Any,
) -> RequestResult:
    """Run the ``tool_request`` or ``llm_request`` ``callbacks`` over ``payload``.

    For ``tool_request`` pass ``tool_name=`` in ``context``.  Every callback sees the
    payload as it was when the call started (``args``/``request``) and the untouched
    original (``original_args``/``original_request``); rewrites are traced in order.
    """
    key = _PAYLOAD_KEY[kind]
    if not callbacks:
        return RequestResult(payload=payload, original_payload=payload)
    original = _copy(payload)
    current = _copy(original)
    kwargs = _call_kwargs(**{key: current, f"original_{key}": original}, **context)
    results = []
    for callback in callbacks:  # all see the same payload, as in hermes-agent
        try:
            result = callback(**kwargs)
        except BaseException as exc:  # a plugin's SystemExit never ends the host
            if escapes(exc):
                raise
            log.warning("Middleware '%s' callback %s raised: %s", kind, _name(callback), exc)
            continue
        if result is not None:
            results.append(result)
    trace: list[dict[str, Any]] = []
    for result in results:
        replacement = result.get(key) if isinstance(result, dict) else None
        if isinstance(replacement, dict):
            current = _copy(replacement)
            trace.append(_trace_entry(result))
    return RequestResult(
        payload=current, original_payload=original, changed=bool(trace), trace=trace
    )


class _DownstreamError(Exception):
    """Carries an error raised below a callback's ``next_call`` up through it."""

    def __init__(self, original: BaseException) -> None:
        super().__init__(str(original))
        self.original = original


def run_execution(
    kind: str,
    callbacks: Sequence[Callable[..., Any]],
    payload: dict[str, Any],
    terminal: Callable[[Any], Any],
    **context: Any,
) -> Any:
    """Run ``terminal(payload)`` wrapped by the ``tool_execution`` or ``llm_execution``
    ``callbacks`` (first registered = outermost) and return the result."""
    key = _PAYLOAD_KEY[kind]
    if not callbacks:
        return terminal(payload)
    context.setdefault(f"original_{key}", payload)

    def call_at(index: int, current: Any) -> Any:
        if index >= len(callbacks):
            return terminal(current)
        callback = callbacks[index]
        state = {"called": False, "ok": False, "result": None}

        def next_call(next_payload: Any = None) -> Any:
            if state["called"]:
                raise RuntimeError(
                    f"Middleware '{kind}' callback {_name(callback)} called next_call() "
                    "more than once; downstream execution is single-use"
                )
            state["called"] = True
            try:
                state["result"] = call_at(
                    index + 1, current if next_payload is None else next_payload
                )
            except BaseException as exc:  # passed up through the callback as it is
                if escapes(exc):
                    raise
                raise _DownstreamError(exc) from exc
            state["ok"] = True
            return state["result"]

        try:
            return callback(**_call_kwargs(**context, **{key: current, "next_call": next_call}))
        except _DownstreamError as exc:
            raise exc.original from None
        except BaseException as exc:  # a plugin's SystemExit never ends the host
            if escapes(exc):
                raise
            log.warning("Middleware '%s' callback %s raised: %s", kind, _name(callback), exc)
            if state["ok"]:
                return state["result"]
            if state["called"]:
                raise
            return call_at(index + 1, current)

    return call_at(0, payload)


class MiddlewareRunner:
    """The middleware of one :class:`~hermes_hooks.hooks.Hooks` (``hooks.middleware``).

    Callbacks are read from the plugin registry at each call, so an unload takes
    effect at once.  Each callback run is reported to the dispatcher's subscribers as a
    :class:`~hermes_hooks.types.DecisionRecord` (hook = the middleware kind, verdict
    ``modify`` for an accepted rewrite, ``error`` when it raised, else ``none``), the
    same channel hook callbacks report through, so timelines and audits see both.
    """

    def __init__(
        self,
        entries: Callable[[], Sequence[Any]],
        report: Callable[[DecisionRecord], None] | None = None,
    ) -> None:
        self._entries = entries
        self._report = report

    def has(self, kind: str) -> bool:
        """Whether any callback of ``kind`` is registered."""
        return any(entry.kind == kind for entry in self._entries())

    def callbacks(self, kind: str) -> list[Callable[..., Any]]:
        """The callbacks of ``kind`` in registration order, each reporting its runs, for
        a host that runs the chain itself (the Hermes Agent bridge)."""
        return self._callbacks(kind)

    def _callbacks(self, kind: str) -> list[Callable[..., Any]]:
        entries = [entry for entry in self._entries() if entry.kind == kind]
        if self._report is None:
            return [entry.callback for entry in entries]
        return [self._reporting(kind, entry.plugin, entry.callback) for entry in entries]

    def _reporting(
        self, kind: str, plugin: str, callback: Callable[..., Any]
    ) -> Callable[..., Any]:
        report = self._report
        assert report is not None
        key = _PAYLOAD_KEY[kind]
        label = f"{plugin}:{_name(callback)}"

        @functools.wraps(callback)
        def run(**kwargs: Any) -> Any:
            started = time.perf_counter()
            verdict: Verdict = "none"
            reason: str | None = None
            result: Any = None
            try:
                result = callback(**kwargs)
            except BaseException as exc:  # recorded; the caller isolates it
                verdict, reason = "error", f"{type(exc).__name__}: {exc}"
                raise
            finally:
                if verdict == "none" and kind in (TOOL_REQUEST, LLM_REQUEST):
                    rewrite = result if isinstance(result, dict) else {}
                    if isinstance(rewrite.get(key), dict):
                        verdict = "modify"
                        reason = str(_trace_entry(rewrite))
                report(
                    DecisionRecord(
                        hook=kind,
                        callback=label,
                        source="python",
                        verdict=verdict,
                        reason=reason,
                        duration=time.perf_counter() - started,
                    )
                )
            return result

        return run

    def apply_tool_request(
        self, tool_name: str, args: dict[str, Any], **context: Any
    ) -> RequestResult:
        """Rewrite a tool call's arguments; pass ``result.trace`` as ``middleware_trace``."""
        callbacks = self._callbacks(TOOL_REQUEST)
        return apply_request(TOOL_REQUEST, callbacks, args, tool_name=tool_name, **context)

    def apply_llm_request(self, request: dict[str, Any], **context: Any) -> RequestResult:
        """Rewrite a provider request; pass ``result.trace`` as ``middleware_trace``."""
        return apply_request(LLM_REQUEST, self._callbacks(LLM_REQUEST), request, **context)

    def run_tool_execution(
        self,
        tool_name: str,
        args: dict[str, Any],
        next_call: Callable[[dict[str, Any]], Any],
        **context: Any,
    ) -> Any:
        """Run ``next_call(args)`` (the real tool) inside the tool execution middleware."""
        callbacks = self._callbacks(TOOL_EXECUTION)
        return run_execution(
            TOOL_EXECUTION, callbacks, args, next_call, tool_name=tool_name, **context
        )

    def run_llm_execution(
        self, request: dict[str, Any], next_call: Callable[[dict[str, Any]], Any], **context: Any
    ) -> Any:
        """Run ``next_call(request)`` (the provider call) inside the LLM execution
        middleware."""
        callbacks = self._callbacks(LLM_EXECUTION)
        return run_execution(LLM_EXECUTION, callbacks, request, next_call, **context)
