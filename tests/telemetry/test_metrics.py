"""Queue metrics: dropped events per queue and the outbox depth, read by a real SDK
metric reader."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks._stream import QUEUE_SIZE
from hermes_hooks.hooks import Hooks
from hermes_hooks.webhooks.outbox import OUTBOX_FILE, Outbox
from tests.outbound.endpoint import Reply
from tests.outbound.helpers import OutboundEnv
from tests.outbound.test_outbox import durable
from tests.telemetry.helpers import Recorded

STREAM = {
    "turn_id": "t",
    "iteration": 1,
    "session_id": "s",
    "model": "m",
    "provider": "p",
    "surface": "cli",
}


def test_dropped_stream_events_are_counted_per_queue(
    otel: Recorded, make_hooks: Callable[..., Hooks]
) -> None:
    hooks = make_hooks()
    inside, release = threading.Event(), threading.Event()

    def slow(delta: str, **kwargs: Any) -> None:
        inside.set()
        release.wait(10)

    hooks.manager.register_callback("on_stream_delta", slow, owner="tts")
    try:
        hooks.on_stream_delta(delta="first", kind="text", **STREAM)
        assert inside.wait(10)  # the lane's worker holds the first event
        for n in range(QUEUE_SIZE + 3):
            hooks.on_stream_delta(delta=f"d{n}", kind="text", **STREAM)
        assert otel.metric("hermes.queue.dropped") == [({"hermes.queue": "stream:tts"}, 3)]
    finally:
        release.set()


@pytest.fixture
def outbound(home: Path) -> Iterator[OutboundEnv]:
    environment = OutboundEnv(home)
    yield environment
    environment.close()


def test_the_outbox_depth_is_a_gauge_per_durable_target(
    otel: Recorded, outbound: OutboundEnv
) -> None:
    endpoint = outbound.endpoint(Reply(204, hold=True))  # the first delivery hangs
    hooks = outbound.load(durable(endpoint.url, name="ci"))
    for n in range(3):
        hooks.on_session_end(session_id=f"s{n}", completed=True, interrupted=False)
    endpoint.wait_requests(1)
    assert otel.metric("hermes.outbox.depth") == [({"hermes.webhook.target": "ci"}, 3)]
    assert otel.metric("hermes.queue.dropped") == [({"hermes.queue": "webhook:ci"}, 0)]


def test_deliveries_left_by_an_earlier_run_show_in_the_gauge_before_any_firing(
    otel: Recorded, outbound: OutboundEnv, home: Path
) -> None:
    endpoint = outbound.endpoint(Reply(204, hold=True))  # redelivery hangs: they stay
    earlier = Outbox(home / OUTBOX_FILE)
    try:
        for n in range(2):
            earlier.add(
                target="ci",
                url=endpoint.url,
                event="on_session_end",
                delivery_id=f"{n:032x}",
                timestamp="2026-01-01T00:00:00Z",
                body=b"{}",
                now=1000.0 + n,
            )
    finally:
        earlier.close()
    hooks = outbound.load(durable(endpoint.url, name="ci"))
    assert hooks.telemetry is not None
    assert otel.metric("hermes.outbox.depth") == [({"hermes.webhook.target": "ci"}, 2)]
    assert otel.metric("hermes.hook.firings") == []


HELD_HANDLER = """
from tests.gateway import probe

def handle(event_type, context):
    probe.notes.append(context["n"])
    probe.gate("telemetry-hold").wait(10)
"""


def test_dropped_gateway_events_are_counted_per_hook(
    otel: Recorded, home: Path, load: Callable[..., Hooks]
) -> None:
    import asyncio

    from hermes_hooks.gateway.lanes import LANE_CAPACITY
    from tests.gateway import probe
    from tests.gateway.helpers import write_hook

    probe.reset()
    write_hook(home / "hooks", "slow", ("agent:step",), HELD_HANDLER)
    hooks = load(surface="gateway")

    async def flood() -> list[Any]:
        await hooks.gateway.emit("agent:step", {"n": 0})
        for _ in range(200):  # let the lane's task take the first event
            if probe.notes:
                break
            await asyncio.sleep(0.01)
        for n in range(1, LANE_CAPACITY + 3):
            await hooks.gateway.emit("agent:step", {"n": n})
        counted = otel.metric("hermes.queue.dropped")
        probe.gate("telemetry-hold").set()
        await hooks.gateway.drain(10)
        return counted

    try:
        counted = asyncio.run(flood())
    finally:
        probe.reset()
    assert counted == [({"hermes.queue": "gateway:slow"}, 2)]
