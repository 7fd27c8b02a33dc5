"""A lane on a hook's own loop is started from the emitting loop's next turn, once for
the events of that turn; events are never stranded when that turn does not come."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

from hermes_hooks.gateway.lanes import Batch, BatchTimer, Lane
from hermes_hooks.gateway.loops import HandlerLoop


class _Served:
    """A lane's ``serve``: records each batch's events and the thread that ran them.

    Each event is recorded as it is taken, before the batch asks for more: the lane
    says it is idle from inside that last ask, so a test woken by it must find the
    record complete (recording after the loop raced the woken test)."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self.threads: set[str] = set()

    async def __call__(self, entries: Batch, timer: BatchTimer) -> None:
        self.threads.add(threading.current_thread().name)
        batch: list[str] = []
        self.batches.append(batch)
        for event, _, _ in entries:
            batch.append(event)


def _until(condition: Any, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_the_events_of_one_turn_reach_the_own_loop_in_one_batch() -> None:
    served, home = _Served(), HandlerLoop("h")
    lane = Lane(served, home=home)

    async def emit_three() -> None:
        for n in range(3):
            lane.offer(f"e{n}", {})
        assert served.batches == []  # nothing is sent before this turn ends

    asyncio.run(emit_three())
    assert _until(lambda: not lane.busy())
    assert served.batches == [["e0", "e1", "e2"]]
    assert served.threads == {"hermes-hooks:gateway:h"}
    assert lane.close(time.monotonic() + 5) == 0
    assert home.close(time.monotonic() + 5)


def test_events_offered_on_a_loop_that_never_turns_again_are_still_delivered() -> None:
    served, home = _Served(), HandlerLoop("h")
    lane = Lane(served, home=home)
    stalled = asyncio.new_event_loop()
    lane.offer("e0", {}, loop=stalled)  # the start waits for a turn of ``stalled``...
    stalled.close()  # ...which never comes
    other = asyncio.new_event_loop()
    lane.offer("e1", {}, loop=other)  # another loop: the start is sent at once
    assert _until(lambda: not lane.busy())
    other.close()
    assert [event for batch in served.batches for event in batch] == ["e0", "e1"]
    assert lane.close(time.monotonic() + 5) == 0
    assert home.close(time.monotonic() + 5)


def test_closing_delivers_what_waits_for_a_turn() -> None:
    served, home = _Served(), HandlerLoop("h")
    lane = Lane(served, home=home)
    stalled = asyncio.new_event_loop()
    lane.offer("e0", {}, loop=stalled)
    assert lane.close(time.monotonic() + 10) == 0
    assert served.batches == [["e0"]]
    stalled.close()
    assert home.close(time.monotonic() + 5)


def test_drain_waits_for_lanes_on_other_loops_without_polling_them_out() -> None:
    served, home = _Served(), HandlerLoop("h")
    lane = Lane(served, home=home)
    calls: list[str] = []

    async def main() -> bool:
        lane.offer("e0", {})
        woken = asyncio.get_running_loop().create_future()

        def idle() -> None:
            calls.append(threading.current_thread().name)
            woken.get_loop().call_soon_threadsafe(woken.set_result, None)

        assert lane.when_idle(idle)
        await asyncio.wait_for(woken, 10)
        return lane.when_idle(idle)

    assert asyncio.run(main()) is False  # idle now: nothing registered
    assert calls == ["hermes-hooks:gateway:h"]
    assert served.batches == [["e0"]]
    lane.close(time.monotonic() + 5)
    assert home.close(time.monotonic() + 5)


def _held_at_e0(
    batches: list[list[str]], hold: Callable[[], Awaitable[None]]
) -> Callable[[Batch, BatchTimer], Awaitable[None]]:
    """A lane's ``serve`` that records each batch's events and calls ``hold`` on "e0"."""

    async def serve(entries: Batch, timer: BatchTimer) -> None:
        batch: list[str] = []
        batches.append(batch)
        for event, _, _ in entries:
            batch.append(event)
            if event == "e0":
                await hold()

    return serve


def test_a_batch_still_running_when_its_lane_closes_never_takes_a_later_event() -> None:
    # close() gave up waiting on a batch held by a blocking call: an event offered
    # afterwards belongs to a new batch, and the old one, once released, must stop
    # instead of delivering it alongside (or ahead of) the new one.
    started, release = threading.Event(), threading.Event()
    batches: list[list[str]] = []

    async def hold() -> None:
        started.set()
        release.wait(10)  # blocks the hook's own loop, as a bad handler would

    home = HandlerLoop("h")
    lane = Lane(_held_at_e0(batches, hold), home=home)
    other = asyncio.new_event_loop()
    lane.offer("e0", {}, loop=other)
    lane.offer("e1", {}, loop=other)
    other.run_until_complete(asyncio.sleep(0))  # the turn that sends the start
    assert started.wait(10)
    assert lane.close(time.monotonic() + 0.1) == 1  # e1 dropped; the batch is held
    lane.offer("e2", {}, loop=other)
    other.run_until_complete(asyncio.sleep(0))
    release.set()
    assert _until(lambda: not lane.busy())
    other.close()
    assert batches == [["e0"], ["e2"]]
    assert home.close(time.monotonic() + 5)


def test_a_lane_left_on_a_loop_that_stopped_moves_on_and_that_loop_takes_nothing() -> None:
    served = _Served()
    lane = Lane(served)  # delivered on the emitting loop
    first, second = asyncio.new_event_loop(), asyncio.new_event_loop()
    lane.offer("e0", {}, loop=first)  # its task waits for a turn of ``first``
    lane.offer("e1", {}, loop=second)  # ``first`` is not running: ``second`` takes over
    first.run_until_complete(asyncio.sleep(0))  # the stale task runs first after all
    second.run_until_complete(asyncio.sleep(0))
    # The stale task took nothing; the events went, in order, to the new one.
    assert served.batches == [["e0", "e1"]]
    first.close()
    second.close()


def test_a_batch_suspended_on_a_loop_that_stopped_leaves_the_rest_to_the_next_loop() -> None:
    first, second = asyncio.new_event_loop(), asyncio.new_event_loop()
    held = first.create_future()
    batches: list[list[str]] = []

    async def hold() -> None:
        await held  # suspended here when ``first`` stops turning

    lane = Lane(_held_at_e0(batches, hold))
    lane.offer("e0", {}, loop=first)
    lane.offer("e1", {}, loop=first)
    first.run_until_complete(asyncio.sleep(0))  # e0 taken, then ``first`` stops
    lane.offer("e2", {}, loop=second)  # ``second`` takes over what is left
    held.set_result(None)
    first.run_until_complete(asyncio.sleep(0))  # the old batch resumes first: it stops
    second.run_until_complete(asyncio.sleep(0))
    assert batches == [["e0"], ["e1", "e2"]]
    first.close()
    second.close()
