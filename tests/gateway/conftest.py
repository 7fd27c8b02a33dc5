"""Fixtures for gateway hook tests: hook directories on disk, loaded for the gateway."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import hermes_hooks
from hermes_hooks.hooks import Hooks
from tests.gateway import probe


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
