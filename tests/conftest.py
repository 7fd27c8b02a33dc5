"""Shared fixtures: a fresh temporary Hermes home and a fresh Hooks per test."""

from __future__ import annotations

import logging
import os
import pty
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import pytest

import hermes_hooks
from hermes_hooks._log import reset_warn_once
from hermes_hooks.config import Settings
from hermes_hooks.hooks import Hooks

#: tests/reference/ needs hermes-agent and real plugin distributions installed: only
#: ``tox -e reference`` (which sets HERMES_REFERENCE=1) collects it.
collect_ignore = [] if os.environ.get("HERMES_REFERENCE") else ["reference"]
#: tests/integrations/sdks/ needs the agent SDKs (the openai-agents, langchain and
#: claude-agent-sdk extras): only ``tox -e sdks`` (which sets HERMES_SDKS=1) collects it.
if not os.environ.get("HERMES_SDKS"):
    collect_ignore.append("integrations/sdks")
#: tests/tools/ runs tools that are no run-time dependency (shtab, the completion extra;
#: the pre-commit tool, which builds a venv of this repository): only ``tox -e tools``
#: (which sets HERMES_TOOLS=1) collects it.
if not os.environ.get("HERMES_TOOLS"):
    collect_ignore.append("tools")
#: tests/integrations/mcp/ needs the MCP SDK: only ``tox -e mcp`` (HERMES_MCP=1) collects it.
if not os.environ.get("HERMES_MCP"):
    collect_ignore.append("integrations/mcp")


def pytest_configure(config: pytest.Config) -> None:
    """Use the shipped pytest plugin even when the package is not installed as a
    distribution (in tox it is, and its pytest11 entry point has loaded it already)."""
    if not config.pluginmanager.hasplugin("hermes_hooks"):
        config.pluginmanager.import_plugin("hermes_hooks.testing")


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """No test sees the developer's home, environment flags or earlier warnings."""
    for name in (
        "HERMES_HOME",
        "HERMES_SAFE_MODE",
        "HERMES_ACCEPT_HOOKS",
        "HERMES_ENABLE_PROJECT_PLUGINS",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "user-home"))
    reset_warn_once()
    logging.getLogger("hermes_hooks").setLevel(logging.DEBUG)
    yield
    reset_warn_once()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """An empty Hermes home."""
    path = tmp_path / "hermes-home"
    path.mkdir()
    return path


@pytest.fixture
def make_hooks(home: Path) -> Iterator[Callable[..., Hooks]]:
    """Build empty Hooks with chosen settings; every one is closed after the test."""
    made: list[Hooks] = []

    def make(timeout: float = 30.0, **settings: Any) -> Hooks:
        hooks = Hooks.empty(home, settings=Settings(hook_callback_timeout=timeout, **settings))
        made.append(hooks)
        return hooks

    yield make
    for hooks in made:
        hooks.close()


@pytest.fixture
def load(home: Path) -> Iterator[Callable[..., Hooks]]:
    """``load(**kwargs)``: hermes_hooks.load(home) without installed plugins; closed after."""
    made: list[Hooks] = []

    def make(**kwargs: Any) -> Hooks:
        kwargs.setdefault("entry_points", False)
        hooks = hermes_hooks.load(home, **kwargs)
        made.append(hooks)
        return hooks

    yield make
    for hooks in made:
        hooks.close()


@pytest.fixture
def tty_stdin(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[bytes], None]]:
    """Make sys.stdin a real terminal (a pty); the returned function types into it."""
    master, slave = pty.openpty()
    stdin: IO[str] = os.fdopen(slave, "r", encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)

    def type_in(data: bytes) -> None:
        os.write(master, data)

    yield type_in
    stdin.close()
    os.close(master)
