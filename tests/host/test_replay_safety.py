"""``hermes-hooks replay`` as a CI policy test: it leaves the home alone, sends no
webhook unless asked, counts every callback failure, keeps ``--json`` pure and
honours the global options.  Real homes, real shell scripts, a real HTTP receiver
on 127.0.0.1."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.cli import main
from tests.helpers import write_plugin
from tests.outbound.endpoint import Endpoint

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_HOME = REPO / "examples" / "home"
QUICKSTART = str(REPO / "examples" / "recordings" / "quickstart.jsonl")
DANGEROUS = str(REPO / "examples" / "recordings" / "dangerous-commands.jsonl")

HEADER = {"type": "header", "version": 1, "session_id": "s1", "platform": "cli", "model": "m"}
ONE_CALL = [
    HEADER,
    {"type": "user", "text": "list the files"},
    {
        "type": "assistant",
        "tool_calls": [{"id": "c1", "name": "terminal", "arguments": {"command": "ls"}}],
    },
    {"type": "tool_result", "tool_call_id": "c1", "output": "a\n", "returncode": 0},
    {"type": "assistant", "text": "One file.", "finish_reason": "stop"},
]


def write_recording(path: Path, lines: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return str(path)


def snapshot(root: Path) -> dict[str, str]:
    """Every file under ``root`` (relative path -> sha256), links as their target."""
    found = {}
    for path in sorted(root.rglob("*")):
        key = str(path.relative_to(root))
        if path.is_symlink():
            found[key] = "-> " + os.readlink(path)
        elif path.is_file():
            found[key] = hashlib.sha256(path.read_bytes()).hexdigest()
        else:
            found[key] = "dir"
    return found


@pytest.fixture
def example_home(tmp_path: Path) -> Path:
    home = tmp_path / "example-home"
    shutil.copytree(EXAMPLE_HOME, home, ignore=shutil.ignore_patterns("logs", "__pycache__"))
    (home / "logs").mkdir()
    return home


def replay(capsys: Any, *argv: str, flags: tuple[str, ...] = ()) -> tuple[int, str, str]:
    code = main([*flags, "replay", "--flush-timeout", "2", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_default_replay_leaves_the_home_byte_identical(
    example_home: Path, capsys: Any, tmp_path: Path
) -> None:
    before = snapshot(example_home)
    code, out, _ = replay(capsys, "--home", str(example_home), "--accept-hooks", QUICKSTART)
    assert code == 0
    assert "  webhooks queued        2  (captured 2, not sent; --live-webhooks sends them)" in (
        out.splitlines()
    )
    assert "      gateway command-logger  ok" in "\n".join(out.splitlines())  # hooks ran
    assert snapshot(example_home) == before
    assert not list(tmp_path.glob("hermes-replay-*"))  # the copy is gone
    # The same replay in place writes into the home: the check above can fail.
    code, _, _ = replay(
        capsys, "--home", str(example_home), "--accept-hooks", "--in-place", QUICKSTART
    )
    assert code == 0
    after = snapshot(example_home)
    # --accept-hooks records (and pins) what it approved in the allowlist
    assert sorted(set(after) - set(before)) == [
        "logs/audit.jsonl",
        "logs/command_usage.jsonl",
        "shell-hooks-allowlist.json",
    ]


def test_a_receiver_gets_nothing_by_default_and_one_post_with_live_webhooks(
    home: Path, capsys: Any, tmp_path: Path
) -> None:
    endpoint = Endpoint()
    (home / "config.yaml").write_text(
        "hooks:\n  outbound:\n    - name: ci\n"
        f"      url: {endpoint.url}\n      events: [on_session_end]\n      secret: s3cret\n",
        encoding="utf-8",
    )
    recording = write_recording(tmp_path / "one.jsonl", ONE_CALL)
    code, out, _ = replay(capsys, "--home", str(home), "--json", recording)
    assert code == 0
    data = json.loads(out)
    (turn,) = [e for e in data["replays"][0]["entries"] if e["kind"] == "turn"]
    (end,) = [s for s in turn["steps"] if s["hook"] == "on_session_end"]
    assert [(w["target"], w["event"], w["signature"]) for w in end["webhooks"]] == [
        ("ci", "on_session_end", "github")
    ]
    assert endpoint.requests == []
    code, out, _ = replay(capsys, "--home", str(home), "--json", "--live-webhooks", recording)
    assert code == 0
    (request,) = endpoint.wait_requests(1)
    assert request.header("X-Hermes-Event") == "on_session_end"
    assert (
        request.header(
            "X-Hermes-Signature-256",
        )
        is not None
    )
    summary = json.loads(out)["summary"]
    assert (summary["webhooks_captured"], summary["webhooks_delivered"]) == (0, 1)
    assert len(endpoint.requests) == 1


GUARD_FAILURES = {
    "not found": ("agent-hooks/missing.sh", None, "command not found"),
    "not executable": ("agent-hooks/guard.sh", "#!/bin/sh\necho '{}'\n", "command not executable"),
    "unreadable output": (
        "agent-hooks/guard.sh",
        "#!/bin/sh\ncat >/dev/null\necho 'this is not json'\n",
        "unparseable stdout (expected a JSON object)",
    ),
    "killed": ("agent-hooks/guard.sh", "#!/bin/sh\nkill -9 $$\n", "killed by signal 9"),
    "unknown words": (
        "agent-hooks/guard.sh",
        '#!/bin/sh\ncat >/dev/null\necho \'{"action": "deny"}\'\n',
        "answered action 'deny', which a pre_tool_call hook cannot say (block, approve or "
        "modify); the answer is ignored",
    ),
}


@pytest.mark.parametrize("case", sorted(GUARD_FAILURES))
def test_a_broken_shell_guard_fails_fail_on_error(
    case: str, home: Path, capsys: Any, tmp_path: Path
) -> None:
    command, script, reason = GUARD_FAILURES[case]
    (home / "agent-hooks").mkdir()
    if script is not None:
        path = home / command
        path.write_text(script, encoding="utf-8")
        path.chmod(0o644 if case == "not executable" else 0o755)
    (home / "config.yaml").write_text(
        f"hooks:\n  pre_tool_call:\n    - matcher: terminal\n      command: {command}\n",
        encoding="utf-8",
    )
    recording = write_recording(tmp_path / "one.jsonl", ONE_CALL)
    elsewhere = tmp_path / "elsewhere"  # relative commands resolve against the home
    elsewhere.mkdir()
    os.chdir(elsewhere)
    code, out, _ = replay(
        capsys,
        "--home",
        str(home),
        "--accept-hooks",
        "--fail-on",
        "error",
        recording,
        flags=("--no-entry-points",),
    )
    assert code == 1
    lines = out.splitlines()
    assert lines[-2] == "replay failed: --fail-on error"
    prefix = (
        f"  {recording}: turn 1 (line 2): pre_tool_call shell "
        f"shell hooks.pre_tool_call[0] {command}: "
    )
    assert lines[-1].startswith(prefix), lines[-1]
    assert reason in lines[-1]
    assert "  callback errors        1  (timeouts 0, skipped 0; 1 callback runs)" in lines
    # Without the gate the same replay passes: only --fail-on error turns it red.
    code, _, _ = replay(capsys, "--home", str(home), "--accept-hooks", recording)
    assert code == 0


def test_a_policy_that_does_not_load_whole_fails_fail_on_error_at_start_up(
    home: Path, capsys: Any, tmp_path: Path
) -> None:
    # A CI gate must not pass because a guard never ran: a plugin that fails to import,
    # a gate nobody approved, a gate under a misspelt event.
    write_plugin(home / "plugins", "guard", "import does_not_exist\n")
    (home / "gate.sh").write_text("#!/bin/sh\necho '{}'\n", encoding="utf-8")
    (home / "gate.sh").chmod(0o755)
    (home / "config.yaml").write_text(
        "hooks:\n  pre_tool_call:\n    - command: ./gate.sh\n"
        "  pre_tool_cal:\n    - command: ./gate.sh\n",
        encoding="utf-8",
    )
    recording = write_recording(tmp_path / "one.jsonl", ONE_CALL)
    code, out, _ = replay(
        capsys,
        *("--home", str(home), "--json", "--fail-on", "error", recording),
        flags=("--no-entry-points",),
    )
    assert code == 1
    failures = json.loads(out)["replays"][0]["failures"]
    assert [(f["where"], f["hook"], f["callback"], f["source"]) for f in failures] == [
        ("start-up", "load", "load", "home"),
        ("start-up", "load", "plugin guard", "home"),
        ("start-up", "load", "shell hook hooks.pre_tool_call[0]", "home"),
    ]
    assert [f["reason"] for f in failures] == [
        f"{home / 'config.yaml'}:4:3: hooks.pre_tool_cal: unknown hook event 'pre_tool_cal' "
        "in hooks: config — did you mean 'pre_tool_call'?",
        "failed to load: ModuleNotFoundError: No module named 'does_not_exist' "
        f"(raised at {home / 'plugins' / 'guard' / '__init__.py'}:1)",
        "./gate.sh: not allowlisted, so this gate does not run",
    ]
    # Only --fail-on error counts them: a replay without it still passes.
    code, _, _ = replay(capsys, "--home", str(home), recording, flags=("--no-entry-points",))
    assert code == 0


def test_a_shell_guard_that_times_out_counts_as_a_timeout(
    home: Path, capsys: Any, tmp_path: Path
) -> None:
    (home / "slow.sh").write_text("#!/bin/sh\nsleep 30\n", encoding="utf-8")
    (home / "slow.sh").chmod(0o755)
    (home / "config.yaml").write_text(
        "hooks:\n  pre_tool_call:\n    - command: ./slow.sh\n      timeout: 1\n",
        encoding="utf-8",
    )
    recording = write_recording(tmp_path / "one.jsonl", ONE_CALL)
    code, out, _ = replay(
        capsys,
        *("--home", str(home), "--accept-hooks", "--json", "--fail-on", "error", recording),
        flags=("--no-entry-points",),
    )
    assert code == 1
    data = json.loads(out)
    (failure,) = data["replays"][0]["failures"]
    assert (failure["kind"], failure["hook"], failure["source"]) == (
        "error",
        "pre_tool_call",
        "shell",
    )
    assert failure["reason"] == "timed out after 1s (process group killed)"
    assert data["summary"]["timeouts"] == 1


def test_a_failing_gateway_handler_fails_fail_on_error_under_its_command(
    example_home: Path, capsys: Any
) -> None:
    handler = example_home / "hooks" / "command-logger" / "handler.py"
    handler.write_text("def handle(event_type, context):\n    raise RuntimeError('disk full')\n")
    code, out, _ = replay(
        capsys,
        *("--home", str(example_home), "--accept-hooks", "--json", "--fail-on", "error"),
        QUICKSTART,
        flags=("--no-entry-points",),
    )
    assert code == 1
    data = json.loads(out)
    (command,) = [e for e in data["replays"][0]["entries"] if e["kind"] == "command"]
    (step,) = [s for s in command["steps"] if s["hook"] == "command:model"]
    (run,) = step["runs"]
    assert (run["source"], run["callback"], run["verdict"]) == (
        "gateway",
        "command-logger",
        "error",
    )
    assert run["reason"] == "RuntimeError: disk full"
    (failure,) = data["replays"][0]["failures"]
    assert failure["where"] == "command 2 (line 6)"


def test_json_stdout_stays_pure_when_hooks_print(home: Path, tmp_path: Path) -> None:
    write_plugin(
        home / "plugins",
        "chatty",
        "import os\n\n"
        "def say(**kw):\n"
        "    print('hello from a plugin')\n"
        "    os.system('echo hello from a child process')\n\n"
        "def register(ctx):\n    ctx.register_hook('pre_llm_call', say)\n",
    )
    recording = write_recording(tmp_path / "one.jsonl", ONE_CALL)
    done = subprocess.run(
        [sys.executable, "-m", "hermes_hooks", "--home", str(home), "replay", "--json", recording],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)  # nothing but the report
    assert data["summary"]["turns"] == 1
    assert "hello from a plugin" in done.stderr
    assert "hello from a child process" in done.stderr


def test_no_entry_points_is_honoured_by_replay(home: Path, capsys: Any, tmp_path: Path) -> None:
    recording = write_recording(tmp_path / "one.jsonl", ONE_CALL)

    def sources(*flags: str) -> set[str]:
        code = main([*flags, "--home", str(home), "replay", "--json", recording])
        out, _ = capsys.readouterr()
        assert code == 0
        entries = json.loads(out)["replays"][0]["entries"]
        return {r["callback"].split(":")[0] for e in entries for s in e["steps"] for r in s["runs"]}

    assert "ep-register" in sources()  # the test distribution's plugin (tox installs it)
    assert not {name for name in sources("--no-entry-points") if name.startswith("ep-")}


def test_directories_and_globs_replay_in_parallel_with_one_summary(
    tmp_path: Path, home: Path, capsys: Any
) -> None:
    folder = tmp_path / "recordings"
    (folder / "nested").mkdir(parents=True)
    write_recording(folder / "a.jsonl", ONE_CALL)
    write_recording(folder / "nested" / "b.jsonl", ONE_CALL)
    write_recording(folder / "c.jsonl", ONE_CALL)
    (folder / "notes.txt").write_text("not a recording", encoding="utf-8")
    code, out, _ = replay(
        capsys,
        "--home",
        str(home),
        "--json",
        "--jobs",
        "2",
        str(folder),
        str(folder / "[ab]*.jsonl"),
    )
    assert code == 0
    data = json.loads(out)
    assert [r["recording"] for r in data["replays"]] == [
        str(folder / "a.jsonl"),
        str(folder / "c.jsonl"),
        str(folder / "nested" / "b.jsonl"),
        str(folder / "a.jsonl"),
    ]
    assert data["summary"]["turns"] == 4
    assert data["summary"]["tool_calls"] == 4


def test_a_pattern_that_matches_nothing_is_a_usage_error(tmp_path: Path, capsys: Any) -> None:
    code = main(["replay", str(tmp_path / "*.jsonl")])
    _, err = capsys.readouterr()
    assert code == 2
    assert err == f"hermes-hooks: {tmp_path / '*.jsonl'}: no recording matches this pattern\n"


def _junit_check(root: Any) -> None:
    """The required elements and attributes of the JUnit XML schema CI systems read:
    ``testsuites`` > ``testsuite`` (name, tests, failures, errors, time) >
    ``testcase`` (name, classname, time) > ``failure`` (message, type); counts
    are non-negative integers, times non-negative numbers, and the counts add up."""
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert suites
    for suite in suites:
        for name in ("name", "tests", "failures", "errors", "time"):
            assert name in suite.attrib, name
        for name in ("tests", "failures", "errors", "skipped"):
            assert int(suite.get(name, "0")) >= 0
        assert float(suite.get("time")) >= 0
        cases = suite.findall("testcase")
        assert int(suite.get("tests")) == len(cases)
        assert int(suite.get("failures")) == sum(1 for c in cases if c.find("failure") is not None)
        for case in cases:
            assert set(case.attrib) >= {"name", "classname", "time"}
            assert float(case.get("time")) >= 0
            for child in case:
                assert child.tag in ("failure", "error", "skipped", "system-out", "system-err")
            for failure in case.findall("failure"):
                assert set(failure.attrib) >= {"message", "type"}
        allowed = {"properties", "testcase", "system-out", "system-err"}
        assert {child.tag for child in suite} <= allowed


def test_junit_xml_has_one_case_per_recording_and_a_failure_per_hit(
    example_home: Path, capsys: Any, tmp_path: Path
) -> None:
    import xml.etree.ElementTree as ET

    report = tmp_path / "junit.xml"
    code, _, _ = replay(
        capsys, "--home", str(example_home), "--accept-hooks", "--fail-on", "block",
        "--junit-xml", str(report), QUICKSTART, DANGEROUS,
    )  # fmt: skip
    assert code == 1
    assert report.read_bytes().startswith(b"<?xml version='1.0' encoding='utf-8'?>")
    root = ET.parse(report).getroot()
    _junit_check(root)
    (suite,) = root.findall("testsuite")
    assert (suite.get("name"), suite.get("tests"), suite.get("failures")) == (
        "hermes-hooks replay",
        "2",
        "1",
    )
    quick, dangerous = suite.findall("testcase")
    assert (quick.get("name"), dangerous.get("name")) == (QUICKSTART, DANGEROUS)
    assert quick.findall("failure") == []
    failures = dangerous.findall("failure")
    assert [f.get("type") for f in failures] == ["fail-on-block"] * 3
    assert failures[0].get("message") == (
        'turn 1 (line 2), tool terminal dc-1 {"command": "rm -rf /"}: pre_tool_call shell '
        "shell hooks.pre_tool_call[0] agent-hooks/block-rm-rf.sh: "
        "bloqueado: rm -rf / não é permitido"
    )
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props == {"home": str(example_home.resolve()), "fail-on": "block"}


def test_global_switches_also_work_after_the_command(
    home: Path, capsys: Any, tmp_path: Path
) -> None:
    recording = write_recording(tmp_path / "one.jsonl", ONE_CALL)
    code = main(["replay", "--home", str(home), "--no-entry-points", "--json", recording])
    out, _ = capsys.readouterr()
    assert code == 0
    entries = json.loads(out)["replays"][0]["entries"]
    assert [r for e in entries for s in e["steps"] for r in s["runs"]] == []


def test_the_quickstart_shows_every_system_without_a_warning(tmp_path: Path) -> None:
    """The README's main command, from another directory: every hook system shows up
    (the webhook as a captured delivery) and nothing is logged at WARNING.  The test
    environment also installs a deliberately broken plugin distribution (``ep-broken``,
    for the loader's own tests); its warning is the only one allowed here."""
    done = subprocess.run(
        [sys.executable, "-m", "hermes_hooks", "replay", "--home", str(EXAMPLE_HOME),
         "--accept-hooks", QUICKSTART],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if "'ep-broken'" not in line]
    assert warnings == []
    out = done.stdout
    assert "      python  tool-counter:summarise  context" in out
    assert "shell   shell hooks.pre_llm_call[0] agent-hooks/inject-git-status.sh  none" in out
    assert "shell   shell hooks.pre_tool_call[0] agent-hooks/block-rm-rf.sh  none" in out
    assert "      gateway command-logger  ok" in out
    assert (
        "      captured webhook ci-notify → https://ci.example.com/hermes-events  on_session_end, "
    ) in out
    assert "  callback errors        0  (timeouts 0, skipped 0;" in out


def test_messages_name_the_real_home_not_the_copy(
    home: Path, capsys: Any, tmp_path: Path, caplog: Any
) -> None:
    (home / "config.yaml").write_text("plugins: [\n", encoding="utf-8")  # broken YAML
    recording = write_recording(tmp_path / "one.jsonl", ONE_CALL)
    code, _, _ = replay(capsys, "--home", str(home), recording, flags=("--no-entry-points",))
    assert code == 0
    messages = [r.getMessage() for r in caplog.records if "not valid YAML" in r.getMessage()]
    assert messages
    assert messages[0].startswith(f"{home / 'config.yaml'}:2:1: not valid YAML")
    assert all("hermes-replay-" not in m for m in messages)
