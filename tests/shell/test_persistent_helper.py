"""The contrib helper that serves the persistent protocol from a Python hook script."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.hooks import Hooks
from tests.helpers import tool_payload
from tests.shell.helpers import CONTRIB, approve, py, warnings_of, write_config, write_script

HELPER = CONTRIB / "hermes_persistent.py"

GUARD = """
import os, sys
from hermes_persistent import serve

STARTED = os.getpid()          # stands for an expensive policy loaded once

def decide(event):
    command = event["tool_input"].get("command", "")
    print("chatter that must not reach the agent")
    if command == "raise":
        raise RuntimeError("policy exploded")
    if command.startswith("rm -rf /"):
        return {"action": "block", "message": f"refused by {STARTED}"}
    return None

serve(decide)
"""


@pytest.fixture
def guard(home: Path, load: Callable[..., Hooks]) -> Callable[..., Hooks]:
    def make(**entry: Any) -> Hooks:
        folder = home / "agent-hooks"
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(HELPER, folder / HELPER.name)
        script = write_script(folder / "guard.py", py(GUARD))
        write_config(home, {"pre_tool_call": [{"command": str(script), **entry}]})
        approve(home, "pre_tool_call", str(script))
        return load()

    return make


def fire(hooks: Hooks, command: str) -> Any:
    return hooks.pre_tool_call(**tool_payload(args={"command": command}))


def test_a_persistent_guard_answers_from_one_process(guard: Callable[..., Hooks]) -> None:
    hooks = guard(persistent=True, fail_closed=True)
    first, second = fire(hooks, "rm -rf /"), fire(hooks, "rm -rf /home")
    assert first.action == second.action == "block"
    assert first.message == second.message  # the same process (pid) answered both
    assert fire(hooks, "ls").action == "allow"
    assert hooks.sources["shell"].records()[0].hook.process.starts == 1  # type: ignore[attr-defined]


def test_the_same_script_runs_per_firing(guard: Callable[..., Hooks]) -> None:
    hooks = guard(fail_closed=True)
    first, second = fire(hooks, "rm -rf /"), fire(hooks, "rm -rf /")
    assert first.action == second.action == "block"
    assert first.message != second.message  # one process per firing
    assert fire(hooks, "ls").action == "allow"


@pytest.mark.parametrize("persistent", [True, False])
def test_a_raising_handler_is_a_failure(
    guard: Callable[..., Hooks],
    home: Path,
    caplog: pytest.LogCaptureFixture,
    persistent: bool,
) -> None:
    hooks = guard(persistent=persistent, fail_closed=True)
    decision = fire(hooks, "raise")
    script = home / "agent-hooks" / "guard.py"
    reason = "exited before answering (exit code 1)" if persistent else "exit code 1"
    assert (decision.action, decision.message) == (
        "block",
        f"hook {script} failed closed: {reason}",
    )
    # What the handler printed went to stderr, where the warning shows it.
    assert any("stderr: chatter that must not reach the agent" in w for w in warnings_of(caplog))
    assert fire(hooks, "ls").action == "allow"  # restarted (persistent) / respawned


def _serve(lines: list[bytes], decide: Callable[[dict[str, Any]], Any]) -> tuple[int, list[Any]]:
    sys.path.insert(0, str(CONTRIB))
    try:
        from hermes_persistent import serve  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(CONTRIB))
    out = io.BytesIO()
    status = serve(decide, io.BytesIO(b"".join(lines)), out)
    return status, [json.loads(line) for line in out.getvalue().splitlines()]


def test_serve_answers_each_line_with_its_id() -> None:
    status, answers = _serve(
        [b'{"id": 1, "n": 1}\n', b"\n", b'{"id": 2, "n": 2}\n'],
        lambda event: {"seen": event["n"], "id": "ignored"} if event["n"] == 2 else None,
    )
    assert status == 0
    assert answers == [{"id": 1}, {"id": 2, "seen": 2}]


def test_serve_answers_a_document_without_id_once() -> None:
    status, answers = _serve([b'{"n": 1}'], lambda event: {"action": "block", "n": event["n"]})
    assert (status, answers) == (0, [{"action": "block", "n": 1}])


def test_serve_stops_at_a_bad_answer() -> None:
    status, answers = _serve([b'{"id": 1}\n', b'{"id": 2}\n'], lambda event: "block")
    assert (status, answers) == (1, [])


def test_serve_exits_at_the_end_of_its_input(tmp_path: Path) -> None:
    shutil.copy(HELPER, tmp_path / HELPER.name)
    script = write_script(
        tmp_path / "guard.py", py("from hermes_persistent import serve\nserve(lambda e: None)")
    )
    done = subprocess.run(
        [str(script)], input=b'{"id": 9}\n', capture_output=True, timeout=30, check=False
    )
    assert (done.returncode, done.stdout) == (0, b'{"id": 9}\n')
