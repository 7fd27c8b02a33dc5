"""The pytest plugin for plugin authors (hermes_hooks.testing), used as they would."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.hooks import Hooks
from hermes_hooks.hookspecs import CATALOGUE
from hermes_hooks.testing import fire
from hermes_hooks.types import ToolDecision, TranscriptionRequest

GUARD = """
def guard(tool_name, args, **kwargs):
    if "rm -rf /" in args.get("command", ""):
        return {"action": "block", "message": "no rm -rf /"}

def register(ctx):
    ctx.register_hook("pre_tool_call", guard)
"""


def test_a_plugin_author_tests_a_guard(
    hermes_home: Path, hermes_plugin: Any, fire_hook: Any
) -> None:
    hermes_plugin("my-guard", GUARD)
    blocked = fire_hook("pre_tool_call", tool_name="terminal", args={"command": "rm -rf /"})
    allowed = fire_hook("pre_tool_call", tool_name="terminal", args={"command": "ls"})
    assert blocked == ToolDecision("block", {"command": "rm -rf /"}, "no rm -rf /")
    assert allowed.action == "allow"


def test_the_home_is_isolated(hermes_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    assert os.environ["HERMES_HOME"] == str(hermes_home)
    assert list(hermes_home.iterdir()) == []


@pytest.mark.parametrize("event", sorted(CATALOGUE))
def test_every_hook_fires_with_a_valid_synthetic_payload(event: str, hermes_home: Path) -> None:
    hooks = Hooks.empty(hermes_home)
    seen: list[dict[str, Any]] = []
    hooks.manager.register_callback(event, lambda **kw: seen.append(kw), owner="probe")
    answer = fire(hooks, event)
    hooks.close()
    assert len(seen) == 1
    assert {f.name for f in CATALOGUE[event].fields} <= set(seen[0])
    if event == "pre_transcription":
        assert isinstance(answer, TranscriptionRequest)
