"""Leaks and bounds: threads, descriptors, memory and processes stay bounded however
many firings go through, and a timed-out shell hook leaves no process behind.

Sizes follow ``HERMES_ROBUST_SCALE`` (see ``conftest.py``): the normal suite runs a
fifth of the issue's numbers; ``tox -e leaks`` runs them in full (10,000 bounded
firings, 1,000 shell firings, 10,000 webhook and gateway events) and prints every
figure.  No assertion involves time: only counts.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml

import hermes_hooks
from hermes_hooks import _workers, testing
from hermes_hooks.gateway.lanes import LANE_CAPACITY
from hermes_hooks.hooks import Hooks
from hermes_hooks.shell.run import run_command
from hermes_hooks.webhooks.delivery import DURABLE_CAPACITY, QUEUE_CAPACITY, DurableLane
from hermes_hooks.webhooks.source import OutboundSource
from tests.gateway.helpers import write_hook
from tests.helpers import tool_payload
from tests.outbound.endpoint import closed_port, wait_until
from tests.robustness import probe
from tests.robustness.helpers import scale
from tests.robustness.resources import (
    descendants,
    marked_processes,
    snapshot,
    traced_memory,
    zombie_children,
)
from tests.shell.helpers import approve, write_script

KIB = 1024


@contextmanager
def counted_logs(*names: str) -> Iterator[dict[str, int]]:
    """Count records per level without keeping them (pytest's capture would hold
    thousands of records and read as a leak); the redaction filter still runs."""
    counts: dict[str, int] = {}

    class Counter(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            counts[record.levelname] = counts.get(record.levelname, 0) + 1

    handler = Counter(logging.DEBUG)
    loggers = [logging.getLogger(name) for name in names]
    saved = [(logger.propagate, logger.level) for logger in loggers]
    for logger in loggers:
        logger.propagate = False
        logger.setLevel(logging.DEBUG)
        logger.addHandler(handler)
    try:
        yield counts
    finally:
        for logger, (propagate, level) in zip(loggers, saved, strict=True):
            logger.removeHandler(handler)
            logger.propagate = propagate
            logger.setLevel(level)


# -- bounded plugin callbacks ----------------------------------------------------------


def _register_fast_slow_hung(hooks: Hooks) -> threading.Event:
    release = probe.gate("leak-hung")

    def fast(**kwargs: Any) -> None:
        return None

    def slow(**kwargs: Any) -> dict[str, Any]:
        time.sleep(0.0005)  # well inside the limit: it always answers
        return {"action": "modify", "args": {"checked": True}}

    def hung(**kwargs: Any) -> None:
        release.wait()

    hooks.manager.register_callback("pre_tool_call", fast, owner="a-fast")
    hooks.manager.register_callback("pre_tool_call", slow, owner="b-slow")
    hooks.manager.register_callback("pre_tool_call", hung, owner="c-hung")
    return release


@pytest.mark.parametrize("suppression", ["D-14 window", "no window"])
def test_bounded_firings_with_a_fast_a_slow_and_a_hung_callback_stay_bounded(
    make_hooks: Callable[..., Hooks],
    monkeypatch: pytest.MonkeyPatch,
    figures: dict[str, object],
    suppression: str,
) -> None:
    # "no window" sets the 60 s suppression to 0, so every firing tries the hung
    # callback again: the abandoned-worker cap (3) is then what bounds the threads.
    if suppression == "no window":
        monkeypatch.setattr(_workers, "SUPPRESSION_SECONDS", 0.0)
    firings = scale(2_000, 10_000)
    hooks = make_hooks(timeout=0.05)
    release = _register_fast_slow_hung(hooks)
    messages: set[str | None] = set()
    try:
        with traced_memory(), counted_logs("hermes_hooks"):
            for i in range(100):  # warm-up: pools, caches, the first abandonment
                hooks.pre_tool_call(**tool_payload(tool_call_id=f"warm-{i}"))
            before = snapshot()
            for i in range(firings):
                decision = hooks.pre_tool_call(**tool_payload(tool_call_id=f"call-{i}"))
                messages.add(decision.message)
            after = snapshot()
    finally:
        release.set()
    figures.update(firings=firings, before=before.line(), after=after.line())
    assert messages == {"pre_tool_call plugin callback timed out or is still running"}
    assert after.threads - before.threads <= _workers.ABANDONED_CAP - 1
    assert after.fds == before.fds
    assert after.traced_kib - before.traced_kib < 512


def test_distinct_huge_failure_messages_do_not_pin_memory(
    make_hooks: Callable[..., Hooks], figures: dict[str, object]
) -> None:
    firings = scale(2_000, 10_000)
    hooks = make_hooks(timeout=5.0)

    def chatty(tool_call_id: str, **kwargs: Any) -> None:
        raise ValueError(tool_call_id + "x" * 10_000)  # a new 10 KB message every time

    hooks.manager.register_callback("post_tool_call", chatty, owner="chatty")
    with traced_memory(), counted_logs("hermes_hooks") as logged:
        for i in range(100):
            testing.fire(hooks, "post_tool_call", tool_call_id=f"warm-{i}")
        before = snapshot()
        for i in range(firings):
            testing.fire(hooks, "post_tool_call", tool_call_id=f"call-{i}")
        after = snapshot()
    figures.update(firings=firings, before=before.line(), after=after.line(), logs=logged)
    assert logged["WARNING"] == 100 + firings  # each distinct message warned once
    assert after.traced_kib - before.traced_kib < 4 * KIB  # not firings x 10 KB


# -- shell hooks ---------------------------------------------------------------------------


HANG_SCRIPT = """#!{python}
import os, sys, time
sys.stdin.buffer.read()
if os.fork() == 0:  # a helper in the hook's process group, same command line
    time.sleep(300)
    os._exit(0)
time.sleep(300)
"""
FAST_SCRIPT = """#!/bin/sh
cat >/dev/null
echo '{{"action": "approve", "message": "ok"}}'
"""


def test_shell_firings_with_timeouts_leave_no_child_zombie_or_orphan(
    home: Path, tmp_path: Path, figures: dict[str, object]
) -> None:
    marker = f"hermes-robust-{uuid.uuid4().hex[:12]}"
    where = tmp_path / marker  # every hook's command line holds the marker
    fast = write_script(where / "fast.sh", FAST_SCRIPT.format())
    hang = write_script(where / "hang.py", HANG_SCRIPT.format(python=sys.executable))
    config = {
        "hooks": {
            "pre_tool_call": [
                {"command": str(fast), "timeout": 30},
                {"command": str(hang), "matcher": "hang_tool", "timeout": 1},
            ]
        }
    }
    (home / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    approve(home, "pre_tool_call", str(fast))
    approve(home, "pre_tool_call", str(hang))
    firings = scale(100, 1_000)
    hanging = scale(4, 50)  # every (firings // hanging)-th firing reaches its timeout
    step = firings // hanging
    hooks = hermes_hooks.load(home, entry_points=False)
    before = snapshot(orphans=len(marked_processes(marker)))
    answers: dict[int, tuple[str, str | None]] = {}
    lock = threading.Lock()

    def worker(offset: int) -> None:
        for i in range(offset, firings, 8):
            tool = "hang_tool" if i % step == 0 else "terminal"
            decision = hooks.pre_tool_call(**tool_payload(tool_name=tool, tool_call_id=f"c{i}"))
            with lock:
                answers[i] = (decision.action, decision.message)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    with counted_logs("hermes_hooks"):
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    hooks.close()
    # SIGKILL is immediate, but the kernel tears processes down asynchronously: wait
    # (bounded) until they are gone, then count.
    wait_until(lambda: not marked_processes(marker) and not descendants(), timeout=30)
    after = snapshot(orphans=len(marked_processes(marker)))
    figures.update(
        firings=firings,
        timed_out=len(range(0, firings, step)),
        before=before.line(),
        after=after.line(),
    )
    assert set(answers.values()) == {("approve", "ok")}  # timeouts fail open, fast answers
    assert len(answers) == firings
    assert after.children == 0 and after.zombies == 0 and zombie_children() == []
    assert after.extra["orphans"] == 0
    assert after.fds == before.fds


HANG_SH = """#!/bin/sh
( while :; do sleep 1; done ) &
exec sleep 300
"""


def test_every_timed_out_run_takes_its_whole_process_group_down(
    tmp_path: Path, figures: dict[str, object]
) -> None:
    # The runner itself, with a timeout below the config's 1 s minimum, so the issue's
    # thousand firings can *all* time out: each leaves a looping helper (a subshell,
    # whose command line holds the marker) and a sleeping child behind.
    marker = f"hermes-robust-{uuid.uuid4().hex[:12]}"
    script = write_script(tmp_path / marker / "hang.sh", HANG_SH)
    runs = scale(100, 1_000)
    before = snapshot(orphans=len(marked_processes(marker)))
    outcomes: list[bool] = []

    def worker(count: int) -> None:
        for _ in range(count):
            outcomes.append(run_command((str(script),), b"{}", 0.05).timed_out)

    threads = [threading.Thread(target=worker, args=(runs // 8,)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wait_until(lambda: not marked_processes(marker) and not descendants(), timeout=30)
    after = snapshot(orphans=len(marked_processes(marker)))
    figures.update(runs=len(outcomes), before=before.line(), after=after.line())
    assert outcomes == [True] * (runs // 8 * 8)
    assert (after.children, after.zombies, after.extra["orphans"]) == (0, 0, 0)
    assert after.fds == before.fds


# -- outbound webhooks -----------------------------------------------------------------------


@pytest.mark.parametrize("durable", [False, True], ids=["memory-lane", "durable-lane"])
def test_events_to_a_dead_endpoint_stay_within_the_queue_caps(
    home: Path, figures: dict[str, object], durable: bool
) -> None:
    # durable events are SQLite inserts: fewer of them in the normal suite
    events = scale(500 if durable else 2_000, 10_000)
    url = f"http://127.0.0.1:{closed_port()}/hook"  # connections are refused
    target = {
        "name": "dead",
        "url": url,
        "events": ["post_tool_call"],
        "durable": durable,
        "retry_schedule": [0.05],  # fail fast, so the warm-up sees whole failure cycles
    }
    (home / "config.yaml").write_text(
        yaml.safe_dump({"hooks": {"outbound": [target]}}), encoding="utf-8"
    )
    hooks = hermes_hooks.load(home, entry_points=False)
    source = hooks.sources["outbound"]
    assert isinstance(source, OutboundSource)
    lane = source.lanes[0]
    warm = QUEUE_CAPACITY + 50  # past the cap: from here on memory must stay flat
    with traced_memory(), counted_logs("hermes_hooks") as logged:
        for _ in range(warm):
            testing.fire(hooks, "post_tool_call")
        # One-time costs (httpcore imports lazily on the first request) belong to the
        # warm-up: wait until the worker has been through a few failed attempts.
        wait_until(lambda: lane.stats.attempts >= 4)
        before = snapshot()
        for _ in range(events):
            testing.fire(hooks, "post_tool_call")
        if isinstance(lane, DurableLane):  # its worker stores what the agent handed it
            outbox = lane.outbox
            wait_until(lambda: outbox.count(target="dead") + lane.stats.dropped >= warm + events)
        with lane._cond:  # one consistent reading of the lane's books
            queued, in_flight = len(lane._items), int(lane._in_flight)
            dropped, failed = lane.stats.dropped, lane.stats.failed
        after = snapshot(queued=queued, dropped=dropped, failed=failed)
    if isinstance(lane, DurableLane):  # before close, which closes the outbox
        stored = lane.outbox.count(target="dead")
        pending = lane.outbox.count(target="dead", state="pending")
    hooks.close(0.5)
    figures.update(events=events, before=before.line(), after=after.line(), logs=logged)
    assert after.threads - before.threads <= 1  # one worker per lane, started at most once
    if durable:  # on disk, not in memory: every event is in the outbox or dropped
        assert stored + dropped == warm + events
        assert pending <= DURABLE_CAPACITY
        assert queued == 0
    else:  # D-81: 256 pending at most; every event is queued, failed or dropped
        assert queued <= QUEUE_CAPACITY
        assert warm + events <= dropped + failed + queued + in_flight <= warm + events + 1
        assert dropped >= events - failed - QUEUE_CAPACITY
        assert logged.get("WARNING", 0) <= 3  # warned once per kind, not per event
    assert after.traced_kib - before.traced_kib < 128  # flat: nothing grows per event


# -- gateway lanes and stream lanes ------------------------------------------------------------


def test_events_to_a_stuck_gateway_hook_stay_within_its_lane(
    home: Path, figures: dict[str, object]
) -> None:
    write_hook(
        home / "hooks",
        "stuck",
        ("agent:*",),
        "import asyncio\n"
        "async def handle(event_type, context):\n"
        "    await asyncio.Event().wait()  # never set: stuck until cancelled\n",
    )
    (home / "config.yaml").write_text("plugins: {hook_callback_timeout: 0}\n", encoding="utf-8")
    hooks = hermes_hooks.load(home, surface="gateway", entry_points=False)
    events = scale(2_000, 10_000)

    async def flood() -> tuple[Any, Any, int]:
        context = {"platform": "telegram", "user_id": "u", "message": "m" * 200}
        for _ in range(LANE_CAPACITY + 50):  # past the cap: memory must stay flat
            await hooks.gateway.emit("agent:step", context)
        await asyncio.sleep(0)
        first = snapshot()
        for _ in range(events):
            await hooks.gateway.emit("agent:step", context)
        lane = hooks.gateway.hooks[0].lane
        assert lane is not None
        return first, snapshot(pending=len(lane._pending)), len(lane._pending)

    with traced_memory(), counted_logs("gateway.hooks", "hermes_hooks") as logged:
        before, after, pending = asyncio.run(flood())
    hooks.close(0.5)
    figures.update(events=events, before=before.line(), after=after.line(), logs=logged)
    assert pending <= LANE_CAPACITY  # D-01: 256 pending at most
    # The first drop is a WARNING, every later one a DEBUG line: a flood of drops must
    # not flood the log.  Every one of the `events` is dropped (the lane stays full).
    assert logged["WARNING"] == 1
    assert logged["WARNING"] + logged["DEBUG"] >= events
    # not equal: an idle worker left by an earlier test may end meanwhile; none may start
    assert after.threads <= before.threads
    assert after.traced_kib - before.traced_kib < 128


def test_events_to_a_stuck_stream_observer_stay_within_its_queue(
    make_hooks: Callable[..., Hooks], figures: dict[str, object]
) -> None:
    hooks = make_hooks()
    release = probe.gate("leak-stream")
    hooks.manager.register_callback("on_stream_delta", lambda **kw: release.wait(), owner="stuck")
    events = scale(4_000, 10_000)
    try:
        with traced_memory(), counted_logs("hermes_hooks"):
            for _ in range(1100):  # past the queue size: the deque is at its cap
                testing.fire(hooks, "on_stream_delta")
            before = snapshot()
            for _ in range(events):
                testing.fire(hooks, "on_stream_delta")
            lane = hooks.dispatcher.lane("stuck")
            assert lane is not None
            after = snapshot(pending=lane.pending, dropped=lane.dropped)
    finally:
        release.set()
    figures.update(events=events, before=before.line(), after=after.line())
    assert lane.pending <= 1024  # bounded queue (D-61)
    # not equal: an idle worker left by an earlier test may end meanwhile; none may start
    assert after.threads <= before.threads
    assert after.traced_kib - before.traced_kib < 256


# -- the worker-thread budget ------------------------------------------------------------


def _our_threads() -> dict[int | None, str]:
    """The threads hermes-hooks started (workers, lanes, helpers), by ident.  The
    webhook attempt watchdog is left out: it is one thread for the whole process, which
    another test's delivery may start at any time."""
    return {
        t.ident: t.name
        for t in threading.enumerate()
        if t.name.startswith(("hermes", "claude-async")) and t.name != "hermes-hooks-watchdog"
    }


def _hermes_workers() -> int:
    return sum(1 for t in threading.enumerate() if t.name.startswith("hermes-hooks:"))


def test_a_burst_of_concurrent_firings_stays_within_the_thread_budget(
    make_hooks: Callable[..., Hooks],
    monkeypatch: pytest.MonkeyPatch,
    figures: dict[str, object],
) -> None:
    """300 firings at once with three callbacks used to leave 862 threads alive."""
    monkeypatch.setattr(_workers, "IDLE_SECONDS", 0.2)  # reclaim idle workers quickly
    burst = 300
    hooks = make_hooks(timeout=60.0)
    peak = [0]
    lock = threading.Lock()

    def busy_callback() -> Callable[..., None]:
        def busy(**kwargs: Any) -> None:
            with lock:
                peak[0] = max(peak[0], _hermes_workers())
            time.sleep(0.002)  # long enough for firings to overlap

        return busy

    for owner in ("a", "b", "c"):
        hooks.manager.register_callback("pre_tool_call", busy_callback(), owner=owner)
    before = snapshot()
    ours_before = _our_threads()
    start = threading.Barrier(burst)
    blocked: list[bool] = []

    def fire(n: int) -> None:
        start.wait()
        blocked.append(hooks.pre_tool_call(**tool_payload(tool_call_id=f"burst-{n}")).blocked)

    hosts = [threading.Thread(target=fire, args=(n,)) for n in range(burst)]
    for thread in hosts:
        thread.start()
    for thread in hosts:
        thread.join()
    # Workers beyond the idle allowance were told to stop as the burst ended; wait for
    # them to finish exiting (a hang guard), then for the idle ones to time out.
    wait_until(lambda: _hermes_workers() <= 3 * _workers.MAX_IDLE_PER_CALLBACK)
    right_after = _hermes_workers()
    wait_until(lambda: _hermes_workers() == 0, timeout=30)  # idle workers exit
    after = snapshot()
    figures.update(
        burst=burst,
        callbacks=3,
        worker_threads_peak=peak[0],
        worker_threads_right_after=right_after,
        worker_threads_after_idle=_hermes_workers(),
        before=before.line(),
        after=after.line(),
    )
    assert blocked == [False] * burst  # every firing ran every callback
    assert peak[0] <= _workers.MAX_WORKERS
    # Our threads that this burst started are all gone (another test's may still end).
    assert [name for ident, name in _our_threads().items() if ident not in ours_before] == []
    assert _workers.workers_alive() == 0


def test_a_callback_re_firing_hooks_spends_no_threads(
    make_hooks: Callable[..., Hooks], figures: dict[str, object]
) -> None:
    """A callback that fires pre_tool_call again with new ids used to start a worker
    per level (2,500 threads); nested firings now run on the caller's worker."""
    depth = 50  # each level nests a firing in Python's stack (and its recursion limit)
    hooks = make_hooks(timeout=60.0)
    seen: list[int] = []

    def recurse(tool_call_id: str, **kwargs: Any) -> None:
        level = int(tool_call_id.split("-")[1])
        seen.append(_hermes_workers())
        if level < depth:
            hooks.pre_tool_call(**tool_payload(tool_call_id=f"nested-{level + 1}"))

    hooks.manager.register_callback("pre_tool_call", recurse, owner="recursive")
    decision = hooks.pre_tool_call(**tool_payload(tool_call_id="nested-0"))
    figures.update(depth=depth, worker_threads_peak=max(seen))
    assert decision.blocked is False
    assert len(seen) == depth + 1
    assert max(seen) == 1  # the outer firing's worker, and no other
