"""Consent pins the files a command leads to.  A relative path in a home's
``config.yaml`` names a file in the home, so it runs the same approved file from any
working directory; a bare name (``myhook``, the ``python3`` of ``python3 hook.py``) goes
through ``PATH``, and a command whose text resolves elsewhere at firing time is refused,
loudly, until it is approved again; a fail-closed gate blocks.  Real scripts, real
directories, real subprocesses; the working directory and PATH really change between
approval and firing.
"""

from __future__ import annotations

import io
import json
import logging
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from hermes_hooks.cli import main
from hermes_hooks.hooks import Hooks
from hermes_hooks.shell import consent
from hermes_hooks.shell.consent import ALLOWLIST_NAME, Allowlist
from hermes_hooks.shell.pin import Resolution
from tests.helpers import tool_payload
from tests.shell.helpers import allowlist_document, approve, sh, write_config, write_script


def errors_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


def marker_hook(directory: Path, name: str, log: Path, label: str) -> Path:
    """A script that records ``label`` in ``log`` when it runs and allows the call."""
    return write_script(directory / name, sh(f"cat >/dev/null\necho {label} >> {log}\necho '{{}}'"))


def ran(log: Path) -> list[str]:
    return log.read_text().split() if log.exists() else []


@pytest.fixture
def intruder_dir(home: Path, tmp_path: Path) -> tuple[Path, Path]:
    """``<home>/hook.sh`` (the approved file) and a working directory whose own
    ``hook.sh`` is an intruder; returns (that directory, the log both write)."""
    log = tmp_path / "ran.log"
    marker_hook(home, "hook.sh", log, "approved")
    elsewhere = tmp_path / "elsewhere"
    marker_hook(elsewhere, "hook.sh", log, "intruder")
    return elsewhere, log


@dataclass(frozen=True)
class Shadowed:
    """A bare ``myhook`` on PATH, and a directory whose ``myhook`` shadows it."""

    real: Path  # holds the approved myhook
    shadow: Path  # holds the intruder myhook
    system: str  # PATH as it was
    log: Path

    def approved_path(self) -> str:
        return f"{self.real}{os.pathsep}{self.system}"

    def shadowed_path(self) -> str:
        return f"{self.shadow}{os.pathsep}{self.real}{os.pathsep}{self.system}"


@pytest.fixture
def shadowed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Shadowed:
    """``myhook`` found on PATH (already set); ``shadowed_path()`` puts an intruder first."""
    log = tmp_path / "ran.log"
    found = Shadowed(tmp_path / "bin", tmp_path / "shadow", os.environ["PATH"], log)
    marker_hook(found.real, "myhook", log, "approved")
    marker_hook(found.shadow, "myhook", log, "intruder")
    monkeypatch.setenv("PATH", found.approved_path())
    return found


def path_refusal(shadowed: Shadowed) -> str:
    """What :func:`pin_check.refusal` says once ``myhook`` is shadowed."""
    return (
        f"it resolved to {shadowed.real / 'myhook'} when approved and resolves to "
        f"{shadowed.shadow / 'myhook'} now (PATH changed)"
    )


# -- relative paths: the home -------------------------------------------------------------


def test_a_relative_command_runs_the_homes_file_from_any_directory(
    home: Path,
    load: Callable[..., Hooks],
    intruder_dir: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    elsewhere, log = intruder_dir
    write_config(home, {"post_tool_call": [{"command": "./hook.sh"}]})
    monkeypatch.chdir(elsewhere)  # approving from a directory with its own hook.sh
    approval = Allowlist(home).approve("post_tool_call", "./hook.sh")
    # Pinned relative to the home it was approved in: the same file from anywhere.
    assert (approval.program_path, approval.script_path, approval.home_path) == (
        "hook.sh",
        "hook.sh",
        str(home),
    )
    assert approval.resolution == Resolution(str(home / "hook.sh"), str(home / "hook.sh"))
    hooks = load()
    hooks.post_tool_call(**tool_payload())
    assert ran(log) == ["approved"]  # the intruder in the current directory never runs

    monkeypatch.chdir(tmp_path)
    hooks.post_tool_call(**tool_payload())
    monkeypatch.chdir(home)
    hooks.post_tool_call(**tool_payload())
    assert ran(log) == ["approved", "approved", "approved"]
    assert errors_of(caplog) == []  # nothing moved: no refusal anywhere


def test_the_pinned_absolute_file_is_what_runs(
    home: Path,
    load: Callable[..., Hooks],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The hook sees its own absolute path as $0: nothing is looked up again at spawn.
    out = tmp_path / "argv0"
    write_script(home / "agent-hooks" / "who.sh", sh(f'cat >/dev/null\necho "$0" > {out}'))
    write_script(tmp_path / "agent-hooks" / "who.sh", sh(f"cat >/dev/null\necho wrong > {out}"))
    write_config(home, {"post_tool_call": [{"command": "agent-hooks/who.sh"}]})
    monkeypatch.chdir(tmp_path)
    approve(home, "post_tool_call", "agent-hooks/who.sh")
    load().post_tool_call(**tool_payload())
    assert out.read_text().strip() == str(home / "agent-hooks" / "who.sh")


def test_a_relative_script_runs_from_elsewhere_and_list_and_doctor_report_no_drift(
    home: Path,
    load: Callable[..., Hooks],
    intruder_dir: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    elsewhere, log = intruder_dir
    hooks_config = {"pre_tool_call": [{"command": "./hook.sh", "fail_closed": True}]}
    write_config(home, hooks_config, plugins={"enabled": []})
    monkeypatch.chdir(home)
    code, out = cli(home, capsys, "approve", "pre_tool_call", "./hook.sh")
    assert code == 0
    assert out.splitlines()[1] == f"  script: {home / 'hook.sh'}"
    # Fixed by the home (no PATH or directory dependence), and pinned relative to it.
    assert [line for line in out.splitlines() if line.startswith("  pinned:")] == [
        f"  pinned: relative to the home {home}; a copy, a move or a clone of the home "
        "keeps this approval while the script keeps this sha256"
    ]

    monkeypatch.chdir(elsewhere)
    code, out = cli(home, capsys, "list")
    assert code == 0
    assert "    ✓ ./hook.sh  timeout=60s fail_closed  (registered)" in out.splitlines()
    assert "✗" not in out
    code, out = cli(home, capsys, "list", "--json")
    (view,) = json.loads(out)["shell"]["hooks"]
    assert view["state"] == "registered"
    assert view["drift"]["refused"] is None
    assert (view["drift"]["program"], view["drift"]["script"]) == (
        str(home / "hook.sh"),
        str(home / "hook.sh"),
    )
    assert (view["approval"]["script_path"], view["approval"]["home_path"]) == (
        "hook.sh",
        str(home),
    )
    assert view["drift"]["approved_in"] is None  # approved in this very home
    log.unlink(missing_ok=True)
    code, out = cli(home, capsys, "doctor")
    assert code == 0, out
    assert "✗" not in out
    assert (
        "✓ shell hooks.pre_tool_call[0] ./hook.sh: script unchanged since approval"
    ) in out.splitlines()
    assert "✓ shell hooks.pre_tool_call[0] ./hook.sh: smoke test: valid JSON (exit 0, " in out
    assert ran(log) == ["approved"]  # the smoke test ran the home's file, not the intruder

    hooks = load()
    assert hooks.pre_tool_call(**tool_payload()).action == "allow"
    assert ran(log) == ["approved", "approved"]
    assert errors_of(caplog) == []


# -- PATH: bare names and interpreters ------------------------------------------------------


def test_a_bare_name_shadowed_by_an_earlier_path_entry_is_refused(
    home: Path,
    load: Callable[..., Hooks],
    shadowed: Shadowed,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    write_config(home, {"post_tool_call": [{"command": "myhook"}]})
    approve(home, "post_tool_call", "myhook")
    assert allowlist_document(home)["approvals"][0]["program_path"] == str(shadowed.real / "myhook")
    hooks = load()
    hooks.post_tool_call(**tool_payload())
    assert ran(shadowed.log) == ["approved"]

    monkeypatch.setenv("PATH", shadowed.shadowed_path())
    caplog.clear()
    hooks.post_tool_call(**tool_payload())
    hooks.post_tool_call(**tool_payload())
    assert ran(shadowed.log) == ["approved"]  # neither file ran: the text now leads elsewhere
    assert errors_of(caplog) == [  # once, not once per firing
        f"{home / 'config.yaml'}: shell hook hooks.post_tool_call[0] (myhook) refused: "
        f"{path_refusal(shadowed)}. Not run until approved again: review that file; if it "
        "is the one you mean, approve it: hermes-hooks approve post_tool_call myhook"
    ]

    monkeypatch.setenv("PATH", shadowed.approved_path())
    hooks.post_tool_call(**tool_payload())
    assert ran(shadowed.log) == ["approved", "approved"]


def test_a_fail_closed_gate_whose_command_resolves_elsewhere_blocks(
    home: Path,
    load: Callable[..., Hooks],
    shadowed: Shadowed,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    write_config(home, {"pre_tool_call": [{"command": "myhook", "fail_closed": True}]})
    approve(home, "pre_tool_call", "myhook")
    hooks = load()
    assert hooks.pre_tool_call(**tool_payload()).action == "allow"
    monkeypatch.setenv("PATH", shadowed.shadowed_path())
    decision = hooks.pre_tool_call(**tool_payload())
    assert (decision.action, decision.message) == (
        "block",
        f"hook myhook failed closed: not run: {path_refusal(shadowed)}",
    )
    assert ran(shadowed.log) == ["approved"]
    assert errors_of(caplog) == [
        f"{home / 'config.yaml'}: shell hook hooks.pre_tool_call[0] (myhook) refused: "
        f"{path_refusal(shadowed)}. Not run (a fail_closed gate blocks) until approved "
        "again: review that file; if it is the one you mean, approve it: hermes-hooks "
        "approve pre_tool_call myhook"
    ]


def test_a_gate_loaded_with_a_shadowed_path_says_so_at_load_and_blocks(
    home: Path,
    load: Callable[..., Hooks],
    shadowed: Shadowed,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    write_config(home, {"pre_tool_call": [{"command": "myhook", "fail_closed": True}]})
    approve(home, "pre_tool_call", "myhook")
    monkeypatch.setenv("PATH", shadowed.shadowed_path())
    monkeypatch.setattr(sys, "stdin", io.StringIO("y\n"))  # not a terminal: no prompt
    hooks = load()
    assert errors_of(caplog) == [  # at load, before any firing
        f"{home / 'config.yaml'}: shell hook hooks.pre_tool_call[0] (myhook) refused: "
        f"{path_refusal(shadowed)}. Not run (a fail_closed gate blocks) until approved "
        "again: review that file; if it is the one you mean, approve it: hermes-hooks "
        "approve pre_tool_call myhook"
    ]
    (record,) = hooks.sources["shell"].records()
    assert record.state == "registered"
    assert record.note == f"refused until approved again: {path_refusal(shadowed)}"
    assert hooks.pre_tool_call(**tool_payload()).action == "block"
    assert ran(shadowed.log) == []
    assert len(errors_of(caplog)) == 1  # the firing does not say it again


def test_an_interpreter_command_pins_the_interpreter_and_the_homes_script(
    home: Path,
    load: Callable[..., Hooks],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    log = tmp_path / "ran.log"
    other, fake_bin = tmp_path / "other", tmp_path / "fake-bin"
    for directory, label in ((home, "approved"), (other, "intruder")):
        write_script(
            directory / "hook.py",
            f"import sys\nsys.stdin.read()\nopen({str(log)!r}, 'a').write('{label}\\n')\n",
        )
    real_bin = tmp_path / "real-bin"
    real_bin.mkdir()
    (real_bin / "python3").symlink_to(Path(sys.executable))
    write_script(fake_bin / "python3", sh(f"echo fake >> {log}"))
    system_path = os.environ["PATH"]
    monkeypatch.setenv("PATH", f"{real_bin}{os.pathsep}{system_path}")
    monkeypatch.chdir(other)
    write_config(home, {"post_tool_call": [{"command": "python3 hook.py"}]})
    approve(home, "post_tool_call", "python3 hook.py")
    entry = allowlist_document(home)["approvals"][0]
    # The interpreter comes from PATH (absolute); the script from the home (relative).
    assert (entry["program_path"], entry["script_path"], entry["home_path"]) == (
        str(real_bin / "python3"),
        "hook.py",
        str(home),
    )
    hooks = load()
    hooks.post_tool_call(**tool_payload())  # run from a directory with its own hook.py
    monkeypatch.chdir(tmp_path)
    hooks.post_tool_call(**tool_payload())
    assert ran(log) == ["approved", "approved"]
    assert errors_of(caplog) == []

    monkeypatch.setenv("PATH", f"{fake_bin}{os.pathsep}{real_bin}{os.pathsep}{system_path}")
    hooks.post_tool_call(**tool_payload())  # the interpreter resolves elsewhere
    assert ran(log) == ["approved", "approved"]
    assert errors_of(caplog) == [
        f"{home / 'config.yaml'}: shell hook hooks.post_tool_call[0] (python3 hook.py) "
        f"refused: it resolved to {real_bin / 'python3'} {home / 'hook.py'} when approved "
        f"and resolves to {fake_bin / 'python3'} {home / 'hook.py'} now (PATH changed). "
        "Not run until approved again: review that file; if it is the one you mean, "
        "approve it: hermes-hooks approve post_tool_call 'python3 hook.py'"
    ]


# -- entries from before pinning ---------------------------------------------------------------


def test_an_unpinned_entry_of_a_home_relative_command_keeps_running(
    home: Path,
    load: Callable[..., Hooks],
    intruder_dir: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Its text and the home fix the file, so the old entry is as good as a pin.
    elsewhere, log = intruder_dir
    (home / ALLOWLIST_NAME).write_text(
        json.dumps({"approvals": [{"event": "pre_tool_call", "command": "./hook.sh"}]})
    )
    write_config(home, {"pre_tool_call": [{"command": "./hook.sh", "fail_closed": True}]})
    monkeypatch.chdir(elsewhere)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    hooks = load()
    assert hooks.pre_tool_call(**tool_payload()).action == "allow"
    assert ran(log) == ["approved"]
    assert errors_of(caplog) == []
    assert consent.Allowlist(home).approvals()[0].pinned is False  # nothing rewrote it


def test_an_unpinned_entry_of_a_path_dependent_command_needs_re_approval(
    home: Path,
    load: Callable[..., Hooks],
    shadowed: Shadowed,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    (home / ALLOWLIST_NAME).write_text(
        json.dumps({"approvals": [{"event": "pre_tool_call", "command": "myhook"}]})
    )
    write_config(home, {"pre_tool_call": [{"command": "myhook", "fail_closed": True}]})
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    hooks = load()
    decision = hooks.pre_tool_call(**tool_payload())
    assert (decision.action, decision.message) == (
        "block",
        "hook myhook failed closed: not run: it was approved without recording which "
        f"file it runs, and it depends on PATH (now {shadowed.real / 'myhook'}); it "
        "needs re-approval",
    )
    assert ran(shadowed.log) == []
    assert errors_of(caplog) == [
        f"{home / 'config.yaml'}: shell hook hooks.pre_tool_call[0] (myhook) refused: it "
        "was approved without recording which file it runs, and it depends on PATH (now "
        f"{shadowed.real / 'myhook'}); it needs re-approval. Not run (a fail_closed gate "
        "blocks) until approved again: review that file; if it is the one you mean, "
        "approve it: hermes-hooks approve pre_tool_call myhook"
    ]
    approve(home, "pre_tool_call", "myhook")  # re-approving pins it
    assert hooks.pre_tool_call(**tool_payload()).action == "allow"
    assert ran(shadowed.log) == ["approved"]


def test_a_bypass_re_pins_a_command_that_moved_and_says_so(
    home: Path,
    load: Callable[..., Hooks],
    shadowed: Shadowed,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    write_config(home, {"post_tool_call": [{"command": "myhook"}]})
    approve(home, "post_tool_call", "myhook")
    monkeypatch.setenv("PATH", shadowed.shadowed_path())
    hooks = load(accept_hooks=True)
    assert errors_of(caplog) == []
    assert (
        "shell hook hooks.post_tool_call[0] (myhook) approved again by --accept-hooks: "
        f"{path_refusal(shadowed)}"
    ) in warnings_of(caplog)
    assert allowlist_document(home)["approvals"][0]["program_path"] == str(
        shadowed.shadow / "myhook"
    )
    hooks.post_tool_call(**tool_payload())
    assert ran(shadowed.log) == ["intruder"]


def test_an_unpinned_absolute_command_keeps_running(
    home: Path, load: Callable[..., Hooks], tmp_path: Path
) -> None:
    log = tmp_path / "ran.log"
    script = marker_hook(tmp_path / "hooks", "abs.sh", log, "ran")
    write_config(home, {"post_tool_call": [{"command": str(script)}]})
    (home / ALLOWLIST_NAME).write_text(
        json.dumps({"approvals": [{"event": "post_tool_call", "command": str(script)}]})
    )
    load().post_tool_call(**tool_payload())
    assert ran(log) == ["ran"]
    assert consent.Allowlist(home).approvals()[0].pinned is False


# -- approve, list, doctor, test --------------------------------------------------------------


def cli(home: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["--home", str(home), "--no-entry-points", *argv])
    return code, capsys.readouterr().out


def test_approve_list_and_doctor_show_the_pin_and_the_drift(
    home: Path,
    shadowed: Shadowed,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    hooks = {"pre_tool_call": [{"command": "myhook", "fail_closed": True}]}
    write_config(home, hooks, plugins={"enabled": []})  # only the shell hook is checked
    code, out = cli(home, capsys, "approve", "pre_tool_call", "myhook")
    assert code == 0
    assert out.splitlines()[1] == f"  script: {shadowed.real / 'myhook'}"
    assert (
        "  pinned: the command depends on PATH; it runs only while it leads to these files"
    ) in out.splitlines()

    code, out = cli(home, capsys, "doctor")
    assert code == 0, out
    assert "✗" not in out

    monkeypatch.setenv("PATH", shadowed.shadowed_path())
    code, out = cli(home, capsys, "list")
    assert code == 0
    assert "    ✗ myhook  timeout=60s fail_closed  (refused)" in out
    refusal = (
        f"refused — {path_refusal(shadowed)}; not run until approved again: review that "
        "file; if it is the one you mean, approve it: hermes-hooks approve pre_tool_call "
        "myhook"
    )
    assert f"        ✗ {refusal}" in out.splitlines()
    code, out = cli(home, capsys, "list", "--json")
    (view,) = json.loads(out)["shell"]["hooks"]
    assert view["state"] == "refused"
    assert view["drift"]["script"] == str(shadowed.real / "myhook")
    assert view["drift"]["refused"] == path_refusal(shadowed)
    assert view["approval"]["program_path"] == str(shadowed.real / "myhook")

    shadowed.log.unlink(missing_ok=True)
    code, out = cli(home, capsys, "doctor")
    assert code == 1
    assert refusal in out
    assert "smoke test skipped — refused" in out
    assert ran(shadowed.log) == []  # doctor never runs a file nobody approved


def test_doctor_flags_an_unpinned_path_dependent_entry_as_an_error(
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    bindir = tmp_path / "bin"
    marker_hook(bindir, "myhook", tmp_path / "ran.log", "x")
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    write_config(home, {"post_tool_call": [{"command": "myhook"}]}, plugins={"enabled": []})
    (home / ALLOWLIST_NAME).write_text(
        json.dumps({"approvals": [{"event": "post_tool_call", "command": "myhook"}]})
    )
    code, out = cli(home, capsys, "doctor")
    assert code == 1
    assert (
        "refused — it was approved without recording which file it runs, and it depends on "
        f"PATH (now {bindir / 'myhook'}); it needs re-approval; not run until approved again"
    ) in out


@pytest.mark.parametrize("answer", [b"y\n", b"n\n"])
def test_at_a_terminal_a_moved_command_is_asked_about_again(
    home: Path,
    load: Callable[..., Hooks],
    shadowed: Shadowed,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    answer: bytes,
    tty_stdin: Callable[[bytes], None],
) -> None:
    write_config(home, {"pre_tool_call": [{"command": "myhook", "fail_closed": True}]})
    approve(home, "pre_tool_call", "myhook")
    monkeypatch.setenv("PATH", shadowed.shadowed_path())
    tty_stdin(answer)
    hooks = load()
    err = capsys.readouterr().err
    assert f"    Again:   {path_refusal(shadowed)}\n" in err
    assert f"    Script:  {shadowed.shadow / 'myhook'} (sha256 " in err
    decision = hooks.pre_tool_call(**tool_payload())
    program_path = allowlist_document(home)["approvals"][0]["program_path"]
    if answer == b"y\n":
        assert decision.action == "allow"
        assert ran(shadowed.log) == ["intruder"]  # the user approved the new file, having seen it
        assert program_path == str(shadowed.shadow / "myhook")
    else:
        assert decision.action == "block"  # still refused: a fail-closed gate blocks
        assert ran(shadowed.log) == []
        assert program_path == str(shadowed.real / "myhook")


def test_the_test_command_does_not_run_a_command_that_moved(
    home: Path,
    shadowed: Shadowed,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    write_config(home, {"pre_tool_call": [{"command": "myhook"}]})
    approve(home, "pre_tool_call", "myhook")
    monkeypatch.setenv("PATH", shadowed.shadowed_path())
    code, out = cli(home, capsys, "test", "pre_tool_call")
    assert code == 0
    assert out.splitlines()[3:5] == [
        f"      ✗ refused — {path_refusal(shadowed)}; not run",
        "      review that file; if it is the one you mean, approve it: hermes-hooks "
        "approve pre_tool_call myhook",
    ]
    assert ran(shadowed.log) == []
    monkeypatch.setenv("PATH", shadowed.approved_path())
    code, out = cli(home, capsys, "test", "pre_tool_call")
    assert "exit 0 in" in out
    assert ran(shadowed.log) == ["approved"]
