"""Dispatcher benchmarks (issue "Core runtime").

* facade ``pre_tool_call`` with ``hook_callback_timeout: 0`` vs pluggy's own
  ``pm.hook.pre_tool_call(...)`` over the same 1 and 10 hookimpls;
* bounded firing (``hook_callback_timeout: 30``) vs the same firing unbounded, at 1 and
  10 callbacks;
* the floor of that figure for any design where the caller can return at the limit:
  the unbounded firing plus one bare hand-off to the same worker thread the bounded
  firing borrows and back (a queue each way, nothing else), against the same unbounded
  firing; and bounded firing against that floor directly, at 1 and 10 callbacks, as
  the machine places the two threads and again with both on one CPU (a same-core
  hand-off costs a few microseconds, a wake-up across cores on a small virtual machine
  tens, so the first figure swings with placement and the second shows most of what
  the bounded firing's own bookkeeping costs);
* the facade against its floor directly: raw pluggy plus the isolating floor (what
  any dispatcher adds to pluggy when each callback gets its own copy of the payload and
  a failing callback never stops the rest), at 1 and 10 callbacks;
* bounded facade call (timeout 30 s, long-lived workers) vs a baseline that starts a
  thread per callback call and joins it with a timeout (what the reference does).

Figures with a target are given over repetitions (min / median / max).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench._timing import one_cpu, ratio, ratios, with_bare_handoff
from hermes_hooks._context import LoadContext
from hermes_hooks._manager import HookManager
from hermes_hooks.config import Settings
from hermes_hooks.hooks import Hooks

PAYLOAD: dict[str, Any] = {
    "tool_name": "terminal",
    "args": {"command": "ls -la", "timeout": 30},
    "task_id": "task",
    "session_id": "sess",
    "tool_call_id": "call",
    "turn_id": "turn",
    "api_request_id": "req",
    "middleware_trace": [],
}
#: pluggy passes only what it is given: hand it the telemetry schema marker our
#: callbacks receive.
RAW_PAYLOAD = {**PAYLOAD, "telemetry_schema_version": "hermes.observer.v1"}


def _impl(tool_name: str, args: dict[str, Any], **kwargs: Any) -> None:
    """The recommended shape: named fields plus ``**kwargs``."""
    return None


def _narrow_impl(tool_name: str, args: dict[str, Any]) -> None:
    """A narrow callback: it receives only the two names it declares."""
    return None


def _hooks(impls: int, timeout: float, template: Callable[..., Any] = _impl) -> Hooks:
    # telemetry off: these figures are the facade's own cost (bench_telemetry measures
    # what spans add)
    hooks = Hooks(
        LoadContext(
            home=Path.cwd(),
            manager=HookManager(),
            settings=Settings(hook_callback_timeout=timeout),
            config={"telemetry": {"otel": False}},
        )
    )
    for n in range(impls):
        # A fresh function object per plugin, as separate plugins would have.
        function = template.__class__(template.__code__, globals(), f"impl{n}")
        hooks.manager.register_callback("pre_tool_call", function, owner=f"plugin{n:02d}")
    return hooks


def _isolating_floor(functions: list[Callable[..., Any]]) -> Callable[[], None]:
    """The least a dispatcher can do that gives each callback its own copy of the
    payload and isolates failures: per callback, a copy of the payload with its
    containers copied, the full payload to a ``**kwargs`` callback, and exception
    isolation; no ordering, bounds, selection or records."""

    def fire() -> None:
        payload = dict(RAW_PAYLOAD)
        args, trace = payload["args"], payload["middleware_trace"]
        for function in functions:
            kwargs = payload.copy()
            kwargs["args"] = args.copy()
            kwargs["middleware_trace"] = trace.copy()
            try:
                function(**kwargs)
            except Exception:  # the floor measures a real try/except
                continue

    return fire


def _thread_per_call(functions: list[Callable[..., Any]], timeout: float) -> Callable[[], None]:
    def fire() -> None:
        for function in functions:
            worker = threading.Thread(target=function, kwargs=PAYLOAD)
            worker.daemon = True
            worker.start()
            worker.join(timeout)

    return fire


def _both(first: Callable[[], object], second: Callable[[], object]) -> Callable[[], None]:
    """One call of ``first`` then one of ``second``: a baseline that is their sum."""

    def call() -> None:
        first()
        second()

    return call


def run() -> list[tuple[str, float | list[float]]]:
    """Return (label, ratio or ratios over repetitions) pairs."""
    results: list[tuple[str, float | list[float]]] = []
    targets = {("**kwargs", 1): " (target 1.2)", ("**kwargs", 10): " (target 1.5)"}
    for template, shape in ((_impl, "**kwargs"), (_narrow_impl, "narrow")):
        for impls in (1, 10):
            hooks = _hooks(impls, timeout=0, template=template)
            raw = hooks.manager.hook.pre_tool_call
            values = ratios(
                lambda h=hooks: h.pre_tool_call(**PAYLOAD),
                lambda r=raw: r(**RAW_PAYLOAD),
                calls=20_000 // impls,
            )
            label = f"facade / raw pluggy, {impls} {shape} callback(s), unbounded"
            results.append((label + targets.get((shape, impls), ""), values))
            if shape == "**kwargs":
                functions = [cb.function for cb in hooks.manager.callbacks("pre_tool_call")]
                floor, _, _ = ratio(
                    _isolating_floor(functions),
                    lambda r=raw: r(**RAW_PAYLOAD),
                    calls=20_000 // impls,
                )
                results.append(
                    (f"isolating floor / raw pluggy, {impls} {shape} callback(s)", floor)
                )
                values = ratios(
                    lambda h=hooks: h.pre_tool_call(**PAYLOAD),
                    _both(lambda r=raw: r(**RAW_PAYLOAD), _isolating_floor(functions)),
                    calls=20_000 // impls,
                )
                results.append(
                    (
                        f"facade / (raw pluggy + isolating floor), {impls} {shape} "
                        "callback(s), unbounded (target 1.3)",
                        values,
                    )
                )
            hooks.close()
    for impls in (1, 10):
        bounded, unbounded = _hooks(impls, timeout=30), _hooks(impls, timeout=0)
        values = ratios(
            lambda b=bounded: b.pre_tool_call(**PAYLOAD),
            lambda u=unbounded: u.pre_tool_call(**PAYLOAD),
            calls=4_000 // impls,
        )
        results.append(
            (
                f"bounded (hook_callback_timeout 30) / unbounded firing, {impls} callback(s) "
                "(target 1.5)",
                values,
            )
        )
        handoff = with_bare_handoff(
            lambda u=unbounded: u.pre_tool_call(**PAYLOAD), bounded.dispatcher.pool
        )
        floors = ratios(
            handoff.floor, lambda u=unbounded: u.pre_tool_call(**PAYLOAD), calls=4_000 // impls
        )
        results.append(
            (
                f"floor: unbounded firing + one bare hand-off to its worker / unbounded firing, "
                f"{impls} callback(s)",
                floors,
            )
        )
        values = ratios(
            lambda b=bounded: b.pre_tool_call(**PAYLOAD), handoff.floor, calls=4_000 // impls
        )
        results.append(
            (
                f"bounded firing / (unbounded firing + one bare hand-off to its worker), {impls} "
                "callback(s) (target 1.2)",
                values,
            )
        )
        with one_cpu(handoff.thread) as pinned:
            if pinned:
                values = ratios(
                    lambda b=bounded: b.pre_tool_call(**PAYLOAD),
                    handoff.floor,
                    calls=4_000 // impls,
                )
                results.append(
                    (
                        "the same, the caller and the worker on one CPU (the hand-off a "
                        f"switch on one core, the cheapest there is), {impls} callback(s)",
                        values,
                    )
                )
        handoff.check()
        bounded.close()
        unbounded.close()
    hooks = _hooks(1, timeout=30)
    functions = [cb.function for cb in hooks.manager.callbacks("pre_tool_call")]
    value, cand, base = ratio(
        lambda: hooks.pre_tool_call(**PAYLOAD), _thread_per_call(functions, 30), calls=2_000
    )
    results.append(("bounded facade / thread-per-call, 1 callback", value))
    print(f"  bounded: facade {cand * 1e6:.1f} us, thread per call {base * 1e6:.1f} us")
    hooks.close()
    return results


if __name__ == "__main__":
    from bench.__main__ import format_figure

    for label, value in run():
        print(format_figure(label, value))
