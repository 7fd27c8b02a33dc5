"""``hermes-hooks replay`` on the example home and the bundled recordings.

These tests use the installed contrib plugins (audit-log, secret-redaction, ...: tox
installs them) through their entry points, as the README's main command does.  The
example home is copied to a temporary directory; tests that look at what the hooks
wrote into the home pass ``--in-place`` (a default replay works on its own copy).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.cli import main
from tests.helpers import write_plugin

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_HOME = REPO / "examples" / "home"
RECORDINGS = REPO / "examples" / "recordings"
QUICKSTART = str(RECORDINGS / "quickstart.jsonl")
DANGEROUS = str(RECORDINGS / "dangerous-commands.jsonl")
LONG = str(RECORDINGS / "long-session.jsonl")
SECRET = "sk-Zq7XbVn4Lp2RtY8wKm3JhG6dFs9Ac1Ue5Oi0"
BOOM = "post_llm_call plugin callback boom raised ValueError: nope"
DC2 = '{"command": "sudo rm -rf / --no-preserve-root"}'

BLOCKER = """
import re

DANGER = re.compile(r"rm\\s+-rf?\\s+/")


def block(tool_name, args, **kwargs):
    if tool_name == "terminal" and DANGER.search(str(args.get("command", ""))):
        return {"action": "block", "message": "bloqueado: rm -rf / não é permitido"}
    return None


def register(ctx):
    ctx.register_hook("pre_tool_call", block)
"""


@pytest.fixture
def example_home(tmp_path: Path) -> Path:
    home = tmp_path / "example-home"
    # Only what git tracks: not logs, approvals or an outbox a local run left behind.
    shutil.copytree(
        EXAMPLE_HOME,
        home,
        ignore=shutil.ignore_patterns(
            "logs", "__pycache__", "shell-hooks-allowlist.json*", "outbound-outbox.sqlite3*"
        ),
    )
    return home


def replay(capsys: Any, *argv: str, flags: tuple[str, ...] = ()) -> tuple[int, str, str]:
    code = main([*flags, "replay", "--flush-timeout", "0.5", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def audit_lines(home: Path) -> list[dict[str, Any]]:
    path = home / "logs" / "audit.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_quickstart_replays_on_the_example_home(example_home: Path, capsys: Any) -> None:
    code, out, _ = replay(capsys, "--home", str(example_home), "--in-place", QUICKSTART)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"Replay of {QUICKSTART}"
    assert lines[1] == (
        "  session quickstart-1 · platform telegram · model anthropic/claude-sonnet-4.6 · "
        "surface gateway"
    )
    assert (
        'Turn 1 (line 2) · session quickstart-1 · "What changed in this repository recently?"'
        in lines
    )
    assert 'Command 2 (line 6) · session quickstart-1 · "/model openai/gpt-5"' in lines
    assert '  tool terminal qs-call-1 {"command": "git log --oneline -3"}' in lines
    assert "  pre_llm_call  → context appended (29 characters)" in lines  # tool-counter
    assert "  turns 2, commands 1, tool calls 2" in lines
    assert "  calls blocked          0" in lines
    assert [(a["event"], a["tool_call_id"]) for a in audit_lines(example_home)] == [
        ("pre_tool_call", "qs-call-1"),
        ("post_tool_call", "qs-call-1"),
        ("pre_tool_call", "qs-call-2"),
        ("post_tool_call", "qs-call-2"),
    ]


def test_dangerous_commands_are_blocked_audited_and_redacted(
    example_home: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(example_home.parent)  # relative commands resolve against the home
    code, out, _ = replay(
        capsys, "--home", str(example_home), "--accept-hooks", "--json", "--fail-on", "block",
        "--in-place", DANGEROUS,
    )  # fmt: skip
    assert code == 1
    data = json.loads(out)
    assert data["failed_on"] == ["block"]
    (run,) = data["replays"]
    hook = "shell hooks.pre_tool_call[0] agent-hooks/block-rm-rf.sh"
    assert [(f["kind"], f["where"], f["callback"]) for f in run["failures"]] == [
        ("block", 'turn 1 (line 2), tool terminal dc-1 {"command": "rm -rf /"}', hook),
        ("block", f"turn 1 (line 2), tool terminal dc-2 {DC2}", hook),
        ("block", 'turn 3 (line 15), tool terminal dc-6 {"command": "cd / && rm -rf /*"}', hook),
    ]
    outcomes = {}
    for entry in run["entries"]:
        for step in entry["steps"]:
            if step["hook"] == "pre_tool_call":
                outcomes[step["group"].split()[2]] = step["outcome"]
    blocked = "BLOCKED: bloqueado: rm -rf / não é permitido"
    assert outcomes == {
        "dc-1": blocked,  # rm -rf /
        "dc-2": blocked,  # sudo rm -rf / --no-preserve-root
        "dc-3": "",
        "dc-4": "",  # rm -rf ./build is not rm -rf /
        "dc-5": "",
        "dc-6": blocked,  # cd / && rm -rf /*
    }
    summary = data["summary"]
    assert (summary["calls_blocked"], summary["tool_calls"], summary["results_transformed"]) == (
        3,
        6,
        1,
    )
    # The blocks come from the example home's contrib block-rm-rf shell hook.
    blockers = {
        record["source"]
        for entry in run["entries"]
        for step in entry["steps"]
        if step["hook"] == "pre_tool_call"
        for record in step["runs"]
        if record["verdict"] == "block"
    }
    assert blockers == {"shell"}
    audit = audit_lines(example_home)
    assert [(a["event"], a["tool_call_id"]) for a in audit] == [
        (event, f"dc-{n}") for n in range(1, 7) for event in ("pre_tool_call", "post_tool_call")
    ]
    assert [a["status"] for a in audit if a["event"] == "post_tool_call"] == [
        "blocked",
        "blocked",
        "ok",
        "ok",
        "ok",
        "blocked",
    ]
    redacted = [
        step["outcome"]
        for entry in run["entries"]
        for step in entry["steps"]
        if step["hook"] == "transform_tool_result" and step["outcome"]
    ]
    assert redacted == [
        'result replaced: \'{"content": "OPENAI_API_KEY=[REDACTED]\\\\nDEBUG=1\\\\n"}\''
    ]
    assert SECRET not in json.dumps(audit)


def test_without_consent_the_shell_gate_does_not_run(
    example_home: Path, capsys: Any, caplog: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    code, out, _ = replay(capsys, "--home", str(example_home), "--json", DANGEROUS)
    assert code == 0
    assert json.loads(out)["summary"]["calls_blocked"] == 0
    assert (
        "shell hook for pre_tool_call (agent-hooks/block-rm-rf.sh) not allowlisted — "
        "skipped. Use --accept-hooks / HERMES_ACCEPT_HOOKS=1 / hooks_auto_accept: true, or "
        "approve at the TTY prompt next run."
    ) in caplog.text


def test_webhooks_are_captured_and_shown_not_sent(example_home: Path, capsys: Any) -> None:
    code, out, _ = replay(capsys, "--home", str(example_home), "--json", QUICKSTART)
    data = json.loads(out)
    summary = data["summary"]
    assert code == 0
    # ci-notify gets on_session_end twice: built, signed, shown, not sent.
    assert (summary["webhooks_queued"], summary["webhooks_captured"]) == (2, 2)
    assert summary["webhooks_delivered"] is None
    captured = [
        webhook
        for entry in data["replays"][0]["entries"]
        for step in entry["steps"]
        for webhook in step["webhooks"]
    ]
    assert [(w["target"], w["url"], w["event"], w["signature"]) for w in captured] == [
        ("ci-notify", "https://ci.example.com/hermes-events", "on_session_end", "github")
    ] * 2
    assert all(w["body_bytes"] > 200 for w in captured)


def test_without_fail_on_a_blocking_replay_exits_zero(example_home: Path, capsys: Any) -> None:
    write_plugin(example_home / "plugins", "no-rm-rf", BLOCKER)
    code, out, _ = replay(capsys, "--home", str(example_home), DANGEROUS)
    assert code == 0
    assert "  calls blocked          3  (block answers: python 3)" in out.splitlines()
    assert "replay failed" not in out


def test_fail_on_error_gates_on_callback_errors(home: Path, capsys: Any) -> None:
    write_plugin(
        home / "plugins",
        "broken",
        "def boom(**kw):\n    raise ValueError('nope')\n\n"
        "def register(ctx):\n    ctx.register_hook('post_llm_call', boom)\n",
    )
    # Entry points aside: the test environment installs one that fails to import on
    # purpose, which would be a start-up hit of its own.
    code, out, _ = replay(
        capsys,
        "--home",
        str(home),
        "--fail-on",
        "error",
        QUICKSTART,
        flags=("--no-entry-points",),
    )
    assert code == 1
    assert "  callback errors        2" in "\n".join(out.splitlines())
    assert out.splitlines()[-3:] == [
        "replay failed: --fail-on error",
        f"  {QUICKSTART}: turn 1 (line 2): post_llm_call python broken:boom: {BOOM}",
        f"  {QUICKSTART}: turn 3 (line 7): post_llm_call python broken:boom: {BOOM}",
    ]
    code, _, _ = replay(capsys, "--home", str(home), "--fail-on", "block", QUICKSTART)
    assert code == 0


def test_a_malformed_recording_exits_2_naming_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"type": "header", "version": 1, "session_id": "s", "platform": "cli", "model": "m"}\n'
        '{"type": "user", "text": "hi"}\n'
        '{"type": "assistant", "text": "oops\n',
        encoding="utf-8",
    )
    home = tmp_path / "home"
    home.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "hermes_hooks", "replay", "--home", str(home), QUICKSTART, str(bad)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""  # validated before anything replayed
    assert done.stderr.splitlines()[-1] == (
        f"hermes-hooks: {bad}:3: not valid JSON (Unterminated string starting at at column 31)"
    )
    assert "Traceback" not in done.stderr
    assert not (home / "logs").exists()


def test_json_output_shape(example_home: Path, capsys: Any) -> None:
    code, out, _ = replay(capsys, "--home", str(example_home), "--json", QUICKSTART, LONG)
    assert code == 0
    data = json.loads(out)
    assert [r["recording"] for r in data["replays"]] == [QUICKSTART, LONG]
    assert data["failed_on"] == []
    long_run = data["replays"][1]
    assert long_run["surface"] == "cli"
    assert [e["kind"] for e in long_run["entries"]][:6] == ["turn"] * 5 + ["command"]
    assert data["summary"]["turns"] == 2 + 11
    assert data["summary"]["verify_nudges"] == 1  # the example home's verify-before-done
    assert data["summary"]["api_errors"] == 1
    step = long_run["entries"][0]["steps"][1]
    assert step["hook"] == "pre_llm_call"
    assert set(step["runs"][0]) == {
        "hook",
        "callback",
        "source",
        "verdict",
        "reason",
        "duration_ms",
    }


def test_multiple_files_print_a_total(example_home: Path, capsys: Any) -> None:
    code, out, _ = replay(capsys, "--home", str(example_home), QUICKSTART, QUICKSTART)
    assert code == 0
    lines = out.splitlines()
    total = lines.index("Total of all recordings")
    assert lines[total + 1] == "  turns 4, commands 2, tool calls 4"


def test_the_readme_main_command_replays_the_quickstart() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert (
        "python3 -m pip install . ./contrib/python-plugins/audit-log "
        "./contrib/python-plugins/secret-redaction && hermes-hooks replay --home examples/home "
        "--accept-hooks examples/recordings/quickstart.jsonl"
    ) in readme


HEADER = {
    "type": "header",
    "version": 1,
    "session_id": "r-1",
    "platform": "telegram",
    "model": "m",
}


def test_a_command_hook_that_denies_stops_the_command_in_a_replay(
    home: Path, tmp_path: Path, capsys: Any
) -> None:
    # A gateway command: hook is a gate: its deny must hold in a replay as in a gateway.
    hook = home / "hooks" / "no-resets"
    hook.mkdir(parents=True)
    (hook / "HOOK.yaml").write_text("name: no-resets\nevents:\n  - command:reset\n")
    (hook / "handler.py").write_text(
        "def handle(event_type, context):\n"
        "    return {'decision': 'deny', 'message': 'resets are off today'}\n"
    )
    recording = tmp_path / "reset.jsonl"
    recording.write_text(
        json.dumps(HEADER) + "\n" + json.dumps({"type": "user", "text": "/reset"}) + "\n"
    )
    code, out, err = replay(
        capsys, "--home", str(home), "--surface", "gateway", "--json", str(recording),
        flags=("--no-entry-points",),
    )  # fmt: skip
    assert code == 0, err
    (run,) = json.loads(out)["replays"]
    (command,) = [entry for entry in run["entries"] if entry["kind"] == "command"]
    assert command["notes"] == [
        "a gateway hook answered deny: resets are off today; the command did not run"
    ]
    # The reset never happened: no session was finalized or reset by the command.
    fired = [step["hook"] for step in command["steps"]]
    assert fired == ["pre_gateway_dispatch", "pre_command", "command:reset"]


@pytest.mark.parametrize(
    ("platform", "surface"),
    [
        ("cli", "cli"),
        ("mcp", "cli"),
        ("openai-agents", "cli"),
        ("langchain", "cli"),
        ("claude-agent-sdk", "cli"),
        ("telegram", "gateway"),
        ("discord", "gateway"),
    ],
)
def test_the_surface_follows_the_platform_of_the_host_that_recorded(
    tmp_path: Path, capsys: Any, platform: str, surface: str
) -> None:
    # A recording from the MCP proxy or an SDK adapter is no messaging session: it must
    # not load gateway hooks.
    home = tmp_path / "home"
    home.mkdir()
    recording = tmp_path / "session.jsonl"
    header = {"type": "header", "version": 1, "session_id": "s", "platform": platform, "model": "m"}
    lines = [header, {"type": "user", "text": "hi"}, {"type": "assistant", "text": "hello"}]
    recording.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    code, out, _ = replay(capsys, "--home", str(home), "--json", str(recording))
    assert code == 0
    assert json.loads(out)["replays"][0]["surface"] == surface
