"""Running the proxy for real: an SDK client session on ``hermes-hooks mcp-proxy``,
which starts the SDK-built upstream (``upstream_server.py``) as its child."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = Path(__file__).resolve().parents[3]
UPSTREAM = Path(__file__).with_name("upstream_server.py")


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
