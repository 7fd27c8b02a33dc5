"""Telemetry benchmarks (OpenTelemetry, issue "every firing a span").

* facade ``pre_tool_call`` with telemetry on and the API installed but no provider
  configured (what every environment that carries the API as someone else's dependency
  pays: the target is at most 1.1 of off), and with the API's no-op providers given,
  against the same facade with ``telemetry.otel: false``, over 1 and 10 callbacks,
  timeout 0;
* the same with the SDK recording every span (to an exporter that drops them), when
  the SDK is installed, to show what real tracing costs per firing;
* off against the dispatcher called directly: the disabled facade adds nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench._timing import ratio, ratios
from bench.bench_dispatch import PAYLOAD, _impl
from hermes_hooks import telemetry
from hermes_hooks._context import LoadContext
from hermes_hooks._manager import HookManager
from hermes_hooks.config import Settings
from hermes_hooks.hooks import Hooks

OFF: dict[str, Any] = {"telemetry": {"otel": False}}


def _hooks(impls: int, config: dict[str, Any]) -> Hooks:
    hooks = Hooks(
        LoadContext(
            home=Path.cwd(),
            manager=HookManager(),
            settings=Settings(hook_callback_timeout=0),
            config=config,
        )
    )
    for n in range(impls):
        function = _impl.__class__(_impl.__code__, globals(), f"impl{n}")
        hooks.manager.register_callback("pre_tool_call", function, owner=f"plugin{n:02d}")
    return hooks


def _compare(label: str, on: Hooks, off: Hooks, results: list[tuple[str, Any]]) -> None:
    value, cand, base = ratio(
        lambda: on.pre_tool_call(**PAYLOAD), lambda: off.pre_tool_call(**PAYLOAD), calls=5_000
    )
    results.append((label, value))
    print(f"  {label}: on {cand * 1e6:.2f} us, off {base * 1e6:.2f} us per firing")


def _spread(label: str, on: Hooks, off: Hooks, results: list[tuple[str, Any]]) -> None:
    """As :func:`_compare`, over repetitions (printed as min / median / max)."""
    results.append(
        (
            label,
            ratios(
                lambda: on.pre_tool_call(**PAYLOAD),
                lambda: off.pre_tool_call(**PAYLOAD),
                calls=5_000,
                repetitions=5,
            ),
        )
    )


def _sdk_provider() -> Any:
    try:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter
    except ImportError:
        return None

    class Drop(SpanExporter):
        def export(self, spans: Any) -> Any:
            from opentelemetry.sdk.trace.export import SpanExportResult

            return SpanExportResult.SUCCESS

    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(Drop()))
    return provider


def run() -> list[tuple[str, Any]]:
    """Return (label, ratio) pairs."""
    results: list[tuple[str, Any]] = []
    if not telemetry.api_available():
        print("  opentelemetry-api not installed: install hermes-hooks[otel] to measure")
        return results
    from opentelemetry import metrics, trace

    for impls in (1, 10):
        off = _hooks(impls, OFF)
        raw = off.dispatcher.fire
        value, cand, base = ratio(
            lambda o=off: o.pre_tool_call(**PAYLOAD),
            lambda r=raw: r("pre_tool_call", dict(PAYLOAD)),
            calls=20_000,
        )
        label = f"telemetry off: facade/dispatcher, {impls} impl(s)"
        results.append((label, value))
        print(f"  {label}: facade {cand * 1e6:.2f} us, dispatcher {base * 1e6:.2f} us")

        _spread(
            f"telemetry on, API unconfigured/off (target 1.1), {impls} impl(s)",
            _hooks(impls, {}),
            off,
            results,
        )
        telemetry.set_providers(trace.NoOpTracerProvider(), metrics.NoOpMeterProvider())
        _compare(
            f"telemetry on, no-op provider/off, {impls} impl(s)", _hooks(impls, {}), off, results
        )
        sdk = _sdk_provider()
        if sdk is not None:
            telemetry.set_providers(sdk, metrics.NoOpMeterProvider())
            _compare(
                f"telemetry on, SDK spans/off, {impls} impl(s)", _hooks(impls, {}), off, results
            )
            sdk.shutdown()
        telemetry.set_providers()
    return results


if __name__ == "__main__":
    for label, value in run():
        print(f"{label}: {value:.3f}")
