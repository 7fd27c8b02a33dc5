"""The reference host applies plugin middleware where hermes-agent does and shows it."""

from __future__ import annotations

from typing import Any

from hermes_hooks.host.loop import ReferenceHost
from hermes_hooks.host.timeline import render_text
from hermes_hooks.plugins.registry_entries import Middleware
from tests.host.helpers import Calls, calls, header, recording, result, say, user
from tests.host.test_host import RecordingRunner


def expand(args: dict[str, Any] | None = None, **kwargs: Any) -> Any:
    return {"args": {**(args or {}), "command": "ls -la"}, "source": "expander", "reason": "long"}


def wrap(next_call: Any = None, args: Any = None, **kwargs: Any) -> Any:
    return next_call(args)


def tag(request: dict[str, Any] | None = None, **kwargs: Any) -> Any:
    return {"request": {**(request or {}), "temperature": 0}, "name": "cool"}


def test_middleware_rewrites_wraps_and_feeds_middleware_trace(make_hooks: Any) -> None:
    hooks = make_hooks()
    for kind, callback in (
        ("tool_request", expand),
        ("tool_execution", wrap),
        ("llm_request", tag),
    ):
        hooks.registry.add(Middleware("mw", kind, callback))
    watch = Calls()
    watch.watch(hooks, "pre_tool_call", "post_tool_call", "pre_api_request")
    runner = RecordingRunner()
    rec = recording(
        header(),
        user("go"),
        calls(("c1", "terminal", {"command": "ls"})),
        result("c1", output="out\n", returncode=0),
        say("done"),
    )
    host = ReferenceHost(hooks, runner=runner)
    timeline = host.replay(rec)
    host.finish(0.5)
    trace = [{"source": "expander", "reason": "long"}]
    assert runner.ran == [("c1", {"command": "ls -la"})]
    assert watch.of("pre_tool_call")[0]["args"] == {"command": "ls -la"}
    assert watch.of("pre_tool_call")[0]["middleware_trace"] == trace
    assert watch.of("post_tool_call")[0]["middleware_trace"] == trace
    assert watch.of("pre_api_request")[0]["middleware_trace"] == [{"name": "cool"}]
    assert watch.of("pre_api_request")[0]["request"]["temperature"] == 0
    text = render_text(timeline)
    assert (
        '    [middleware] tool_request  → args rewritten by expander: {"command": "ls -la"}' in text
    )
    assert "    [middleware] tool_execution  → tool run wrapped" in text
    assert "    [middleware] llm_request  → request rewritten by cool" in text
    # Each callback run reaches the dispatcher's subscribers like a hook callback's.
    runs = [line.split() for line in text if line.startswith("        python  mw:")]
    assert [run[:3] for run in runs] == [
        ["python", "mw:tag", "modify"],  # model call 1
        ["python", "mw:expand", "modify"],
        ["python", "mw:wrap", "none"],
        ["python", "mw:tag", "modify"],  # model call 2
    ]
