"""Helpers shared by the tests of this folder (imported, not fixtures)."""

from __future__ import annotations

import json
import logging
import os
import stat
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from hermes_hooks.shell.consent import ALLOWLIST_NAME, Allowlist

REPO = Path(__file__).resolve().parents[2]


CONTRIB = REPO / "contrib" / "shell-hooks"


PYTHON = sys.executable


def write_script(path: Path, body: str, *, mode: int = 0o755) -> Path:
    """Write an executable script (``body`` is the whole file, shebang included)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body, encoding="utf-8")
    path.chmod(mode)
    return path


def sh(body: str) -> str:
    """A ``/bin/sh`` script with ``body``."""
    return "#!/bin/sh\n" + body + "\n"


def py(body: str) -> str:
    """A Python script (this interpreter) with ``body``."""
    return f"#!{PYTHON}\n" + body + "\n"


def write_config(home: Path, hooks: Any, **top: Any) -> None:
    """Write ``<home>/config.yaml`` with a ``hooks:`` block and other top-level keys."""
    document = {"hooks": hooks, **top}
    (home / "config.yaml").write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")


def approve(home: Path, event: str, command: str) -> None:
    """Allowlist ``(event, command)`` the way ``hermes-hooks approve`` does."""
    Allowlist(home).approve(event, command)


def allowlist_document(home: Path) -> dict[str, Any]:
    """The parsed allowlist file."""
    return json.loads((home / ALLOWLIST_NAME).read_text(encoding="utf-8"))


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The WARNING messages logged so far."""
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


def errors_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The ERROR messages logged so far."""
    return [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]


def problems_of(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str]]:
    """``(level name, message)`` of every WARNING or worse logged so far, in order."""
    return [(r.levelname, r.getMessage()) for r in caplog.records if r.levelno >= logging.WARNING]


def mode_of(path: Path) -> int:
    """The permission bits of ``path``."""
    return stat.S_IMODE(os.stat(path).st_mode)
