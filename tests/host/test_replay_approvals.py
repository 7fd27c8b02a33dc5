"""``hermes-hooks replay`` and the home's shell-hook approvals.

A replay loads a temporary copy of the home.  The approvals given in the home hold in
that copy (a script the config names relative to the home is pinned relative to it),
the copy never asks for consent and is never written (``--accept-hooks`` approves for
that run only), and a consent message names the files it really checked.  Everything
through the CLI, on a copy of ``examples/home``, with real scripts run by real bash.
"""

from __future__ import annotations

import json
import logging
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.cli import main
from hermes_hooks.shell.consent import ALLOWLIST_NAME

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_HOME = REPO / "examples" / "home"
DANGEROUS = str(REPO / "examples" / "recordings" / "dangerous-commands.jsonl")
GATE = "agent-hooks/block-rm-rf.sh"
CONTEXT = "agent-hooks/inject-git-status.sh"
BLOCKED_THREE = "  calls blocked          3  (block answers: shell 3)"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A copy of examples/home as git holds it (no approvals, logs or outbox)."""
    target = tmp_path / "H"
    shutil.copytree(
        EXAMPLE_HOME,
        target,
        ignore=shutil.ignore_patterns(
            "logs", "__pycache__", "shell-hooks-allowlist.json*", "outbound-outbox.sqlite3*"
        ),
    )
    return target


def cli(capsys: Any, home: Path, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["--home", str(home), "--no-entry-points", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def replay(capsys: Any, home: Path, *argv: str) -> tuple[int, str, str]:
    return cli(capsys, home, "replay", "--jobs", "1", "--flush-timeout", "0.2", *argv)


def spy_on_allowlist(home: Path, record: Path) -> None:
    """Make the gate script record, each time it runs, the allowlist of the home it runs
    from (the replay's copy) followed by an empty line, or ``absent``; then gate as before."""
    gate = home / GATE
    body = gate.read_text(encoding="utf-8")
    spy = (
        'here="$(dirname "$0")/.."\n'
        f'if [ -e "$here/{ALLOWLIST_NAME}" ]; then\n'
        f'  cat "$here/{ALLOWLIST_NAME}" >> {record}; echo >> {record}\n'
        f"else\n  echo absent >> {record}\nfi\n"
    )
    shebang, rest = body.split("\n", 1)
    gate.write_text(f"{shebang}\n{spy}{rest}", encoding="utf-8")


def test_an_approved_gate_blocks_in_a_replay_and_fails_the_gate(
    home: Path, capsys: Any, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    assert cli(capsys, home, "approve", "pre_tool_call", GATE)[0] == 0
    assert cli(capsys, home, "approve", "pre_llm_call", CONTEXT)[0] == 0
    code, out, _ = cli(capsys, home, "doctor")
    assert code == 0, out
    before = (home / ALLOWLIST_NAME).read_bytes()

    code, out, _ = replay(capsys, home, "--fail-on", "block", DANGEROUS)
    assert code == 1
    assert BLOCKED_THREE in out.splitlines()
    assert "replay failed: --fail-on block" in out
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
    assert (home / ALLOWLIST_NAME).read_bytes() == before  # the real home is untouched


def test_a_fail_closed_gate_approved_in_the_home_decides_in_the_replay(
    home: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = home / "config.yaml"
    text = config.read_text(encoding="utf-8")
    config.write_text(
        text.replace("      timeout: 5\n", "      timeout: 5\n      fail_closed: true\n", 1)
    )
    assert "fail_closed: true" in config.read_text(encoding="utf-8")
    monkeypatch.chdir(REPO)
    assert cli(capsys, home, "approve", "pre_tool_call", GATE)[0] == 0
    code, out, _ = replay(capsys, home, "--json", "--fail-on", "block", DANGEROUS)
    assert code == 1
    summary = json.loads(out)["summary"]
    # The three rm -rf calls, not all six: the gate ran and decided, it did not fail closed.
    assert (summary["calls_blocked"], summary["tool_calls"]) == (3, 6)


def test_an_allowlist_of_the_format_before_keeps_working_in_a_replay(
    home: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Absolute pins, no home_path: what approvals looked like before relative pins.
    script = str(home / GATE)
    entry = {
        "event": "pre_tool_call",
        "command": GATE,
        "approved_at": "2026-01-01T00:00:00Z",
        "program_path": script,
        "script_path": script,
        "script_mtime_at_approval": None,
        "script_sha256": None,
    }
    (home / ALLOWLIST_NAME).write_text(json.dumps({"approvals": [entry]}), encoding="utf-8")
    monkeypatch.chdir(REPO)
    code, out, _ = replay(capsys, home, "--fail-on", "block", DANGEROUS)
    assert code == 1
    assert BLOCKED_THREE in out.splitlines()
    code, out, _ = cli(capsys, home, "doctor")  # and in the home itself
    assert code == 0, out


def test_accept_hooks_approves_for_the_replay_only_and_never_writes_the_copy(
    home: Path, tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = tmp_path / "seen.log"
    spy_on_allowlist(home, record)
    monkeypatch.chdir(REPO)
    code, out, _ = replay(capsys, home, "--accept-hooks", "--fail-on", "block", DANGEROUS)
    assert code == 1
    assert BLOCKED_THREE in out.splitlines()
    # The gate ran for each of the five terminal calls, in a copy that never held an
    # allowlist.
    assert record.read_text().splitlines() == ["absent"] * 5
    assert not (home / ALLOWLIST_NAME).exists()  # nor did the real home get one


def test_a_replay_uses_the_homes_approvals_and_writes_nothing_into_the_copy(
    home: Path, tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = tmp_path / "seen.log"
    spy_on_allowlist(home, record)  # before approving: the approval pins these bytes
    monkeypatch.chdir(REPO)
    assert cli(capsys, home, "approve", "pre_tool_call", GATE)[0] == 0
    before = (home / ALLOWLIST_NAME).read_bytes()
    code, _, _ = replay(capsys, home, "--accept-hooks", "--fail-on", "block", DANGEROUS)
    assert code == 1
    # At each of the five firings the copy held the home's allowlist, byte for byte.
    assert record.read_bytes() == (before + b"\n") * 5
    assert (home / ALLOWLIST_NAME).read_bytes() == before


def test_a_replay_on_a_terminal_asks_nothing_and_runs_no_unapproved_hook(
    home: Path,
    tmp_path: Path,
    capsys: Any,
    monkeypatch: pytest.MonkeyPatch,
    tty_stdin: Callable[[bytes], None],
) -> None:
    record = tmp_path / "seen.log"
    spy_on_allowlist(home, record)
    monkeypatch.chdir(REPO)
    tty_stdin(b"y\ny\n")  # what a user would answer, were they asked
    code, out, err = replay(capsys, home, "--json", "--fail-on", "block", DANGEROUS)
    assert code == 0
    assert "Allow this hook to run?" not in err
    assert json.loads(out)["summary"]["calls_blocked"] == 0  # unapproved: it did not run
    assert not record.exists()
    assert not (home / ALLOWLIST_NAME).exists()


def test_a_refusal_in_a_replay_names_the_files_it_checked(
    home: Path,
    tmp_path: Path,
    capsys: Any,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An old-format approval made before the home was moved here: absolute pins into
    # the old place.  The copy's file is what was checked, and the message says so.
    old = tmp_path / "old-place"
    entry = {
        "event": "pre_tool_call",
        "command": GATE,
        "program_path": str(old / GATE),
        "script_path": str(old / GATE),
    }
    (home / ALLOWLIST_NAME).write_text(json.dumps({"approvals": [entry]}), encoding="utf-8")
    monkeypatch.chdir(REPO)
    code, _, _ = replay(capsys, home, "--fail-on", "block", DANGEROUS)
    assert code == 0  # refused, and not fail_closed: nothing is blocked, loudly
    (error,) = [
        r.getMessage()
        for r in caplog.records
        if r.levelno == logging.ERROR and r.name == "hermes_hooks.consent"
    ]
    prefix, _, rest = error.partition(f": shell hook hooks.pre_tool_call[0] ({GATE}) refused: ")
    copy = Path(prefix.split(" (a replay's copy of ")[0]).parent
    assert copy != home and copy.name == home.name and copy.parent.name.startswith("hermes-replay-")
    assert prefix == f"{copy / 'config.yaml'} (a replay's copy of {home})"
    assert rest.startswith(
        f"it resolved to {old / GATE} when approved and resolves to {copy / GATE} now. "
    )
