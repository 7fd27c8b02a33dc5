"""Gateway emit cost, as ratios against the reference's inline emit in the same process.

The reference awaits every matching handler inline, one after another, on the gateway
loop.  Ours deep-copies the context per hook and enqueues it on the hook's lane.
The figures:

* caller cost with no-op handlers: what one ``emit()`` costs the gateway loop when
  handlers do nothing (ours pays a deep copy and a queue per hook);
* caller cost with handlers that each take ~1 ms (``asyncio.sleep``): what a message
  waits before the gateway moves on;
* total loop work per event with 10 no-op handlers: the emit plus every lane's delivery
  (timeouts, timers, tasks), against the reference's inline emit, over repetitions;
  events come in bursts of 200, each burst delivered before the next, and one at a
  time (a gateway's usual pace, where every event pays a lane's start and end);
* the floor of that figure for any design with one queue per hook whose ``emit()``
  only enqueues and returns:
  the same events, each hook's with its own copy of the (flat) context, appended to ten
  deques under a lock and awaited by one task per deque, with no timeout, no timing
  and no error isolation, against the same inline emit;
* the floor of any such design that also runs each hook's async handlers on an event
  loop of its own, on a thread of its own (the default, so that a handler which blocks
  stalls only its own hook): the same bare deques, each hook's loop woken once per
  burst of events (one thread-safe call) and the gateway's loop woken once when the
  last of them is done, against the one-loop floor; that ratio is what the rule costs
  at the least, under one interpreter lock;
* our loop work against the floor of its design: with own loops (the default) against
  the own-loop floor, with ``host_loop: true`` (handlers on the gateway's loop) against
  the one-loop floor; and, for comparison, own loops against the one-loop floor.

The loop-work figures are timed with the cyclic garbage collector paused (collected
before each side): every side keeps the same events alive, and a full collection
landing on one side would swing a ratio by half.

Run: ``python3 -m bench gateway`` (about half a minute).
"""

from __future__ import annotations

import asyncio
import itertools
import tempfile
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

import hermes_hooks
from bench._timing import collector_paused

HOOKS = 3
CONTEXT = {
    "platform": "telegram",
    "user_id": "42",
    "chat_id": "-100",
    "thread_id": "",
    "chat_type": "dm",
    "session_id": "s1",
    "message": "x" * 200,
}


def _home(root: Path, sleep: float, hooks: int = HOOKS, host_loop: bool = False) -> Path:
    # telemetry off: these figures are the lanes' own cost (bench_telemetry measures
    # what spans add)
    (root / "config.yaml").write_text("telemetry: {otel: false}\n", encoding="utf-8")
    for i in range(hooks):
        directory = root / "hooks" / f"h{i}"
        directory.mkdir(parents=True)
        manifest = "events: [agent:start]\n" + ("host_loop: true\n" if host_loop else "")
        (directory / "HOOK.yaml").write_text(manifest, encoding="utf-8")
        body = "import asyncio\n\nasync def handle(event_type, context):\n"
        body += f"    await asyncio.sleep({sleep})\n" if sleep else "    return None\n"
        (directory / "handler.py").write_text(body, encoding="utf-8")
    return root


async def _reference_emit(handlers: list[Any], event: str, context: dict[str, Any]) -> None:
    # The reference: every handler inline, one after another, sharing one dict.
    for handle in handlers:
        result = handle(event, context)
        if asyncio.iscoroutine(result):
            await result


async def _measure(hooks: Any, rounds: int) -> tuple[float, float]:
    handlers = [h.handle for h in hooks.gateway.hooks]
    started = time.perf_counter()
    for _ in range(rounds):
        await _reference_emit(handlers, "agent:start", CONTEXT)
    reference = (time.perf_counter() - started) / rounds
    ours_total = 0.0
    for _ in range(rounds):
        started = time.perf_counter()
        await hooks.gateway.emit("agent:start", CONTEXT)
        ours_total += time.perf_counter() - started
        await hooks.gateway.drain(10)  # keep lanes short; not counted
    return reference, ours_total / rounds


async def _loop_work(hooks: Any, events: int, batches: int = 10) -> tuple[float, float]:
    """Seconds per event of loop work: ours (emit, then every lane delivered) and the
    reference's inline emit, interleaved in batches on the same loop."""
    handlers = [h.handle for h in hooks.gateway.hooks]
    reference = ours = 0.0
    for _ in range(batches):
        started = time.perf_counter()
        for _ in range(events // batches):
            await _reference_emit(handlers, "agent:start", CONTEXT)
        reference += time.perf_counter() - started
        started = time.perf_counter()
        for _ in range(events // batches):
            await hooks.gateway.emit("agent:start", CONTEXT)
        await hooks.gateway.drain(30)
        ours += time.perf_counter() - started
    return ours / events, reference / events


async def _bare_queues(handlers: list[Any], events: int, batches: int = 10) -> float:
    """Seconds per event of the barest per-hook queueing: a copy of the context per
    hook appended under a lock, one task per queue pops and awaits (what every lane
    must do at the least)."""
    queues: list[deque[tuple[str, dict[str, Any]]]] = [deque() for _ in handlers]
    lock = threading.Lock()

    async def drain(queue: deque[tuple[str, dict[str, Any]]], handle: Any) -> None:
        while queue:
            with lock:
                event, context = queue.popleft()
            await handle(event, context)

    started = time.perf_counter()
    for _ in range(batches):
        for _ in range(events // batches):
            for queue in queues:
                with lock:
                    queue.append(("agent:start", CONTEXT.copy()))
        await asyncio.gather(*(drain(q, h) for q, h in zip(queues, handlers, strict=True)))
    return (time.perf_counter() - started) / events


class _BareOwnLoop:
    """One hook's bare own-loop lane for the floor: a deque, a lock for appends, and the
    hook's own event loop, the very loop and thread our lane delivers on.

    The floor borrows our threads because a wake-up across threads costs what the
    scheduler makes of the pair: on a small virtual machine a thread left on the
    waker's core answers in microseconds, one on an idle core in tens, and a thread
    keeps its place for seconds.  Ten threads of the floor's own would have measured
    where those landed against where ours did, not what the design adds.
    """

    def __init__(self, hook: Any) -> None:
        self.handle = hook.handle
        self.queue: deque[tuple[str, dict[str, Any]]] = deque()
        self.lock = threading.Lock()
        self.loop: asyncio.AbstractEventLoop = hook.home.loop()  # started if need be


async def _bare_own_loops(lanes: list[_BareOwnLoop], events: int, batches: int = 10) -> float:
    """Seconds per event of the barest per-hook queueing with a loop per hook: a copy of
    the context per hook appended under the lane's lock; once per batch, one
    thread-safe call per lane starts a task on its loop that pops and awaits until the
    deque is empty (a pop needs no lock: nothing else takes from it); the last lane to
    finish wakes the gateway's loop once."""
    gateway = asyncio.get_running_loop()

    async def drain(lane: _BareOwnLoop, done: Any) -> None:
        queue, handle = lane.queue, lane.handle
        while queue:
            event, context = queue.popleft()
            await handle(event, context)
        done()

    def start(lane: _BareOwnLoop, done: Any) -> None:
        lane.loop.create_task(drain(lane, done))

    last = len(lanes)
    started = time.perf_counter()
    for _ in range(batches):
        for _ in range(events // batches):
            for lane in lanes:
                with lane.lock:
                    lane.queue.append(("agent:start", CONTEXT.copy()))
        finished = gateway.create_future()
        # next() on a count is atomic: the lane that draws the last number wakes us
        counter = itertools.count(1)

        def done(finished: asyncio.Future[None] = finished, counter: Any = counter) -> None:
            if next(counter) == last:
                gateway.call_soon_threadsafe(finished.set_result, None)

        for lane in lanes:
            lane.loop.call_soon_threadsafe(start, lane, done)
        await finished
    return (time.perf_counter() - started) / events


async def _floor(hooks: Any, events: int, batches: int = 10) -> tuple[float, float]:
    """(bare per-hook queueing, the reference's inline emit), seconds per event."""
    handlers = [h.handle for h in hooks.gateway.hooks]
    started = time.perf_counter()
    for _ in range(events):
        await _reference_emit(handlers, "agent:start", CONTEXT)
    reference = (time.perf_counter() - started) / events
    return await _bare_queues(handlers, events, batches), reference


def _total_loop_work(
    repetitions: int = 15, events: int = 2000, host_loop: bool = False, batches: int = 10
) -> dict[str, list[float]]:
    """Per repetition, interleaved: ours / reference (total loop work per event with 10
    no-op handlers, ``events`` emitted in ``batches`` bursts each drained before the
    next), the one-loop floor / reference, ours / the one-loop floor, and, with own
    loops, the own-loop floor / the one-loop floor and ours / the own-loop floor.
    Fifteen repetitions by default: figures that wake ten threads swing more between
    runs on a shared machine than the single-threaded ones."""
    figures: dict[str, list[float]] = {}
    where = "host loop" if host_loop else "own loops"
    where += f", {events // batches} event(s) per burst"
    with tempfile.TemporaryDirectory() as tmp:
        hooks = hermes_hooks.load(
            _home(Path(tmp), 0.0, hooks=10, host_loop=host_loop),
            surface="gateway",
            entry_points=False,
        )
        own = [] if host_loop else [_BareOwnLoop(h) for h in hooks.gateway.hooks]
        try:
            for _ in range(repetitions):
                with collector_paused():
                    ours, reference = asyncio.run(_loop_work(hooks, events, batches))
                with collector_paused():
                    bare, bare_reference = asyncio.run(_floor(hooks, events, batches))
                figures.setdefault("ours/reference", []).append(ours / reference)
                figures.setdefault("bare/reference", []).append(bare / bare_reference)
                figures.setdefault("ours/bare", []).append(ours / bare)
                line = (
                    f"  10 no-op handlers ({where}): loop work ours {ours * 1e6:.1f} us, "
                    f"one-loop floor {bare * 1e6:.1f} us"
                )
                if own:
                    with collector_paused():
                        bare_own = asyncio.run(_bare_own_loops(own, events, batches))
                    figures.setdefault("own/bare", []).append(bare_own / bare)
                    figures.setdefault("ours/own", []).append(ours / bare_own)
                    line += f", own-loop floor {bare_own * 1e6:.1f} us"
                print(f"{line}, reference inline {reference * 1e6:.1f} us per event")
        finally:
            hooks.close(1.0)
            hooks.unload()
    return figures


def run() -> list[tuple[str, float | list[float]]]:
    """Both caller ratios (ours / reference; below 1 means the caller waits less), and
    the total loop work per event with 10 no-op handlers over repetitions."""
    results: list[tuple[str, float | list[float]]] = []
    for label, sleep, rounds in (("no-op handlers", 0.0, 2000), ("1 ms handlers", 0.001, 200)):
        with tempfile.TemporaryDirectory() as tmp:
            hooks = hermes_hooks.load(
                _home(Path(tmp), sleep), surface="gateway", entry_points=False
            )
            try:
                reference, ours = asyncio.run(_measure(hooks, rounds))
            finally:
                hooks.close(1.0)
                hooks.unload()
        print(f"  {label}: ours {ours * 1e6:.1f} us, reference inline {reference * 1e6:.1f} us")
        results.append((f"emit() caller cost / reference inline emit, {label}", ours / reference))
    own = _total_loop_work()
    host = _total_loop_work(host_loop=True)
    # Events one at a time, each delivered before the next (a gateway's usual pace):
    # every event then pays a lane's start and end, which a burst shares.
    own_single = _total_loop_work(events=300, batches=300)
    host_single = _total_loop_work(events=300, batches=300, host_loop=True)
    results += [
        (
            "total loop work per event (emit + lane delivery) / reference inline emit, "
            "10 no-op handlers, bursts of 200 (target 5)",
            own["ours/reference"],
        ),
        (
            "floor: bare per-hook queues on one loop (copy, append, pop, await; nothing "
            "else) / reference inline emit, 10 no-op handlers, bursts of 200",
            own["bare/reference"],
        ),
        (
            "floor: bare per-hook queues on a loop per hook (one wake per lane and burst, "
            "one back) / the same on one loop: what a loop per hook costs at the least",
            own["own/bare"],
        ),
        (
            "loop work / own-loop floor, 10 no-op handlers on their own loops, bursts of "
            "200 (target 1.5)",
            own["ours/own"],
        ),
        (
            "loop work / own-loop floor, 10 no-op handlers on their own loops, one event "
            "at a time (no target: every event pays a batch, and drain() after each)",
            own_single["ours/own"],
        ),
        (
            "loop work / one-loop floor, 10 no-op handlers on the host loop "
            "(host_loop: true), bursts of 200 (target 1.5)",
            host["ours/bare"],
        ),
        (
            "loop work / one-loop floor, 10 no-op handlers on the host loop "
            "(host_loop: true), one event at a time (no target, as above)",
            host_single["ours/bare"],
        ),
        (
            "loop work / one-loop floor, 10 no-op handlers on their own loops, bursts of "
            "200 (for comparison: the own-loop floor above is the least this can be)",
            own["ours/bare"],
        ),
    ]
    return results


if __name__ == "__main__":
    from bench.__main__ import format_figure

    for name, value in run():
        print(format_figure(name, value))
