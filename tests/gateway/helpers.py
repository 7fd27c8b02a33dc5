"""Helpers shared by the tests of this folder (imported, not fixtures)."""

from __future__ import annotations

import asyncio
import logging
import textwrap
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import pytest
import yaml

RECORD_ASYNC = """
from tests.gateway import probe

async def handle(event_type, context):
    probe.record(__name__, event_type, context)
"""


RECORD_SYNC = """
from tests.gateway import probe

def handle(event_type, context):
    probe.record(__name__, event_type, context)
"""


def write_hook(
    root: Path,
    key: str,
    events: Any = ("agent:start",),
    body: str = RECORD_ASYNC,
    *,
    manifest: str | None = None,
) -> Path:
    """Create ``<root>/<key>/`` with a HOOK.yaml (``events`` or raw ``manifest``) and a
    handler.py holding ``body``."""
    directory = root / key
    directory.mkdir(parents=True)
    if manifest is None:
        manifest = yaml.safe_dump({"name": key, "events": list(events)}, sort_keys=False)
    (directory / "HOOK.yaml").write_text(manifest, encoding="utf-8")
    (directory / "handler.py").write_text(textwrap.dedent(body), encoding="utf-8")
    return directory


def run(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run ``coro`` on a fresh event loop (the gateway's loop, in these tests)."""
    return asyncio.run(coro)


def messages(caplog: pytest.LogCaptureFixture, level: int = logging.WARNING) -> list[str]:
    """The messages logged at exactly ``level``, in order."""
    return [r.getMessage() for r in caplog.records if r.levelno == level]
