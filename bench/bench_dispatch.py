"""Dispatcher benchmarks (issue "Core runtime").

* facade ``pre_tool_call`` with ``hook_callback_timeout: 0`` vs pluggy's own
  ``pm.hook.pre_tool_call(...)`` over the same 1 and 10 hookimpls;
* bounded facade call (timeout 30 s, long-lived workers) vs a baseline that starts a
  thread per callback call and joins it with a timeout (what the reference does).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench._timing import ratio
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
#: pluggy passes only what it is given: hand it the marker our callbacks receive (D-17).
RAW_PAYLOAD = {**PAYLOAD, "telemetry_schema_version": "hermes.observer.v1"}


def _impl(tool_name: str, args: dict[str, Any], **kwargs: Any) -> None:
    """The recommended shape (PL-04): named fields plus ``**kwargs``."""
    return None


def _narrow_impl(tool_name: str, args: dict[str, Any]) -> None:
    """A narrow callback: it receives only the two names it declares (D-09)."""
    return None


def _hooks(impls: int, timeout: float, template: Callable[..., Any] = _impl) -> Hooks:
    # telemetry off: these figures are the facade's own cost (bench_telemetry measures
    # what spans add)
    hooks = Hooks(
        HookManager(),
        home=Path.cwd(),
        settings=Settings(hook_callback_timeout=timeout),
        config={"telemetry": {"otel": False}},
    )
    for n in range(impls):
        # A fresh function object per plugin, as separate plugins would have.
        function = template.__class__(template.__code__, globals(), f"impl{n}")
        hooks.manager.register_callback("pre_tool_call", function, owner=f"plugin{n:02d}")
    return hooks


def _isolating_floor(functions: list[Callable[..., Any]]) -> Callable[[], None]:
    """The least any dispatcher honouring D-09 and D-21 can do: per callback, a copy of
    the payload with its containers copied, the full payload to a ``**kwargs``
    callback, and exception isolation; no ordering, bounds, selection or records."""

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


def run() -> list[tuple[str, float]]:
    """Return (label, ratio) pairs."""
    results: list[tuple[str, float]] = []
    for template, shape in ((_impl, "**kwargs"), (_narrow_impl, "narrow")):
        for impls in (1, 10):
            hooks = _hooks(impls, timeout=0, template=template)
            raw = hooks.manager.hook.pre_tool_call
            value, cand, base = ratio(
                lambda h=hooks: h.pre_tool_call(**PAYLOAD),
                lambda r=raw: r(**RAW_PAYLOAD),
                calls=20_000,
            )
            label = f"facade(timeout 0)/raw pluggy, {impls} {shape} impl(s)"
            results.append((label, value))
            print(f"  {label}: facade {cand * 1e6:.2f} us, pluggy {base * 1e6:.2f} us")
            if shape == "**kwargs":
                functions = [cb.function for cb in hooks.manager.callbacks("pre_tool_call")]
                floor, _, _ = ratio(
                    _isolating_floor(functions), lambda r=raw: r(**RAW_PAYLOAD), calls=20_000
                )
                results.append((f"isolating floor/raw pluggy, {impls} {shape} impl(s)", floor))
            hooks.close()
    hooks = _hooks(1, timeout=30)
    functions = [cb.function for cb in hooks.manager.callbacks("pre_tool_call")]
    value, cand, base = ratio(
        lambda: hooks.pre_tool_call(**PAYLOAD), _thread_per_call(functions, 30), calls=2_000
    )
    results.append(("bounded facade/thread-per-call, 1 impl", value))
    print(f"  bounded: facade {cand * 1e6:.1f} us, thread per call {base * 1e6:.1f} us")
    hooks.close()
    return results


if __name__ == "__main__":
    for label, value in run():
        print(f"{label}: {value:.3f}")
