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

from hermes_hooks.adapters.shell.dialects import claude_tables
from hermes_hooks.adapters.shell.dialects.claude_import import consent_key
from hermes_hooks.hooks import Hooks
from hermes_hooks.synthetic import synthetic_payload
from tests.shell.conftest import approve, write_config

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
JQ_SHIM = HERE / "jqshim"


def corpus(name: str) -> str:
    """The command that runs corpus script ``name`` (its absolute path)."""
    path = CORPUS / name
    assert path.is_file(), path
    return str(path)


def payload(event: str, tool: str | None = None, **overrides: Any) -> dict[str, Any]:
    """A complete payload of our ``event`` (synthetic), with ``overrides`` applied."""
    result = synthetic_payload(event, tool_name=tool)
    result.update(overrides)
    return result


def our_event(key: str) -> str:
    """Our event name for a ``hooks:`` key in either spelling."""
    event, _ = claude_tables.event_for_key(key)
    assert event is not None, key
    return event


def configure(home: Path, block: dict[str, Any], *, approved: bool = True, **top: Any) -> None:
    """Write ``block`` as the ``hooks:`` block and approve every command in it."""
    write_config(home, block, **top)
    if approved:
        for key, entries in block.items():
            for entry in entries or []:
                approve(home, our_event(key), consent_key(entry))


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
