"""A gate's answer that the dispatcher ignores (D-20): still ignored for the
decision, as in hermes-agent, but counted as a callback error everywhere replay counts
them (timeline, summary, ``--fail-on error``, JUnit), shown by ``hermes-hooks test``
and, when the answer is a literal, reported by ``doctor``.  Real plugin directories
and real shell scripts in a temporary home."""

from __future__ import annotations

import json
import logging
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.cli import main
from hermes_hooks.types import ToolDecision
from tests.helpers import tool_payload, write_plugin
from tests.shell.helpers import approve, sh, write_config, write_script

DENIER = (
    "def deny(**kw):\n"
    "    return {'action': 'deny'}\n"
    "\n\n"
    "def register(ctx):\n"
    "    ctx.register_hook('pre_tool_call', deny)\n"
)
REASON = "unknown action 'deny' ignored"
FIX = "return {'action': 'block', 'message': '...'} to block (or 'approve' or 'modify')"
LOGGED = (
    f"pre_tool_call callback denier:deny: {REASON}, so the guarded action went ahead. Fix: {FIX}"
)
SHELL_DENY = (
    "answered action 'deny', which a pre_tool_call hook cannot say (block, approve or "
    "modify); the answer is ignored"
)
ONE_CALL = [
    {"type": "header", "version": 1, "session_id": "s1", "platform": "cli", "model": "m"},
    {"type": "user", "text": "list the files"},
    {
        "type": "assistant",
        "tool_calls": [{"id": "c1", "name": "terminal", "arguments": {"command": "ls"}}],
    },
    {"type": "tool_result", "tool_call_id": "c1", "output": "a\n", "returncode": 0},
    {"type": "assistant", "text": "One file.", "finish_reason": "stop"},
]


def write_recording(path: Path) -> str:
    path.write_text("".join(json.dumps(line) + "\n" for line in ONE_CALL), encoding="utf-8")
    return str(path)


def cli(capsys: Any, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["--no-entry-points", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def timing_free(text: str) -> str:
    """``text`` with measured durations replaced by ``N``."""
    text = re.sub(r"\b\d+\.\d ms\b|\b\d+\.\d\d s\b", "N ms", text)
    return re.sub(r" in \d+\.\d{3}s$", " in Ns", text, flags=re.M)


@pytest.fixture
def denier_home(home: Path) -> Path:
    write_plugin(home / "plugins", "denier", DENIER)
    return home


def test_load_keeps_the_answer_ignored_and_records_a_callback_error(
    denier_home: Path, load: Any, caplog: pytest.LogCaptureFixture
) -> None:
    hooks = load()
    records: list[Any] = []
    hooks.subscribe(records.append)
    decision = hooks.pre_tool_call(**tool_payload())
    # Ignored for the decision (hermes-agent lets the call through) ...
    assert decision == ToolDecision("allow", {"command": "ls -la"})
    # ... but recorded as the callback error it is, and logged once as an ERROR.
    assert [(r.callback, r.source, r.verdict, r.reason) for r in records] == [
        ("denier:deny", "python", "error", REASON)
    ]
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert errors == [LOGGED]


def test_replay_counts_it_as_a_callback_error_in_timeline_summary_gate_and_junit(
    denier_home: Path, tmp_path: Path, capsys: Any, caplog: pytest.LogCaptureFixture
) -> None:
    recording = write_recording(tmp_path / "one.jsonl")
    report = tmp_path / "junit.xml"
    code, out, _ = cli(
        capsys, "replay", "--home", str(denier_home), "--flush-timeout", "2",
        "--fail-on", "error", "--junit-xml", str(report), recording,
    )  # fmt: skip
    assert code == 1
    lines = timing_free(out).splitlines()
    step = lines.index("    pre_tool_call")
    assert lines[step - 1 : step + 2] == [
        '  tool terminal c1 {"command": "ls"}',
        "    pre_tool_call",
        f'        python  denier:deny  error  N ms  "{REASON}"',
    ]
    assert "  calls blocked          0" in lines  # the answer did not block
    assert "  callback errors        1  (timeouts 0, skipped 0; 1 callback runs)" in lines
    assert lines[-2:] == [
        "replay failed: --fail-on error",
        f"  {recording}: turn 1 (line 2): pre_tool_call python denier:deny: {REASON}",
    ]
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR] == [LOGGED]
    (case,) = ET.parse(report).getroot().iter("testcase")
    (failure,) = case.findall("failure")
    assert (failure.get("type"), failure.get("message")) == (
        "fail-on-error",
        f"turn 1 (line 2): pre_tool_call python denier:deny: {REASON}",
    )
    # Without --fail-on error the same replay passes: only the gate turns it red.
    code, out, _ = cli(capsys, "replay", "--home", str(denier_home), recording)
    assert code == 0
    assert "  callback errors        1  (timeouts 0, skipped 0; 1 callback runs)" in out


def test_a_shell_gate_that_failed_open_logs_its_failure_alone(
    home: Path, tmp_path: Path, capsys: Any, caplog: pytest.LogCaptureFixture
) -> None:
    # A failed shell gate hands no answer on: not a second ERROR about a "NoneType
    # return" telling it to return None.
    write_script(home / "agent-hooks" / "fail.sh", sh("cat >/dev/null\nexit 1"))
    write_script(
        home / "agent-hooks" / "deny.sh", sh("""cat >/dev/null\necho '{"action": "deny"}'""")
    )
    write_config(
        home,
        {"pre_tool_call": [{"command": "agent-hooks/fail.sh"}, {"command": "agent-hooks/deny.sh"}]},
    )
    recording = write_recording(tmp_path / "one.jsonl")
    code, out, _ = cli(
        capsys, "replay", "--home", str(home), "--accept-hooks", "--flush-timeout", "2",
        "--fail-on", "error", recording,
    )  # fmt: skip
    assert code == 1
    logged = [
        (r.levelname, r.name, r.getMessage())
        for r in caplog.records
        if r.levelno >= logging.WARNING
    ]
    assert logged == [
        (
            "WARNING",
            "hermes_hooks.shell",
            "shell hook hooks.pre_tool_call[0] (agent-hooks/fail.sh): exit code 1",
        ),
        (
            "ERROR",
            "hermes_hooks.shell",
            f"shell hook hooks.pre_tool_call[1] (agent-hooks/deny.sh): {SHELL_DENY}",
        ),
    ]
    lines = out.splitlines()
    assert "  callback errors        2  (timeouts 0, skipped 0; 2 callback runs)" in lines
    assert lines[-1] == (
        f"  {recording}: turn 1 (line 2): pre_tool_call shell shell hooks.pre_tool_call[1] "
        f"agent-hooks/deny.sh: {SHELL_DENY}"
    )


def test_test_fires_the_python_callback_then_the_shell_hooks(
    denier_home: Path, capsys: Any
) -> None:
    write_script(denier_home / "agent-hooks" / "block.sh", sh(
        """cat >/dev/null\necho '{"action": "block", "message": "no"}'"""
    ))  # fmt: skip
    write_config(denier_home, {"pre_tool_call": [{"command": "agent-hooks/block.sh"}]})
    approve(denier_home, "pre_tool_call", "agent-hooks/block.sh")
    code, out, _ = cli(capsys, "--home", str(denier_home), "test", "pre_tool_call")
    assert code == 0
    assert timing_free(out).splitlines() == [
        "Firing 1 Python callback(s) and 1 shell hook(s) for pre_tool_call (tool: terminal):",
        "",
        "  → python denier:deny",
        '      returned: {"action": "deny"}',
        f"      verdict: error — {REASON}, so the guarded action goes ahead",
        f"      fix: {FIX}",
        "",
        "  → hooks.pre_tool_call[0]: agent-hooks/block.sh  (timeout=60s)",
        "      exit 0 in Ns",
        '      stdout: {"action": "block", "message": "no"}',
        '      parsed: {"action": "block", "message": "no"}',
    ]
    code, out, _ = cli(capsys, "--home", str(denier_home), "test", "pre_tool_call", "--json")
    report = json.loads(out)
    assert report["python_callbacks"] == [
        {
            "callback": "denier:deny",
            "owner": "denier",
            "returned": {"action": "deny"},
            "verdict": "error",
            "reason": REASON,
            "fix": FIX,
        }
    ]
    assert [h["parsed"] for h in report["hooks"]] == [{"action": "block", "message": "no"}]


def test_test_shows_a_valid_answer_a_none_and_a_raise(home: Path, capsys: Any) -> None:
    write_plugin(
        home / "plugins",
        "guard",
        "def stop(**kw):\n    return {'action': 'block', 'message': 'not here'}\n\n\n"
        "def quiet(**kw):\n    return None\n\n\n"
        "def boom(**kw):\n    raise ValueError('nope')\n\n\n"
        "def register(ctx):\n"
        "    ctx.register_hook('pre_tool_call', stop)\n"
        "    ctx.register_hook('pre_tool_call', quiet)\n"
        "    ctx.register_hook('pre_tool_call', boom)\n",
    )
    code, out, _ = cli(capsys, "--home", str(home), "test", "pre_tool_call")
    assert code == 0
    assert out.splitlines() == [
        "Firing 3 Python callback(s) for pre_tool_call (tool: terminal):",
        "",
        "  → python guard:stop",
        '      returned: {"action": "block", "message": "not here"}',
        "      verdict: block — not here",
        "",
        "  → python guard:quiet",
        "      returned: null",
        "      verdict: none",
        "",
        "  → python guard:boom",
        "      verdict: error — pre_tool_call plugin callback boom raised ValueError: nope",
    ]


def test_test_on_a_python_only_event_fires_its_python_callbacks(home: Path, capsys: Any) -> None:
    write_plugin(
        home / "plugins",
        "classify",
        "def classify(**kw):\n    return {'reason': 'rate_limit'}\n\n\n"
        "def register(ctx):\n"
        "    ctx.register_hook('transform_api_error_classification', classify)\n",
    )
    event = "transform_api_error_classification"
    code, out, _ = cli(capsys, "--home", str(home), "test", event)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"Firing 1 Python callback(s) for {event}:"
    assert lines[2:4] == [
        "  → python classify:classify",
        '      returned: {"reason": "rate_limit"}',
    ]
    assert lines[-1] == f"Shell hooks cannot run on {event}: use a Python plugin."


def test_doctor_reports_a_literal_answer_that_is_ignored(denier_home: Path, capsys: Any) -> None:
    code, out, _ = cli(capsys, "--home", str(denier_home), "doctor")
    assert code == 1
    source = denier_home / "plugins" / "denier" / "__init__.py"
    assert out.splitlines()[:2] == [
        "✓ plugin denier: loaded (pre_tool_call)",
        f"✗ plugin denier: pre_tool_call callback denier:deny returns {{'action': 'deny'}} "
        f"({source}:2): {REASON}, so the guarded action goes ahead. Fix: {FIX}",
    ]


def test_doctor_judges_only_what_a_literal_decides(home: Path, capsys: Any) -> None:
    # Run-time parts (a message in a variable, the args of a modify, an answer built in
    # a helper) are taken as valid: no false alarm.  A nested function's return is not
    # the callback's; a message-less block and a lambda's False are ignored whatever.
    write_plugin(
        home / "plugins",
        "mixed",
        "def gate(tool_name, args, **kw):\n"
        "    message = 'no ' + tool_name\n"
        "    if tool_name == 'a':\n"
        "        return {'action': 'block', 'message': message}\n"
        "    if tool_name == 'b':\n"
        "        return {'action': 'modify', 'args': dict(args, safe=True)}\n"
        "    if tool_name == 'c':\n"
        "        return answer(tool_name)\n"
        "    if tool_name == 'd':\n"
        "        return {'action': 'approve', 'message': f'ask about {tool_name}'}\n"
        "\n"
        "    def helper():\n"
        "        return 'block'\n"
        "\n"
        "    if tool_name == 'e':\n"
        "        return {'action': 'block'}\n"
        "    return None\n"
        "\n\n"
        "def answer(name):\n"
        "    return {'action': 'deny'}\n"
        "\n\n"
        "def register(ctx):\n"
        "    ctx.register_hook('pre_tool_call', gate)\n"
        "    ctx.register_hook('pre_tool_call', lambda **kw: False)\n",
    )
    code, out, _ = cli(capsys, "--home", str(home), "doctor", "--json")
    assert code == 1
    source = home / "plugins" / "mixed" / "__init__.py"
    errors = [f["message"] for f in json.loads(out)["findings"] if f["level"] == "error"]
    assert errors == [
        f"pre_tool_call callback mixed:gate returns {{'action': 'block'}} ({source}:16): "
        "block without a message ignored, so the guarded action goes ahead. Fix: give the "
        "block a non-empty 'message' (it is shown to the model)",
        "pre_tool_call callback mixed:register.<locals>.<lambda> returns False "
        f"({source}:26): a bool return ignored, so the guarded action goes ahead. Fix: "
        "return {'action': 'block', 'message': '...'} to block, or None to allow",
    ]
