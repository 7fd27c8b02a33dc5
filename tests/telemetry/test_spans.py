"""Every firing a span, every callback run a child span, with the real SDK."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.trace import StatusCode

from hermes_hooks.hooks import Hooks
from hermes_hooks.telemetry import firing_verdict
from hermes_hooks.types import DispatchDecision, ToolDecision
from tests.helpers import tool_payload, write_plugin
from tests.shell.helpers import approve, sh, write_config, write_script
from tests.telemetry.helpers import Recorded


def _allow(tool_name: str, **kwargs: Any) -> None:
    return None


def _block(tool_name: str, **kwargs: Any) -> dict[str, str]:
    return {"action": "block", "message": f"{tool_name} is not allowed"}


def _boom(**kwargs: Any) -> None:
    raise ValueError("the plugin broke")


def test_a_blocked_pre_tool_call_is_a_span_with_one_child_per_callback(
    otel: Recorded, home: Path, load: Callable[..., Hooks]
) -> None:
    script = write_script(home / "agent-hooks" / "gate.sh", sh('echo \'{"action": "block"}\''))
    write_config(home, {"pre_tool_call": [{"command": str(script)}]})
    approve(home, "pre_tool_call", str(script))
    write_plugin(
        home / "plugins",
        "guard",
        "def allow(tool_name, **kwargs):\n    return None\n\n"
        "def block(tool_name, **kwargs):\n"
        "    return {'action': 'block', 'message': 'no ' + tool_name}\n\n"
        "def register(ctx):\n"
        "    ctx.register_hook('pre_tool_call', allow)\n"
        "    ctx.register_hook('pre_tool_call', block)\n",
    )
    write_config(
        home, {"pre_tool_call": [{"command": str(script)}]}, plugins={"enabled": ["guard"]}
    )
    hooks = load()
    host = otel.tracer_provider.get_tracer("host")
    with host.start_as_current_span("agent turn") as turn:
        decision = hooks.pre_tool_call(**tool_payload(tool_call_id="call-7"))

    assert (decision.action, decision.message) == ("block", "no terminal")
    firing = otel.span("pre_tool_call")
    assert firing.parent is not None
    assert firing.parent.span_id == turn.get_span_context().span_id  # the host's turn
    assert dict(firing.attributes or {}) == {
        "hermes.hook.name": "pre_tool_call",
        "hermes.hook.callbacks": 3,
        "gen_ai.tool.name": "terminal",
        "gen_ai.tool.call.id": "call-7",
        "hermes.hook.verdict": "block",
    }
    children = otel.children(firing)
    assert [c.name for c in children] == [
        "python guard:allow",
        "python guard:block",
        f"shell hooks.pre_tool_call[0] {script}",
    ]
    assert [
        (
            c.attributes["hermes.callback.source"],
            c.attributes["hermes.callback.owner"],
            c.attributes["hermes.callback.verdict"],
        )
        for c in children
        if c.attributes
    ] == [
        ("python", "guard", "none"),
        ("python", "guard", "block"),
        ("shell", children[2].attributes["hermes.callback.owner"], "block"),  # type: ignore[index]
    ]
    assert all(c.context.trace_id == turn.get_span_context().trace_id for c in children)
    assert all(c.start_time <= c.end_time for c in children)  # type: ignore[operator]


def test_a_failing_callback_gets_an_exception_event_and_an_error_status(
    otel: Recorded, make_hooks: Callable[..., Hooks], caplog: pytest.LogCaptureFixture
) -> None:
    hooks = make_hooks(timeout=5.0)
    hooks.manager.register_callback("post_tool_call", _boom, owner="fragile")
    hooks.post_tool_call(**tool_payload(result="ok"))

    child = otel.span("python fragile:_boom")
    assert child.attributes is not None
    assert child.attributes["hermes.callback.verdict"] == "error"
    assert child.status.status_code is StatusCode.ERROR
    [event] = child.events
    assert event.name == "exception"
    assert event.attributes is not None
    assert event.attributes["exception.type"] == "ValueError"
    assert event.attributes["exception.message"] == "the plugin broke"
    # an observer's firing still allowed the host to go on
    assert otel.span("post_tool_call").attributes["hermes.hook.verdict"] == "allow"  # type: ignore[index]


def test_async_firings_and_invoke_are_spans_too(
    otel: Recorded, make_hooks: Callable[..., Hooks]
) -> None:
    import asyncio

    hooks = make_hooks(timeout=0)
    hooks.manager.register_callback("pre_tool_call", _block, owner="gate")
    decision = asyncio.run(hooks.apre_tool_call(**tool_payload()))
    assert decision.action == "block"
    results = hooks.invoke("pre_tool_call", **tool_payload(tool_name="browser"))
    assert results == [{"action": "block", "message": "browser is not allowed"}]

    firings = [s for s in otel.spans() if s.name == "pre_tool_call"]
    assert [(s.attributes or {}).get("gen_ai.tool.name") for s in firings] == [
        "terminal",
        "browser",
    ]
    # invoke returns raw results and selects nothing: its firing decided nothing
    assert [(s.attributes or {}).get("hermes.hook.verdict") for s in firings] == [
        "block",
        "allow",
    ]
    assert [len(otel.children(s)) for s in firings] == [1, 1]


def test_a_firing_without_callbacks_makes_no_span(
    otel: Recorded, make_hooks: Callable[..., Hooks]
) -> None:
    hooks = make_hooks()
    decision = hooks.pre_tool_call(**tool_payload())
    assert decision.action == "allow"
    assert otel.spans() == []


def test_metrics_count_firings_blocks_and_callback_durations(
    otel: Recorded, make_hooks: Callable[..., Hooks]
) -> None:
    hooks = make_hooks(timeout=0)
    hooks.manager.register_callback("pre_tool_call", _block, owner="gate")
    hooks.manager.register_callback("pre_tool_call", _allow, owner="watch")
    for _ in range(3):
        hooks.pre_tool_call(**tool_payload())
    hooks.pre_tool_call(**tool_payload(tool_name="read_file"))

    assert otel.metric("hermes.hook.firings") == [
        ({"hermes.hook.name": "pre_tool_call", "hermes.hook.verdict": "block"}, 4)
    ]
    assert otel.metric("hermes.hook.blocks") == [({"hermes.hook.name": "pre_tool_call"}, 4)]
    durations = dict(
        (attrs["hermes.callback.verdict"], count)
        for attrs, count in otel.metric("hermes.callback.duration")
    )
    assert durations == {"block": 4, "none": 4}


@pytest.mark.parametrize(
    ("answer", "verdicts", "expected"),
    [
        (ToolDecision("allow", {}), [], "allow"),
        (ToolDecision("allow", {"a": 1}, modified=True), ["modify"], "modify"),
        (ToolDecision("approve", {}, "ask"), ["approve"], "approve"),
        (ToolDecision("block", {}, "no"), ["error"], "block"),
        (DispatchDecision("skip"), ["none"], "skip"),
        ("context text", ["context", "none"], "context"),
        (None, ["modify", "block"], "block"),
        (None, ["error", "timeout"], "allow"),
    ],
)
def test_the_firing_verdict(answer: Any, verdicts: list[str], expected: str) -> None:
    assert firing_verdict(answer, verdicts) == expected


def test_disabled_in_config_the_facade_calls_the_dispatcher_directly(
    otel: Recorded, home: Path, load: Callable[..., Hooks]
) -> None:
    (home / "config.yaml").write_text("telemetry:\n  otel: false\n", encoding="utf-8")
    hooks = load()
    hooks.manager.register_callback("pre_tool_call", _block, owner="gate")
    assert hooks.telemetry is None
    assert hooks._fire == hooks.dispatcher.fire  # no wrapper: the disabled path is free
    assert hooks.pre_tool_call(**tool_payload()).action == "block"
    assert otel.spans() == []


def test_a_non_boolean_otel_setting_is_a_loud_error_naming_file_and_key(
    otel: Recorded,
    home: Path,
    load: Callable[..., Hooks],
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from hermes_hooks.cli import main

    (home / "config.yaml").write_text("telemetry:\n  otel: 'no'\n", encoding="utf-8")
    caplog.set_level(logging.ERROR, logger="hermes_hooks.telemetry")
    hooks = load()
    expected = (
        f"{home / 'config.yaml'}:2:3: telemetry.otel must be true or false, got 'no' (str); "
        "OpenTelemetry stays on. Fix: write 'otel: false' (no quotes) to turn it off, "
        "or 'otel: true'."
    )
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR] == [expected]
    assert hooks.telemetry is not None

    assert main(["--home", str(home), "doctor"]) == 1
    assert f"✗ telemetry: {expected}" in capsys.readouterr().out


def test_reload_follows_the_setting(otel: Recorded, home: Path, load: Callable[..., Hooks]) -> None:
    hooks = load()
    assert hooks.telemetry is not None
    (home / "config.yaml").write_text("telemetry:\n  otel: false\n", encoding="utf-8")
    hooks.reload()
    assert hooks.telemetry is None
    assert hooks._fire == hooks.dispatcher.fire
    assert hooks.dispatcher.carry is None


class _BrokenTracer:
    def start_span(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("exporter misconfigured")


class _BrokenProvider:
    def get_tracer(self, *args: Any, **kwargs: Any) -> _BrokenTracer:
        return _BrokenTracer()


def test_a_raising_tracer_costs_the_span_never_the_decision(
    make_hooks: Callable[..., Hooks], caplog: pytest.LogCaptureFixture
) -> None:
    from hermes_hooks import telemetry

    telemetry.set_providers(_BrokenProvider())
    try:
        hooks = make_hooks(timeout=5.0)
    finally:
        telemetry.set_providers()
    hooks.manager.register_callback("pre_tool_call", _block, owner="gate")
    caplog.set_level(logging.DEBUG, logger="hermes_hooks.telemetry")
    decisions = [hooks.pre_tool_call(**tool_payload()).action for _ in range(2)]

    assert decisions == ["block", "block"]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == [
        "OpenTelemetry failed to start the span of pre_tool_call (RuntimeError: exporter "
        "misconfigured); the firing goes on without it. Check the tracer provider and "
        "exporter the application configured."
    ]


class _RefusingProvider:
    def get_tracer(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("no tracer here")


def test_a_provider_that_cannot_make_a_tracer_costs_the_spans_never_the_load(
    home: Path, load: Callable[..., Hooks], caplog: pytest.LogCaptureFixture
) -> None:
    from hermes_hooks import telemetry

    telemetry.set_providers(_RefusingProvider())
    try:
        hooks = load()  # the tracer is made at the first traced firing, not here
    finally:
        telemetry.set_providers()
    hooks.manager.register_callback("pre_tool_call", _block, owner="gate")
    caplog.set_level(logging.DEBUG, logger="hermes_hooks.telemetry")
    decisions = [hooks.pre_tool_call(**tool_payload()).action for _ in range(2)]

    assert decisions == ["block", "block"]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == [
        "OpenTelemetry could not be set up (RuntimeError: no tracer here); hooks run "
        "without spans or metrics. Check the OpenTelemetry API installation and the "
        "providers the application configured."
    ]
