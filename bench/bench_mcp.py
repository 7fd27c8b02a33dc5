"""The MCP proxy's cost per ``tools/call``: proxied / direct, for a no-op tool over stdio.

One SDK client session per design, all open at once and timed call by call in
interleaved order (so machine noise hits every side alike); each block of calls gives
one ratio of the medians per design.  Each session runs against the SDK-built fixture upstream
(``tests/integrations/mcp/upstream_server.py``):

* direct: the client starts the upstream itself (the baseline, printed in ms as the
  floor beside each ratio);
* proxy, no hooks / one Python gate: ``hermes-hooks mcp-proxy`` (a relay on asyncio
  streams decoding each line with the SDK's message types) on an empty home, then on a
  home whose only callback is a ``pre_tool_call`` plugin returning None;
* SDK-transport relay and SDK-session proxy, no hooks: the designs not taken
  (``bench/_mcp_sdk_relay.py``): ``SessionMessage`` objects forwarded between the SDK's
  ``stdio_server`` and ``stdio_client``; a low-level SDK ``Server`` whose tool handlers
  ask an SDK ``Client`` of the upstream.

Targets (issue): one Python gate <= 2, no hooks <= 1.5.  Needs the ``mcp`` extra.

    python -m bench mcp
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import statistics
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

__all__ = ["run"]

REPO = Path(__file__).resolve().parents[1]
UPSTREAM = REPO / "tests" / "integrations" / "mcp" / "upstream_server.py"
CALLS = 100  # per design per block
BLOCKS = 7  # each block gives one ratio of medians
GATE = (
    "def gate(**kw):\n    return None\n\n\n"
    "def register(ctx):\n    ctx.register_hook('pre_tool_call', gate)\n"
)


def _designs(work: Path) -> dict[str, list[str]]:
    """Each design's server command line (the client starts it)."""
    upstream = [sys.executable, str(UPSTREAM), str(work / "calls.jsonl")]
    empty, gated = work / "empty", work / "gated"
    empty.mkdir()
    (gated / "plugins" / "gate").mkdir(parents=True)
    (gated / "plugins" / "gate" / "plugin.yaml").write_text("name: gate\nversion: '1'\n")
    (gated / "plugins" / "gate" / "__init__.py").write_text(GATE)

    prototype = str(REPO / "bench" / "_mcp_sdk_relay.py")

    def proxy(home: Path) -> list[str]:
        return [sys.executable, "-m", "hermes_hooks", "mcp-proxy", "--home", str(home)]

    return {
        "direct": upstream,
        "proxy, no hooks": [*proxy(empty), "--accept-hooks", "--", *upstream],
        "proxy, one Python gate": [*proxy(gated), "--accept-hooks", "--", *upstream],
        "SDK-transport relay, no hooks": [sys.executable, prototype, "transport", *upstream],
        "SDK-session proxy, no hooks": [sys.executable, prototype, "session", *upstream],
    }


async def _measure(work: Path) -> dict[str, list[float]]:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(REPO)}
    times: dict[str, list[float]] = {}
    async with AsyncExitStack() as stack:
        clients: dict[str, Any] = {}
        errlog = stack.enter_context((work / "stderr.log").open("a"))
        for name, command in _designs(work).items():
            params = StdioServerParameters(command=command[0], args=command[1:], env=env)
            client = await stack.enter_async_context(Client(stdio_client(params, errlog=errlog)))
            await client.list_tools()
            for _ in range(20):  # warm up
                await client.call_tool("noop", {})
            clients[name] = client
        # Interleaved call by call: a load spike on this shared machine hits the
        # neighbouring calls of every design alike, and the medians drop it.
        for _ in range(BLOCKS):
            block: dict[str, list[float]] = {name: [] for name in clients}
            for call in range(CALLS):
                order = list(clients.items())
                if call % 2:
                    order.reverse()
                for name, client in order:
                    started = time.perf_counter()
                    await client.call_tool("noop", {})
                    block[name].append(time.perf_counter() - started)
            for name, values in block.items():
                times.setdefault(name, []).append(statistics.median(values))
    return times


def run() -> list[tuple[str, Any]]:
    """Ratios per block of each design against direct, and the floor in ms."""
    if importlib.util.find_spec("mcp") is None:
        print("(skipped: the MCP SDK is not installed here; `tox -e mcp` runs it)")
        return []
    with tempfile.TemporaryDirectory() as folder:
        times = asyncio.run(_measure(Path(folder)))
    direct = times.pop("direct")
    floor = statistics.median(direct) * 1000
    figures: list[tuple[str, Any]] = [("direct tools/call, ms (the floor, median)", floor)]
    targets = {"proxy, no hooks": " (target <= 1.5)", "proxy, one Python gate": " (target <= 2)"}
    for name, values in times.items():
        ratios = [value / base for value, base in zip(values, direct, strict=True)]
        figures.append((f"{name} / direct{targets.get(name, '')}", ratios))
    return figures


if __name__ == "__main__":
    for label, value in run():
        print(label, value)
