"""Trace context into every hook: shell environment, webhook headers, worker threads,
stream lanes and gateway handlers all see the firing's trace."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.trace import StatusCode

from hermes_hooks.hooks import Hooks
from hermes_hooks.telemetry import trace_environment, trace_headers
from tests.gateway.helpers import write_hook
from tests.helpers import tool_payload
from tests.outbound.endpoint import Endpoint
from tests.shell.helpers import approve, sh, write_config, write_script
from tests.telemetry.helpers import Recorded, span_id, trace_id, traceparent

STREAM = {
    "turn_id": "t",
    "iteration": 1,
    "session_id": "s",
    "model": "m",
    "provider": "p",
    "surface": "cli",
}


def _current() -> tuple[str, str]:
    """(trace id, span id) of the current span, as traceparent hex."""
    context = trace.get_current_span().get_span_context()
    return format(context.trace_id, "032x"), format(context.span_id, "016x")


def test_a_shell_hook_gets_the_firing_span_as_traceparent(
    otel: Recorded, home: Path, load: Callable[..., Hooks]
) -> None:
    seen = home / "traceparent.txt"
    script = write_script(
        home / "agent-hooks" / "trace.sh",
        sh(f'printf "%s|%s" "$TRACEPARENT" "${{TRACESTATE-unset}}" > "{seen}"'),
    )
    write_config(home, {"post_tool_call": [{"command": str(script)}]})
    approve(home, "post_tool_call", str(script))
    hooks = load()
    hooks.post_tool_call(**tool_payload(result="done"))

    firing = otel.span("post_tool_call")
    parent, tracestate = seen.read_text(encoding="utf-8").split("|")
    assert parent == traceparent(firing)
    assert tracestate == "unset"  # none in this trace, and none inherited


def test_an_inherited_traceparent_is_replaced_and_a_stale_tracestate_dropped(
    otel: Recorded, monkeypatch: pytest.MonkeyPatch, home: Path, load: Callable[..., Hooks]
) -> None:
    monkeypatch.setenv("TRACEPARENT", "00-" + "1" * 32 + "-" + "2" * 16 + "-01")
    monkeypatch.setenv("TRACESTATE", "vendor=old")
    seen = home / "env.txt"
    script = write_script(
        home / "agent-hooks" / "env.sh",
        sh(f'printf "%s|%s|%s" "$TRACEPARENT" "${{TRACESTATE-unset}}" "$HOME" > "{seen}"'),
    )
    write_config(home, {"post_tool_call": [{"command": str(script)}]})
    approve(home, "post_tool_call", str(script))
    hooks = load()
    hooks.post_tool_call(**tool_payload(result="done"))

    firing = otel.span("post_tool_call")
    assert seen.read_text(encoding="utf-8").split("|") == [
        traceparent(firing),
        "unset",
        os.environ["HOME"],  # the rest of the environment is inherited as before
    ]


def test_a_load_with_telemetry_off_passes_no_context_on(
    otel: Recorded,
    monkeypatch: pytest.MonkeyPatch,
    home: Path,
    load: Callable[..., Hooks],
    make_hooks: Callable[..., Hooks],
) -> None:
    monkeypatch.delenv("TRACEPARENT", raising=False)
    make_hooks()  # another load of this process has telemetry on
    seen = home / "env.txt"
    script = write_script(
        home / "agent-hooks" / "env.sh",
        sh(f'printf "%s" "${{TRACEPARENT-unset}}" > "{seen}"'),
    )
    write_config(home, {"post_tool_call": [{"command": str(script)}]}, telemetry={"otel": False})
    approve(home, "post_tool_call", str(script))
    hooks = load()
    with otel.tracer_provider.get_tracer("host").start_as_current_span("turn"):
        hooks.post_tool_call(**tool_payload(result="done"))
        assert trace_headers({"X-Hermes-Event": "e"}) == {"X-Hermes-Event": "e"}
        assert trace_environment({"A": "1"}) == {"A": "1"}
    assert seen.read_text(encoding="utf-8") == "unset"
    assert [s.name for s in otel.spans()] == ["turn"]


def test_a_webhook_delivery_carries_the_firing_traceparent(
    otel: Recorded, home: Path, load: Callable[..., Hooks]
) -> None:
    endpoint = Endpoint()
    try:
        (home / "config.yaml").write_text(
            f"hooks:\n  outbound:\n    - name: audit\n      url: {endpoint.url}\n"
            "      events: [post_tool_call]\n",
            encoding="utf-8",
        )
        hooks = load()
        hooks.post_tool_call(**tool_payload(result="done"))
        [request] = endpoint.wait_requests(1)
        hooks.close(3.0)
    finally:
        endpoint.close()
    firing = otel.span("post_tool_call")
    assert request.header("traceparent") == traceparent(firing)
    [child] = otel.children(firing)
    assert child.name == "webhook outbound:audit:post_tool_call"


def test_a_bounded_python_callback_runs_inside_the_firing_context(
    otel: Recorded, make_hooks: Callable[..., Hooks]
) -> None:
    hooks = make_hooks(timeout=5.0)  # bounded: the callback runs on a worker thread
    seen: list[tuple[str, str, str]] = []

    def watch(**kwargs: Any) -> None:
        seen.append((*_current(), threading.current_thread().name))

    async def awatch(**kwargs: Any) -> None:
        seen.append((*_current(), "async"))

    hooks.manager.register_callback("post_tool_call", watch, owner="watch")
    hooks.manager.register_callback("post_tool_call", awatch, owner="awatch")
    hooks.post_tool_call(**tool_payload(result="done"))

    firing = otel.span("post_tool_call")
    # plugins run in name order: "awatch" first
    assert [(t, s, where.split(":")[0]) for t, s, where in seen] == [
        (trace_id(firing), span_id(firing), "async"),
        (trace_id(firing), span_id(firing), "hermes-hooks"),  # a bounded worker thread
    ]


def test_streaming_observers_run_inside_their_firing_context(
    otel: Recorded, make_hooks: Callable[..., Hooks]
) -> None:
    hooks = make_hooks()
    seen: list[tuple[str, str]] = []
    done = threading.Event()

    def observe(delta: str, **kwargs: Any) -> None:
        seen.append(_current())
        if delta == "d1":
            done.set()

    hooks.manager.register_callback("on_stream_delta", observe, owner="tts")
    hooks.on_stream_delta(delta="d0", kind="text", **STREAM)
    hooks.on_stream_delta(delta="d1", kind="text", **STREAM)
    assert done.wait(10)

    firings = [s for s in otel.spans() if s.name == "on_stream_delta"]
    assert seen == [(trace_id(s), span_id(s)) for s in firings]
    assert len(set(seen)) == 2  # each event in its own firing's context
    assert [otel.children(s)[0].attributes["hermes.callback.verdict"] for s in firings] == [  # type: ignore[index]
        "none",
        "none",
    ]


@pytest.fixture
def gateway_home(home: Path) -> Iterator[Path]:
    from tests.gateway import probe

    probe.reset()
    yield home
    probe.reset()


CONTEXT_HANDLER = """
from opentelemetry import trace
from opentelemetry.trace import StatusCode
from tests.gateway import probe

{prefix}def handle(event_type, context):
    span = trace.get_current_span().get_span_context()
    probe.notes.append(f"{{span.trace_id:032x}}-{{span.span_id:016x}}")
"""


@pytest.mark.parametrize("prefix", ["", "async "])
def test_gateway_handlers_run_inside_the_emission_context(
    otel: Recorded, gateway_home: Path, load: Callable[..., Hooks], prefix: str
) -> None:
    from tests.gateway import probe

    write_hook(
        gateway_home / "hooks", "ctx", ("agent:start",), CONTEXT_HANDLER.format(prefix=prefix)
    )
    hooks = load(surface="gateway")

    async def emit() -> None:
        await hooks.gateway.emit("agent:start", {"platform": "telegram"})
        assert await hooks.gateway.drain(10)

    asyncio.run(emit())
    emission = otel.span("agent:start")
    assert probe.notes == [f"{trace_id(emission)}-{span_id(emission)}"]
    assert dict(emission.attributes or {}) == {
        "hermes.hook.name": "agent:start",
        "hermes.hook.callbacks": 1,
        "hermes.hook.verdict": "queued",
    }
    [call] = otel.children(emission)
    assert call.name == "gateway ctx"
    assert (call.attributes or {})["hermes.callback.source"] == "gateway"
    assert (call.attributes or {})["hermes.callback.verdict"] == "none"


def test_a_failing_gateway_handler_is_an_error_span_with_its_exception(
    otel: Recorded, gateway_home: Path, load: Callable[..., Hooks]
) -> None:
    write_hook(
        gateway_home / "hooks",
        "broken",
        ("agent:end",),
        "def handle(event_type, context):\n    raise KeyError('missing')\n",
    )
    hooks = load(surface="gateway")

    async def emit() -> None:
        await hooks.gateway.emit("agent:end", {})
        assert await hooks.gateway.drain(10)

    asyncio.run(emit())
    [call] = otel.children(otel.span("agent:end"))
    assert call.name == "gateway broken"
    assert (call.attributes or {})["hermes.callback.verdict"] == "error"
    assert call.status.status_code is StatusCode.ERROR
    [event] = call.events
    assert dict(event.attributes or {}) == {
        "exception.type": "KeyError",
        "exception.message": "'missing'",
    }
