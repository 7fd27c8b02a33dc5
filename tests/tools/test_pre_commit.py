"""The repository's ``.pre-commit-hooks.yaml``, run by the real ``pre-commit`` tool:
``pre-commit try-repo`` builds a venv of this repository (installing hermes-hooks from
it) and runs the hooks in a test repository holding a Hermes home and a recording."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
RECORDING = REPO / "examples" / "recordings" / "quickstart.jsonl"
GATE = "#!/bin/sh\ncat >/dev/null\nexit 0\n"
# pre-commit pads each hook's name with dots to 79 columns
DOCTOR = "hermes-hooks doctor"
REPLAY = "hermes-hooks replay"
HERMES_HOOKS = (sys.executable, "-m", "hermes_hooks")


def status(name: str, outcome: str) -> str:
    return name + "." * (79 - len(name) - len(outcome)) + outcome


def git(folder: Path, *argv: str) -> None:
    subprocess.run(["git", *argv], cwd=folder, check=True, capture_output=True, timeout=60)


def project(tmp_path: Path, *, approved: bool) -> Path:
    """A git repository with a Hermes home (one gate, approved or not) and a recording."""
    folder = tmp_path / "project"
    home = folder / "home"
    home.mkdir(parents=True)
    (folder / "recordings").mkdir()
    shutil.copy(RECORDING, folder / "recordings" / "quickstart.jsonl")
    (home / "config.yaml").write_text(
        "hooks:\n  pre_tool_call:\n    - command: ./gate.sh\n", encoding="utf-8"
    )
    (home / "gate.sh").write_text(GATE, encoding="utf-8")
    (home / "gate.sh").chmod(0o755)
    if approved:
        done = subprocess.run(
            [*HERMES_HOOKS, "--home", str(home), "approve", "pre_tool_call", "./gate.sh"],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
    git(folder, "init", "-q")
    git(folder, "add", "-A")
    git(
        folder,
        "-c",
        "user.name=test",
        "-c",
        "user.email=test@example.invalid",
        "commit",
        "-qm",
        "x",
    )
    return folder


def try_repo(folder: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``pre-commit try-repo <this repository> --all-files`` in ``folder``, the home
    named by HERMES_HOME (as a CI job sets it), pre-commit's cache inside tmp_path."""
    env = {
        **os.environ,
        "HERMES_HOME": str(folder / "home"),
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-cache"),
        "PYTHONIOENCODING": "utf-8",
    }
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(REPO), "--all-files"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env=env,
    )


def test_the_hooks_file_declares_doctor_and_replay() -> None:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert [(h["id"], h["entry"], h["language"], h["pass_filenames"]) for h in hooks] == [
        ("hermes-hooks-doctor", "hermes-hooks doctor", "python", False),
        ("hermes-hooks-replay", "hermes-hooks replay --fail-on error", "python", False),
    ]
    assert hooks[1]["args"] == ["recordings"]


def test_both_hooks_pass_on_a_home_whose_gate_is_approved(tmp_path: Path) -> None:
    done = try_repo(project(tmp_path, approved=True), tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert status(DOCTOR, "Passed") in lines
    assert status(REPLAY, "Passed") in lines


def test_both_hooks_fail_on_a_gate_that_is_not_approved(tmp_path: Path) -> None:
    done = try_repo(project(tmp_path, approved=False), tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    doctor = lines.index(status(DOCTOR, "Failed"))
    assert lines[doctor + 1 : doctor + 3] == ["- hook id: hermes-hooks-doctor", "- exit code: 1"]
    assert (
        "✗ shell hooks.pre_tool_call[0] ./gate.sh: not allowlisted — it will NOT run, so this "
        "gate is off; review the script, then: hermes-hooks approve pre_tool_call ./gate.sh"
    ) in lines
    replay = lines.index(status(REPLAY, "Failed"))
    assert lines[replay + 1 : replay + 3] == ["- hook id: hermes-hooks-replay", "- exit code: 1"]
    assert lines[-3:] == [
        "replay failed: --fail-on error",
        "  recordings/quickstart.jsonl: start-up: load home shell hook hooks.pre_tool_call[0]: "
        "./gate.sh: not allowlisted, so this gate does not run",
        "",
    ]
