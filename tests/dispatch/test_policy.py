"""A callback's own policy, not the hook system it came from, decides how the dispatcher
runs it and reads its answer: the core asks no callback where it came from."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from hermes_hooks._callback import IN_PROCESS, Answers, CallbackPolicy, Group
from hermes_hooks.types import DecisionRecord, ToolDecision
from tests.helpers import tool_payload

ALLOW = ToolDecision("allow", {"command": "ls -la"})


def _register(hooks: Any, hook: str, function: Any, policy: CallbackPolicy, **kw: Any) -> None:
    hooks.manager.register_callback(hook, function, owner="x", policy=policy, **kw)


def test_a_callback_that_bounds_itself_runs_on_the_firing_thread(make_hooks: Any) -> None:
    hooks = make_hooks(timeout=5.0)
    threads: dict[str, str] = {}

    def where(name: str) -> Any:
        def callback(**kw: Any) -> None:
            threads[name] = threading.current_thread().name

        return callback

    _register(hooks, "pre_tool_call", where("bounded"), IN_PROCESS)
    _register(hooks, "pre_tool_call", where("own"), CallbackPolicy("own", runs_bounded=False))
    assert hooks.pre_tool_call(**tool_payload()) == ALLOW
    assert threads["own"] == threading.current_thread().name
    assert threads["bounded"].startswith("hermes-hooks:")


@pytest.mark.parametrize("timeout", [0.0, 5.0], ids=["inline", "bounded"])
def test_a_callback_whose_answers_never_count_cannot_block(make_hooks: Any, timeout: float) -> None:
    hooks = make_hooks(timeout=timeout)
    records: list[DecisionRecord] = []
    hooks.subscribe(records.append)
    relay = CallbackPolicy("relay", runs_bounded=False, answers=Answers.NEVER)
    # In the Python group, where a Python callback's block would win.
    _register(hooks, "pre_tool_call", lambda **kw: {"action": "block", "message": "no"}, relay)
    assert hooks.pre_tool_call(**tool_payload()) == ALLOW
    assert [(r.source, r.verdict) for r in records] == [("relay", "none")]


def test_directive_answers_count_only_on_hooks_that_honour_them(make_hooks: Any) -> None:
    hooks = make_hooks(timeout=0.0)
    outside = CallbackPolicy("outside", runs_bounded=False, answers=Answers.ON_DIRECTIVE_HOOKS)
    _register(hooks, "pre_tool_call", lambda **kw: {"action": "block", "message": "no"}, outside)
    _register(hooks, "transform_llm_output", lambda **kw: "rewritten", outside)
    assert hooks.pre_tool_call(**tool_payload()) == ToolDecision(
        "block", {"command": "ls -la"}, message="no"
    )
    llm = {"response_text": "x", "session_id": "", "model": "m", "platform": ""}
    assert hooks.transform_llm_output(**llm) is None
    # The same answer from an in-process callback counts on both.
    _register(hooks, "transform_llm_output", lambda **kw: "rewritten", IN_PROCESS)
    assert hooks.transform_llm_output(**llm) == "rewritten"


def test_a_bare_block_takes_the_policy_message_or_is_ignored(make_hooks: Any) -> None:
    hooks = make_hooks(timeout=0.0)
    _register(hooks, "pre_tool_call", lambda **kw: {"action": "block"}, IN_PROCESS)
    assert hooks.pre_tool_call(**tool_payload()) == ALLOW
    speaking = CallbackPolicy("outside", runs_bounded=False, block_message="Stopped outside.")
    _register(
        hooks, "pre_tool_call", lambda **kw: {"action": "block"}, speaking, group=Group.TRYLAST
    )
    assert hooks.pre_tool_call(**tool_payload()) == ToolDecision(
        "block", {"command": "ls -la"}, message="Stopped outside."
    )
