"""Consent pins the files a command leads to: a command whose text resolves elsewhere
at firing time (another current directory, another PATH) is refused, loudly, until it
is approved again; a fail-closed gate blocks.  Real scripts, real directories, real
subprocesses; the working directory and PATH really change between approval and firing.
"""

from __future__ import annotations

import io
import json
import logging
import os
import pty
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from hermes_hooks.adapters.shell import consent
from hermes_hooks.adapters.shell.consent import ALLOWLIST_NAME, Allowlist
from hermes_hooks.cli import main
from hermes_hooks.hooks import Hooks
from tests.helpers import tool_payload
from tests.shell.helpers import allowlist_document, approve, sh, write_config, write_script


def errors_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]


def marker_hook(directory: Path, name: str, log: Path, label: str) -> Path:
    """A script that records ``label`` in ``log`` when it runs and allows the call."""
    return write_script(directory / name, sh(f"cat >/dev/null\necho {label} >> {log}\necho '{{}}'"))


def ran(log: Path) -> list[str]:
    return log.read_text().split() if log.exists() else []


@pytest.fixture
def two_dirs(tmp_path: Path) -> tuple[Path, Path, Path]:
    """Two project directories each holding a ``hook.sh``, and the log they write."""
    log = tmp_path / "ran.log"
    good, evil = tmp_path / "project", tmp_path / "elsewhere"
    marker_hook(good, "hook.sh", log, "approved")
    marker_hook(evil, "hook.sh", log, "intruder")
    return good, evil, log


# -- the current directory -------------------------------------------------------------------


def test_a_relative_command_runs_only_from_the_directory_it_was_approved_in(
    home: Path,
    load: Callable[..., Hooks],
    two_dirs: tuple[Path, Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    good, evil, log = two_dirs
    write_config(home, {"post_tool_call": [{"command": "./hook.sh"}]})
    monkeypatch.chdir(good)
    approval = Allowlist(home).approve("post_tool_call", "./hook.sh")
    assert (approval.program_path, approval.script_path) == (
        str(good / "hook.sh"),
        str(good / "hook.sh"),
    )
    hooks = load()
    hooks.post_tool_call(**tool_payload())
    assert ran(log) == ["approved"]

    monkeypatch.chdir(evil)
    caplog.clear()
    hooks.post_tool_call(**tool_payload())
    hooks.post_tool_call(**tool_payload())
    assert ran(log) == ["approved"]  # neither file ran: the text now leads elsewhere
    assert errors_of(caplog) == [  # once, not once per firing
        f"{home / 'config.yaml'}: shell hook hooks.post_tool_call[0] (./hook.sh) refused: "
        f"it resolved to {good / 'hook.sh'} when approved and resolves to "
        f"{evil / 'hook.sh'} now (the current directory changed). Not run until approved "
        "again: review that file; if it is the one you mean, approve it from the directory "
        "the agent runs in: hermes-hooks approve post_tool_call ./hook.sh"
    ]

    monkeypatch.chdir(good)
    hooks.post_tool_call(**tool_payload())
    assert ran(log) == ["approved", "approved"]


def test_the_pinned_absolute_file_is_what_runs(
    home: Path,
    load: Callable[..., Hooks],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The hook sees its own absolute path as $0: nothing is looked up again at spawn.
    project = tmp_path / "project"
    out = tmp_path / "argv0"
    write_script(project / "who.sh", sh(f'cat >/dev/null\necho "$0" > {out}'))
    write_config(home, {"post_tool_call": [{"command": "./who.sh"}]})
    monkeypatch.chdir(project)
    approve(home, "post_tool_call", "./who.sh")
    load().post_tool_call(**tool_payload())
    assert out.read_text().strip() == str(project / "who.sh")


def test_a_fail_closed_gate_whose_command_resolves_elsewhere_blocks(
    home: Path,
    load: Callable[..., Hooks],
    two_dirs: tuple[Path, Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    good, evil, log = two_dirs
    write_config(home, {"pre_tool_call": [{"command": "./hook.sh", "fail_closed": True}]})
    monkeypatch.chdir(good)
    approve(home, "pre_tool_call", "./hook.sh")
    hooks = load()
    assert hooks.pre_tool_call(**tool_payload()).action == "allow"
    monkeypatch.chdir(evil)
    decision = hooks.pre_tool_call(**tool_payload())
    assert (decision.action, decision.message) == (
        "block",
        f"hook ./hook.sh failed closed: not run: it resolved to {good / 'hook.sh'} when "
        f"approved and resolves to {evil / 'hook.sh'} now (the current directory changed)",
    )
    assert ran(log) == ["approved"]
    (error,) = errors_of(caplog)
    assert " Not run (a fail_closed gate blocks) until approved again: " in error


def test_a_gate_loaded_in_the_wrong_directory_says_so_at_load_and_blocks(
    home: Path,
    load: Callable[..., Hooks],
    two_dirs: tuple[Path, Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    good, evil, log = two_dirs
    write_config(home, {"pre_tool_call": [{"command": "./hook.sh", "fail_closed": True}]})
    monkeypatch.chdir(good)
    approve(home, "pre_tool_call", "./hook.sh")
    monkeypatch.chdir(evil)
    monkeypatch.setattr(sys, "stdin", io.StringIO("y\n"))  # not a terminal: no prompt
    hooks = load()
    (error,) = errors_of(caplog)  # at load, before any firing
    assert error.startswith(f"{home / 'config.yaml'}: shell hook hooks.pre_tool_call[0] (")
    (record,) = hooks.sources["shell"].records()
    assert record.state == "registered"
    assert record.note is not None and record.note.startswith("refused until approved again: ")
    assert hooks.pre_tool_call(**tool_payload()).action == "block"
    assert ran(log) == []
    assert errors_of(caplog) == [error]


# -- PATH and interpreters -------------------------------------------------------------------


def test_a_bare_name_shadowed_by_an_earlier_path_entry_is_refused(
    home: Path,
    load: Callable[..., Hooks],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    log = tmp_path / "ran.log"
    real, shadow = tmp_path / "bin", tmp_path / "shadow"
    marker_hook(real, "myhook", log, "approved")
    marker_hook(shadow, "myhook", log, "intruder")
    system_path = os.environ["PATH"]
    monkeypatch.setenv("PATH", f"{real}{os.pathsep}{system_path}")
    write_config(home, {"post_tool_call": [{"command": "myhook"}]})
    approve(home, "post_tool_call", "myhook")
    assert allowlist_document(home)["approvals"][0]["program_path"] == str(real / "myhook")
    hooks = load()
    hooks.post_tool_call(**tool_payload())
    monkeypatch.setenv("PATH", f"{shadow}{os.pathsep}{real}{os.pathsep}{system_path}")
    hooks.post_tool_call(**tool_payload())
    assert ran(log) == ["approved"]
    (error,) = errors_of(caplog)
    assert error == (
        f"{home / 'config.yaml'}: shell hook hooks.post_tool_call[0] (myhook) refused: it "
        f"resolved to {real / 'myhook'} when approved and resolves to {shadow / 'myhook'} "
        "now (PATH changed). Not run until approved again: review that file; if it is the "
        "one you mean, approve it: hermes-hooks approve post_tool_call myhook"
    )


def test_an_interpreter_command_pins_the_interpreter_and_the_script(
    home: Path,
    load: Callable[..., Hooks],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    log = tmp_path / "ran.log"
    project, other, fake_bin = tmp_path / "project", tmp_path / "other", tmp_path / "fake-bin"
    for directory, label in ((project, "approved"), (other, "intruder")):
        write_script(
            directory / "hook.py",
            f"import sys\nsys.stdin.read()\nopen({str(log)!r}, 'a').write('{label}\\n')\n",
        )
    python = Path(sys.executable)
    real_bin = tmp_path / "real-bin"
    real_bin.mkdir()
    (real_bin / "python3").symlink_to(python)
    write_script(fake_bin / "python3", sh(f"echo fake >> {log}"))
    system_path = os.environ["PATH"]
    monkeypatch.setenv("PATH", f"{real_bin}{os.pathsep}{system_path}")
    monkeypatch.chdir(project)
    write_config(home, {"post_tool_call": [{"command": "python3 hook.py"}]})
    approve(home, "post_tool_call", "python3 hook.py")
    entry = allowlist_document(home)["approvals"][0]
    assert (entry["program_path"], entry["script_path"]) == (
        str(real_bin / "python3"),
        str(project / "hook.py"),
    )
    hooks = load()
    hooks.post_tool_call(**tool_payload())
    assert ran(log) == ["approved"]

    monkeypatch.chdir(other)  # the script argument resolves elsewhere
    hooks.post_tool_call(**tool_payload())
    monkeypatch.chdir(project)
    monkeypatch.setenv("PATH", f"{fake_bin}{os.pathsep}{real_bin}{os.pathsep}{system_path}")
    hooks.post_tool_call(**tool_payload())  # the interpreter resolves elsewhere
    assert ran(log) == ["approved"]
    script_moved, interpreter_moved = errors_of(caplog)
    assert (
        f"it resolved to {real_bin / 'python3'} {project / 'hook.py'} when approved and "
        f"resolves to {real_bin / 'python3'} {other / 'hook.py'} now (the current "
        "directory changed)"
    ) in script_moved
    assert f"resolves to {fake_bin / 'python3'} {project / 'hook.py'} now (PATH changed)" in (
        interpreter_moved
    )


# -- entries from before pinning ---------------------------------------------------------------


def test_an_unpinned_entry_of_a_relative_command_needs_re_approval(
    home: Path,
    load: Callable[..., Hooks],
    two_dirs: tuple[Path, Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    good, _, log = two_dirs
    (home / ALLOWLIST_NAME).write_text(
        json.dumps({"approvals": [{"event": "pre_tool_call", "command": "./hook.sh"}]})
    )
    write_config(home, {"pre_tool_call": [{"command": "./hook.sh", "fail_closed": True}]})
    monkeypatch.chdir(good)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    hooks = load()
    decision = hooks.pre_tool_call(**tool_payload())
    assert (decision.action, decision.message) == (
        "block",
        "hook ./hook.sh failed closed: not run: it was approved without recording which "
        f"file it runs, and it depends on the current directory (now {good / 'hook.sh'}); "
        "it needs re-approval",
    )
    assert ran(log) == []
    (error,) = errors_of(caplog)
    assert error.endswith(
        "review that file; if it is the one you mean, approve it from the directory the "
        "agent runs in: hermes-hooks approve pre_tool_call ./hook.sh"
    )
    approve(home, "pre_tool_call", "./hook.sh")  # re-approving pins it
    assert hooks.pre_tool_call(**tool_payload()).action == "allow"
    assert ran(log) == ["approved"]


def test_a_bypass_re_pins_a_command_that_moved_and_says_so(
    home: Path,
    load: Callable[..., Hooks],
    two_dirs: tuple[Path, Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    good, evil, log = two_dirs
    write_config(home, {"post_tool_call": [{"command": "./hook.sh"}]})
    monkeypatch.chdir(good)
    approve(home, "post_tool_call", "./hook.sh")
    monkeypatch.chdir(evil)
    hooks = load(accept_hooks=True)
    assert errors_of(caplog) == []
    assert any(
        m.startswith(
            "shell hook hooks.post_tool_call[0] (./hook.sh) approved again by "
            "--accept-hooks: it resolved to "
        )
        for m in (r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)
    )
    assert allowlist_document(home)["approvals"][0]["script_path"] == str(evil / "hook.sh")
    hooks.post_tool_call(**tool_payload())
    assert ran(log) == ["intruder"]


# -- approve, list, doctor --------------------------------------------------------------------


def cli(home: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["--home", str(home), *argv])
    return code, capsys.readouterr().out


def test_approve_list_and_doctor_show_the_pin_and_the_drift(
    home: Path,
    two_dirs: tuple[Path, Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    good, evil, log = two_dirs
    hooks = {"pre_tool_call": [{"command": "./hook.sh", "fail_closed": True}]}
    write_config(home, hooks, plugins={"enabled": []})  # only the shell hook is checked
    monkeypatch.chdir(good)
    code, out = cli(home, capsys, "approve", "pre_tool_call", "./hook.sh")
    assert code == 0
    assert out.splitlines()[1] == f"  script: {good / 'hook.sh'}"
    assert (
        "  pinned: the command depends on the current directory; it runs only while it "
        "leads to these files"
    ) in out.splitlines()

    code, out = cli(home, capsys, "doctor")
    assert code == 0, out
    assert "✗" not in out

    monkeypatch.chdir(evil)
    code, out = cli(home, capsys, "list")
    assert code == 0
    assert "    ✗ ./hook.sh  timeout=60s fail_closed  (refused)" in out
    refusal = (
        f"refused — it resolved to {good / 'hook.sh'} when approved and resolves to "
        f"{evil / 'hook.sh'} now (the current directory changed); not run until approved "
        "again: review that file; if it is the one you mean, approve it from the directory "
        "the agent runs in: hermes-hooks approve pre_tool_call ./hook.sh"
    )
    assert f"        ✗ {refusal}" in out.splitlines()
    code, out = cli(home, capsys, "list", "--json")
    (view,) = json.loads(out)["shell"]["hooks"]
    assert view["state"] == "refused"
    assert view["drift"]["script"] == str(good / "hook.sh")
    assert view["drift"]["refused"].startswith("it resolved to ")
    assert view["approval"]["script_path"] == str(good / "hook.sh")

    log.unlink(missing_ok=True)
    code, out = cli(home, capsys, "doctor")
    assert code == 1
    assert refusal in out
    assert "smoke test skipped — refused" in out
    assert ran(log) == []  # doctor never runs a file nobody approved


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


@pytest.mark.parametrize("answer", [b"y\n", b"n\n"])
def test_at_a_terminal_a_moved_command_is_asked_about_again(
    home: Path,
    load: Callable[..., Hooks],
    two_dirs: tuple[Path, Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    answer: bytes,
) -> None:
    good, evil, log = two_dirs
    write_config(home, {"pre_tool_call": [{"command": "./hook.sh", "fail_closed": True}]})
    monkeypatch.chdir(good)
    approve(home, "pre_tool_call", "./hook.sh")
    monkeypatch.chdir(evil)
    master, slave = pty.openpty()
    stdin = os.fdopen(slave, "r", encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    try:
        os.write(master, answer)
        hooks = load()
    finally:
        stdin.close()
        os.close(master)
    err = capsys.readouterr().err
    assert (
        f"    Again:   it resolved to {good / 'hook.sh'} when approved and resolves to "
        f"{evil / 'hook.sh'} now (the current directory changed)\n"
    ) in err
    assert f"    Script:  {evil / 'hook.sh'} (sha256 " in err
    decision = hooks.pre_tool_call(**tool_payload())
    script_path = allowlist_document(home)["approvals"][0]["script_path"]
    if answer == b"y\n":
        assert decision.action == "allow"
        assert ran(log) == ["intruder"]  # the user approved the new file, having seen it
        assert script_path == str(evil / "hook.sh")
    else:
        assert decision.action == "block"  # still refused: a fail-closed gate blocks
        assert ran(log) == []
        assert script_path == str(good / "hook.sh")


def test_the_test_command_does_not_run_a_command_that_moved(
    home: Path,
    two_dirs: tuple[Path, Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    good, evil, log = two_dirs
    write_config(home, {"pre_tool_call": [{"command": "./hook.sh"}]})
    monkeypatch.chdir(good)
    approve(home, "pre_tool_call", "./hook.sh")
    monkeypatch.chdir(evil)
    code, out = cli(home, capsys, "test", "pre_tool_call")
    assert code == 0
    assert out.splitlines()[3:5] == [
        f"      ✗ refused — it resolved to {good / 'hook.sh'} when approved and resolves to "
        f"{evil / 'hook.sh'} now (the current directory changed); not run",
        "      review that file; if it is the one you mean, approve it from the directory the "
        "agent runs in: hermes-hooks approve pre_tool_call ./hook.sh",
    ]
    assert ran(log) == []
    monkeypatch.chdir(good)
    code, out = cli(home, capsys, "test", "pre_tool_call")
    assert "exit 0 in" in out
    assert ran(log) == ["approved"]
