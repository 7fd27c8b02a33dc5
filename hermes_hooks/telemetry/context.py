"""Trace context into hooks: what a firing hands on to the code it starts (a bounded
callback on a worker, a shell hook's environment, a webhook's headers, a gateway
handler's loop).  Kept apart from the span code so that the hook systems can pass
context on without importing the facade's telemetry."""

from __future__ import annotations

import contextvars
import inspect
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from hermes_hooks._workers import run_coroutine

if TYPE_CHECKING:
    from opentelemetry.context import Context

__all__ = [
    "FIRING",
    "Firing",
    "activate",
    "active",
    "carried",
    "entered",
    "trace_environment",
    "trace_headers",
]

_active = False  # has any load enabled telemetry? (the shell and webhook seams ask)


def activate() -> None:
    """A load has telemetry on: the seams hand context on from now."""
    global _active
    _active = True


def active() -> bool:
    """Whether any load has telemetry on."""
    return _active


FIRING: contextvars.ContextVar[Firing | None] = contextvars.ContextVar(
    "hermes_hooks_firing", default=None
)


def _w3c_carrier() -> dict[str, str]:
    """The current context as W3C ``traceparent``/``tracestate`` entries (empty
    when no valid span is current).  Only W3C trace context: no baggage leaves the
    process through a hook."""
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

    carrier: dict[str, str] = {}
    TraceContextTextMapPropagator().inject(carrier)
    return carrier


def trace_environment(env: dict[str, str] | None) -> dict[str, str] | None:
    """``env`` (None: this process's environment) with ``TRACEPARENT`` and
    ``TRACESTATE`` of the current span, the convention for handing trace context to
    a child process.  Unchanged outside a traced firing (telemetry off for this load,
    or no load has it on): a load with ``otel: false`` never passes context on."""
    if not _active or FIRING.get() is None:
        return env
    carrier = _w3c_carrier()
    if not carrier:
        return env
    merged = dict(os.environ if env is None else env)
    merged["TRACEPARENT"] = carrier["traceparent"]
    if "tracestate" in carrier:
        merged["TRACESTATE"] = carrier["tracestate"]
    else:  # an inherited TRACESTATE belongs to another trace
        merged.pop("TRACESTATE", None)
    return merged


def trace_headers(headers: dict[str, str]) -> dict[str, str]:
    """Add ``traceparent`` (and ``tracestate``) of the current span to ``headers``,
    in place, and return them.  Unchanged outside a traced firing."""
    if _active and FIRING.get() is not None:
        headers.update(_w3c_carrier())
    return headers


def carried(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` bound to a copy of the current context, so it runs inside the
    firing's context on whatever thread picks it up (a bounded worker, a stream lane,
    a gateway handler's worker).  A coroutine it returns is driven inside it too."""
    context = contextvars.copy_context()

    def call(*args: Any, **kwargs: Any) -> Any:
        return context.run(_call_through, function, args, kwargs)

    return call


def _call_through(
    function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    result = function(*args, **kwargs)
    if inspect.iscoroutine(result):
        return run_coroutine(result)
    return result


# -- the firing span -------------------------------------------------------------------


class Firing:
    """What the records of one firing contribute to its span."""

    __slots__ = ("recording", "verdicts")

    def __init__(self) -> None:
        self.verdicts: list[str] = []
        self.recording = True


@contextmanager
def entered(carry: Context | None) -> Iterator[None]:
    """Run the block inside ``carry`` (a context :meth:`Telemetry.gateway_emit`
    returned); nothing happens for None."""
    if carry is None:
        yield
        return
    from opentelemetry import context

    token = context.attach(carry)
    try:
        yield
    finally:
        context.detach(token)
