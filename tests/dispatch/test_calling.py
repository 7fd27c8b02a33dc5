"""How callbacks are called: D-09 narrowing, D-10 async, D-17 marker, isolation, records."""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

import pytest

from hermes_hooks._callback import Group
from hermes_hooks.errors import PluginLoadError, UnknownHookError
from hermes_hooks.hookspecs import VALID_HOOKS
from hermes_hooks.shell.output import SHELL_CALLBACKS
from hermes_hooks.types import DecisionRecord
from tests.helpers import tool_payload

SESSION = {"session_id": "s1", "model": "m", "platform": "cli"}


@pytest.fixture(params=[0.0, 5.0], ids=["inline", "bounded"])
def hooks(request: pytest.FixtureRequest, make_hooks: Any) -> Any:
    return make_hooks(timeout=request.param)


def test_narrow_callbacks_get_only_the_names_they_declare(hooks: Any) -> None:
    seen: list[Any] = []

    def narrow(session_id: str, telemetry_schema_version: str) -> None:
        seen.append((session_id, telemetry_schema_version))

    def wide(**kwargs: Any) -> None:
        seen.append(sorted(kwargs))

    def defaulted(model: str, missing: str = "default") -> None:
        seen.append((model, missing))

    for owner, fn in (("a", narrow), ("b", wide), ("c", defaulted)):
        hooks.manager.register_callback("on_session_start", fn, owner=owner)
    hooks.on_session_start(**SESSION)
    assert seen == [
        ("s1", "hermes.observer.v1"),
        ["model", "platform", "session_id", "telemetry_schema_version"],
        ("m", "default"),
    ]


def test_gateway_platform_event_never_carries_the_marker(hooks: Any) -> None:
    seen: list[Any] = []
    hooks.manager.register_callback(
        "gateway_platform_event", lambda **kw: seen.append(sorted(kw)), owner="a"
    )
    hooks.gateway_platform_event(platform="telegram", event_type="reaction", payload={})
    assert seen == [["event_type", "payload", "platform"]]


def test_a_missing_required_field_counts_as_an_exception(hooks: Any, caplog: Any) -> None:
    def wants_reason(reason: str) -> None:
        raise AssertionError("never called")

    hooks.manager.register_callback("on_session_end", wants_reason, owner="a")
    hooks.on_session_end(session_id="s", completed=True)  # an exit path omitting fields
    assert "on_session_end plugin callback" in caplog.text
    assert "raised TypeError" in caplog.text


def test_async_callbacks_are_awaited(hooks: Any) -> None:
    async def context(**kw: Any) -> str:
        await asyncio.sleep(0)
        return "from async"

    hooks.manager.register_callback("pre_llm_call", context, owner="a")
    assert (
        hooks.pre_llm_call(
            session_id="s",
            task_id="",
            turn_id="",
            user_message="x",
            conversation_history=[],
            is_first_turn=False,
            model="m",
            platform="cli",
            parent_session_id=None,
            sender_id=None,
        )
        == "from async"
    )


def test_sync_entry_point_called_inside_a_running_loop_still_awaits(make_hooks: Any) -> None:
    hooks = make_hooks(timeout=0)

    async def observer(**kw: Any) -> None:
        await asyncio.sleep(0)
        calls.append("ran")

    calls: list[str] = []
    hooks.manager.register_callback("on_session_start", observer, owner="a")

    async def host() -> None:
        hooks.on_session_start(**SESSION)  # sync call from async code (D-10 helper thread)

    asyncio.run(host())
    assert calls == ["ran"]


def test_async_twins_give_the_same_answer(hooks: Any) -> None:
    hooks.manager.register_callback(
        "pre_tool_call", lambda **kw: {"action": "block", "message": "no"}, owner="a"
    )
    decision = asyncio.run(hooks.apre_tool_call(**tool_payload()))
    assert decision.message == "no"
    assert asyncio.run(hooks.ainvoke("pre_tool_call", **tool_payload())) == [
        {"action": "block", "message": "no"}
    ]


def test_observer_failures_are_isolated_and_warned_once(hooks: Any, caplog: Any) -> None:
    calls: list[str] = []

    def broken(**kw: Any) -> None:
        raise RuntimeError("same message")

    hooks.manager.register_callback("on_session_start", broken, owner="a")
    hooks.manager.register_callback("on_session_start", lambda **kw: calls.append("b"), owner="b")
    for _ in range(3):
        hooks.on_session_start(**SESSION)
    assert calls == ["b", "b", "b"]
    levels = [r.levelno for r in caplog.records if "same message" in r.getMessage()]
    assert levels == [logging.WARNING, logging.DEBUG, logging.DEBUG]


def test_keyboard_interrupt_propagates_from_observers(hooks: Any) -> None:
    def interrupted(**kw: Any) -> None:
        raise KeyboardInterrupt

    hooks.manager.register_callback("on_session_start", interrupted, owner="a")
    with pytest.raises(KeyboardInterrupt):
        hooks.on_session_start(**SESSION)


def test_a_timed_out_observer_is_skipped_fail_open(make_hooks: Any) -> None:
    hooks = make_hooks(timeout=0.1)
    release = threading.Event()
    hooks.manager.register_callback(
        "transform_llm_output", lambda **kw: release.wait(30) and "late", owner="a"
    )
    hooks.manager.register_callback("transform_llm_output", lambda **kw: "fast", owner="b")
    try:
        assert (
            hooks.transform_llm_output(response_text="x", session_id="", model="m", platform="")
            == "fast"
        )
        assert not release.is_set()
    finally:
        release.set()


def test_invoke_returns_raw_non_none_results_in_callback_order(hooks: Any) -> None:
    hooks.manager.register_callback("on_session_start", lambda **kw: None, owner="a")
    hooks.manager.register_callback("on_session_start", lambda **kw: {"b": 1}, owner="b")

    def broken(**kw: Any) -> None:
        raise ValueError("x")

    hooks.manager.register_callback("on_session_start", broken, owner="c")
    hooks.manager.register_callback("on_session_start", lambda **kw: "d", owner="d")
    assert hooks.invoke("on_session_start", **SESSION) == [{"b": 1}, "d"]


def test_unknown_hooks_are_refused_with_a_suggestion(hooks: Any) -> None:
    with pytest.raises(
        UnknownHookError, match="unknown hook 'pre_tool_cal' — did you mean 'pre_tool_call'\\?"
    ):
        hooks.invoke("pre_tool_cal")
    with pytest.raises(PluginLoadError) as info:
        hooks.manager.register_callback("post_tool", lambda **kw: None, owner="p")
    assert str(info.value) == (
        "Plugin 'p' tried to register unknown hook 'post_tool' — did you mean "
        "'post_tool_call'? Ignored."
    )


def test_no_close_match_points_at_the_list_of_names(hooks: Any) -> None:
    with pytest.raises(PluginLoadError) as info:
        hooks.manager.register_callback("zzz", lambda **kw: None, owner="p")
    # Where the names are listed, never all of them.
    assert str(info.value) == (
        "Plugin 'p' tried to register unknown hook 'zzz' — no hook has a similar name; "
        f"`hermes-hooks hooks` lists the {len(VALID_HOOKS)} events. Ignored."
    )


def test_the_same_callable_twice_is_ignored(hooks: Any) -> None:
    calls: list[int] = []

    def once(**kw: Any) -> None:
        calls.append(1)

    hooks.manager.register_callback("on_session_start", once, owner="a")
    with pytest.raises(PluginLoadError, match="twice; the duplicate is ignored"):
        hooks.manager.register_callback("on_session_start", once, owner="a")
    hooks.on_session_start(**SESSION)
    assert calls == [1]


def test_impossible_signatures_are_refused(hooks: Any) -> None:
    def needs_unknown(session_id: str, flavour: str) -> None: ...

    with pytest.raises(PluginLoadError) as info:
        hooks.manager.register_callback("on_session_start", needs_unknown, owner="a")
    assert str(info.value) == (
        f"Plugin 'a' callback {needs_unknown.__qualname__} for hook 'on_session_start' cannot "
        "be called: required parameter(s) flavour are not payload fields of this hook; "
        "accept **kwargs and read what you need. Ignored."
    )


def test_decision_records_report_each_callback_run(hooks: Any) -> None:
    records: list[DecisionRecord] = []
    unsubscribe = hooks.subscribe(records.append)

    def boom(**kw: Any) -> None:
        raise ValueError("bad")

    hooks.manager.register_callback(
        "pre_tool_call", lambda **kw: {"action": "modify", "args": {"a": 1}}, owner="a"
    )
    hooks.manager.register_callback("pre_tool_call", boom, owner="b")
    hooks.manager.register_callback(
        "pre_tool_call",
        lambda **kw: {"action": "block", "message": "m"},
        owner="c",
        group=Group.SHELL,
        policy=SHELL_CALLBACKS,
    )
    hooks.pre_tool_call(**tool_payload())
    unsubscribe()
    hooks.pre_tool_call(**tool_payload())
    assert [(r.hook, r.callback.split(":")[0], r.source, r.verdict) for r in records] == [
        ("pre_tool_call", "a", "python", "modify"),
        ("pre_tool_call", "b", "python", "error"),
        ("pre_tool_call", "c", "shell", "block"),
    ]
    assert records[1].reason.endswith("raised ValueError: bad")
    assert all(r.duration >= 0 for r in records)


def test_shell_output_on_observer_events_is_ignored(hooks: Any) -> None:
    hooks.manager.register_callback(
        "transform_llm_output",
        lambda **kw: "shell says",
        owner="s",
        group=Group.SHELL,
        policy=SHELL_CALLBACKS,
    )
    assert (
        hooks.transform_llm_output(response_text="x", session_id="", model="m", platform="") is None
    )


def test_reasoning_deltas_need_the_opt_in(make_hooks: Any) -> None:
    seen: list[str] = []
    common = {
        "turn_id": "",
        "iteration": 1,
        "session_id": "s",
        "model": "m",
        "provider": "p",
        "surface": "cli",
    }
    for opt_in, expected in ((False, ["text"]), (True, ["text", "reasoning"])):
        seen.clear()
        hooks = make_hooks(timeout=0, stream_reasoning_deltas=opt_in)
        hooks.manager.register_callback(
            "on_stream_delta", lambda kind, **kw: seen.append(kind), owner="a"
        )
        hooks.on_stream_delta(delta="x", kind="text", **common)
        hooks.on_stream_delta(delta="y", kind="reasoning", **common)
        hooks.close()
        assert seen == expected


def test_plugin_order_tracks_only_hook_implementing_plugins(hooks: Any) -> None:
    class Bridge:
        """Implements no catalogue hook, like a gateway bridge object."""

    class Native:
        @staticmethod
        @__import__("hermes_hooks").hookimpl
        def on_session_start(**kwargs: Any) -> None: ...

    hooks.manager.register(Bridge(), name="gateway:x")
    native = Native()
    hooks.manager.register(native, name="native")
    hooks.manager.register_callback("on_session_start", lambda **kw: None, owner="a")
    assert hooks.manager.plugin_order() == ["a", "native"]
    hooks.manager.unregister(native)
    hooks.manager.unregister_owner("a")
    assert hooks.manager.plugin_order() == []


def test_containers_in_fields_the_catalogue_does_not_declare_are_copied_too(hooks: Any) -> None:
    seen: list[Any] = []

    def vandal(**kw: Any) -> None:
        kw["extra_field"]["nested"]["x"] = 2

    hooks.manager.register_callback("on_session_start", vandal, owner="a")
    hooks.manager.register_callback(
        "on_session_start", lambda **kw: seen.append(kw["extra_field"]), owner="b"
    )
    shared = {"nested": {"x": 1}}
    hooks.on_session_start(**SESSION, extra_field=shared)
    assert seen == [{"nested": {"x": 1}}]
    assert shared == {"nested": {"x": 1}}
