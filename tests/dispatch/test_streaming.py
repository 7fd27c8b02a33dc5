"""Streaming observers (ST-01..ST-11, D-61..D-63): per-callback queues off the token path."""

from __future__ import annotations

import threading
import time
from typing import Any

from hermes_hooks import _stream

COMMON = {
    "turn_id": "t",
    "iteration": 1,
    "session_id": "s",
    "model": "m",
    "provider": "p",
    "surface": "cli",
}


def test_a_slow_callback_never_blocks_the_producer_and_loses_only_its_oldest(
    make_hooks: Any, monkeypatch: Any
) -> None:
    monkeypatch.setattr(_stream, "QUEUE_SIZE", 1)
    hooks = make_hooks(timeout=30)
    release = threading.Event()
    entered = threading.Event()
    slow_seen: list[str] = []
    fast_seen: list[str] = []

    def slow(delta: str, **kw: Any) -> None:
        entered.set()
        release.wait(30)
        slow_seen.append(delta)

    hooks.manager.register_callback("on_stream_delta", slow, owner="a-slow")
    fast_took = threading.Semaphore(0)

    def fast(delta: str, **kw: Any) -> None:
        fast_seen.append(delta)
        fast_took.release()

    hooks.manager.register_callback("on_stream_delta", fast, owner="b-fast")
    hooks.on_stream_delta(delta="d0", kind="text", **COMMON)
    assert entered.wait(10)  # the slow worker is now stuck inside d0
    assert fast_took.acquire(timeout=10)
    for n in range(1, 6):
        hooks.on_stream_delta(delta=f"d{n}", kind="text", **COMMON)
        # The test (not the producer) waits, so the fast lane of size 1 never overflows.
        assert fast_took.acquire(timeout=10)
    # Every producer call returned while the slow callback is still blocked.
    assert not release.is_set()
    slow_lane = hooks.dispatcher.lane("a-slow")
    assert slow_lane.pending == 1 and slow_lane.dropped == 4
    release.set()
    hooks.close()
    assert fast_seen == ["d0", "d1", "d2", "d3", "d4", "d5"]
    assert slow_seen == ["d0", "d5"]  # it lost only its own oldest pending events


def test_one_plugin_sees_start_then_deltas_then_end(make_hooks: Any) -> None:
    hooks = make_hooks(timeout=30)
    seen: list[str] = []
    hooks.manager.register_callback("on_stream_start", lambda **kw: seen.append("start"), owner="o")
    hooks.manager.register_callback(
        "on_stream_delta", lambda delta, **kw: seen.append(delta), owner="o"
    )
    hooks.manager.register_callback(
        "on_stream_end", lambda final_text, **kw: seen.append(f"end:{final_text}"), owner="o"
    )
    hooks.on_stream_start(**COMMON)
    for n in range(50):
        hooks.on_stream_delta(delta=str(n), kind="text", **COMMON)
    hooks.on_stream_end(final_text="all", finished=True, error=None, **COMMON)
    hooks.close()
    deltas = [x for x in seen if x.isdigit()]
    assert deltas == [str(n) for n in range(50)]
    assert seen[0] == "start" and seen[-1] == "end:all" and len(seen) == 52


def test_oversized_and_odd_events_are_dropped_whole(make_hooks: Any, caplog: Any) -> None:
    hooks = make_hooks(timeout=30)
    seen: list[str] = []
    hooks.manager.register_callback(
        "on_stream_delta", lambda delta, **kw: seen.append(delta[:5]), owner="o"
    )
    hooks.on_stream_delta(delta="x" * (16 * 1024 + 1), kind="text", **COMMON)
    hooks.on_stream_delta(delta=object(), kind="text", **COMMON)  # type: ignore[arg-type]
    hooks.on_stream_delta(delta="small", kind="text", **COMMON)
    hooks.close()
    assert seen == ["small"]
    assert "on_stream_delta event dropped: it is over 16384 bytes" in caplog.text
    assert "on_stream_delta event dropped: it holds a object value" in caplog.text


def test_a_raising_stream_callback_does_not_stop_the_stream(make_hooks: Any, caplog: Any) -> None:
    hooks = make_hooks(timeout=30)
    seen: list[str] = []

    def picky(delta: str, **kw: Any) -> None:
        if delta == "bad":
            raise ValueError("no bad deltas")
        seen.append(delta)

    hooks.manager.register_callback("on_stream_delta", picky, owner="o")
    for delta in ("a", "bad", "b"):
        hooks.on_stream_delta(delta=delta, kind="text", **COMMON)
    hooks.close()
    assert seen == ["a", "b"]
    assert "raised ValueError: no bad deltas" in caplog.text


def test_stream_callbacks_ignore_the_callback_timeout(make_hooks: Any) -> None:
    hooks = make_hooks(timeout=0.05)
    seen: list[int] = []

    def slow(iteration: int, **kw: Any) -> None:
        time.sleep(0.2)  # longer than hook_callback_timeout, still delivered
        seen.append(iteration)

    hooks.manager.register_callback("on_stream_start", slow, owner="o")
    hooks.on_stream_start(**COMMON)
    hooks.close()
    assert seen == [1]


def test_registering_stream_observers_asks_for_the_streaming_transport(make_hooks: Any) -> None:
    hooks = make_hooks()
    hooks.manager.register_callback("on_interim_message", lambda **kw: None, owner="o")
    assert hooks.wants_streaming is False
    hooks.manager.register_callback("on_stream_end", lambda **kw: None, owner="o")
    assert hooks.wants_streaming is True
