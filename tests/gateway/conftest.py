"""Fixtures for gateway hook tests: hook directories on disk, loaded for the gateway."""

from __future__ import annotations

import asyncio
import logging
import textwrap
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

import hermes_hooks
from hermes_hooks.hooks import Hooks
from tests.gateway import probe

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


@pytest.fixture(autouse=True)
def _probe(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    caplog.set_level(logging.DEBUG, logger="gateway.hooks")
    probe.reset()
    yield
    probe.reset()


@pytest.fixture
def hooks_dir(home: Path) -> Path:
    """``<home>/hooks``, created."""
    path = home / "hooks"
    path.mkdir()
    return path


@pytest.fixture
def load_gateway(home: Path) -> Iterator[Callable[..., Hooks]]:
    """Load ``home`` for the gateway surface, with ``hook_callback_timeout=timeout``."""
    made: list[Hooks] = []

    def load(timeout: float = 30.0, surface: str = "gateway") -> Hooks:
        (home / "config.yaml").write_text(
            f"plugins:\n  hook_callback_timeout: {timeout}\n", encoding="utf-8"
        )
        hooks = hermes_hooks.load(home, surface=surface, entry_points=False)
        made.append(hooks)
        return hooks

    yield load
    probe.reset()  # let handlers stuck on gates finish before the lanes stop
    for hooks in made:
        hooks.close(1.0)
        hooks.unload()


def messages(caplog: pytest.LogCaptureFixture, level: int = logging.WARNING) -> list[str]:
    """The messages logged at exactly ``level``, in order."""
    return [r.getMessage() for r in caplog.records if r.levelno == level]
