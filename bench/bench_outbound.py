"""Outbound webhooks: what the agent pays per event, and what the lanes deliver.

Every figure is a ratio against a baseline measured in the same run, against servers
on 127.0.0.1 started here; counts and waits are bounded so the whole run stays short.

* caller cost: the time the agent's thread spends in a webhook callback (envelope,
  delivery id, JSON body, signature, enqueue), against ``json.dumps`` of the same
  payload.  The target's endpoint holds its first request, so the lane's worker is
  parked and does not compete with the caller for the GIL.
* isolation: a healthy target's delivery latency (fire -> request received) with a
  dead target subscribed to the same event, over the latency with the healthy target
  alone.  The dead target comes first in ``hooks.outbound`` and never answers.  The
  two set-ups are alive together and alternate event by event.
* throughput: events per second through a lane (one kept-alive connection) over
  ``httpx.post`` per event (a new client and connection each time), and over a reused
  client with keep-alive disabled (a new connection, no client set-up).
* locked outbox: a durable target's caller cost while another process holds the
  outbox's write lock, over the same with the file free.

Run: ``python -m bench.bench_outbound``.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

import hermes_hooks
from hermes_hooks.hooks import Hooks

__all__ = ["run"]

SECRET = "bench-secret"
CALLER_EVENTS = 200  # below the 256 queue capacity: nothing is dropped
CALLER_ROUNDS = 5
LATENCY_EVENTS = 120  # per set-up; the dead lane queues them all (< 256)
THROUGHPUT_EVENTS = 200
BASELINE_REQUESTS = 60
WAIT_LIMIT = 30.0
LOCKED_EVENTS = 50

PAYLOAD: dict[str, Any] = {
    "tool_name": "terminal",
    "args": {"command": "pytest -q tests/", "timeout": 120},
    "result": json.dumps({"exit_code": 0, "output": "." * 400}),
    "task_id": "task-1",
    "session_id": "sess-1",
    "tool_call_id": "call-1",
    "turn_id": "turn-1",
    "api_request_id": "req-1",
    "duration_ms": 1234,
    "status": "ok",
    "error_type": None,
    "error_message": None,
    "middleware_trace": [],
}


class _Server:
    """A 127.0.0.1 HTTP/1.1 server that counts requests, optionally holding them."""

    def __init__(self, hold: bool = False) -> None:
        self.hold = hold
        self.count = 0
        self.received: list[float] = []
        self.cond = threading.Condition()
        self.released = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with server.cond:
                    server.count += 1
                    server.received.append(time.perf_counter())
                    server.cond.notify_all()
                if server.hold:
                    server.released.wait()
                try:
                    self.send_response(204)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                except OSError:
                    pass

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/hook"

    def wait_count(self, count: int) -> None:
        with self.cond:
            if not self.cond.wait_for(lambda: self.count >= count, WAIT_LIMIT):
                raise RuntimeError(f"only {self.count} of {count} requests arrived")

    def close(self) -> None:
        self.released.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@contextmanager
def _home(*targets: tuple[str, str]) -> Iterator[Hooks]:
    """A temporary home whose ``hooks.outbound`` lists ``(name, url)`` targets."""
    with tempfile.TemporaryDirectory() as tmp:
        lines = ["hooks:", "  outbound:"]
        for name, url in targets:
            lines += [
                f"    - name: {name}",
                f"      url: {url}",
                "      events: [post_tool_call]",
                f"      secret: {SECRET}",
                "      timeout: 60",
            ]
        Path(tmp, "config.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
        hooks = hermes_hooks.load(tmp, entry_points=False)
        try:
            yield hooks
        finally:
            hooks.close(2.0)


def _per_call(function: Any, count: int) -> float:
    started = time.perf_counter()
    for _ in range(count):
        function()
    return (time.perf_counter() - started) / count


def _caller_cost() -> list[tuple[str, float]]:
    server = _Server(hold=True)
    fired = 0
    try:
        with _home(("parked", server.url)) as hooks:
            callback = hooks.manager.callbacks("post_tool_call")[0].function
            lane = hooks.sources["outbound"].lanes[0]  # type: ignore[attr-defined]
            callback_times, facade_times, dumps_times = [], [], []
            for _ in range(CALLER_ROUNDS):
                server.released.clear()
                callback(**PAYLOAD)
                fired += 1
                server.wait_count(fired)  # the worker is now parked on a held request
                half = CALLER_EVENTS // 2
                callback_times.append(_per_call(lambda: callback(**PAYLOAD), half))
                facade_times.append(_per_call(lambda: hooks.post_tool_call(**PAYLOAD), half))
                dumps_times.append(_per_call(lambda: json.dumps(PAYLOAD), CALLER_EVENTS))
                fired += 2 * half
                server.released.set()  # drain before the next round
                server.wait_count(fired)
            if lane.stats.dropped:
                raise RuntimeError("events were dropped during the caller benchmark")
    finally:
        server.close()
    callback_cost = statistics.median(callback_times)
    facade_cost = statistics.median(facade_times)
    dumps_cost = statistics.median(dumps_times)
    return [
        ("outbound caller µs/event (callback)", callback_cost * 1e6),
        ("outbound caller µs/event (hooks.post_tool_call, dispatcher included)", facade_cost * 1e6),
        ("outbound caller / json.dumps of the payload", callback_cost / dumps_cost),
    ]


def _latencies(hooks: Hooks, server: _Server, count: int) -> list[float]:
    latencies = []
    for _ in range(count):
        before = server.count
        started = time.perf_counter()
        hooks.post_tool_call(**PAYLOAD)
        server.wait_count(before + 1)
        latencies.append(server.received[before] - started)
    return latencies


def _isolation() -> list[tuple[str, float]]:
    healthy, dead = _Server(), _Server(hold=True)
    samples: dict[str, list[float]] = {"alone": [], "dead": []}
    try:
        with (
            _home(("healthy", healthy.url)) as solo,
            _home(("dead", dead.url), ("healthy", healthy.url)) as with_dead,
        ):
            setups = [("alone", solo), ("dead", with_dead)]
            for _, hooks in setups:
                _latencies(hooks, healthy, 5)  # warm-up: connections and workers started
            # Alternate event by event, in both orders, so machine noise hits both alike.
            for n in range(LATENCY_EVENTS):
                for key, hooks in setups[:: 1 if n % 2 else -1]:
                    samples[key].extend(_latencies(hooks, healthy, 1))
            dead.released.set()  # let the dead lane drain, so closing is quick
    finally:
        dead.close()
        healthy.close()
    alone = statistics.median(samples["alone"])
    return [
        ("outbound healthy latency alone (ms, median)", alone * 1e3),
        (
            "outbound healthy latency with a dead target / alone (≤ 1.2)",
            statistics.median(samples["dead"]) / alone,
        ),
    ]


def _throughput() -> list[tuple[str, float]]:
    server = _Server()
    try:
        with _home(("fast", server.url)) as hooks:
            _latencies(hooks, server, 3)  # warm-up
            base = server.count
            started = time.perf_counter()
            for _ in range(THROUGHPUT_EVENTS):
                hooks.post_tool_call(**PAYLOAD)
            server.wait_count(base + THROUGHPUT_EVENTS)
            lane_rate = THROUGHPUT_EVENTS / (time.perf_counter() - started)
        body = json.dumps(PAYLOAD).encode()
        headers = {"Content-Type": "application/json"}
        started = time.perf_counter()
        for _ in range(BASELINE_REQUESTS):
            httpx.post(server.url, content=body, headers=headers)
        post_rate = BASELINE_REQUESTS / (time.perf_counter() - started)
        no_keepalive = httpx.Limits(max_keepalive_connections=0)
        with httpx.Client(limits=no_keepalive) as client:
            started = time.perf_counter()
            for _ in range(BASELINE_REQUESTS):
                client.post(server.url, content=body, headers=headers)
            fresh_rate = BASELINE_REQUESTS / (time.perf_counter() - started)
    finally:
        server.close()
    return [
        ("outbound lane throughput (events/s)", lane_rate),
        ("outbound lane throughput / httpx.post per event (≥ 3)", lane_rate / post_rate),
        ("outbound lane throughput / reused client without keep-alive", lane_rate / fresh_rate),
    ]


def _locked_outbox() -> list[tuple[str, float]]:
    """A durable target's caller cost while another process holds the outbox's write
    lock, over the same with the file free (before, each locked event cost SQLite's
    busy timeout, twice)."""
    from hermes_hooks.webhooks.outbox import OUTBOX_FILE

    server = _Server(hold=True)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            Path(tmp, "config.yaml").write_text(
                "hooks:\n  outbound:\n    - name: durable\n"
                f"      url: {server.url}\n      events: [post_tool_call]\n"
                "      durable: true\n      timeout: 60\n",
                encoding="utf-8",
            )
            hooks = hermes_hooks.load(tmp, entry_points=False)
            try:
                callback = hooks.manager.callbacks("post_tool_call")[0].function
                callback(**PAYLOAD)
                server.wait_count(1)  # the worker is parked on a held request
                locker = sqlite3.connect(str(Path(tmp, OUTBOX_FILE)), isolation_level=None)
                free, locked = float("inf"), float("inf")
                for _ in range(CALLER_ROUNDS):  # alternated; each side keeps its best
                    free = min(free, _per_call(lambda: callback(**PAYLOAD), LOCKED_EVENTS))
                    locker.execute("BEGIN EXCLUSIVE")
                    try:
                        locked = min(locked, _per_call(lambda: callback(**PAYLOAD), LOCKED_EVENTS))
                    finally:
                        locker.execute("ROLLBACK")
                locker.close()
                server.released.set()
            finally:
                hooks.close(2.0)
    finally:
        server.close()
    return [("durable caller, outbox locked by another process / outbox free", locked / free)]


def run() -> list[tuple[str, float]]:
    """Run the outbound benchmarks; return ``(label, value)`` pairs."""
    quiet = logging.getLogger("hermes_hooks")
    level = quiet.level
    quiet.setLevel(logging.ERROR)  # the http:// warning of every local target
    try:
        return _caller_cost() + _isolation() + _throughput() + _locked_outbox()
    finally:
        quiet.setLevel(level)


if __name__ == "__main__":
    for label, value in run():
        print(f"{label}: {value:.3g}")
