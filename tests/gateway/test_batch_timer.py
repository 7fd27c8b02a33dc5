"""One timer per lane batch: every call in a batch bounded, no stray cancellation."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from hermes_hooks._workers import TimedOut
from hermes_hooks.gateway.lanes import Batch, BatchTimer, Lane


def test_each_call_is_bounded_and_the_batch_goes_on() -> None:
    async def forever() -> None:
        await asyncio.Event().wait()

    async def swallows() -> str:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            return "kept going"
        return "never"

    async def quits() -> None:
        raise SystemExit(5)

    async def main() -> None:
        timer = BatchTimer()
        try:
            # A long limit first: the next call's shorter one must still be kept.
            assert await timer.run(asyncio.sleep(0, result="first"), 3600) == "first"
            with pytest.raises(TimedOut, match=r"cancelled after 0\.1 s"):
                await timer.run(forever(), 0.1)
            task = asyncio.current_task()
            assert (
                task is not None and getattr(task, "cancelling", lambda: 0)() == 0
            )  # nothing left pending
            # A call that swallows the cancellation returns its own value, and the
            # cancellation does not leak into the next await of the task.
            assert await timer.run(swallows(), 0.1) == "kept going"
            assert getattr(task, "cancelling", lambda: 0)() == 0
            await asyncio.sleep(0.01)
            with pytest.raises(SystemExit):  # reaches the caller, not the loop
                await timer.run(quits(), 5)
            assert await timer.run(asyncio.sleep(0, result="after"), None) == "after"
        finally:
            timer.close()

    async def guarded() -> None:
        await asyncio.wait_for(main(), 60)  # a hang guard: a lost limit fails the test

    asyncio.run(guarded())


def test_a_lane_bounds_every_event_of_a_batch_with_one_timer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    armed: list[float] = []
    real_call_at = asyncio.BaseEventLoop.call_at

    def counting_call_at(self: Any, when: float, *args: Any, **kwargs: Any) -> Any:
        armed.append(when)
        return real_call_at(self, when, *args, **kwargs)

    monkeypatch.setattr(asyncio.BaseEventLoop, "call_at", counting_call_at)
    delivered: list[str] = []

    async def serve(entries: Batch, timer: BatchTimer) -> None:
        for event, _context, _carry in entries:

            async def handle(event: str = event) -> None:
                delivered.append(event)

            await timer.run(handle(), 30)

    async def main() -> None:
        lane = Lane(serve)
        for n in range(50):
            assert lane.offer(f"e{n}", {})
        idle = asyncio.get_running_loop().create_future()
        assert lane.when_idle(lambda: idle.set_result(None))  # busy until delivered
        await idle

    asyncio.run(main())
    assert delivered == [f"e{n}" for n in range(50)]
    assert len(armed) == 1  # fifty bounded calls, one timer


def test_a_call_that_starts_after_an_idle_stretch_is_still_bounded() -> None:
    # Between calls the timer only looks again a limit later; a call that starts in
    # that stretch must still be cancelled at its own limit, not left unbounded.
    async def forever() -> None:
        await asyncio.Event().wait()

    async def main() -> None:
        timer = BatchTimer()
        try:
            assert await timer.run(asyncio.sleep(0, result="quick"), 0.2) == "quick"
            await asyncio.sleep(0.3)  # idle past one whole limit
            with pytest.raises(TimedOut, match=r"cancelled after 0\.2 s"):
                await timer.run(forever(), 0.2)
            with pytest.raises(TimedOut, match=r"cancelled after 0\.2 s"):
                await timer.run(forever(), 0.2)  # and the next one, right after
        finally:
            timer.close()

    asyncio.run(asyncio.wait_for(main(), 60))  # a hang guard: a lost limit fails
