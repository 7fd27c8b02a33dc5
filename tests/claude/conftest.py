"""Claude Code dialect helpers: the script corpus, a jq stand-in, homes with claude-code
entries, a project directory as the agent's working directory.

The corpus scripts use ``jq`` as Claude Code's own examples do.  jq is not part of a
fresh CI machine, and tests never install anything or skip: when ``jq`` is not on
``PATH``, ``jqshim/jq`` (a few lines of Python supporting exactly the filters the corpus
uses, and failing loudly on any other) is put first on ``PATH`` for the scripts.
``test_jq_shim.py`` checks the shim on every filter the corpus uses.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.hooks import Hooks
from tests.claude.helpers import JQ_SHIM, configure


@pytest.fixture(autouse=True)
def jq_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Put the jq shim first on PATH when the machine has no jq (see the module doc)."""
    if shutil.which("jq") is None:
        monkeypatch.setenv("PATH", f"{JQ_SHIM}{os.pathsep}{os.environ.get('PATH', '')}")


@pytest.fixture(autouse=True)
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The agent's working directory (so ``cwd`` and ``CLAUDE_PROJECT_DIR``)."""
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    path = tmp_path / "project"
    path.mkdir()
    monkeypatch.chdir(path)
    return path


@pytest.fixture
def claude(home: Path, load: Callable[..., Hooks]) -> Callable[..., Hooks]:
    """``claude(key, command, **entry)``: a home with one approved entry under ``key``
    (a Claude Code or Hermes event name), loaded."""

    def make(key: str, command: str, **entry: Any) -> Hooks:
        configure(home, {key: [{"command": command, **entry}]})
        return load()

    return make
