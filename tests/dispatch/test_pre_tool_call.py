"""pre_tool_call selection (D-20..D-22) and its fail-closed bounds (D-14)."""

from __future__ import annotations

import logging
import threading
from typing import Any

import pytest

from hermes_hooks._callback import IN_PROCESS, Group
from hermes_hooks.shell.output import SHELL_CALLBACKS
from hermes_hooks.types import ToolDecision
from tests.helpers import tool_payload

TIMEOUT_MESSAGE = "pre_tool_call plugin callback timed out or is still running"


def register(hooks: Any, owner: str, function: Any, group: Group = Group.PYTHON) -> None:
    # A shell-group callback is registered as the shell system registers its hooks.
    policy = SHELL_CALLBACKS if group is Group.SHELL else IN_PROCESS
    hooks.manager.register_callback(
        "pre_tool_call", function, owner=owner, group=group, policy=policy
    )


@pytest.fixture(params=[0.0, 5.0], ids=["inline", "bounded"])
def hooks(request: pytest.FixtureRequest, make_hooks: Any) -> Any:
    """Selection must not depend on where callbacks run."""
    return make_hooks(timeout=request.param)


def test_no_callbacks_allows_with_the_original_args(hooks: Any) -> None:
    decision = hooks.pre_tool_call(**tool_payload())
    assert decision == ToolDecision("allow", {"command": "ls -la"})
    assert not decision.blocked


def test_approve_then_block_is_a_block(hooks: Any) -> None:
    register(hooks, "a", lambda **kw: {"action": "approve", "message": "ask first"})
    register(hooks, "b", lambda **kw: {"action": "block", "message": "never rm"})
    decision = hooks.pre_tool_call(**tool_payload())
    assert decision.action == "block"
    assert decision.message == "never rm"


def test_first_block_message_wins_and_every_callback_still_runs(hooks: Any) -> None:
    seen: list[str] = []

    def first(**kw: Any) -> dict[str, str]:
        seen.append("first")
        return {"action": "block", "message": "first block"}

    def second(**kw: Any) -> dict[str, str]:
        seen.append("second")
        return {"action": "block", "message": "second block"}

    def observer(**kw: Any) -> None:
        seen.append("observer")

    register(hooks, "a", first)
    register(hooks, "b", second)
    register(hooks, "c", observer)
    assert hooks.pre_tool_call(**tool_payload()).message == "first block"
    assert seen == ["first", "second", "observer"]


def test_modifies_accumulate_and_later_wins_a_key_conflict(hooks: Any) -> None:
    register(hooks, "a", lambda **kw: {"action": "modify", "args": {"path": "/a", "mode": "x"}})
    register(hooks, "b", lambda **kw: {"action": "modify", "args": {"content": "B", "mode": "y"}})
    decision = hooks.pre_tool_call(**tool_payload(args={"path": "/orig", "content": "orig"}))
    assert decision == ToolDecision(
        "allow", {"path": "/a", "content": "B", "mode": "y"}, modified=True
    )


def test_a_gate_after_a_modify_sees_the_modified_args(hooks: Any) -> None:
    register(hooks, "a", lambda **kw: {"action": "modify", "args": {"command": "rm -rf /"}})

    def gate(args: dict[str, Any], **kw: Any) -> dict[str, str] | None:
        if args["command"].startswith("rm -rf"):
            return {"action": "block", "message": f"gate saw {args['command']}"}
        return None

    register(hooks, "b", gate)
    decision = hooks.pre_tool_call(**tool_payload(args={"command": "ls"}))
    assert decision.action == "block"
    assert decision.message == "gate saw rm -rf /"
    assert decision.args == {"command": "rm -rf /"}


def test_modifies_stop_at_the_first_block_and_pass_an_approve(hooks: Any) -> None:
    register(hooks, "a", lambda **kw: {"action": "approve"})
    register(hooks, "b", lambda **kw: {"action": "modify", "args": {"n": 1}})
    register(hooks, "c", lambda **kw: {"action": "block", "message": "stop"})
    register(hooks, "d", lambda **kw: {"action": "modify", "args": {"n": 2}})
    decision = hooks.pre_tool_call(**tool_payload(args={}))
    assert decision == ToolDecision("block", {"n": 1}, "stop", modified=True)


def test_first_approve_wins_with_its_own_fields(hooks: Any) -> None:
    register(
        hooks,
        "a",
        lambda **kw: {
            "action": " Approve ",
            "message": "why",
            "rule_key": " k:1 ",
            "review": "smart",
        },
    )
    register(hooks, "b", lambda **kw: {"action": "approve", "message": "later"})
    decision = hooks.pre_tool_call(**tool_payload())
    assert decision == ToolDecision("approve", {"command": "ls -la"}, "why", "k:1", "smart")


def test_approve_rule_key_defaults_to_the_tool_name_and_review_to_human(hooks: Any) -> None:
    register(hooks, "a", lambda **kw: {"action": "approve", "rule_key": "  "})
    decision = hooks.pre_tool_call(**tool_payload(tool_name="write_file"))
    assert (decision.action, decision.message, decision.rule_key, decision.review) == (
        "approve",
        None,
        "write_file",
        "human",
    )


@pytest.mark.parametrize(
    "value",
    [
        {"action": "block"},
        {"action": "block", "message": "   "},
        {"action": "block", "message": 42},
        {"action": "modify", "args": {}},
        {"action": "modify", "args": ["x"]},
        {"decision": "block", "reason": "claude style is for shell hooks"},
        "block",
        ["block"],
        42,
    ],
)
def test_invalid_python_returns_are_ignored(hooks: Any, value: Any) -> None:
    register(hooks, "a", lambda **kw: value)
    assert hooks.pre_tool_call(**tool_payload()) == ToolDecision("allow", {"command": "ls -la"})


@pytest.mark.parametrize(
    ("value", "reason", "fix"),
    [
        (
            {"action": "block"},
            "block without a message ignored",
            "give the block a non-empty 'message' (it is shown to the model)",
        ),
        (
            {"action": "modify", "args": {}},
            "modify without a non-empty args dict ignored",
            "return {'action': 'modify', 'args': {...}} with the new arguments",
        ),
        (
            {"action": "Deny", "message": "no"},
            "unknown action 'Deny' ignored",
            "return {'action': 'block', 'message': '...'} to block (or 'approve' or 'modify')",
        ),
        (
            {"decision": "block", "reason": "Claude Code's words"},
            "a dict with 'decision' but no 'action' ignored",
            "return {'action': 'block', 'message': '...'} to block, or None to allow",
        ),
        (
            "block",
            "a str return ignored",
            "return {'action': 'block', 'message': '...'} to block, or None to allow",
        ),
        (
            False,
            "a bool return ignored",
            "return {'action': 'block', 'message': '...'} to block, or None to allow",
        ),
    ],
)
def test_a_guard_answer_that_is_ignored_is_an_error_logged_once(
    hooks: Any, caplog: pytest.LogCaptureFixture, value: Any, reason: str, fix: str
) -> None:
    # Still ignored (the call goes ahead), but a guard whose answer is lost is loud, and
    # its run is a callback error.
    register(hooks, "a", lambda **kw: value)
    records: list[Any] = []
    hooks.subscribe(records.append)
    first = hooks.pre_tool_call(**tool_payload())
    second = hooks.pre_tool_call(**tool_payload())
    assert first == second == ToolDecision("allow", {"command": "ls -la"})
    name = records[0].callback
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert errors == [
        f"pre_tool_call callback {name}: {reason}, so the guarded action went ahead. Fix: {fix}"
    ]
    # Recorded as a callback error (replay counts it), with the reason it was ignored.
    assert [(r.verdict, r.reason) for r in records] == [("error", reason)] * 2


@pytest.mark.parametrize(
    "value",
    [
        {"action": "allow"},
        {"action": "Continue"},
        {"action": "proceed"},
        {"action": "ok"},
        {"action": ""},
        {"checked": True},  # a dict that does not try to decide
    ],
)
def test_an_answer_that_lets_the_call_through_is_quiet(
    hooks: Any, caplog: pytest.LogCaptureFixture, value: Any
) -> None:
    register(hooks, "a", lambda **kw: value)
    assert hooks.pre_tool_call(**tool_payload()) == ToolDecision("allow", {"command": "ls -la"})
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_a_message_less_shell_block_reads_the_default_message(hooks: Any) -> None:
    register(hooks, "shell", lambda **kw: {"action": "block"}, group=Group.SHELL)
    assert hooks.pre_tool_call(**tool_payload()).message == "Blocked by shell hook."


def test_each_callback_gets_its_own_deep_copy_of_the_args(hooks: Any) -> None:
    original = {"command": "ls", "env": {"A": "1"}, "list": [1]}
    seen: list[Any] = []

    def vandal(args: dict[str, Any], **kw: Any) -> None:
        args["env"]["A"] = "changed"
        args["list"].append(2)
        args["command"] = "changed"

    def witness(args: dict[str, Any], **kw: Any) -> None:
        seen.append(args)

    register(hooks, "a", vandal)
    register(hooks, "b", witness)
    decision = hooks.pre_tool_call(**tool_payload(args=original))
    assert seen == [{"command": "ls", "env": {"A": "1"}, "list": [1]}]
    assert original == {"command": "ls", "env": {"A": "1"}, "list": [1]}
    assert decision.args == original


def test_a_raising_callback_blocks_with_the_d14_message(hooks: Any, caplog: Any) -> None:
    def broken(**kw: Any) -> None:
        raise ValueError("x" * 300)

    register(hooks, "a", broken)
    decision = hooks.pre_tool_call(**tool_payload())
    qualname = broken.__qualname__
    expected = f"pre_tool_call plugin callback {qualname} raised ValueError: {'x' * 200}"
    assert decision.action == "block"
    assert decision.message == expected
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING] == [expected]


def test_system_exit_is_isolated_and_blocks(hooks: Any) -> None:
    def exits(**kw: Any) -> None:
        raise SystemExit(3)

    register(hooks, "a", exits)
    decision = hooks.pre_tool_call(**tool_payload())
    assert decision.message == (
        f"pre_tool_call plugin callback {exits.__qualname__} raised SystemExit: 3"
    )


def test_keyboard_interrupt_propagates(hooks: Any) -> None:
    def interrupted(**kw: Any) -> None:
        raise KeyboardInterrupt

    register(hooks, "a", interrupted)
    with pytest.raises(KeyboardInterrupt):
        hooks.pre_tool_call(**tool_payload())


def test_a_hung_callback_blocks_and_the_caller_returns_without_it(make_hooks: Any) -> None:
    hooks = make_hooks(timeout=0.2)
    release = threading.Event()
    started = threading.Event()

    def hung(**kw: Any) -> None:
        started.set()
        release.wait(30)

    register(hooks, "a", hung)
    try:
        decision = hooks.pre_tool_call(**tool_payload())
        # The call came back while the callback is still inside release.wait().
        assert started.is_set() and not release.is_set()
        assert decision.action == "block"
        assert decision.message == TIMEOUT_MESSAGE
        runner = hooks.manager.callbacks("pre_tool_call")[0].runner
        assert runner.abandoned_alive == 1
    finally:
        release.set()


def test_after_a_timeout_the_callback_is_suppressed(make_hooks: Any) -> None:
    hooks = make_hooks(timeout=0.2)
    release = threading.Event()
    calls: list[str] = []

    def slow_once(tool_call_id: str, **kw: Any) -> None:
        calls.append(tool_call_id)
        release.wait(30)

    register(hooks, "a", slow_once)
    try:
        first = hooks.pre_tool_call(**tool_payload(tool_call_id="c1"))
        release.set()
        second = hooks.pre_tool_call(**tool_payload(tool_call_id="c2"))
        assert (first.message, second.message) == (TIMEOUT_MESSAGE, TIMEOUT_MESSAGE)
        assert calls == ["c1"]  # the suppressed firing never reached the callback
    finally:
        release.set()


def test_one_tool_call_id_never_runs_twice_at_once(make_hooks: Any) -> None:
    from hermes_hooks._workers import BoundedRunner, Suppressed

    runner = BoundedRunner("probe")
    release = threading.Event()
    results: list[Any] = []
    worker = threading.Thread(
        target=lambda: results.append(runner.call(lambda: release.wait(30), {}, 30, "same-id"))
    )
    worker.start()
    try:
        with pytest.raises(Suppressed, match="tool call same-id is still running"):
            for _ in range(200):  # until the first call is in flight
                runner.call(lambda: None, {}, 30, "same-id")
                results.clear()
    finally:
        release.set()
        worker.join(10)
    assert runner.call(lambda: "ok", {}, 30, "same-id") == "ok"
    runner.close()


def test_three_abandoned_workers_cap_skips_with_the_hung_warning(caplog: Any) -> None:
    from hermes_hooks import _workers

    runner = _workers.BoundedRunner("probe")
    release = threading.Event()
    try:
        for _ in range(3):
            with pytest.raises(_workers.TimedOut):
                runner.call(lambda: release.wait(30), {}, 0.05)
            runner._suppressed_until = 0.0  # step past the 60 s window
        with pytest.raises(_workers.Hung, match="3 abandoned worker"):
            runner.call(lambda: None, {}, 0.05)
    finally:
        release.set()


def test_the_hung_warning_names_the_fix(make_hooks: Any, caplog: Any) -> None:
    hooks = make_hooks(timeout=0.05)
    release = threading.Event()
    register(hooks, "a", lambda **kw: release.wait(30))
    callback = hooks.manager.callbacks("pre_tool_call")[0]
    try:
        for n in range(3):
            hooks.pre_tool_call(**tool_payload(tool_call_id=f"c{n}"))
            callback.runner._suppressed_until = 0.0
        decision = hooks.pre_tool_call(**tool_payload(tool_call_id="c3"))
    finally:
        release.set()
    assert decision.message == TIMEOUT_MESSAGE
    hung = [r.getMessage() for r in caplog.records if "plugin is hung" in r.getMessage()]
    assert len(hung) == 1
    assert "abandoned worker(s) still running — the plugin is hung; fix or disable it" in hung[0]


def test_a_replacing_modify_drops_fields_it_leaves_out(hooks: Any) -> None:
    register(hooks, "a", lambda **kw: {"action": "modify", "args": {"extra": 1}})
    register(
        hooks, "b",
        lambda **kw: {"action": "modify", "args": {"command": "ls"}, "replace": True},
    )  # fmt: skip
    register(hooks, "c", lambda **kw: {"action": "modify", "args": {"flag": True}})
    decision = hooks.pre_tool_call(**tool_payload(args={"command": "rm -rf /", "cwd": "/"}))
    assert decision.args == {"command": "ls", "flag": True}
