"""Fire all four hook systems in a loop, then report throughput and resource counts.

Run from the repository root::

    python -m tests.soak [--seconds 60]

One mixed *cycle* fires a gated ``pre_tool_call`` (two Python plugins and a shell
gate), ``post_tool_call`` (a shell observer and two outbound targets: a live
127.0.0.1 endpoint and a dead one), ``transform_tool_result``, ``pre_llm_call``, a
stream of ten deltas, and three gateway events; every 50th cycle also runs a shell
hook that hangs until its 1 s timeout (its process group killed) on a side thread.
The exit code is 1 when a resource did not come back: threads or descriptors grew,
or a child, zombie or orphan process is left.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import yaml

import hermes_hooks
from hermes_hooks.hooks import Hooks
from hermes_hooks.shell.consent import Allowlist
from hermes_hooks.synthetic import synthetic_payload
from tests.outbound.endpoint import Endpoint, closed_port
from tests.robustness.resources import marked_processes, snapshot

PLUGIN = """
def register(ctx):
    def gate(tool_name, args, **kwargs):
        if "rm " in str(args.get("command", "")):
            return {"action": "block", "message": "no rm"}
        return {"action": "modify", "args": {"checked": True}}

    ctx.register_hook("pre_tool_call", gate)
    ctx.register_hook("pre_llm_call", lambda session_id, **kw: f"context for {session_id}")
    ctx.register_hook("transform_tool_result", lambda result, **kw: result.strip())
    ctx.register_hook("on_stream_delta", lambda **kw: None)
"""
HANDLER = """
async def handle(event_type, context):
    return None
"""
HANG = """#!{python}
import os, sys, time
sys.stdin.buffer.read()
if os.fork() == 0:
    time.sleep(300)
    os._exit(0)
time.sleep(300)
"""


def _script(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body, encoding="utf-8")
    path.chmod(0o755)
    return path


def build_home(root: Path, marker: str, live: str, dead: str) -> Path:
    """A home with every system configured (the marker names every hook process)."""
    home = root / "home"
    plugin = home / "plugins" / "soak"
    plugin.mkdir(parents=True)
    (plugin / "plugin.yaml").write_text("name: soak\n", encoding="utf-8")
    (plugin / "__init__.py").write_text(PLUGIN, encoding="utf-8")
    hook = home / "hooks" / "soak"
    hook.mkdir(parents=True)
    (hook / "HOOK.yaml").write_text("events: ['agent:*', 'session:*']\n", encoding="utf-8")
    (hook / "handler.py").write_text(HANDLER, encoding="utf-8")
    scripts = root / marker
    gate = _script(scripts / "gate.sh", "#!/bin/sh\ncat >/dev/null\necho '{}'\n")
    observe = _script(scripts / "observe.sh", "#!/bin/sh\ncat >/dev/null\n")
    hang = _script(scripts / "hang.py", HANG.format(python=sys.executable))
    config = {
        "plugins": {"hook_callback_timeout": 5},
        "hooks": {
            "pre_tool_call": [
                {"command": str(gate), "matcher": "terminal"},
                {"command": str(hang), "matcher": "hang_tool", "timeout": 1},
            ],
            "post_tool_call": [{"command": str(observe), "matcher": "terminal"}],
            "outbound": [
                {"name": "live", "url": live, "events": ["post_tool_call"]},
                {"name": "dead", "url": dead, "events": ["post_tool_call"]},
            ],
        },
    }
    (home / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    allowlist = Allowlist(home)
    for event, script in (("pre_tool_call", gate), ("pre_tool_call", hang)):
        allowlist.approve(event, str(script))
    allowlist.approve("post_tool_call", str(observe))
    return home


def fire(hooks: Hooks, event: str, **fields: Any) -> Any:
    """Fire ``event`` with a synthetic payload overridden by ``fields`` (as the pytest
    plugin's ``fire``, without needing pytest)."""
    payload = synthetic_payload(event, tool_name=fields.get("tool_name"))
    payload.update(fields)
    return getattr(hooks, event)(**payload)


class Counts:
    """What one soak did, per system."""

    def __init__(self) -> None:
        self.cycles = 0
        self.firings: dict[str, int] = {}
        self.hangs = 0

    def add(self, system: str, n: int = 1) -> None:
        self.firings[system] = self.firings.get(system, 0) + n


def cycle(hooks: Hooks, loop: asyncio.AbstractEventLoop, n: int, counts: Counts) -> None:
    """One mixed cycle (see the module docstring)."""
    call = f"c{n}"
    command = "rm -rf build" if n % 7 == 0 else "ls"
    fire(hooks, "pre_tool_call", tool_call_id=call, args={"command": command})
    fire(hooks, "post_tool_call", tool_call_id=call)
    fire(hooks, "transform_tool_result", tool_call_id=call, result=" out ")
    fire(hooks, "pre_llm_call", session_id=f"s{n}")
    fire(hooks, "on_stream_start")
    for i in range(10):
        fire(hooks, "on_stream_delta", delta=str(i))
    fire(hooks, "on_stream_end")
    counts.add("tool+llm hooks", 4)  # the four facade calls above
    counts.add("shell spawns", 2)  # the gate and the observer match "terminal"
    counts.add("outbound", 2)
    counts.add("stream", 12)
    for event in ("agent:start", "agent:step", "agent:end"):
        asyncio.run_coroutine_threadsafe(hooks.gateway.emit(event, {"n": n}), loop).result()
    counts.add("gateway", 3)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.soak")
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)  # the dead target warns; keep the report clean
    marker = f"hermes-soak-{uuid.uuid4().hex[:10]}"
    live = Endpoint()
    dead = f"http://127.0.0.1:{closed_port()}/hook"
    loop = asyncio.new_event_loop()
    loop_thread = threading.Thread(target=loop.run_forever, name="soak-gateway", daemon=True)
    loop_thread.start()
    with tempfile.TemporaryDirectory() as tmp:
        home = build_home(Path(tmp), marker, live.url, dead)
        before = snapshot()
        hooks = hermes_hooks.load(home, surface="gateway", entry_points=False)
        counts = Counts()
        hangers: list[threading.Thread] = []
        started = time.monotonic()
        next_report = started + 10
        while time.monotonic() - started < args.seconds:
            cycle(hooks, loop, counts.cycles, counts)
            if counts.cycles % 50 == 0:  # a hook that hangs until its timeout, aside
                thread = threading.Thread(
                    target=fire,
                    args=(hooks, "pre_tool_call"),
                    kwargs={"tool_name": "hang_tool", "tool_call_id": f"h{counts.cycles}"},
                )
                thread.start()
                hangers.append(thread)
                counts.hangs += 1
            counts.cycles += 1
            if time.monotonic() >= next_report:
                next_report += 10
                now = time.monotonic() - started
                print(f"[{now:5.0f}s] {counts.cycles} cycles  {snapshot().line()}")
        elapsed = time.monotonic() - started
        during = snapshot(hook_processes=len(marked_processes(marker)))
        for thread in hangers:
            thread.join()
        asyncio.run_coroutine_threadsafe(hooks.gateway.drain(10), loop).result()
        hooks.close(2.0)
        live_requests = len(live.requests)
        live.close()
        loop.call_soon_threadsafe(loop.stop)
        loop_thread.join(5)
        deadline = time.monotonic() + 30
        while marked_processes(marker) and time.monotonic() < deadline:
            time.sleep(0.05)  # SIGKILLed processes finish dying
        after = snapshot(orphans=len(marked_processes(marker)))
    print(f"\nsoak: {elapsed:.1f} s, {counts.cycles} cycles ({counts.cycles / elapsed:.1f}/s)")
    for system, n in sorted(counts.firings.items()):
        print(f"  {system:14s} {n:8d} firings  {n / elapsed:9.1f}/s")
    print(f"  {'hung shell':14s} {counts.hangs:8d} firings killed at their 1 s timeout")
    print(f"  live endpoint received {live_requests} of {counts.firings['outbound'] // 2} POSTs")
    print(f"resources before: {before.line()}")
    print(f"resources during: {during.line()}")
    print(f"resources after:  {after.line()}")
    leaked = (
        after.threads > before.threads + 1
        or after.fds > before.fds
        or after.children
        or after.zombies
        or after.extra["orphans"]
    )
    print("result:", "LEAK" if leaked else "ok (threads, descriptors and processes came back)")
    return 1 if leaked else 0


if __name__ == "__main__":
    sys.exit(main())
