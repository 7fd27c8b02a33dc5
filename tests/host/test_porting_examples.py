"""The complete examples of docs/claude-code-porting.md are real: the transcript imports
to the recording shown beside it, and the two stdin documents are what scripts of each
dialect read for that very call.  Each importer refuses the other's format once, naming
the option that reads it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import hermes_hooks
from hermes_hooks.claude.input import TRANSCRIPTS
from hermes_hooks.cli import main

DOC = Path(__file__).resolve().parents[2] / "docs" / "claude-code-porting.md"
DUMP = '#!/bin/sh\ncat > "$(dirname "$0")/stdin-$1.json"\n'
TRANSCRIPT = "/home/user/.claude/projects/-home-user-project/sess_abc123.jsonl"


def example(marker: str) -> str:
    """The fenced block that follows ``<!-- marker -->`` in the porting guide."""
    text = DOC.read_text(encoding="utf-8")
    found = re.search(rf"<!-- {re.escape(marker)} -->\n```\w+\n(.*?)\n```", text, re.DOTALL)
    assert found is not None, marker
    return found.group(1)


def json_lines(text: str) -> list[Any]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def cli(capsys: Any, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_transcript_example_imports_to_the_recording_shown(
    home: Path, tmp_path: Path, capsys: Any
) -> None:
    source = tmp_path / "claude.jsonl"
    source.write_text(example("example: claude-code transcript") + "\n", encoding="utf-8")
    out = tmp_path / "recording.jsonl"
    code, stdout, err = cli(
        capsys, "--home", str(home), "import-session", "--from", "claude-code",
        str(source), "-o", str(out),
    )  # fmt: skip
    assert (code, stdout, err) == (0, f"wrote {out}\n", "")
    recording = json_lines(out.read_text(encoding="utf-8"))
    assert recording == json_lines(example("example: claude-code recording"))
    # Bash's description is Claude's note to the user, not an argument of terminal.
    (call,) = recording[2]["tool_calls"]
    assert call == {"id": "toolu_01", "name": "terminal", "arguments": {"command": "ls -la"}}
    # ... and the recording replays.
    code, stdout, _ = cli(
        capsys, "--no-entry-points", "replay", "--home", str(home), "--flush-timeout", "0.2",
        str(out),
    )  # fmt: skip
    assert code == 0
    assert "  turns 1, commands 0, tool calls 1" in stdout.splitlines()
    assert '  response: "The folder is empty."  (text_response(finish_reason=stop))' in stdout


def test_a_claude_code_transcript_given_as_hermes_is_refused_once(
    tmp_path: Path, capsys: Any
) -> None:
    source = tmp_path / "claude.jsonl"
    source.write_text(example("example: claude-code transcript") + "\n", encoding="utf-8")
    code, stdout, err = cli(
        capsys, "import-session", "--from", "hermes", str(source), "-o", str(tmp_path / "o")
    )
    assert (code, stdout) == (2, "")
    assert err == (
        f"hermes-hooks: {source}:1: this is a Claude Code transcript line, not a Hermes "
        "trajectory; import it with --from claude-code\n"
    )
    assert not (tmp_path / "o").exists()


def test_a_hermes_trajectory_given_as_claude_code_is_refused_once(
    home: Path, tmp_path: Path, capsys: Any
) -> None:
    source = tmp_path / "trajectory.jsonl"
    line = {"conversations": [{"from": "human", "value": "hi"}], "model": "m"}
    source.write_text(json.dumps(line) + "\n" + json.dumps(line) + "\n", encoding="utf-8")
    code, stdout, err = cli(
        capsys, "--home", str(home), "import-session", "--from", "claude-code", str(source),
        "-o", str(tmp_path / "o"),
    )  # fmt: skip
    assert (code, stdout) == (2, "")
    assert err == (
        f"hermes-hooks: {source}:1: this is a Hermes trajectory line, not a Claude Code "
        "transcript; import it with --from hermes\n"
    )


def test_the_stdin_examples_are_what_each_dialect_reads(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dump = home / "dump.sh"
    dump.write_text(DUMP, encoding="utf-8")
    dump.chmod(0o755)
    (home / "config.yaml").write_text(
        f"hooks:\n  pre_tool_call:\n    - matcher: terminal\n      command: {dump} hermes\n"
        f"  PreToolUse:\n    - matcher: Bash\n      command: {dump} claude\n",
        encoding="utf-8",
    )
    work = tmp_path / "project"
    work.mkdir()
    monkeypatch.chdir(work)  # the agent's working directory: the documents' cwd
    forget = TRANSCRIPTS.add(lambda session: TRANSCRIPT if session == "sess_abc123" else None)
    try:
        with hermes_hooks.load(home, accept_hooks=True, entry_points=False) as hooks:
            decision = hooks.pre_tool_call(
                tool_name="terminal", args={"command": "rm -rf build"}, task_id="task_1",
                session_id="sess_abc123", tool_call_id="call_1", turn_id="turn_1",
                api_request_id="req_1", middleware_trace=[],
            )  # fmt: skip
    finally:
        forget()
    assert decision.action == "allow"
    for dialect, marker in (("claude", "stdin: claude-code"), ("hermes", "stdin: hermes")):
        documented = json.loads(example(marker))
        assert documented["cwd"] == "/home/user/project"
        documented["cwd"] = str(work)
        read = json.loads((home / f"stdin-{dialect}.json").read_text(encoding="utf-8"))
        assert read == documented, dialect
        assert list(read) == list(documented)  # in the documented order, too


def test_a_folder_of_claude_code_transcripts_given_as_hermes_is_refused_once(
    tmp_path: Path, capsys: Any
) -> None:
    project = tmp_path / "projects" / "-home-user-project"
    project.mkdir(parents=True)
    session = project / "0b6c2f0e.jsonl"
    session.write_text(example("example: claude-code transcript") + "\n", encoding="utf-8")
    code, stdout, err = cli(
        capsys, "import-session", "--from", "hermes", str(project), "-o", str(tmp_path / "o")
    )
    assert (code, stdout) == (2, "")
    assert err == (
        f"hermes-hooks: {project}: holds Claude Code transcripts (0b6c2f0e.jsonl), not a "
        "Hermes session store; import them with --from claude-code\n"
    )
