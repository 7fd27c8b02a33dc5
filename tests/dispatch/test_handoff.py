"""One hand-off per firing: bounded callbacks share a worker; a timeout moves the rest.

Real threads throughout; the only timing is a callback's own time limit (a behaviour,
never a measured duration).
"""

from __future__ import annotations

import threading
from typing import Any

from hermes_hooks import _workers
from tests.helpers import tool_payload


def _recorder(name: str, seen: list[tuple[str, int]], result: Any = None) -> Any:
    def callback(**kwargs: Any) -> Any:
        seen.append((name, threading.get_ident()))
        return result

    callback.__name__ = callback.__qualname__ = name
    return callback


def test_a_firings_bounded_callbacks_run_back_to_back_on_one_worker(make_hooks: Any) -> None:
    hooks = make_hooks(timeout=30)
    seen: list[tuple[str, int]] = []
    for name in ("a", "b", "c", "d"):
        hooks.manager.register_callback("pre_tool_call", _recorder(name, seen), owner=name)
    assert hooks.pre_tool_call(**tool_payload()).action == "allow"
    assert [name for name, _ in seen] == ["a", "b", "c", "d"]
    threads = {ident for _, ident in seen}
    assert len(threads) == 1
    assert threads != {threading.get_ident()}  # off the caller's thread


def test_modifies_accumulate_across_the_worker(make_hooks: Any) -> None:
    hooks = make_hooks(timeout=30)
    seen: list[dict[str, Any]] = []

    def first(args: dict[str, Any], **kwargs: Any) -> Any:
        seen.append(dict(args))
        return {"action": "modify", "args": {"x": 1}}

    def second(args: dict[str, Any], **kwargs: Any) -> Any:
        seen.append(dict(args))
        return {"action": "modify", "args": {"y": 2}}

    hooks.manager.register_callback("pre_tool_call", first, owner="a")
    hooks.manager.register_callback("pre_tool_call", second, owner="b")
    decision = hooks.pre_tool_call(**tool_payload(args={"command": "ls"}))
    assert seen == [{"command": "ls"}, {"command": "ls", "x": 1}]
    assert decision.args == {"command": "ls", "x": 1, "y": 2}


def test_a_timeout_abandons_that_worker_and_the_rest_run_on_a_fresh_one(
    make_hooks: Any,
) -> None:
    hooks = make_hooks(timeout=0.2)
    seen: list[tuple[str, int]] = []
    release = threading.Event()

    def stuck(**kwargs: Any) -> None:
        seen.append(("stuck", threading.get_ident()))
        release.wait(30)

    hooks.manager.register_callback("pre_tool_call", _recorder("a", seen), owner="a")
    hooks.manager.register_callback("pre_tool_call", stuck, owner="b")
    late = _recorder("c", seen, {"action": "approve", "message": "from c"})
    hooks.manager.register_callback("pre_tool_call", late, owner="c")
    hooks.manager.register_callback("pre_tool_call", _recorder("d", seen), owner="d")
    try:
        decision = hooks.pre_tool_call(**tool_payload())
        # pre_tool_call fails closed: the timed-out callback blocks, and c and d ran.
        assert (decision.action, decision.message) == (
            "block",
            "pre_tool_call plugin callback timed out or is still running",
        )
        assert [name for name, _ in seen] == ["a", "stuck", "c", "d"]
        a, stuck_on, c, d = (ident for _, ident in seen)
        assert a == stuck_on and c == d and c != stuck_on
        callbacks = {cb.owner: cb for cb in hooks.manager.callbacks("pre_tool_call")}
        # The abandoned worker is charged to the callback it was stuck in, and only
        # that callback is in its 60 s window on the next firing.
        assert callbacks["b"].runner.abandoned_alive == 1
        assert all(
            callbacks[o].runner is None or callbacks[o].runner.abandoned_alive == 0 for o in "acd"
        )
        seen.clear()
        decision = hooks.pre_tool_call(**tool_payload(tool_call_id="call-2"))
        assert [name for name, _ in seen] == ["a", "c", "d"]
        assert decision.action == "block"  # b is suppressed: still a failure that blocks
    finally:
        release.set()


def test_a_nested_firing_runs_on_the_calling_worker(make_hooks: Any) -> None:
    hooks = make_hooks(timeout=30)
    seen: list[tuple[str, int]] = []

    def outer(tool_call_id: str, **kwargs: Any) -> None:
        seen.append(("outer", threading.get_ident()))
        if tool_call_id == "call-1":
            hooks.pre_tool_call(**tool_payload(tool_call_id="call-2"))

    hooks.manager.register_callback("pre_tool_call", outer, owner="a")
    hooks.manager.register_callback("pre_tool_call", _recorder("inner", seen), owner="b")
    before = _workers.workers_alive()
    hooks.pre_tool_call(**tool_payload(tool_call_id="call-1"))
    assert [name for name, _ in seen] == ["outer", "outer", "inner", "inner"]
    assert len({ident for _, ident in seen}) == 1
    assert _workers.workers_alive() <= before + 1


def test_a_raising_callback_on_the_worker_is_isolated(make_hooks: Any) -> None:
    hooks = make_hooks(timeout=30)
    seen: list[tuple[str, int]] = []

    def broken(**kwargs: Any) -> None:
        raise ValueError("boom")

    hooks.manager.register_callback("post_tool_call", broken, owner="a")
    hooks.manager.register_callback("post_tool_call", _recorder("b", seen), owner="b")
    hooks.post_tool_call(**tool_payload(result="ok"))
    assert [name for name, _ in seen] == ["b"]


def test_close_stops_the_idle_firing_workers(make_hooks: Any) -> None:
    hooks = make_hooks(timeout=30)
    ran_on: list[threading.Thread] = []
    hooks.manager.register_callback(
        "pre_tool_call", lambda **kw: ran_on.append(threading.current_thread()), owner="a"
    )
    hooks.pre_tool_call(**tool_payload())
    (worker,) = ran_on
    assert worker.name == "hermes-hooks:firing" and worker.is_alive()  # idle, kept
    hooks.close()
    worker.join(5)
    assert not worker.is_alive()


def test_decision_records_reach_subscribers_on_the_firing_thread(make_hooks: Any) -> None:
    hooks = make_hooks(timeout=30)
    seen: list[tuple[str, int]] = []
    records: list[tuple[str, str, int]] = []
    hooks.subscribe(lambda r: records.append((r.callback, r.verdict, threading.get_ident())))
    hooks.manager.register_callback("pre_tool_call", _recorder("a", seen), owner="a")
    blocker = _recorder("b", seen, {"action": "block", "message": "no"})
    hooks.manager.register_callback("pre_tool_call", blocker, owner="b")
    assert hooks.pre_tool_call(**tool_payload()).action == "block"
    me = threading.get_ident()
    assert [(verdict, ident) for _, verdict, ident in records] == [("none", me), ("block", me)]
    assert all(ident != me for _, ident in seen)  # the callbacks ran on the worker
