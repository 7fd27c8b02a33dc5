"""Replay's report says what ran: a hook whose matcher does not accept a call's tool is
not shown as if it ran, the blocked-call count says what it counts, and the JUnit
report names the home by its real path."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from hermes_hooks.cli import main

GATE = "#!/bin/sh\ncat >/dev/null\necho 'no rm' >&2\nexit 2\n"

LINES = [
    {"type": "header", "version": 1, "session_id": "s1", "platform": "cli", "model": "m",
     "tools": ["terminal", "write_file"]},
    {"type": "user", "text": "do it"},
    {"type": "assistant", "text": "ok", "finish_reason": "tool_calls", "tool_calls": [
        {"id": "c1", "name": "write_file", "arguments": {"path": "/tmp/x", "content": "y"}},
        {"id": "c2", "name": "terminal", "arguments": {"command": "rm -rf /"}},
    ]},
    {"type": "tool_result", "tool_call_id": "c1", "output": "written"},
    {"type": "tool_result", "tool_call_id": "c2", "output": "gone"},
    {"type": "assistant", "text": "done", "finish_reason": "stop"},
]  # fmt: skip


def two_gates(home: Path) -> str:
    """A Claude Code ``Bash`` gate and a Hermes ``terminal`` gate, both blocking."""
    gate = home / "gate.sh"
    gate.write_text(GATE, encoding="utf-8")
    gate.chmod(0o755)
    (home / "config.yaml").write_text(
        f"hooks:\n  PreToolUse:\n    - matcher: Bash\n      command: {gate}\n"
        f"  pre_tool_call:\n    - matcher: terminal\n      command: {gate}\n",
        encoding="utf-8",
    )
    return str(gate)


def replay(capsys: Any, home: Path, tmp_path: Path, *argv: str) -> tuple[int, str]:
    recording = tmp_path / "one.jsonl"
    recording.write_text("".join(json.dumps(line) + "\n" for line in LINES), encoding="utf-8")
    capsys.readouterr()
    code = main(
        ["--no-entry-points", "replay", "--home", str(home), "--accept-hooks",
         "--flush-timeout", "0.2", *argv, str(recording)]
    )  # fmt: skip
    return code, capsys.readouterr().out


def test_hooks_whose_matcher_rejects_the_tool_are_not_shown_as_run(
    home: Path, tmp_path: Path, capsys: Any
) -> None:
    gate = two_gates(home)
    code, out = replay(capsys, home, tmp_path)
    assert code == 0
    text = re.sub(r"\b\d+\.\d ms\b", "N ms", out)
    lines = text.splitlines()
    start = lines.index('Turn 1 (line 2) · session s1 · "do it"')
    # Nothing under write_file: neither gate was started for it.
    assert lines[start + 1 : start + 5] == [
        '  tool terminal c2 {"command": "rm -rf /"}',
        "    pre_tool_call  → BLOCKED: no rm",
        f"        shell   shell hooks.PreToolUse[0] {gate}  block  N ms  'no rm'",
        f"        shell   shell hooks.pre_tool_call[0] {gate}  block  N ms  'no rm'",
    ]
    assert "write_file" not in text
    assert "none" not in text
    # One call blocked, by two answers that said block: each count says what it counts.
    assert "  calls blocked          1  (block answers: shell 2)" in lines
    assert "  callback errors        0  (timeouts 0, skipped 0; 2 callback runs)" in lines


def test_json_keeps_the_steps_without_the_runs_that_never_started(
    home: Path, tmp_path: Path, capsys: Any
) -> None:
    two_gates(home)
    code, out = replay(capsys, home, tmp_path, "--json")
    assert code == 0
    (entry,) = [e for e in json.loads(out)["replays"][0]["entries"] if e["kind"] == "turn"]
    pre = [s for s in entry["steps"] if s["hook"] == "pre_tool_call"]
    assert [(s["group"].split()[1], [r["verdict"] for r in s["runs"]]) for s in pre] == [
        ("write_file", []),
        ("terminal", ["block", "block"]),
    ]


def test_junit_names_the_home_by_its_absolute_path(
    home: Path, tmp_path: Path, capsys: Any, monkeypatch: Any
) -> None:
    two_gates(home)
    report = tmp_path / "junit.xml"
    monkeypatch.chdir(home.parent)  # --home given relative: the report still says where
    recording = tmp_path / "one.jsonl"
    recording.write_text("".join(json.dumps(line) + "\n" for line in LINES), encoding="utf-8")
    code = main(
        ["--no-entry-points", "replay", "--home", home.name, "--accept-hooks",
         "--flush-timeout", "0.2", "--junit-xml", str(report), str(recording)]
    )  # fmt: skip
    assert code == 0
    properties = {
        p.get("name"): p.get("value") for p in ET.parse(report).getroot().iter("property")
    }
    assert properties == {"home": str(home.resolve()), "fail-on": "none"}
