"""An approval of a script the config names relative to the home is pinned relative to
the home, with the script's hash: the home can be moved, or cloned from git with its
allowlist committed beside ``config.yaml`` (as a CI repository holds it), and keeps its
approvals while the bytes are the same.  A changed byte in a home away from where it
was approved is refused loudly; scripts outside the home keep absolute pins.  Real
homes on disk, a real ``git clone``, real subprocesses; approvals through the CLI.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks import load
from hermes_hooks.cli import main
from hermes_hooks.shell.consent import ALLOWLIST_NAME
from tests.helpers import tool_payload
from tests.shell.helpers import allowlist_document, sh, write_config, write_script

GATE = "agent-hooks/gate.sh"
BLOCKS = sh('cat >/dev/null\necho \'{"action": "block", "message": "no"}\'')


def cli(home: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["--home", str(home), "--no-entry-points", *argv])
    return code, capsys.readouterr().out


def gate_home(home: Path, *, fail_closed: bool = False, command: str = GATE) -> None:
    """A home whose pre_tool_call gate blocks every call (when it runs)."""
    write_script(home / GATE, BLOCKS)
    entry: dict[str, Any] = {"command": command}
    if fail_closed:
        entry["fail_closed"] = True
    write_config(home, {"pre_tool_call": [entry]}, plugins={"enabled": []})


def decide(home: Path) -> tuple[str, str | None]:
    hooks = load(home, entry_points=False)
    try:
        decision = hooks.pre_tool_call(**tool_payload())
        return decision.action, decision.message
    finally:
        hooks.close()


def consent_errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno == logging.ERROR and r.name == "hermes_hooks.consent"
    ]


def git(*argv: str, cwd: Path) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *argv],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def test_the_approval_is_written_relative_to_the_home_with_its_hash(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gate_home(home)
    code, out = cli(home, capsys, "approve", "pre_tool_call", GATE)
    assert code == 0
    (entry,) = allowlist_document(home)["approvals"]
    assert {k: entry[k] for k in ("program_path", "script_path", "home_path")} == {
        "program_path": GATE,
        "script_path": GATE,
        "home_path": str(home),
    }
    assert entry["script_sha256"] == hashlib.sha256((home / GATE).read_bytes()).hexdigest()
    assert f"  script: {home / GATE}" in out.splitlines()


def test_a_moved_home_keeps_its_approvals_while_the_bytes_are_the_same(
    home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    gate_home(home, fail_closed=True)
    assert cli(home, capsys, "approve", "pre_tool_call", GATE)[0] == 0
    moved = tmp_path / "elsewhere" / "home"
    moved.parent.mkdir()
    shutil.move(str(home), str(moved))
    assert decide(moved) == ("block", "no")  # the gate itself decided
    assert consent_errors(caplog) == []
    code, out = cli(moved, capsys, "doctor")
    assert code == 0, out
    assert (
        f"✓ shell hooks.pre_tool_call[0] {GATE}: script unchanged since approval (same "
        f"sha256; approved in the home {home})"
    ) in out.splitlines()


def test_a_git_clone_with_the_allowlist_committed_keeps_its_approvals(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gate_home(home)
    assert cli(home, capsys, "approve", "pre_tool_call", GATE)[0] == 0
    git("init", "-q", cwd=home)
    git("add", "config.yaml", GATE, ALLOWLIST_NAME, cwd=home)
    git("commit", "-q", "-m", "hooks and their approvals", cwd=home)
    clone = tmp_path / "ci" / "checkout"
    git("clone", "-q", str(home), str(clone), cwd=tmp_path)
    assert decide(clone) == ("block", "no")
    code, out = cli(clone, capsys, "doctor")
    assert code == 0, out
    assert "✗" not in out


def test_a_changed_byte_in_a_moved_home_is_refused_loudly(
    home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    gate_home(home, fail_closed=True)
    assert cli(home, capsys, "approve", "pre_tool_call", GATE)[0] == 0
    approved = hashlib.sha256((home / GATE).read_bytes()).hexdigest()
    clone = tmp_path / "clone"
    shutil.copytree(home, clone)
    edited = (clone / GATE).read_bytes().replace(b'"no"', b'"No"')
    (clone / GATE).write_bytes(edited)
    now = hashlib.sha256(edited).hexdigest()

    action, message = decide(clone)
    assert action == "block"  # a fail_closed gate refused: it blocks without running
    why = (
        f"it was approved in the home {home} as {home / GATE} (sha256 {approved}), and "
        f"{clone / GATE} here has other bytes (sha256 {now})"
    )
    assert message == f"hook {GATE} failed closed: not run: {why}"
    assert consent_errors(caplog) == [
        f"{clone / 'config.yaml'}: shell hook hooks.pre_tool_call[0] ({GATE}) refused: {why}. "
        "Not run (a fail_closed gate blocks) until approved again: review that file; if it "
        f"is the one you mean, approve it: hermes-hooks approve pre_tool_call {GATE}"
    ]
    code, out = cli(clone, capsys, "doctor")
    assert code == 1
    assert f"✗ shell hooks.pre_tool_call[0] {GATE}: refused — {why}; not run" in out

    # Approving it in the new home pins the new bytes there.
    assert cli(clone, capsys, "approve", "pre_tool_call", GATE)[0] == 0
    assert decide(clone) == ("block", "No")


def test_in_the_home_it_was_approved_in_an_edit_is_trusted_as_before(
    home: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    gate_home(home)
    assert cli(home, capsys, "approve", "pre_tool_call", GATE)[0] == 0
    script = home / GATE
    script.write_bytes(script.read_bytes().replace(b'"no"', b'"edited"'))
    assert decide(home) == ("block", "edited")  # runs; list and doctor flag the edit
    assert consent_errors(caplog) == []
    code, out = cli(home, capsys, "doctor")
    assert code == 0, out  # a warning, not an error
    assert f"⚠ shell hooks.pre_tool_call[0] {GATE}: script content changed since approval" in out


def test_a_script_outside_the_home_keeps_its_absolute_pin(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = write_script(tmp_path / "shared" / "gate.sh", BLOCKS)
    gate_home(home, command=str(outside))
    assert cli(home, capsys, "approve", "pre_tool_call", str(outside))[0] == 0
    (entry,) = allowlist_document(home)["approvals"]
    assert (entry["program_path"], entry["script_path"]) == (str(outside), str(outside))
    assert "home_path" not in entry
    moved = tmp_path / "moved"
    shutil.move(str(home), str(moved))
    assert decide(moved) == ("block", "no")  # the same absolute file: still approved


def test_a_relative_path_that_leaves_the_home_is_pinned_absolute(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = write_script(tmp_path / "shared.sh", BLOCKS)
    gate_home(home, command="../shared.sh")
    assert cli(home, capsys, "approve", "pre_tool_call", "../shared.sh")[0] == 0
    (entry,) = allowlist_document(home)["approvals"]
    assert entry["script_path"] == str(home / ".." / "shared.sh")
    assert "home_path" not in entry
    assert outside.exists()


def test_an_allowlist_of_the_format_before_is_read_and_kept(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gate_home(home)
    script = str(home / GATE)
    old = {
        "event": "pre_tool_call",
        "command": GATE,
        "approved_at": "2026-01-01T00:00:00Z",
        "program_path": script,
        "script_path": script,
        "script_mtime_at_approval": None,
        "script_sha256": None,
    }
    (home / ALLOWLIST_NAME).write_text(json.dumps({"approvals": [old]}), encoding="utf-8")
    assert decide(home) == ("block", "no")
    code, out = cli(home, capsys, "list", "--json")
    assert code == 0
    (view,) = json.loads(out)["shell"]["hooks"]
    assert (view["state"], view["approval"]) == ("registered", old)
