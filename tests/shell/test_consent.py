"""Consent: the allowlist file, its locking, the TTY prompt, the bypasses (SH-21..SH-25,
D-71..D-73) and revocation reaching running processes (D-84)."""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from hermes_hooks.hooks import Hooks
from hermes_hooks.shell import consent
from hermes_hooks.shell.consent import ALLOWLIST_NAME, Allowlist
from tests.helpers import tool_payload
from tests.shell.helpers import (
    REPO,
    allowlist_document,
    approve,
    mode_of,
    sh,
    warnings_of,
    write_config,
    write_script,
)

ISO_SECONDS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def d72(event: str, command: str) -> str:
    return (
        f"shell hook for {event} ({command}) not allowlisted — skipped. Use --accept-hooks / "
        "HERMES_ACCEPT_HOOKS=1 / hooks_auto_accept: true, or approve at the TTY prompt next run."
    )


@pytest.fixture
def counting_hook(home: Path) -> tuple[Path, Path]:
    """An observer script that appends a line to a file each time it runs."""
    counter = home / "fired.log"
    script = write_script(
        home / "agent-hooks" / "count.sh", sh(f"cat >/dev/null\necho fired >> {counter}")
    )
    write_config(home, {"post_tool_call": [{"command": str(script)}]})
    return script, counter


def fired(counter: Path) -> int:
    return len(counter.read_text().splitlines()) if counter.exists() else 0


def registered(hooks: Hooks, event: str = "post_tool_call") -> list[str]:
    return [cb.name for cb in hooks.manager.callbacks(event)]


# -- the file ------------------------------------------------------------------------------


def test_approval_writes_the_spec_document_with_a_baseline_atomically_0600(
    home: Path, counting_hook: tuple[Path, Path]
) -> None:
    script, _ = counting_hook
    approval = Allowlist(home).approve("post_tool_call", f"  {script}  ")
    document = allowlist_document(home)
    (entry,) = document["approvals"]
    assert list(document) == ["approvals"]
    assert list(entry) == [
        "event",
        "command",
        "approved_at",
        "program_path",
        "script_path",
        "script_mtime_at_approval",
        "script_sha256",
    ]
    assert (entry["event"], entry["command"]) == ("post_tool_call", str(script))
    assert (entry["program_path"], entry["script_path"]) == (str(script), str(script))
    assert ISO_SECONDS.match(entry["approved_at"])
    assert entry["script_mtime_at_approval"] == consent.utc_iso(script.stat().st_mtime)
    assert entry["script_mtime_at_approval"].endswith("Z")
    assert entry["script_sha256"] == hashlib.sha256(script.read_bytes()).hexdigest()
    assert approval.as_json() == entry
    assert mode_of(home / ALLOWLIST_NAME) == 0o600
    assert sorted(p.name for p in home.iterdir() if p.name.startswith(".")) == []


def test_an_entry_with_only_event_and_command_approves(
    home: Path, counting_hook: tuple[Path, Path], load: Callable[..., Hooks]
) -> None:
    script, counter = counting_hook
    (home / ALLOWLIST_NAME).write_text(
        json.dumps({"approvals": [{"event": "post_tool_call", "command": str(script)}]})
    )
    hooks = load()
    hooks.post_tool_call(**tool_payload())
    assert fired(counter) == 1


def test_a_path_keyed_sha256_object_does_not_approve(
    home: Path,
    counting_hook: tuple[Path, Path],
    load: Callable[..., Hooks],
    caplog: pytest.LogCaptureFixture,
) -> None:
    script, _ = counting_hook
    (home / ALLOWLIST_NAME).write_text(json.dumps({str(script): {"sha256": "ab" * 32}}))
    hooks = load()
    assert registered(hooks) == []
    assert d72("post_tool_call", str(script)) in warnings_of(caplog)


def test_a_bom_prefixed_file_is_read(
    home: Path, counting_hook: tuple[Path, Path], load: Callable[..., Hooks]
) -> None:
    script, counter = counting_hook
    document = {"approvals": [{"event": "post_tool_call", "command": str(script)}]}
    (home / ALLOWLIST_NAME).write_bytes(b"\xef\xbb\xbf" + json.dumps(document).encode())
    load().post_tool_call(**tool_payload())
    assert fired(counter) == 1


def test_a_corrupt_file_approves_nothing_and_is_kept_aside_at_the_next_write(
    home: Path,
    counting_hook: tuple[Path, Path],
    load: Callable[..., Hooks],
    caplog: pytest.LogCaptureFixture,
) -> None:
    script, _ = counting_hook
    (home / ALLOWLIST_NAME).write_text('{"approvals": [ {"event": ')
    hooks = load()
    assert registered(hooks) == []
    assert any(
        m.startswith(f"{home / ALLOWLIST_NAME} is not valid JSON") for m in warnings_of(caplog)
    )
    Allowlist(home).approve("post_tool_call", str(script))
    (aside,) = home.glob(f"{ALLOWLIST_NAME}.corrupt-*")
    assert aside.read_text() == '{"approvals": [ {"event": '
    assert [e["command"] for e in allowlist_document(home)["approvals"]] == [str(script)]


def test_unknown_keys_and_odd_entries_survive_a_rewrite(home: Path) -> None:
    (home / ALLOWLIST_NAME).write_text(
        json.dumps(
            {
                "comment": "managed by ops",
                "approvals": ["odd", {"event": "pre_llm_call", "command": "/x", "by": "ops"}],
            }
        )
    )
    Allowlist(home).approve("post_tool_call", "/y")
    document = allowlist_document(home)
    assert document["comment"] == "managed by ops"
    assert document["approvals"][:2] == [
        "odd",
        {"event": "pre_llm_call", "command": "/x", "by": "ops"},
    ]
    assert document["approvals"][2]["command"] == "/y"


def test_re_approving_replaces_the_entry_instead_of_duplicating_it(home: Path) -> None:
    allowlist = Allowlist(home)
    allowlist.approve("post_tool_call", "/y")
    allowlist.approve("post_tool_call", "/y ")
    allowlist.approve("pre_llm_call", "/y")
    assert [(e["event"], e["command"]) for e in allowlist_document(home)["approvals"]] == [
        ("post_tool_call", "/y"),
        ("pre_llm_call", "/y"),
    ]


WRITER = """
import os, sys, time
sys.path.insert(0, {repo!r})
from pathlib import Path
from hermes_hooks.shell.consent import Allowlist
home, index = Path(sys.argv[1]), sys.argv[2]
while not (home / "go").exists():
    time.sleep(0.002)
allowlist = Allowlist(home)
for round in range(3):
    allowlist.approve("post_tool_call", f"/hooks/writer-{{index}}-{{round}}.sh")
"""


def test_32_concurrent_writers_lose_nothing(home: Path) -> None:
    code = WRITER.format(repo=str(REPO))
    writers = [subprocess.Popen([sys.executable, "-c", code, str(home), str(i)]) for i in range(32)]
    (home / "go").touch()
    assert [w.wait(120) for w in writers] == [0] * 32
    commands = sorted(e["command"] for e in allowlist_document(home)["approvals"])
    assert commands == sorted(f"/hooks/writer-{i}-{r}.sh" for i in range(32) for r in range(3))
    assert mode_of(home / ALLOWLIST_NAME) == 0o600
    # each writer removed the lock file while holding it; no one lost an update for it
    assert sorted(p.name for p in home.iterdir()) == ["go", ALLOWLIST_NAME]


# -- consent at load: bypasses, non-TTY, the prompt --------------------------------------------


@pytest.mark.parametrize(
    ("how", "label"),
    [
        ("flag", "--accept-hooks"),
        ("env", "HERMES_ACCEPT_HOOKS"),
        ("env-true", "HERMES_ACCEPT_HOOKS"),
        ("config", "hooks_auto_accept"),
    ],
)
def test_each_bypass_approves_and_records_without_a_prompt(
    home: Path,
    counting_hook: tuple[Path, Path],
    load: Callable[..., Hooks],
    monkeypatch: pytest.MonkeyPatch,
    how: str,
    label: str,
) -> None:
    script, counter = counting_hook
    monkeypatch.setattr(sys, "stdin", io.StringIO("n\n"))
    kwargs = {}
    if how == "flag":
        kwargs["accept_hooks"] = True
    elif how.startswith("env"):
        monkeypatch.setenv("HERMES_ACCEPT_HOOKS", "1" if how == "env" else " True ")
    else:
        write_config(home, {"post_tool_call": [{"command": str(script)}]}, hooks_auto_accept=True)
    hooks = load(**kwargs)
    hooks.post_tool_call(**tool_payload())
    assert fired(counter) == 1
    (record,) = hooks.sources["shell"].records()
    assert (record.state, record.consent) == ("registered", label)
    assert [e["command"] for e in allowlist_document(home)["approvals"]] == [str(script)]
    assert sys.stdin.read() == "n\n"  # never read


@pytest.mark.parametrize("value", ["0", "false", "", "nope"])
def test_a_falsy_env_value_is_no_bypass(
    home: Path,
    counting_hook: tuple[Path, Path],
    load: Callable[..., Hooks],
    monkeypatch: pytest.MonkeyPatch,
    value: str,
) -> None:
    monkeypatch.setenv("HERMES_ACCEPT_HOOKS", value)
    assert registered(load()) == []


def test_non_tty_run_skips_with_the_exact_warning_and_never_reads_stdin(
    home: Path,
    counting_hook: tuple[Path, Path],
    load: Callable[..., Hooks],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    script, counter = counting_hook
    monkeypatch.setattr(sys, "stdin", io.StringIO("y\n"))
    hooks = load()
    hooks.post_tool_call(**tool_payload())
    assert fired(counter) == 0
    assert registered(hooks) == []
    assert warnings_of(caplog) == [d72("post_tool_call", str(script))]
    assert sys.stdin.read() == "y\n"
    assert not (home / ALLOWLIST_NAME).exists()


@pytest.mark.parametrize("answer", ["y", "YES", " yes "])
def test_tty_prompt_yes_approves_and_persists(
    home: Path,
    counting_hook: tuple[Path, Path],
    load: Callable[..., Hooks],
    tty_stdin: Callable[[bytes], None],
    capsys: pytest.CaptureFixture[str],
    answer: str,
) -> None:
    script, counter = counting_hook
    tty_stdin(answer.encode() + b"\n")
    hooks = load()
    err = capsys.readouterr().err
    assert "Event:   post_tool_call" in err
    assert f"Command: {script}" in err
    assert f"Script:  {script} (sha256 " in err
    assert err.endswith("Allow this hook to run? [y/N]: ")
    hooks.post_tool_call(**tool_payload())
    assert fired(counter) == 1
    assert hooks.sources["shell"].records()[0].consent == "prompt"
    assert [e["command"] for e in allowlist_document(home)["approvals"]] == [str(script)]


@pytest.mark.parametrize("answer", [b"n\n", b"\n", b"maybe\n", b"\x04"])
def test_tty_prompt_refusal_skips_for_this_run_only(
    home: Path,
    counting_hook: tuple[Path, Path],
    load: Callable[..., Hooks],
    tty_stdin: Callable[[bytes], None],
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    answer: bytes,
) -> None:
    script, _ = counting_hook
    tty_stdin(answer)
    hooks = load()
    assert registered(hooks) == []
    assert hooks.sources["shell"].records()[0].state == "declined"
    assert d72("post_tool_call", str(script)) in warnings_of(caplog)
    assert not (home / ALLOWLIST_NAME).exists()  # D-71: refusals are not persisted
    capsys.readouterr()
    tty_stdin(b"y\n")
    assert len(registered(load())) == 1  # asked again at the next start
    assert "Allow this hook to run?" in capsys.readouterr().err


def test_ctrl_c_at_the_prompt_is_a_no() -> None:
    class Interrupted(io.StringIO):
        def isatty(self) -> bool:
            return True

        def readline(self, size: int = -1) -> str:
            raise KeyboardInterrupt

    stderr = io.StringIO()
    assert consent.prompt("post_tool_call", "/x", stdin=Interrupted(), stderr=stderr) is False
    assert stderr.getvalue().endswith("[y/N]: \n")


def test_one_prompt_per_event_and_command_pair(
    home: Path,
    load: Callable[..., Hooks],
    tty_stdin: Callable[[bytes], None],
    capsys: pytest.CaptureFixture[str],
) -> None:
    script = write_script(home / "agent-hooks" / "g.sh", sh("cat >/dev/null"))
    write_config(
        home,
        {
            "pre_tool_call": [
                {"matcher": "terminal", "command": str(script)},
                {"matcher": "write_file", "command": str(script)},
            ]
        },
    )
    tty_stdin(b"y\n")
    hooks = load()
    assert capsys.readouterr().err.count("Allow this hook to run?") == 1
    assert len(registered(hooks, "pre_tool_call")) == 2


def test_inspecting_never_prompts_nor_writes_even_with_a_bypass(
    home: Path,
    counting_hook: tuple[Path, Path],
    load: Callable[..., Hooks],
    tty_stdin: Callable[[bytes], None],
    capsys: pytest.CaptureFixture[str],
) -> None:
    tty_stdin(b"y\n")
    hooks = load(accept_hooks=True, inspect=True)
    (record,) = hooks.sources["shell"].records()
    assert record.state == "not allowlisted"
    assert record.note == "--accept-hooks is set: approved when the agent next loads"
    assert "Allow this hook" not in capsys.readouterr().err
    assert not (home / ALLOWLIST_NAME).exists()
    # The load after it (no longer inspecting) approves through the bypass and writes.
    hooks = load(accept_hooks=True)
    (record,) = hooks.sources["shell"].records()
    assert (record.state, record.consent) == ("registered", "--accept-hooks")
    assert (home / ALLOWLIST_NAME).exists()


# -- running processes see revocations (D-84) ----------------------------------------------------


def test_revoke_stops_a_running_hook_at_its_next_firing_with_one_warning(
    home: Path,
    counting_hook: tuple[Path, Path],
    load: Callable[..., Hooks],
    caplog: pytest.LogCaptureFixture,
) -> None:
    script, counter = counting_hook
    approve(home, "post_tool_call", str(script))
    hooks = load()
    hooks.post_tool_call(**tool_payload())
    assert fired(counter) == 1
    (removed,) = Allowlist(home).revoke(str(script))
    assert removed.command == str(script)
    caplog.clear()
    hooks.post_tool_call(**tool_payload())
    hooks.post_tool_call(**tool_payload())
    assert fired(counter) == 1
    assert warnings_of(caplog) == [
        f"shell hook hooks.post_tool_call[0] ({script}) is no longer in "
        f"{home / ALLOWLIST_NAME} — not run until it is approved again"
    ]
    approve(home, "post_tool_call", str(script))
    hooks.post_tool_call(**tool_payload())
    assert fired(counter) == 2


def test_a_deleted_allowlist_stops_hooks_and_a_corrupt_one_keeps_the_last_good_copy(
    home: Path, counting_hook: tuple[Path, Path], load: Callable[..., Hooks]
) -> None:
    script, counter = counting_hook
    approve(home, "post_tool_call", str(script))
    hooks = load()
    (home / ALLOWLIST_NAME).write_text("{ not json at all, and longer than before }")
    hooks.post_tool_call(**tool_payload())
    assert fired(counter) == 1
    (home / ALLOWLIST_NAME).unlink()
    hooks.post_tool_call(**tool_payload())
    assert fired(counter) == 1


def test_a_bypass_approval_that_cannot_be_saved_still_runs_this_session(
    home: Path,
    counting_hook: tuple[Path, Path],
    load: Callable[..., Hooks],
    caplog: pytest.LogCaptureFixture,
) -> None:
    _, counter = counting_hook
    (home / (ALLOWLIST_NAME + ".lock")).mkdir()  # the lock cannot be taken: writes fail
    hooks = load(accept_hooks=True)
    hooks.post_tool_call(**tool_payload())
    hooks.post_tool_call(**tool_payload())
    assert fired(counter) == 2
    assert any("it is approved for this run only" in m for m in warnings_of(caplog))


# -- the prompt records exactly what it showed ---------------------------------------------------


class EditingTerminal(io.StringIO):
    """A terminal whose user runs ``edit`` while the question is on screen."""

    def __init__(self, edit: Callable[[], None]) -> None:
        super().__init__()
        self.edit = edit

    def write(self, text: str) -> int:
        written = super().write(text)
        if text.endswith("Allow this hook to run? [y/N]: "):
            self.edit()
        return written


def shown_sha256(err: str) -> str:
    (match,) = re.findall(r"\(sha256 ([0-9a-f]{64})\)", err)
    return match


def test_the_prompt_shows_the_full_hash_it_records(
    home: Path,
    counting_hook: tuple[Path, Path],
    load: Callable[..., Hooks],
    tty_stdin: Callable[[bytes], None],
    capsys: pytest.CaptureFixture[str],
) -> None:
    script, counter = counting_hook
    tty_stdin(b"y\n")
    load().post_tool_call(**tool_payload())
    shown = shown_sha256(capsys.readouterr().err)
    (entry,) = allowlist_document(home)["approvals"]
    assert entry["script_sha256"] == shown == hashlib.sha256(script.read_bytes()).hexdigest()
    assert entry["script_path"] == str(script)
    assert fired(counter) == 1


def test_a_script_edited_while_the_prompt_is_shown_is_not_approved(
    home: Path,
    counting_hook: tuple[Path, Path],
    load: Callable[..., Hooks],
    tty_stdin: Callable[[bytes], None],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    script, counter = counting_hook
    before = hashlib.sha256(script.read_bytes()).hexdigest()
    evil = sh("cat >/dev/null\necho swapped >&2")

    def swap() -> None:
        script.write_text(evil)

    terminal = EditingTerminal(swap)
    monkeypatch.setattr(sys, "stderr", terminal)
    tty_stdin(b"y\n")
    hooks = load()
    after = hashlib.sha256(evil.encode()).hexdigest()
    err = terminal.getvalue()
    assert shown_sha256(err) == before
    assert err.endswith(
        f"Allow this hook to run? [y/N]: ✗ Not approved: {script} changed (sha256 {before} "
        f"shown, {after} now) while you were reading. Review it again; you will be asked "
        "at the next start.\n"
    )
    assert registered(hooks) == []
    assert hooks.sources["shell"].records()[0].state == "declined"
    assert not (home / ALLOWLIST_NAME).exists()
    assert warnings_of(caplog) == [
        f"shell hook for post_tool_call ({script}) not approved: {script} changed (sha256 "
        f"{before} shown, {after} now) while it was shown",
        d72("post_tool_call", str(script)),
    ]
    hooks.post_tool_call(**tool_payload())
    assert fired(counter) == 0


def test_a_command_that_resolves_elsewhere_while_the_prompt_is_shown_is_not_approved(
    home: Path,
    load: Callable[..., Hooks],
    tty_stdin: Callable[[bytes], None],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    for directory in (first, second):
        write_script(directory / "myhook", sh("cat >/dev/null"))
    system_path = os.environ["PATH"]
    monkeypatch.setenv("PATH", f"{first}{os.pathsep}{system_path}")
    write_config(home, {"post_tool_call": [{"command": "myhook"}]})
    terminal = EditingTerminal(
        lambda: monkeypatch.setenv("PATH", f"{second}{os.pathsep}{first}{os.pathsep}{system_path}")
    )
    monkeypatch.setattr(sys, "stderr", terminal)
    tty_stdin(b"y\n")
    hooks = load()
    assert terminal.getvalue().endswith(
        f"✗ Not approved: the command now resolves to {second / 'myhook'}, not "
        f"{first / 'myhook'} while you were reading. Review it again; you will be asked "
        "at the next start.\n"
    )
    assert registered(hooks) == []
    assert not (home / ALLOWLIST_NAME).exists()


# -- a gate without an approval -------------------------------------------------------------


@pytest.fixture
def counting_gate(home: Path) -> tuple[Path, Path]:
    """A pre_tool_call gate on `terminal` that allows, and counts its runs."""
    counter = home / "gate.log"
    script = write_script(
        home / "agent-hooks" / "gate.sh", sh(f"cat >/dev/null\necho ran >> {counter}\necho '{{}}'")
    )
    return script, counter


def _held_closed(script: Path) -> str:
    """The block message of a fail_closed gate that has no approval."""
    return (
        f"hook {script} failed closed: not run: not allowlisted; review it, then: "
        f"hermes-hooks approve pre_tool_call {script}"
    )


def _gate_config(home: Path, script: Path, **extra: object) -> None:
    write_config(
        home, {"pre_tool_call": [{"command": str(script), "matcher": "terminal", **extra}]}
    )


def test_an_unapproved_fail_closed_gate_blocks_what_it_matches_and_never_runs(
    home: Path,
    counting_gate: tuple[Path, Path],
    load: Callable[..., Hooks],
    caplog: pytest.LogCaptureFixture,
) -> None:
    # fail_closed: the agent must not run unguarded when the gate cannot decide; the
    # command itself stays unapproved and never runs.
    script, counter = counting_gate
    _gate_config(home, script, fail_closed=True)
    hooks = load()
    decision = hooks.pre_tool_call(**tool_payload())
    assert (decision.action, decision.message) == ("block", _held_closed(script))
    assert hooks.pre_tool_call(**tool_payload(tool_name="read_file")).action == "allow"
    assert fired(counter) == 0
    assert warnings_of(caplog) == [d72("pre_tool_call", str(script))]
    errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert errors == [
        f"{home / 'config.yaml'}: shell hook hooks.pre_tool_call[0] ({script}) is a "
        "fail_closed gate without an approval: every call it matches is blocked until it is "
        f"approved (the command does not run). Review it, then: hermes-hooks approve "
        f"pre_tool_call {script}"
    ]
    approve(home, "pre_tool_call", str(script))
    hooks = load()  # an approval takes effect at the next load
    assert hooks.pre_tool_call(**tool_payload()).action == "allow"
    assert fired(counter) == 1


def test_an_unapproved_gate_without_fail_closed_is_skipped_and_doctor_fails(
    home: Path,
    counting_gate: tuple[Path, Path],
    load: Callable[..., Hooks],
    capsys: pytest.CaptureFixture[str],
) -> None:
    from hermes_hooks.cli import main

    script, counter = counting_gate
    _gate_config(home, script)
    hooks = load()
    assert hooks.pre_tool_call(**tool_payload()).action == "allow"  # skipped, as specified
    assert fired(counter) == 0
    capsys.readouterr()
    assert main(["--home", str(home), "--no-entry-points", "doctor"]) == 1
    assert (
        f"✗ shell hooks.pre_tool_call[0] {script}: not allowlisted — it will NOT run, so this "
        f"gate is off; review the script, then: hermes-hooks approve pre_tool_call {script}"
    ) in capsys.readouterr().out.splitlines()


def test_an_unapproved_observer_is_only_a_warning_in_doctor(
    home: Path, counting_hook: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    from hermes_hooks.cli import main

    script, _ = counting_hook
    assert main(["--home", str(home), "--no-entry-points", "doctor"]) == 0
    assert (
        f"⚠ shell hooks.post_tool_call[0] {script}: not allowlisted — it will NOT run; review "
        f"the script, then: hermes-hooks approve post_tool_call {script}"
    ) in capsys.readouterr().out.splitlines()


def test_a_revoked_fail_closed_gate_blocks_until_it_is_approved_again(
    home: Path,
    counting_gate: tuple[Path, Path],
    load: Callable[..., Hooks],
    caplog: pytest.LogCaptureFixture,
) -> None:
    script, counter = counting_gate
    _gate_config(home, script, fail_closed=True)
    approve(home, "pre_tool_call", str(script))
    hooks = load()
    assert hooks.pre_tool_call(**tool_payload()).action == "allow"
    Allowlist(home).revoke(str(script))
    caplog.clear()
    decision = hooks.pre_tool_call(**tool_payload())
    assert (decision.action, decision.message) == ("block", _held_closed(script))
    assert fired(counter) == 1  # the revoked command did not run again
    assert warnings_of(caplog)[0] == (
        f"shell hook hooks.pre_tool_call[0] ({script}) is no longer in "
        f"{home / ALLOWLIST_NAME} — not run until it is approved again (a fail_closed gate "
        "blocks meanwhile)"
    )
    approve(home, "pre_tool_call", str(script))
    assert hooks.pre_tool_call(**tool_payload()).action == "allow"
    assert fired(counter) == 2
