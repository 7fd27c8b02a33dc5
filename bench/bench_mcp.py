"""The MCP proxy's cost per ``tools/call``: proxied / direct, for a no-op tool over stdio
and over streamable HTTP.

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

Over streamable HTTP (the client connects to a URL on 127.0.0.1), each against its own
floor, the SDK client talking to the fixture upstream served by the SDK's own HTTP
server (``direct over HTTP``):

* proxy --listen, no hooks / one Python gate: ``mcp-proxy --listen 127.0.0.1:0`` (the
  SDK's server-side HTTP transport feeding the same relay core) with the upstream as
  its stdio child, one per session;
* proxy --listen to --upstream-url, no hooks: both legs HTTP (two HTTP exchanges per
  call where direct has one: its ratio is bounded below by about 2).

Targets (issue, stdio): one Python gate <= 2, no hooks <= 1.5.  Needs the ``mcp`` extra.

    python -m bench mcp
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import re
import socket
import statistics
import subprocess
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


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _wait(condition: Any, what: str) -> None:
    deadline = time.monotonic() + 60
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not come up within 60 s")
        time.sleep(0.05)


def _http_servers(work: Path, stack: AsyncExitStack) -> dict[str, str]:
    """Start the HTTP designs' servers; each design's URL."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    port = _free_port()
    upstream = [sys.executable, str(UPSTREAM), str(work / "calls.jsonl"), "original"]
    direct = f"http://127.0.0.1:{port}/mcp"

    def start(command: list[str], log: Path) -> subprocess.Popen[bytes]:
        with log.open("a") as err:
            process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=err, stderr=err, env=env
            )

        def stop() -> None:
            process.terminate()
            process.wait(timeout=30)

        stack.callback(stop)
        return process

    start([*upstream, str(port)], work / "upstream-http.log")

    def listening() -> bool:
        with socket.socket() as attempt:
            return attempt.connect_ex(("127.0.0.1", port)) == 0

    _wait(listening, "the upstream over HTTP")
    urls = {"direct over HTTP": direct}
    proxy = [sys.executable, "-m", "hermes_hooks", "mcp-proxy", "--accept-hooks"]
    listen = ["--listen", "127.0.0.1:0"]
    fronts = {
        "proxy --listen, no hooks": [*proxy, "--home", str(work / "empty"), *listen, "--"],
        "proxy --listen, one Python gate": [
            *proxy,
            *("--home", str(work / "gated"), *listen, "--"),
        ],
        "proxy --listen to --upstream-url, no hooks": [
            *proxy,
            *("--home", str(work / "empty"), *listen, "--upstream-url", direct),
        ],
    }
    for index, (name, command) in enumerate(fronts.items()):
        if command[-1] == "--":
            command = [*command, *upstream[:-1]]
        log = work / f"front-{index}.log"
        start(command, log)
        found: list[str] = []

        def announced(log: Path = log, found: list[str] = found) -> bool:
            found[:] = re.findall(r"listening on (http://\S+)", log.read_text())
            return bool(found)

        _wait(announced, name)
        urls[name] = found[0]
    return urls


async def _measure(work: Path) -> dict[str, list[float]]:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.client.streamable_http import streamable_http_client

    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(REPO)}
    times: dict[str, list[float]] = {}
    async with AsyncExitStack() as stack:
        clients: dict[str, Any] = {}
        errlog = stack.enter_context((work / "stderr.log").open("a"))
        transports: dict[str, Any] = {}
        for name, command in _designs(work).items():
            params = StdioServerParameters(command=command[0], args=command[1:], env=env)
            transports[name] = stdio_client(params, errlog=errlog)
        for name, url in _http_servers(work, stack).items():
            transports[name] = streamable_http_client(url)
        for name, transport in transports.items():
            client = await stack.enter_async_context(Client(transport))
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
    over_http = times.pop("direct over HTTP")
    floor = statistics.median(direct) * 1000
    figures: list[tuple[str, Any]] = [("direct tools/call, ms (the floor, median)", floor)]
    targets = {"proxy, no hooks": " (target <= 1.5)", "proxy, one Python gate": " (target <= 2)"}
    http_floor = statistics.median(over_http) * 1000
    for name, values in times.items():
        if name.startswith("proxy --listen"):
            continue
        ratios = [value / base for value, base in zip(values, direct, strict=True)]
        figures.append((f"{name} / direct{targets.get(name, '')}", ratios))
    figures.append(("direct over HTTP tools/call, ms (the HTTP floor, median)", http_floor))
    for name, values in times.items():
        if name.startswith("proxy --listen"):
            ratios = [value / base for value, base in zip(values, over_http, strict=True)]
            figures.append((f"{name} / direct over HTTP", ratios))
    return figures


if __name__ == "__main__":
    for label, value in run():
        print(label, value)
