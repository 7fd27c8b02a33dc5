"""Async handlers run on their hook's own event loop: one that blocks instead of
awaiting never stalls the gateway's loop (``host_loop: true`` opts out)."""

from __future__ import annotations

import asyncio
import logging
import threading
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.hooks import Hooks
from tests.gateway import probe
from tests.gateway.helpers import messages, run, write_hook

# Blocks its loop with time.sleep and counts the host's ticks meanwhile: the ticker
# appends to probe.notes, so what the handler sees grow is what the host did while it
# slept.
SLEEPER = """
import threading
import time
from tests.gateway import probe

async def handle(event_type, context):
    before = len(probe.notes)
    time.sleep(1.5)
    probe.record(__name__, event_type, {
        "ticks": len(probe.notes) - before,
        "thread": threading.current_thread().name,
    })
"""

HOST_LOOP = "name: sleeper\nhost_loop: true\nevents: [agent:start]\n"


async def _ticker(stop: asyncio.Event) -> None:
    while not stop.is_set():
        probe.notes.append("tick")
        await asyncio.sleep(0.01)


def _tick_while_emitting(hooks: Hooks) -> None:
    async def main() -> None:
        stop = asyncio.Event()
        ticker = asyncio.create_task(_ticker(stop))
        await hooks.gateway.emit("agent:start", {})
        assert await hooks.gateway.drain(30)
        stop.set()
        await ticker

    run(main())


def test_a_blocking_async_handler_never_stalls_the_host_loop(
    hooks_dir: Path, load_gateway: Any
) -> None:
    write_hook(hooks_dir, "sleeper", body=SLEEPER)
    hooks: Hooks = load_gateway()
    _tick_while_emitting(hooks)
    ((_, seen),) = probe.seen("sleeper")
    # 1.5 s of ticks every 10 ms is about 150; a stalled host loop would tick 0 times.
    assert seen["ticks"] >= 5
    assert seen["thread"] == "hermes-hooks:gateway:sleeper"


def test_host_loop_true_runs_the_handler_on_the_host_loop(
    hooks_dir: Path, load_gateway: Any
) -> None:
    write_hook(hooks_dir, "sleeper", body=SLEEPER, manifest=HOST_LOOP)
    hooks: Hooks = load_gateway()
    _tick_while_emitting(hooks)
    ((_, seen),) = probe.seen("sleeper")
    # Asked for: the handler blocks the host loop itself, so no tick runs meanwhile.
    assert seen["ticks"] == 0
    assert seen["thread"] == threading.main_thread().name
    source = hooks.sources["gateway"]
    assert source.records()[0].runs_on == "host loop"
    assert (
        f"  ✓ sleeper  {hooks_dir / 'sleeper'}  [gateway:sleeper, async handler, on the "
        "gateway's event loop]"
    ) in source.section().lines


# Blocks its own loop (a blocking wait inside async def) until the test releases it.
HOLD = """
from tests.gateway import probe

async def handle(event_type, context):
    probe.gate("held:started").set()
    probe.gate("held").wait(10)
    probe.gate("held:done").set()
    return {"decision": "deny", "message": "too late"}
"""


def test_a_command_handler_blocking_its_loop_does_not_hold_the_host(
    hooks_dir: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture
) -> None:
    write_hook(hooks_dir, "held", events=["command:reset"], body=HOLD)
    hooks: Hooks = load_gateway(timeout=0.2)
    records: list[Any] = []
    hooks.gateway.subscribe(records.append)

    async def main() -> tuple[Any, Any, int]:
        stop = asyncio.Event()
        ticker = asyncio.create_task(_ticker(stop))
        first = await hooks.gateway.emit_command("reset")
        # Still blocked: the next command does not wait its turn, it skips the hook.
        second = await hooks.gateway.emit_command("reset")
        ticks = len(probe.notes)
        stop.set()
        await ticker
        return first, second, ticks

    first, second, ticks = run(main())
    assert probe.gate("held:started").is_set()
    assert not probe.gate("held:done").is_set()  # the host went on while it blocked
    assert ticks >= 1  # and its loop ran meanwhile
    assert (first.allowed, second.allowed) == (True, True)
    assert [r.outcome for r in records] == ["timeout", "skipped"]
    path = hooks_dir / "held" / "handler.py"
    assert messages(caplog) == [
        f"[hooks] held ({path}) timed out after 0.2 s handling command:reset — it blocked "
        "its own event loop instead of awaiting, so it could not be cancelled; its answer "
        "is ignored. Fix: await (asyncio.sleep, asyncio.to_thread for blocking work) "
        "inside async handlers",
        f"[hooks] held ({path}) skipped command:reset: its event loop is still blocked by "
        "an earlier call — the handler is hung; fix or disable it",
    ]
    probe.gate("held").set()
    assert probe.gate("held:done").wait(10)


def test_an_awaiting_command_handler_on_its_own_loop_decides(
    hooks_dir: Path, load_gateway: Any
) -> None:
    body = """
    import asyncio

    async def handle(event_type, context):
        await asyncio.sleep(0)
        return {"decision": "deny", "message": f"no {context['command']} today"}
    """
    write_hook(hooks_dir, "denier", events=["command:reset"], body=body)
    hooks: Hooks = load_gateway()
    decision = run(hooks.gateway.emit_command("reset"))
    assert (decision.action, decision.reply) == ("deny", "no reset today")
    assert hooks.sources["gateway"].records()[0].runs_on == "own loop"


def test_a_keyboard_interrupt_on_a_hooks_own_loop_reaches_the_host(
    hooks_dir: Path, load_gateway: Any
) -> None:
    body = """
    async def handle(event_type, context):
        raise KeyboardInterrupt
    """
    write_hook(hooks_dir, "ctrl-c", body=body)
    hooks: Hooks = load_gateway()

    async def main() -> None:
        await hooks.gateway.emit("agent:start", {})
        await asyncio.sleep(10)  # interrupted long before

    with pytest.raises(KeyboardInterrupt):
        run(main())


@pytest.mark.parametrize("manifest", ["", "host_loop: true\n"], ids=["own loop", "host loop"])
def test_a_lane_whose_batch_ended_in_a_keyboard_interrupt_delivers_the_next_event(
    hooks_dir: Path, load_gateway: Any, manifest: str
) -> None:
    # The batch that raised ends without emptying the lane normally: the lane must still
    # count as idle for drain() and start a new batch for the next event.
    body = """
    from tests.gateway import probe

    async def handle(event_type, context):
        probe.record(__name__, event_type, dict(context))
        if context["n"] == 1:
            raise KeyboardInterrupt
    """
    write_hook(hooks_dir, "ctrl-c", manifest=manifest + "events: [agent:start]\n", body=body)
    hooks: Hooks = load_gateway()

    async def interrupted() -> None:
        await hooks.gateway.emit("agent:start", {"n": 1})
        await asyncio.sleep(10)  # interrupted long before

    async def later() -> bool:
        await hooks.gateway.emit("agent:start", {"n": 2})
        return await hooks.gateway.drain(5)

    with pytest.raises(KeyboardInterrupt):
        run(interrupted())
    assert run(later()) is True
    assert probe.seen("ctrl-c") == [("agent:start", {"n": 1}), ("agent:start", {"n": 2})]


def test_every_batch_on_a_hooks_own_loop_is_bounded_by_the_timer_it_reuses(
    hooks_dir: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture
) -> None:
    # One timer serves every batch of the lane, left armed in between: a call must be
    # cancelled at its limit whether its batch starts before that timer's next wake-up
    # or after it stopped for want of a batch.
    body = """
    import asyncio
    from tests.gateway import probe

    async def handle(event_type, context):
        probe.record(__name__, event_type, context)
        if event_type == "agent:start":
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                probe.notes.append("cancelled")
                raise
    """
    write_hook(hooks_dir, "hangs", events=["agent:*"], body=body)
    hooks: Hooks = load_gateway(timeout=0.2)

    async def main() -> list[bool]:
        drained = []
        for pause in (0.0, 0.0, 0.5):  # the last batch starts after the timer stopped
            await asyncio.sleep(pause)
            await hooks.gateway.emit("agent:end", {})
            await hooks.gateway.emit("agent:start", {})
            drained.append(await hooks.gateway.drain(5))
        return drained

    assert run(main()) == [True, True, True]
    assert probe.notes == ["cancelled"] * 3
    assert [e for e, _ in probe.seen("hangs")] == ["agent:end", "agent:start"] * 3
    path = hooks_dir / "hangs" / "handler.py"
    assert messages(caplog) == [
        f"[hooks] hangs ({path}) timed out after 0.2 s handling agent:start — cancelled"
    ]


def test_a_misspelt_host_loop_value_keeps_the_handler_off_the_host_loop(
    hooks_dir: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture
) -> None:
    manifest = "host_loop: 'yes'\nevents: [agent:start]\n"
    write_hook(hooks_dir, "unsure", manifest=manifest)
    hooks: Hooks = load_gateway()
    record = hooks.sources["gateway"].records()[0]
    assert record.runs_on == "own loop"
    assert (
        "[hooks] unsure: 'host_loop' must be true or false, got 'yes'; the handler runs on "
        "its own event loop"
    ) in messages(caplog, logging.WARNING)
