"""Shell-hook test helpers: real scripts in a temporary home, real subprocesses."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.hooks import Hooks
from tests.shell.helpers import (
    approve,
    write_config,
    write_script,
)


@pytest.fixture
def gate(home: Path, load: Callable[..., Hooks]) -> Callable[..., Hooks]:
    """``gate(body, **entry)``: one approved pre_tool_call hook running ``body``."""

    def make(body: str, name: str = "gate.sh", event: str = "pre_tool_call", **entry: Any) -> Hooks:
        script = write_script(home / "agent-hooks" / name, body)
        write_config(home, {event: [{"command": str(script), **entry}]})
        approve(home, event, str(script))
        return load()

    return make
