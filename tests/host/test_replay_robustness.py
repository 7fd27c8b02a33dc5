"""``hermes-hooks replay`` as a real command on inputs that used to end it badly: JSON
texts inside a recording beyond the reader's limits, hook messages XML cannot carry,
and a worker process that a hook kills in the middle of a parallel run."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.errors import ConfigError
from hermes_hooks.host.job import ReplayOptions
from hermes_hooks.host.recording import scan_recording
from hermes_hooks.host.worker import run_in_worker
from tests.helpers import write_plugin

REPO = Path(__file__).resolve().parents[2]


def conversation(session_id: str, arguments: Any) -> list[dict[str, Any]]:
    return [
        {"type": "header", "version": 1, "session_id": session_id, "platform": "cli", "model": "m"},
        {"type": "user", "text": "list the files"},
        {
            "type": "assistant",
            "tool_calls": [{"id": "c1", "name": "terminal", "arguments": arguments}],
        },
        {"type": "tool_result", "tool_call_id": "c1", "output": "a\n", "returncode": 0},
        {"type": "assistant", "text": "One file.", "finish_reason": "stop"},
    ]


def write_recording(path: Path, lines: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return str(path)


def cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hermes_hooks", *argv],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        ('{"a":' * 100_000 + "1" + "}" * 100_000, "nested deeper than 64 levels"),
        ('{"a":' * 65 + "1" + "}" * 65, "nested deeper than 64 levels"),
        (
            '{"n": ' + "9" * 5000 + "}",
            "integer with 5000 digits is out of range (at most 2**63 - 1)",
        ),
        ('{"n": 1e999}', "number 1e999 is too large (not a finite number)"),
        ('{"cmd": "ls"', "not valid JSON (Expecting ',' delimiter at column 13)"),
    ],
    ids=["deep", "65-levels", "5000-digits", "infinite", "malformed"],
)
def test_hostile_arguments_text_is_refused_with_file_line_and_reason(
    tmp_path: Path, home: Path, arguments: str, reason: str
) -> None:
    recording = write_recording(tmp_path / "hostile.jsonl", conversation("s1", arguments))
    done = cli("--home", str(home), "replay", recording)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"hermes-hooks: {recording}:3: assistant line: tool_calls[0].arguments: {reason}"
    )


def test_arguments_text_within_the_limits_still_replays(tmp_path: Path, home: Path) -> None:
    arguments = '{"command": "ls", "n": 9223372036854775807, "deep": ' + "[" * 60 + "]" * 60 + "}"
    recording = write_recording(tmp_path / "fine.jsonl", conversation("s1", arguments))
    done = cli("--home", str(home), "replay", "--json", "--no-entry-points", recording)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["summary"]["tool_calls"] == 1


# A block message with what a hook may well return: terminal colour codes, a NUL, a
# bell, markup and the end of a CDATA section.
NASTY = "red \x1b[31mALERT\x1b[0m ]]> <b>&amp; nul\x00 bell\x07 tab\tend"
SHOWN = "red \\x1b[31mALERT\\x1b[0m ]]> <b>&amp; nul\\x00 bell\\x07 tab\tend"


def test_junit_xml_with_control_characters_and_cdata_end_parses(tmp_path: Path, home: Path) -> None:
    write_plugin(
        home / "plugins",
        "nasty",
        "def block(tool_name, args, **kwargs):\n"
        f"    return {{'action': 'block', 'message': {NASTY!r}}}\n\n"
        "def register(ctx):\n    ctx.register_hook('pre_tool_call', block)\n",
    )
    recording = write_recording(tmp_path / "one.jsonl", conversation("s1", {"command": "ls"}))
    report = tmp_path / "junit.xml"
    done = cli(
        "--home", str(home), "replay", "--no-entry-points", "--fail-on", "block",
        "--junit-xml", str(report), recording,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    root = ET.parse(report).getroot()  # the file is well-formed XML
    (failure,) = root.iter("failure")
    assert failure.get("type") == "fail-on-block"
    assert failure.get("message") == (
        'turn 1 (line 2), tool terminal c1 {"command": "ls"}: pre_tool_call python '
        f"nasty:block: {SHOWN}"
    )
    assert failure.text is not None
    assert failure.text.splitlines()[-1] == f"reason: {SHOWN}"
    raw = report.read_bytes()
    assert b"\x1b" not in raw and b"\x00" not in raw and b"\x07" not in raw
    assert b"]]&gt;" in raw


KILLER = """
import os


def start(session_id, **kwargs):
    if session_id == "doomed":
        print("killer: ending the process", flush=True)
        os._exit(7)


def register(ctx):
    ctx.register_hook("on_session_start", start)
"""


def test_a_worker_killed_by_a_hook_fails_its_recording_and_keeps_the_others(
    tmp_path: Path, home: Path
) -> None:
    write_plugin(home / "plugins", "killer", KILLER)
    folder = tmp_path / "recordings"
    folder.mkdir()
    for name, session_id in (("a", "fine-1"), ("b", "doomed"), ("c", "fine-2")):
        write_recording(folder / f"{name}.jsonl", conversation(session_id, {"command": "ls"}))
    report = tmp_path / "junit.xml"
    done = cli(
        "--home", str(home), "replay", "--no-entry-points", "--jobs", "3",
        "--junit-xml", str(report), str(folder),
    )  # fmt: skip
    reason = "the replay worker exited with code 7 before reporting a result"
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "killer: ending the process" in done.stderr
    assert (
        f"ERROR hermes_hooks.host: {folder / 'b.jsonl'}: not replayed: {reason} "
        "(a hook may have ended the process)"
    ) in done.stderr.splitlines()
    lines = done.stdout.splitlines()
    assert lines[-2:] == [
        "replay failed: 1 recording not replayed",
        f"  {folder / 'b.jsonl'}: not replayed: {reason}",
    ]
    crashed = lines.index(f"Replay of {folder / 'b.jsonl'}")
    assert lines[crashed + 1] == f"  NOT REPLAYED: {reason}"
    total = lines.index("Total of all recordings")
    assert lines[total + 1] == "  turns 2, commands 0, tool calls 2"  # a and c kept

    (suite,) = ET.parse(report).getroot().findall("testsuite")
    assert (suite.get("tests"), suite.get("failures")) == ("3", "1")
    cases = {case.get("name"): case for case in suite.findall("testcase")}
    assert cases[str(folder / "a.jsonl")].findall("failure") == []
    assert cases[str(folder / "c.jsonl")].findall("failure") == []
    (failure,) = cases[str(folder / "b.jsonl")].findall("failure")
    assert (failure.get("type"), failure.get("message")) == (
        "replay-crashed",
        f"not replayed: {reason}",
    )


def test_a_killed_worker_in_json_output(tmp_path: Path, home: Path) -> None:
    write_plugin(home / "plugins", "killer", KILLER)
    good = write_recording(tmp_path / "good.jsonl", conversation("fine", {"command": "ls"}))
    bad = write_recording(tmp_path / "bad.jsonl", conversation("doomed", {"command": "ls"}))
    done = cli("--home", str(home), "replay", "--json", "--no-entry-points", "-j", "2", good, bad)
    assert done.returncode == 1
    data = json.loads(done.stdout)
    assert data["crashed"] == [bad]
    first, second = data["replays"]
    assert "crashed" not in first
    assert first["summary"]["turns"] == 1
    assert (second["recording"], second["session_id"], second["entries"]) == (bad, "doomed", [])
    assert second["crashed"] == "the replay worker exited with code 7 before reporting a result"


def test_a_worker_that_cannot_read_its_recording_is_a_usage_error(tmp_path: Path) -> None:
    path = write_recording(tmp_path / "gone.jsonl", conversation("s1", {"command": "ls"}))
    header, _ = scan_recording(path)
    Path(path).unlink()  # validated, then gone before the worker reads it
    with pytest.raises(ConfigError) as caught:
        run_in_worker(path, header, ReplayOptions(home=str(tmp_path), entry_points=False))
    assert str(caught.value) == f"{path}: no such file"
