"""Running the proxy for real: an SDK client session on ``hermes-hooks mcp-proxy``,
which starts the SDK-built upstream (``upstream_server.py``) as its child."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = Path(__file__).resolve().parents[3]
UPSTREAM = Path(__file__).with_name("upstream_server.py")
#: The fixture upstream's tools, in its order.
ALL_TOOLS = ["echo", "delete", "noop", "hang", "steps", "ask"]
#: The protocol version key of a request's envelope (the SDK 2.x protocol).
RAW_VERSION = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
#: A complete request envelope of a raw client.
RAW_META = {
    **RAW_VERSION,
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def proxy_params(
    home: Path, calls: Path, *extra: str, variant: str = "original", name: str = "fx"
) -> StdioServerParameters:
    """The server entry a client would have: the proxy wrapping the fixture upstream.
    The SDK passes only a few environment variables on, so the home goes by --home."""
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT), "HOME": str(home)}
    args = ["-m", "hermes_hooks", "mcp-proxy", "--home", str(home), "--name", name, *extra]
    args += ["--", sys.executable, str(UPSTREAM), str(calls), variant]
    return StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(home))


@asynccontextmanager
async def proxied(
    home: Path, calls: Path, errlog: Path, *extra: str, variant: str = "original"
) -> AsyncIterator[Client]:
    """A connected client session through the proxy; the proxy's stderr goes to
    ``errlog`` (appended)."""
    with errlog.open("a", encoding="utf-8") as err:
        params = proxy_params(home, calls, *extra, variant=variant)
        async with Client(stdio_client(params, errlog=err)) as client:
            yield client


def upstream_calls(calls: Path) -> list[dict[str, Any]]:
    """What the upstream recorded, in order (empty when it was never called)."""
    if not calls.exists():
        return []
    return [json.loads(line) for line in calls.read_text(encoding="utf-8").splitlines()]


def texts(result: Any) -> list[str]:
    """The text blocks of a tool result."""
    return [block.text for block in result.content]


class RawProxy:
    """The proxy driven line by line, as a client that skips the SDK would."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdin is not None and process.stdout is not None
        self.process, self.stdin, self.stdout = process, process.stdin, process.stdout
        self.returncode: int | None = None

    def send_line(self, line: bytes) -> None:
        """Write one raw line to the proxy."""
        self.stdin.write(line)
        self.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        """Write one JSON-RPC message (``jsonrpc`` added)."""
        self.send_line(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")

    def read(self) -> dict[str, Any]:
        """The next message the proxy writes."""
        return json.loads(self.stdout.readline())  # type: ignore[no-any-return]

    def ask(self, line: bytes) -> dict[str, Any]:
        """Write ``line`` and read the answer."""
        self.send_line(line)
        return self.read()


@contextmanager
def raw_proxy(
    home: Path, calls: Path, errlog: Path, *extra: str, upstream: Path = UPSTREAM
) -> Iterator[RawProxy]:
    """The proxy as a subprocess of a raw client (wrapping the server script
    ``upstream``, given ``calls`` to log to); on exit its stdin is closed (the client
    leaves) and ``returncode`` is set once it has exited."""
    params = proxy_params(home, calls, *extra)
    if upstream != UPSTREAM:
        params.args[params.args.index("--") + 1 :] = [sys.executable, str(upstream), str(calls)]
    with errlog.open("w", encoding="utf-8") as err:
        process = subprocess.Popen(
            [params.command, *params.args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
            env=params.env,
        )
        raw = RawProxy(process)
        try:
            yield raw
        finally:
            raw.stdin.close()
            raw.returncode = process.wait(timeout=30)
            raw.stdout.close()


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie waiting to be reaped counts as ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
    except FileNotFoundError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


#: A plugin that notes its hooks in its folder's events.jsonl and holds a call whose
#: ``text`` is ``wait`` in pre_tool_call (writing ``gating``) until ``release`` exists.
SLOW_GATE = """
import json
import time
from pathlib import Path

HERE = Path(__file__).parent


def _note(**fields):
    with (HERE / "events.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(fields, sort_keys=True) + "\\n")


def gate(tool_name, args, tool_call_id, **kw):
    _note(hook="pre_tool_call", id=tool_call_id, args=args)
    if args.get("text") == "wait":
        (HERE / "gating").write_text("")
        deadline = time.monotonic() + 30
        while not (HERE / "release").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
    return None


def after(tool_call_id, result, status, error_type, **kw):
    _note(hook="post_tool_call", id=tool_call_id, result=result, status=status,
          error_type=error_type)


def transform(tool_call_id, **kw):
    _note(hook="transform_tool_result", id=tool_call_id)


def register(ctx):
    ctx.register_hook("pre_tool_call", gate)
    ctx.register_hook("post_tool_call", after)
    ctx.register_hook("transform_tool_result", transform)
"""


def cancelled(ident: str, args: dict[str, Any], where: str) -> list[dict[str, Any]]:
    """What ``SLOW_GATE`` notes for call ``ident`` the client cancelled: its
    pre_tool_call, then the post_tool_call that pairs it (``where``: "before it reached
    the upstream", or "while the upstream ran it")."""
    return [
        {"hook": "pre_tool_call", "id": ident, "args": args},
        {
            "hook": "post_tool_call",
            "id": ident,
            "result": f"the client cancelled the call {where}",
            "status": "error",
            "error_type": "cancelled",
        },
    ]


def noted(plugin: Path, count: int) -> list[dict[str, Any]]:
    """The first ``count`` hook events the plugin noted, waiting for them (the hooks
    after a call fire on a worker thread, after the proxy has moved on)."""
    path = plugin / "events.jsonl"
    deadline = time.monotonic() + 30
    lines: list[str] = []
    while time.monotonic() < deadline:
        lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
        if len(lines) >= count:
            break
        time.sleep(0.02)
    return [json.loads(line) for line in lines]
