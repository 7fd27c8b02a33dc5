"""emit(): lanes, isolation, copies, order and bounds (GW-02, GW-07, GW-09, D-01, D-05)."""

from __future__ import annotations

import asyncio
import gc
import logging
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks._workers import TimedOut
from hermes_hooks.gateway.lanes import _bounded_by_timer, await_bounded
from hermes_hooks.hooks import Hooks
from tests.gateway import probe
from tests.gateway.helpers import RECORD_ASYNC, messages, run, write_hook

# Blocks (sync, on its worker thread) until the test opens gate "<key>"; tells when done.
BLOCK_SYNC = """
from tests.gateway import probe

def handle(event_type, context):
    key = __name__.removeprefix("hermes_hook_")
    probe.gate(key + ":started").set()
    probe.gate(key).wait(10)
    probe.record(__name__, event_type, context)
"""

# The async twin: awaits the asyncio.Event the test parks in probe.notes[0], an object of
# the gateway's loop, so it says host_loop: true (HOST_LOOP).
BLOCK_ASYNC = """
from tests.gateway import probe

async def handle(event_type, context):
    key = __name__.removeprefix("hermes_hook_")
    probe.gate(key + ":started").set()
    await probe.notes[0].wait()
    probe.record(__name__, event_type, context)
"""

HOST_LOOP = "name: slow\nhost_loop: true\nevents: [agent:start]\n"

# An async handler on its own loop, awaiting a gate the test opens from its thread.
BLOCK_ASYNC_OWN_LOOP = """
import asyncio
from tests.gateway import probe

async def handle(event_type, context):
    key = __name__.removeprefix("hermes_hook_")
    probe.gate(key + ":started").set()
    await asyncio.to_thread(probe.gate(key).wait, 10)
    probe.record(__name__, event_type, context)
"""

RAISE_ON_START = """
from tests.gateway import probe

def handle(event_type, context):
    if event_type == "agent:start":
        raise ValueError("boom")
    probe.record(__name__, event_type, context)
"""

CONTEXT = {
    "platform": "telegram",
    "user_id": "u1",
    "session_id": "s1",
    "message": "hello",
    "tool_names": ["terminal"],
}


async def wait_for_gate(name: str) -> bool:
    return await asyncio.to_thread(probe.gate(name).wait, 5)


@pytest.mark.parametrize(
    ("body", "manifest"),
    [(BLOCK_SYNC, None), (BLOCK_ASYNC_OWN_LOOP, None), (BLOCK_ASYNC, HOST_LOOP)],
    ids=["sync", "async", "async-host-loop"],
)
def test_a_sleeping_handler_does_not_delay_emit(
    hooks_dir: Path, load_gateway: Any, body: str, manifest: str | None
) -> None:
    write_hook(hooks_dir, "slow", body=body, manifest=manifest)
    write_hook(hooks_dir, "quick")
    hooks: Hooks = load_gateway()

    async def main() -> None:
        probe.notes.append(asyncio.Event())
        await hooks.gateway.emit("agent:start", CONTEXT)
        # emit() has returned; the slow handler now starts and stays blocked ...
        assert await wait_for_gate("slow:started")
        assert probe.seen("slow") == []
        # ... while the other hook, on its own lane, is served meanwhile.
        await asyncio.wait_for(_until(lambda: probe.seen("quick")), 5)
        assert probe.seen("slow") == []
        probe.gate("slow").set()
        probe.notes[0].set()
        assert await hooks.gateway.drain(5)

    run(main())
    assert probe.seen("slow") == [("agent:start", CONTEXT)]


async def _until(predicate: Any) -> None:
    while not predicate():
        await asyncio.sleep(0.005)


def test_a_raising_handler_does_not_stop_the_next(
    hooks_dir: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture
) -> None:
    write_hook(hooks_dir, "a-raises", body=RAISE_ON_START)
    write_hook(hooks_dir, "b-records", events=["agent:start", "agent:end"])
    hooks: Hooks = load_gateway()

    async def main() -> None:
        await hooks.gateway.emit("agent:start", CONTEXT)
        await hooks.gateway.emit("agent:start", CONTEXT)
        assert await hooks.gateway.drain(5)

    run(main())
    assert [event for event, _ in probe.seen("b-records")] == ["agent:start", "agent:start"]
    path = hooks_dir / "a-raises" / "handler.py"
    line = f"[hooks] Error in a-raises ({path}) handling agent:start: ValueError: boom"
    assert messages(caplog) == [line]  # once, however often it fails
    assert messages(caplog, logging.DEBUG).count(line) == 1


def test_a_failing_handler_keeps_its_lane(hooks_dir: Path, load_gateway: Any) -> None:
    write_hook(hooks_dir, "flaky", events=["agent:*"], body=RAISE_ON_START)
    hooks: Hooks = load_gateway()

    async def main() -> None:
        await hooks.gateway.emit("agent:start", CONTEXT)
        await hooks.gateway.emit("agent:end", CONTEXT)
        assert await hooks.gateway.drain(5)

    run(main())
    assert [event for event, _ in probe.seen("flaky")] == ["agent:end"]


def test_system_exit_is_caught_and_logged(
    hooks_dir: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture
) -> None:
    write_hook(hooks_dir, "quitter", body="async def handle(e, c):\n    raise SystemExit(2)\n")
    write_hook(hooks_dir, "survivor")
    hooks: Hooks = load_gateway()

    async def main() -> None:
        await hooks.gateway.emit("agent:start", {})
        assert await hooks.gateway.drain(5)

    run(main())
    path = hooks_dir / "quitter" / "handler.py"
    assert messages(caplog) == [
        f"[hooks] Error in quitter ({path}) handling agent:start: SystemExit: 2"
    ]
    assert len(probe.seen("survivor")) == 1


@pytest.mark.parametrize("kind", ["def", "async def"])
def test_keyboard_interrupt_is_never_swallowed(
    hooks_dir: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture, kind: str
) -> None:
    write_hook(hooks_dir, "ctrl-c", body=f"{kind} handle(e, c):\n    raise KeyboardInterrupt\n")
    hooks: Hooks = load_gateway()

    async def main() -> None:
        await hooks.gateway.emit("agent:start", {})
        await hooks.gateway.drain(5)

    with pytest.raises(KeyboardInterrupt):
        run(main())
    # The interrupt left the loop once; asyncio must not log it again at collection.
    gc.collect()
    assert [r for r in caplog.records if r.name == "asyncio"] == []


MUTATE = """
from tests.gateway import probe

def handle(event_type, context):
    context["message"] = "changed"
    context["tool_names"].append("rm -rf")
    context["injected"] = True
    probe.record(__name__, event_type, dict(context))
"""


@pytest.mark.parametrize("second", [RECORD_ASYNC, MUTATE.replace("def handle", "async def handle")])
def test_a_handler_mutating_its_context_changes_nothing_for_the_next(
    hooks_dir: Path, load_gateway: Any, second: str
) -> None:
    write_hook(hooks_dir, "a-mutates", body=MUTATE)
    write_hook(hooks_dir, "b-reads", body=second)
    hooks: Hooks = load_gateway()
    context = {**CONTEXT, "tool_names": ["terminal"]}

    async def main() -> None:
        await hooks.gateway.emit("agent:start", context)
        await hooks.gateway.emit("agent:start", context)
        assert await hooks.gateway.drain(5)

    run(main())
    assert context == CONTEXT  # the caller's dict is untouched
    mutated = {
        **CONTEXT,
        "message": "changed",
        "tool_names": ["terminal", "rm -rf"],
        "injected": True,
    }
    # Every call starts from the original: its own deep copy, even on the same lane.
    assert [c for _, c in probe.seen("a-mutates")] == [mutated, mutated]
    if second is RECORD_ASYNC:
        assert [c for _, c in probe.seen("b-reads")] == [CONTEXT, CONTEXT]


ORDER_ASYNC = """
from tests.gateway import probe

async def handle(event_type, context):
    probe.record(__name__, event_type, context)
"""


def test_exact_subscribers_first_then_wildcards_each_by_directory_name(
    hooks_dir: Path, load_gateway: Any
) -> None:
    # On the host's loop, lanes start in the order they were queued, which shows that
    # order (on their own loops, lanes of different hooks run side by side).
    def hook(key: str, events: list[str]) -> None:
        manifest = f"host_loop: true\nevents: [{', '.join(events)}]\n"
        write_hook(hooks_dir, key, body=ORDER_ASYNC, manifest=manifest)

    hook("a-wild", ["agent:*"])
    hook("b-exact", ["agent:start"])
    hook("c-both", ["agent:*", "agent:start"])
    hook("d-exact", ["agent:start"])
    hook("e-other", ["session:*"])
    hooks: Hooks = load_gateway()
    order = [h.key for h in hooks.gateway.subscribers("agent:start")]
    assert order == ["b-exact", "c-both", "d-exact", "a-wild"]
    assert [h.key for h in hooks.gateway.subscribers("agent:end")] == ["a-wild", "c-both"]

    async def main() -> None:
        await hooks.gateway.emit("agent:start", {})
        assert await hooks.gateway.drain(5)

    run(main())
    # Enqueued in that order, and a hook subscribed both ways gets the event once.
    assert [key for key, _, _ in probe.calls] == order


def test_one_lane_delivers_in_fifo_order(hooks_dir: Path, load_gateway: Any) -> None:
    write_hook(hooks_dir, "steps", events=["agent:step"], body=RECORD_ASYNC.replace("async ", ""))
    hooks: Hooks = load_gateway()

    async def main() -> None:
        for i in range(20):
            await hooks.gateway.emit("agent:step", {"iteration": i})
        assert await hooks.gateway.drain(5)

    run(main())
    assert [c["iteration"] for _, c in probe.seen("steps")] == list(range(20))


def test_a_full_lane_drops_the_new_event_with_the_d01_warning(
    hooks_dir: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture
) -> None:
    body = """
    import asyncio
    from tests.gateway import probe

    async def handle(event_type, context):
        if context["iteration"] == 0:  # hold the lane until the test has filled it
            probe.gate("busy:started").set()
            await asyncio.to_thread(probe.gate("busy").wait, 10)
        probe.record(__name__, event_type, context)
    """
    write_hook(hooks_dir, "busy", events=["agent:step"], body=body)
    hooks: Hooks = load_gateway()
    dropped: list[str] = []
    hooks.gateway.subscribe(lambda r: dropped.append(r.event) if r.outcome == "dropped" else None)
    caplog.set_level(logging.DEBUG, logger="gateway.hooks")

    async def main() -> None:
        await hooks.gateway.emit("agent:step", {"iteration": 0})
        assert await wait_for_gate("busy:started")
        for i in range(1, 259):  # 256 fit behind the held one; the last two are dropped
            await hooks.gateway.emit("agent:step", {"iteration": i})
        probe.gate("busy").set()
        assert await hooks.gateway.drain(5)

    run(main())
    full = "[hooks] Queue full for busy (256 pending) — dropping agent:step"
    # Logged once at WARNING (a flood of drops must not flood the log), the repeat at
    # DEBUG; every drop is still recorded.
    assert messages(caplog) == [full]
    assert messages(caplog, logging.DEBUG).count(full) == 1
    assert dropped == ["agent:step", "agent:step"]
    assert [c["iteration"] for _, c in probe.seen("busy")] == list(range(257))


def test_an_async_handler_is_cancelled_at_the_limit(
    hooks_dir: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture
) -> None:
    body = """
    import asyncio
    from tests.gateway import probe

    async def handle(event_type, context):
        if event_type == "agent:start":
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                probe.notes.append("cancelled")
                raise
        probe.record(__name__, event_type, context)
    """
    write_hook(hooks_dir, "hangs", events=["agent:*"], body=body)
    hooks: Hooks = load_gateway(timeout=0.2)

    async def main() -> None:
        await hooks.gateway.emit("agent:start", {})
        await hooks.gateway.emit("agent:end", {})
        assert await hooks.gateway.drain(5)

    run(main())
    assert probe.notes == ["cancelled"]
    assert [e for e, _ in probe.seen("hangs")] == ["agent:end"]
    path = hooks_dir / "hangs" / "handler.py"
    assert messages(caplog) == [
        f"[hooks] hangs ({path}) timed out after 0.2 s handling agent:start — cancelled"
    ]


def test_a_sync_handler_is_abandoned_at_the_limit(
    hooks_dir: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture
) -> None:
    body = """
    from tests.gateway import probe

    def handle(event_type, context):
        if event_type == "agent:start":
            probe.gate("stuck").wait(10)
            probe.notes.append("finished late")
        probe.record(__name__, event_type, context)
    """
    write_hook(hooks_dir, "stuck", events=["agent:*"], body=body)
    hooks: Hooks = load_gateway(timeout=0.2)

    async def main() -> None:
        await hooks.gateway.emit("agent:start", {})
        await hooks.gateway.emit("agent:end", {})
        assert await hooks.gateway.drain(5)
        # The lane moved on while the first call is still running on its thread.
        assert probe.notes == []
        assert [e for e, _ in probe.seen("stuck")] == ["agent:end"]
        assert hooks.gateway.hooks[0].runner.abandoned_alive == 1
        probe.gate("stuck").set()

    run(main())
    path = hooks_dir / "stuck" / "handler.py"
    assert messages(caplog) == [
        f"[hooks] stuck ({path}) timed out after 0.2 s handling agent:start "
        "— abandoned on its thread"
    ]


def test_a_hook_with_three_hung_workers_is_skipped(
    hooks_dir: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture
) -> None:
    write_hook(hooks_dir, "hung", body=BLOCK_SYNC)
    hooks: Hooks = load_gateway(timeout=0.2)

    async def main() -> None:
        for _ in range(4):
            await hooks.gateway.emit("agent:start", {})
        assert await hooks.gateway.drain(5)

    run(main())
    path = hooks_dir / "hung" / "handler.py"
    assert messages(caplog)[-1] == (
        f"[hooks] hung ({path}) skipped agent:start: 3 abandoned worker(s) still running "
        "— the handler is hung; fix or disable it"
    )


def test_timeout_zero_means_no_limit(hooks_dir: Path, load_gateway: Any) -> None:
    write_hook(hooks_dir, "patient", body=BLOCK_SYNC)
    hooks: Hooks = load_gateway(timeout=0)

    async def main() -> None:
        await hooks.gateway.emit("agent:start", {})
        assert await wait_for_gate("patient:started")
        assert not await hooks.gateway.drain(0.3)  # still running: never cut off
        probe.gate("patient").set()
        assert await hooks.gateway.drain(5)

    run(main())
    assert len(probe.seen("patient")) == 1


def test_emit_never_raises_into_the_host(
    hooks_dir: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture
) -> None:
    write_hook(hooks_dir, "any")
    hooks: Hooks = load_gateway()

    async def main() -> None:
        await hooks.gateway.emit("agent:start", ["not", "a", "dict"])  # type: ignore[arg-type]
        await hooks.gateway.emit(42, {})  # type: ignore[arg-type]
        await hooks.gateway.emit("agent:start", {"lock": asyncio.Lock(), "n": [1]})
        assert await hooks.gateway.drain(5)

    run(main())
    assert messages(caplog) == [
        "[hooks] emit('agent:start') needs a dict context, got list; event dropped",
        "[hooks] emit() needs an event name, got 42",
    ]
    ((_, context),) = probe.seen("any")
    assert context["n"] == [1]


def test_close_stops_the_lanes(hooks_dir: Path, load_gateway: Any) -> None:
    write_hook(hooks_dir, "late")
    hooks: Hooks = load_gateway()
    hooks.close(1.0)

    async def main() -> None:
        await hooks.gateway.emit("agent:start", {})
        assert await hooks.gateway.drain(1)

    run(main())
    assert hooks.gateway.closed
    assert probe.calls == []


def test_an_empty_hooks_object_has_an_emitter_without_hooks(make_hooks: Any) -> None:
    hooks: Hooks = make_hooks()

    async def main() -> Any:
        await hooks.gateway.emit("agent:start", {})
        assert await hooks.gateway.drain(1)
        return await hooks.gateway.emit_command("reset", "")

    assert run(main()).action == "allow"
    assert hooks.gateway.hooks == ()


@pytest.mark.parametrize("bound", [await_bounded, _bounded_by_timer], ids=["default", "py310"])
def test_the_bound_cancels_in_the_current_task(bound: Any) -> None:
    async def forever() -> None:
        await asyncio.Event().wait()

    async def quits() -> None:
        raise SystemExit(5)

    async def main() -> None:
        with pytest.raises(TimedOut, match=r"cancelled after 0\.1 s"):
            await bound(forever(), 0.1)
        task = asyncio.current_task()
        assert task is not None and getattr(task, "cancelling", lambda: 0)() == 0
        # A SystemExit reaches the caller's except clause instead of escaping the loop.
        with pytest.raises(SystemExit):
            await bound(quits(), 5)
        assert await bound(asyncio.sleep(0, result="done"), 5) == "done"

    run(main())


def test_values_beyond_json_are_deep_copied_too(hooks_dir: Path, load_gateway: Any) -> None:
    mutate_set = """
    from tests.gateway import probe

    def handle(event_type, context):
        context["tags"].add("mutated")
        context["pair"][1].append("mutated")
        probe.record(__name__, event_type, context)
    """
    write_hook(hooks_dir, "a-mutates", body=mutate_set)
    write_hook(hooks_dir, "b-reads")
    hooks: Hooks = load_gateway()
    context = {"tags": {"vip"}, "pair": ("x", ["y"])}

    async def main() -> None:
        await hooks.gateway.emit("agent:start", context)
        assert await hooks.gateway.drain(5)

    run(main())
    assert probe.seen("b-reads") == [("agent:start", {"tags": {"vip"}, "pair": ("x", ["y"])})]
    assert context == {"tags": {"vip"}, "pair": ("x", ["y"])}


@pytest.mark.parametrize("shape", ["deep", "cyclic"])
def test_emit_never_raises_on_a_deep_or_cyclic_context(
    hooks_dir: Path, load_gateway: Any, shape: str
) -> None:
    write_hook(hooks_dir, "any")
    hooks: Hooks = load_gateway()
    context: dict[str, Any] = {"n": 1}
    if shape == "deep":
        inner: dict[str, Any] = context
        for _ in range(100_000):  # far past the recursion limit
            inner["next"] = {}
            inner = inner["next"]
    else:
        context["self"] = context

    async def main() -> None:
        await hooks.gateway.emit("agent:start", context)
        assert await hooks.gateway.drain(5)

    run(main())
    ((event, received),) = probe.seen("any")
    assert (event, received["n"]) == ("agent:start", 1)
    if shape == "cyclic":  # deep-copied with its cycle, not shared with the host
        copied = received["self"]
        assert copied["self"] is copied and copied is not context


@pytest.mark.parametrize(
    ("manifest", "loop"),
    [
        (None, "its own event loop"),
        ("host_loop: true\nevents: [command:reset]\n", "the gateway's event loop"),
    ],
    ids=["own-loop", "host-loop"],
)
def test_an_async_handler_that_blocks_the_loop_past_the_limit_does_not_decide(
    hooks_dir: Path,
    load_gateway: Any,
    caplog: pytest.LogCaptureFixture,
    manifest: str | None,
    loop: str,
) -> None:
    body = """
    import time

    async def handle(event_type, context):
        time.sleep(0.5)  # blocks the loop: the bound cannot cancel it
        return {"decision": "deny", "message": "too late to count"}
    """
    write_hook(hooks_dir, "sleepy", events=["command:reset"], body=body, manifest=manifest)
    hooks: Hooks = load_gateway(timeout=0.2)

    decision = run(hooks.gateway.emit_command("reset"))
    assert decision.allowed
    path = hooks_dir / "sleepy" / "handler.py"
    assert messages(caplog) == [
        f"[hooks] sleepy ({path}) timed out after 0.2 s handling command:reset — it blocked "
        f"{loop} instead of awaiting, so it could not be cancelled; its answer is "
        "ignored. Fix: await (asyncio.sleep, asyncio.to_thread for blocking work) inside "
        "async handlers"
    ]
