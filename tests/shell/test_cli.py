"""The shell side of the CLI: test, approve, revoke, and the list / doctor sections."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks._context import LoadContext
from hermes_hooks.cli import main
from hermes_hooks.hookspecs import VALID_HOOKS
from hermes_hooks.report import Finding, Section
from hermes_hooks.shell.consent import ALLOWLIST_NAME, Allowlist
from hermes_hooks.shell.source import unloaded
from tests.shell.helpers import (
    CONTRIB,
    allowlist_document,
    approve,
    py,
    sh,
    write_config,
    write_script,
)

BLOCK_RM_RF = str(CONTRIB / "block-rm-rf.sh")
RM_RF_BLOCK = '{"action": "block", "message": "bloqueado: rm -rf / não é permitido"}'

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def cli(home: Path, capsys: pytest.CaptureFixture[str]) -> Run:
    """``cli(*argv)`` -> (exit code, stdout, stderr), always against ``home``."""

    def run(*argv: str) -> tuple[int, str, str]:
        capsys.readouterr()
        # Installed plugin distributions would add their callbacks: the home alone.
        code = main(["--home", str(home), "--no-entry-points", *argv])
        out, err = capsys.readouterr()
        return code, out, err

    return run


def json_of(text: str) -> Any:
    return json.loads(text)


# -- test --------------------------------------------------------------------------------


def test_test_prints_the_parsed_block_of_block_rm_rf(home: Path, cli: Run) -> None:
    write_config(home, {"pre_tool_call": [{"matcher": "terminal", "command": BLOCK_RM_RF}]})
    approve(home, "pre_tool_call", BLOCK_RM_RF)
    code, out, _ = cli("test", "pre_tool_call", "--for-tool", "terminal")
    assert code == 0
    assert out.startswith("Firing 1 shell hook(s) for pre_tool_call (tool: terminal):\n")
    assert f"  → hooks.pre_tool_call[0]: {BLOCK_RM_RF}  (matcher='terminal' timeout=60s)" in out
    assert "      exit 0 in " in out
    assert f"      parsed: {RM_RF_BLOCK}" in out.splitlines()


def test_test_refuses_an_unapproved_script_and_says_how_to_approve(home: Path, cli: Run) -> None:
    marker = home / "ran"
    script = write_script(home / "agent-hooks" / "gate.sh", sh(f"touch {marker}"))
    write_config(home, {"pre_tool_call": [{"matcher": "terminal", "command": str(script)}]})
    code, out, _ = cli("test", "pre_tool_call", "--for-tool", "terminal")
    assert code == 0
    lines = out.splitlines()
    assert "      ✗ not allowlisted — skipped (approve it first, or pass --accept-hooks)" in lines
    assert f"      approve it with: hermes-hooks approve pre_tool_call {script}" in lines
    assert not marker.exists()
    assert not (home / ALLOWLIST_NAME).exists()


@pytest.mark.parametrize("bypass", ["flag", "env"])
def test_test_runs_unapproved_hooks_under_a_bypass_without_writing_the_allowlist(
    home: Path, cli: Run, monkeypatch: pytest.MonkeyPatch, bypass: str
) -> None:
    write_config(home, {"pre_tool_call": [{"command": BLOCK_RM_RF}]})
    argv = ["test", "pre_tool_call"]
    if bypass == "flag":
        argv.append("--accept-hooks")
    else:
        monkeypatch.setenv("HERMES_ACCEPT_HOOKS", "1")
    code, out, _ = cli(*argv)
    assert code == 0
    assert f"      parsed: {RM_RF_BLOCK}" in out.splitlines()
    assert not (home / ALLOWLIST_NAME).exists()


def test_test_unknown_event_suggests_the_close_name_and_exits_2(cli: Run) -> None:
    code, out, err = cli("test", "pre_tool_cal")
    assert code == 2
    assert out == ""
    # The one close name, not the whole list of them.
    assert err == "Unknown event: 'pre_tool_cal' — did you mean 'pre_tool_call'?\n"


def test_test_unknown_event_without_a_close_name_points_at_the_list(cli: Run) -> None:
    code, out, err = cli("test", "zzzz")
    assert (code, out) == (2, "")
    assert err == (
        "Unknown event: 'zzzz' — no hook has a similar name; "
        f"`hermes-hooks hooks` lists the {len(VALID_HOOKS)} events.\n"
    )


def test_approve_unknown_event_without_a_close_name_points_at_the_list(
    home: Path, cli: Run
) -> None:
    code, _, err = cli("approve", "zzzz", "/x.sh")
    assert code == 2
    assert err == (
        "hermes-hooks: unknown event 'zzzz' — no hook has a similar name; "
        f"`hermes-hooks hooks` lists the {len(VALID_HOOKS)} events.\n"
    )
    assert not (home / ALLOWLIST_NAME).exists()


def test_test_on_a_valid_event_does_not_list_the_valid_set(cli: Run) -> None:
    code, out, err = cli("test", "subagent_stop")
    assert code == 0
    assert out == (
        "No callbacks for subagent_stop: no Python plugin registers it and no shell hook "
        "is configured.\n"
    )
    assert "Valid events" not in out + err


def test_test_for_tool_keeps_only_matching_entries(home: Path, cli: Run) -> None:
    other = write_script(home / "agent-hooks" / "other.sh", sh("echo '{}'"))
    write_config(
        home,
        {
            "pre_tool_call": [
                {"matcher": "write_file", "command": str(other)},
                {"matcher": "terminal|patch", "command": BLOCK_RM_RF},
            ]
        },
    )
    code, out, _ = cli("test", "pre_tool_call", "--for-tool", "patch", "--accept-hooks")
    assert code == 0
    assert str(other) not in out
    assert "Firing 1 shell hook(s) for pre_tool_call (tool: patch):" in out
    assert "parsed: none — the hook contributes nothing to the dispatcher" in out


def test_test_without_for_tool_shows_entries_whose_matcher_misses(home: Path, cli: Run) -> None:
    marker = home / "ran"
    other = write_script(home / "agent-hooks" / "other.sh", sh(f"touch {marker}"))
    write_config(home, {"pre_tool_call": [{"matcher": "write_file", "command": str(other)}]})
    code, out, _ = cli("test", "pre_tool_call", "--accept-hooks")
    assert code == 0
    assert "      – matcher 'write_file' does not match tool 'terminal': not run" in out
    assert not marker.exists()


def test_test_payload_file_replaces_top_level_fields(home: Path, cli: Run) -> None:
    write_config(home, {"pre_tool_call": [{"command": BLOCK_RM_RF}]})
    approve(home, "pre_tool_call", BLOCK_RM_RF)
    payload = home / "payload.json"
    payload.write_text(json.dumps({"args": {"command": "ls -la"}, "session_id": "mine"}))
    code, out, _ = cli("test", "pre_tool_call", "--payload-file", str(payload), "--json")
    report = json_of(out)
    assert code == 0
    assert report["payload"]["args"] == {"command": "ls -la"}
    assert report["payload"]["session_id"] == "mine"
    assert report["payload"]["turn_id"] == "test-turn"
    (hook,) = report["hooks"]
    assert (hook["status"], hook["stdout"], hook["parsed"]) == ("fired", "{}\n", None)


def test_test_payload_file_that_is_not_an_object_is_ignored_with_a_warning(
    home: Path, cli: Run, caplog: pytest.LogCaptureFixture
) -> None:
    payload = home / "payload.json"
    payload.write_text("[1, 2]")
    code, _, _ = cli("test", "pre_tool_call", "--payload-file", str(payload))
    assert code == 0
    assert any(
        r.getMessage().startswith(f"{payload} holds a JSON list, not an object; ignored")
        for r in caplog.records
    )


@pytest.mark.parametrize("content", [None, "{not json"])
def test_test_unreadable_payload_file_exits_1(home: Path, cli: Run, content: str | None) -> None:
    payload = home / "payload.json"
    if content is not None:
        payload.write_text(content)
    code, out, err = cli("test", "pre_tool_call", "--payload-file", str(payload))
    assert code == 1
    assert out == ""
    assert err.startswith("Error reading payload file: ")


def test_test_reflects_fail_closed_in_the_parsed_line(home: Path, cli: Run) -> None:
    script = write_script(home / "agent-hooks" / "crash.py", py("raise SystemExit(1)"))
    write_config(home, {"pre_tool_call": [{"command": str(script), "fail_closed": True}]})
    approve(home, "pre_tool_call", str(script))
    code, out, _ = cli("test", "pre_tool_call", "--json")
    (hook,) = json_of(out)["hooks"]
    assert code == 0
    assert hook["exit_code"] == 1
    assert hook["parsed"] == {
        "action": "block",
        "message": f"hook {script} failed closed: exit code 1",
    }
    assert hook["fail_closed"] is True


def test_test_shows_observer_output_as_contributing_nothing(home: Path, cli: Run) -> None:
    script = write_script(
        home / "agent-hooks" / "obs.sh", sh('echo \'{"action": "block"}\'\necho warn >&2')
    )
    write_config(home, {"post_tool_call": [{"command": str(script)}]})
    approve(home, "post_tool_call", str(script))
    code, out, _ = cli("test", "post_tool_call")
    assert code == 0
    assert '      stdout: {"action": "block"}' in out
    assert "      stderr: warn" in out
    assert "      parsed: none — the hook contributes nothing to the dispatcher" in out


# -- approve / revoke ----------------------------------------------------------------------


def test_approve_records_a_baseline_and_lets_the_hook_run(home: Path, cli: Run) -> None:
    script = write_script(home / "agent-hooks" / "g.sh", sh("echo '{}'"))
    write_config(home, {"pre_tool_call": [{"command": str(script)}]})
    code, out, _ = cli("approve", "pre_tool_call", str(script))
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"Approved shell hook for pre_tool_call: {script}"
    assert lines[1] == f"  script: {script}"
    (entry,) = allowlist_document(home)["approvals"]
    assert lines[2] == f"  mtime:  {entry['script_mtime_at_approval']}"
    assert lines[3] == f"  sha256: {entry['script_sha256']}"
    assert "note:" not in out
    code, out, _ = cli("test", "pre_tool_call")
    assert "exit 0 in" in out


def test_approve_from_a_relative_home_prints_absolute_paths(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The printed paths are pasted from another directory: they must not depend on this one.
    write_script(home / "g.sh", sh("echo '{}'"))
    write_config(home, {"pre_tool_call": [{"command": "./g.sh"}]})
    monkeypatch.chdir(home.parent)
    code = main(["--home", home.name, "--no-entry-points", "approve", "pre_tool_call", "./g.sh"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.splitlines()[1] == f"  script: {home.absolute()}/g.sh"
    assert out.splitlines()[-1] == f"  saved in {home.absolute()}/{ALLOWLIST_NAME}"


def test_approve_joins_words_notes_an_unconfigured_command_and_speaks_json(
    home: Path, cli: Run
) -> None:
    script = home / "hook.py"
    script.write_text("print('{}')\n", encoding="utf-8")
    code, out, _ = cli("approve", "post_llm_call", "python3", str(script), "--json")
    report = json_of(out)
    assert code == 0
    assert report["approved"]["command"] == f"python3 {script}"
    assert report["approved"]["script_mtime_at_approval"] is not None
    assert report["script"] == str(script)
    assert report["configured"] is False
    code, out, _ = cli("approve", "post_llm_call", f"python3 {script}")
    assert "has no hooks.post_llm_call entry with this exact command yet" in out
    # A script that does not exist is refused: the approval would approve nothing.
    code, _, err = cli("approve", "post_llm_call", "python3 /nowhere/hook.py")
    assert code == 1
    assert err == (
        "hermes-hooks: not approved: python3 /nowhere/hook.py: /nowhere/hook.py does not "
        "exist. Fix: create it, or correct the path in the command\n"
    )


@pytest.mark.parametrize(
    ("event", "message"),
    [
        ("pre_tool_cal", "unknown event 'pre_tool_cal' — did you mean 'pre_tool_call'?"),
        ("on_stream_delta", "shell hooks cannot run on on_stream_delta"),
    ],
)
def test_approve_refuses_bad_events(home: Path, cli: Run, event: str, message: str) -> None:
    code, _, err = cli("approve", event, "/x.sh")
    assert code == 2
    assert err == f"hermes-hooks: {message}\n"
    assert not (home / ALLOWLIST_NAME).exists()


def test_revoke_removes_every_event_of_the_command(home: Path, cli: Run) -> None:
    allowlist = Allowlist(home)
    allowlist.approve("pre_tool_call", "/x.sh")
    allowlist.approve("post_tool_call", "/x.sh")
    allowlist.approve("post_tool_call", "/y.sh")
    code, out, _ = cli("revoke", " /x.sh ")
    assert code == 0
    assert out.splitlines() == [
        "Removed 2 allowlist entry/entries for: /x.sh (post_tool_call, pre_tool_call)",
        "Running CLI / gateway processes stop calling it at its next firing.",
    ]
    assert [e["command"] for e in allowlist_document(home)["approvals"]] == ["/y.sh"]
    code, out, _ = cli("revoke", "/x.sh")
    assert (code, out) == (0, "No allowlist entry found for command: /x.sh\n")
    code, out, _ = cli("revoke", "/y.sh", "--json")
    report = json_of(out)
    assert [a["event"] for a in report["removed"]] == ["post_tool_call"]
    assert allowlist_document(home)["approvals"] == []


# -- list ------------------------------------------------------------------------------------


def test_list_shows_settings_consent_and_problems(home: Path, cli: Run) -> None:
    gate = write_script(home / "agent-hooks" / "gate.sh", sh("echo '{}'"))
    new = write_script(home / "agent-hooks" / "new.sh", sh("echo '{}'"))
    write_config(
        home,
        {
            "pre_tool_call": [
                {"matcher": "terminal", "command": str(gate), "timeout": 5, "fail_closed": True}
            ],
            "post_llm_call": [{"command": str(new)}],
            "pre_tool_cal": [{"command": "x"}],
        },
    )
    approve(home, "pre_tool_call", str(gate))
    code, out, _ = cli("list")
    assert code == 0
    section = out[out.index("Shell hooks (2):") :].splitlines()
    assert section[:3] == [
        "Shell hooks (2):",
        "  [pre_tool_call]",
        f"    ✓ {gate}  matcher='terminal' timeout=5s fail_closed  (registered)",
    ]
    assert section[3].startswith("        approved 20")
    assert section[4:7] == [
        "  [post_llm_call]",
        f"    ✗ {new}  timeout=60s  (not allowlisted)",
        f"        approve it with: hermes-hooks approve post_llm_call {new}",
    ]
    assert section[7:9] == [
        "  Config problems (1):",
        f"    ✗ {home / 'config.yaml'}:9:3: hooks.pre_tool_cal: unknown hook event "
        "'pre_tool_cal' in hooks: config — did you mean 'pre_tool_call'?",
    ]
    assert section[9] == f"  Allowlist: {home / ALLOWLIST_NAME} (1 approval(s))"


def test_list_json(home: Path, cli: Run) -> None:
    gate = write_script(home / "agent-hooks" / "gate.sh", sh("echo '{}'"))
    write_config(home, {"pre_tool_call": [{"matcher": "terminal", "command": str(gate)}]})
    approve(home, "pre_tool_call", str(gate))
    code, out, _ = cli("list", "--json")
    shell = json_of(out)["shell"]
    (hook,) = shell["hooks"]
    assert code == 0
    assert hook["state"] == "registered"
    assert (hook["matcher"], hook["timeout"], hook["fail_closed"]) == ("terminal", 60, False)
    assert hook["approval"]["command"] == str(gate)
    assert hook["drift"]["mtime_changed"] is False
    assert hook["drift"]["content_changed"] is False
    assert shell["problems"] == []


def test_list_and_doctor_flag_an_edit_that_preserved_the_mtime(home: Path, cli: Run) -> None:
    gate = write_script(home / "agent-hooks" / "gate.sh", sh("echo '{}'"))
    write_config(home, {"pre_tool_call": [{"command": str(gate)}]})
    approve(home, "pre_tool_call", str(gate))
    before = gate.stat()
    gate.write_text(sh("echo '{}'  # quietly edited"))
    os.utime(gate, ns=(before.st_atime_ns, before.st_mtime_ns))
    _, out, _ = cli("list")
    (line,) = [x for x in out.splitlines() if "content changed" in x]
    assert line.startswith("        ⚠ script content changed since approval (sha256 ")
    assert "mtime preserved) — review it, then re-approve: hermes-hooks approve" in line
    assert "modified since approval" not in out
    _, out, _ = cli("doctor")
    assert f"⚠ shell hooks.pre_tool_call[0] {gate}: script content changed" in out


def test_list_flags_an_mtime_change(home: Path, cli: Run) -> None:
    gate = write_script(home / "agent-hooks" / "gate.sh", sh("echo '{}'"))
    write_config(home, {"pre_tool_call": [{"command": str(gate)}]})
    approve(home, "pre_tool_call", str(gate))
    was = allowlist_document(home)["approvals"][0]["script_mtime_at_approval"]
    os.utime(gate, (1_700_000_000, 1_700_000_000))
    _, out, _ = cli("list")
    assert (
        f"        ⚠ script modified since approval (was {was}, now 2023-11-14T22:13:20Z) — "
        "review it, then re-approve: hermes-hooks approve pre_tool_call" in out
    )
    assert "content changed" not in out


def test_a_hand_written_entry_prints_the_no_mtime_note(home: Path, cli: Run) -> None:
    gate = write_script(home / "agent-hooks" / "gate.sh", sh("echo '{}'"))
    write_config(home, {"post_llm_call": [{"command": str(gate)}]})
    (home / ALLOWLIST_NAME).write_text(
        json.dumps({"approvals": [{"event": "post_llm_call", "command": str(gate)}]})
    )
    _, out, _ = cli("list")
    assert f"    ✓ {gate}  timeout=60s  (registered)" in out
    assert "        ℹ no approval-time mtime recorded — cannot detect edits" in out.splitlines()
    _, out, _ = cli("doctor")
    assert "ℹ no approval-time mtime recorded — cannot detect edits" in out


# -- doctor ----------------------------------------------------------------------------------


def test_doctor_checks_each_hook_and_smoke_tests_only_approved_ones(home: Path, cli: Run) -> None:
    marker = home / "unapproved-ran"
    good = write_script(home / "agent-hooks" / "good.sh", sh("cat >/dev/null\necho '{}'"))
    new = write_script(home / "agent-hooks" / "new.sh", sh(f"touch {marker}"))
    write_config(
        home, {"pre_tool_call": [{"command": str(good)}], "post_tool_call": [{"command": str(new)}]}
    )
    approve(home, "pre_tool_call", str(good))
    _, out, _ = cli("doctor")
    lines = out.splitlines()
    subject = f"shell hooks.pre_tool_call[0] {good}"
    assert f"✓ {subject}: program found and executable" in lines
    assert any(x.startswith(f"✓ {subject}: allowlisted (approved 20") for x in lines)
    assert f"✓ {subject}: script unchanged since approval" in lines
    (smoke,) = [x for x in lines if x.startswith(f"✓ {subject}: smoke test: ")]
    assert smoke.startswith(f"✓ {subject}: smoke test: valid JSON (exit 0, ")
    assert smoke.endswith("s); parsed: none")
    new_subject = f"shell hooks.post_tool_call[0] {new}"
    assert (
        f"⚠ {new_subject}: not allowlisted — it will NOT run; review the script, then: "
        f"hermes-hooks approve post_tool_call {new}" in lines
    )
    assert f"ℹ {new_subject}: smoke test skipped — not allowlisted yet" in lines
    assert not marker.exists()
    assert [e["command"] for e in allowlist_document(home)["approvals"]] == [str(good)]
    # (The exit code also counts the installed test plugins, one of which is broken.)
    _, out, _ = cli("doctor", "--json")
    shell_levels = {
        f["level"] for f in json_of(out)["findings"] if f["subject"].startswith("shell")
    }
    assert shell_levels == {"ok", "warn", "info"}


def test_doctor_errors(home: Path, cli: Run) -> None:
    noisy = write_script(home / "agent-hooks" / "noisy.sh", sh("echo 'Traceback: boom'"))
    lazy = write_script(home / "agent-hooks" / "lazy.sh", sh("echo '{}'"), mode=0o644)
    missing = home / "agent-hooks" / "gone.sh"
    write_config(
        home,
        {"post_tool_call": [{"command": str(p)} for p in (noisy, lazy, missing)]},
    )
    for path in (noisy, lazy, missing):
        approve(home, "post_tool_call", str(path))
    code, out, _ = cli("doctor", "--json")
    report = json_of(out)
    errors = {(f["subject"], f["message"]) for f in report["findings"] if f["level"] == "error"}
    assert code == 1
    (noisy_error,) = [m for subject, m in errors if subject.endswith(str(noisy))]
    assert noisy_error.startswith("stdout is not a JSON object (exit 0, ")
    assert noisy_error.endswith("s): Traceback: boom")
    assert (
        f"shell hooks.post_tool_call[1] {lazy}",
        f"{lazy} is not executable (chmod +x it)",
    ) in errors
    assert (f"shell hooks.post_tool_call[2] {missing}", f"{missing} not found") in errors
    warns = [f["message"] for f in report["findings"] if f["level"] == "warn"]
    assert f"script not found: {missing}" in warns


def test_doctor_checks_the_script_behind_an_interpreter(home: Path, cli: Run) -> None:
    missing = home / "agent-hooks" / "gone.py"
    command = f"python3 {missing}"
    write_config(home, {"post_tool_call": [{"command": command}]})
    approve(home, "post_tool_call", command)
    _, out, _ = cli("doctor", "--json")
    errors = [f["message"] for f in json_of(out)["findings"] if f["level"] == "error"]
    assert errors[-1] == f"script {missing} not found"


def test_test_on_a_python_only_event_says_so(cli: Run) -> None:
    code, out, _ = cli("test", "transform_api_error_classification")
    assert code == 0
    assert out == (
        "Shell hooks cannot run on transform_api_error_classification: use a Python plugin.\n"
    )


def test_the_list_section_of_a_live_source_shows_a_revocation(
    home: Path, load: Callable[..., Any]
) -> None:
    gate = write_script(home / "agent-hooks" / "gate.sh", sh("echo '{}'"))
    write_config(home, {"pre_tool_call": [{"command": str(gate)}]})
    approve(home, "pre_tool_call", str(gate))
    source = load().sources["shell"]
    Allowlist(home).revoke(str(gate))
    section = source.section()
    assert section.data["hooks"][0]["state"] == "revoked"
    assert section.lines[2] == f"    ✗ {gate}  timeout=60s  (revoked)"
    stand_in = unloaded(LoadContext(home=home))
    assert (stand_in.section().data, stand_in.section().lines) == (
        None,
        ["Shell hooks: not loaded (HERMES_SAFE_MODE, or not this surface)"],
    )
    assert stand_in.check() == []


def test_the_shell_source_reports_its_own_section_and_findings(
    home: Path, load: Callable[..., Any]
) -> None:
    # list and doctor ask the source directly.
    gate = write_script(home / "agent-hooks" / "gate.sh", sh("cat >/dev/null; echo '{}'"))
    write_config(home, {"pre_tool_call": [{"command": str(gate)}]})
    hooks = load()
    source = hooks.sources["shell"]
    section = source.section()
    assert isinstance(section, Section)
    assert section.lines[:3] == [
        "Shell hooks (1):",
        "  [pre_tool_call]",
        f"    ✗ {gate}  timeout=60s  (not allowlisted)",
    ]
    subject = f"shell hooks.pre_tool_call[0] {gate}"
    entry = "shell hooks.pre_tool_call[0]"  # what list marks with the finding
    assert source.check() == [
        Finding("ok", subject, "program found and executable", entry),
        Finding(  # a gate that does not run is a gate that is off: an error
            "error",
            subject,
            "not allowlisted — it will NOT run, so this gate is off; review the script, "
            f"then: hermes-hooks approve pre_tool_call {gate}",
            entry,
        ),
        Finding("info", subject, "smoke test skipped — not allowlisted yet", entry),
    ]
