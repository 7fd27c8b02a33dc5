"""The CLI behaves like the tools people know: a mistyped command gets a did-you-mean,
``-v`` works after the command, Ctrl-C in ``listen`` exits 130, a terminal that cannot
write the marks gets ASCII stand-ins, and ``approve`` refuses what cannot run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def cli(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hermes_hooks", *argv],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )


def test_a_mistyped_command_gets_a_did_you_mean_and_exit_2() -> None:
    done = cli("repaly", "x.jsonl")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "hermes-hooks: unknown command 'repaly' — did you mean 'replay'?\n"
    done = cli("--home", "/nowhere", "zzz")
    assert done.returncode == 2
    assert done.stderr.startswith("hermes-hooks: unknown command 'zzz' — commands: replay, list,")


def test_verbose_counts_after_the_command_too(home: Path) -> None:
    before = cli("--home", str(home), "--no-entry-points", "-v", "list")
    after = cli("--home", str(home), "--no-entry-points", "list", "-v")
    assert (before.returncode, after.returncode) == (0, 0)
    assert after.stdout == before.stdout
    assert "Hermes home: " in after.stdout


def test_ctrl_c_in_listen_exits_130() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "hermes_hooks", "listen", "--port", "0"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first.startswith("listening on http://127.0.0.1:"), first
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=60) == 130
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def test_an_ascii_terminal_gets_ascii_marks(home: Path) -> None:
    (home / "config.yaml").write_text(
        "hooks:\n  pre_tool_call:\n    - command: ./gate.sh\n", encoding="utf-8"
    )
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    done = cli("--home", str(home), "--no-entry-points", "list", env=env)
    assert done.returncode == 0, done.stderr
    assert "UnicodeEncodeError" not in done.stderr
    assert "    X ./gate.sh  timeout=60s  (not allowlisted)" in done.stdout.splitlines()
    doctor = cli("--home", str(home), "--no-entry-points", "doctor", env=env)
    assert doctor.returncode == 1
    assert "Traceback" not in doctor.stderr
    assert (
        "X shell hooks.pre_tool_call[0] ./gate.sh: not allowlisted -- it will NOT run, so "
        "this gate is off; review the script, then: hermes-hooks approve pre_tool_call ./gate.sh"
    ) in doctor.stdout.splitlines()


def test_approve_refuses_a_missing_or_non_executable_script(home: Path) -> None:
    missing = cli("--home", str(home), "approve", "pre_tool_call", "./gate.sh")
    assert missing.returncode == 1
    assert missing.stderr == (
        f"hermes-hooks: not approved: ./gate.sh: {home / 'gate.sh'} does not exist. "
        "Fix: create it, or correct the path in the command\n"
    )
    script = home / "gate.sh"
    script.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    script.chmod(0o644)
    plain = cli("--home", str(home), "approve", "pre_tool_call", "./gate.sh")
    assert plain.returncode == 1
    assert plain.stderr == (
        f"hermes-hooks: not approved: ./gate.sh: {script} is not executable. "
        f"Fix: chmod +x {script}\n"
    )
    unknown = cli("--home", str(home), "approve", "pre_tool_call", "no-such-program-here")
    assert unknown.returncode == 1
    assert unknown.stderr == (
        "hermes-hooks: not approved: no-such-program-here: its program is not found on "
        "PATH. Fix: install it, or write its full path\n"
    )
    assert not (home / "shell-hooks-allowlist.json").exists()  # nothing was approved
    script.chmod(0o755)
    approved = cli("--home", str(home), "approve", "pre_tool_call", "./gate.sh")
    assert approved.returncode == 0, approved.stderr
    assert approved.stdout.startswith("Approved shell hook for pre_tool_call: ./gate.sh\n")
