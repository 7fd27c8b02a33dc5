"""``hermes-hooks import-session``: Hermes Agent's session store and trajectory files,
and Claude Code transcripts, become recordings that replay through a home's hooks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.cli import main
from tests.helpers import write_plugin
from tests.imports.state_db import StateDb, call

BLOCK_RM = """
def block(tool_name, args, **kwargs):
    if tool_name == "terminal" and "rm -rf" in str(args.get("command", "")):
        return {"action": "block", "message": "no rm -rf"}
    return None


def register(ctx):
    ctx.register_hook("pre_tool_call", block)
"""


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def state_db(tmp_path: Path) -> Path:
    path = tmp_path / "hermes" / "state.db"
    path.parent.mkdir()
    db = StateDb(path)
    db.session(
        "20260101_120000_abc",
        "telegram",
        model="anthropic/claude-sonnet-4.6",
        billing_provider="openrouter",
        user_id="1001",
        chat_id="1001",
        chat_type="dm",
        cwd="/srv/shop",
    )
    s = "20260101_120000_abc"
    db.message(s, "system", "You are Hermes.")
    db.message(s, "user", "clean up the build directory")
    db.message(
        s,
        "assistant",
        "Removing it.",
        tool_calls=[call("call_1", "terminal", {"command": "rm -rf build/"})],
        finish_reason="tool_calls",
    )
    db.message(
        s,
        "tool",
        json.dumps({"output": "", "exit_code": 0, "error": None}),
        tool_call_id="call_1",
        tool_name="terminal",
    )
    db.message(s, "assistant", "Done.", finish_reason="stop")
    db.message(s, "user", [{"type": "text", "text": "and show the README"}, {"type": "image_url"}])
    db.message(
        s, "assistant", None, tool_calls=[call("call_2", "read_file", {"path": "README.md"})]
    )
    db.message(s, "tool", '{"content": "# shop"}', tool_call_id="call_2", tool_name="read_file")
    db.message(s, "assistant", "It starts with '# shop'.", finish_reason="stop")
    db.message(s, "user", "a rewound question", active=0)
    db.message(s, "critic", "an unknown role")
    db.session("20260102_090000_def", "cli", model="openai/gpt-5")
    db.message("20260102_090000_def", "user", "hello")
    db.message("20260102_090000_def", "assistant", "Hi!", finish_reason="stop")
    db.message("20260102_090000_def", "assistant", "", tool_calls="{not json")
    db.close()
    return path


def test_a_state_db_session_imports_and_replays(
    state_db: Path, tmp_path: Path, home: Path, capsys: Any
) -> None:
    out = tmp_path / "session.jsonl"
    code, stdout, err = run(
        capsys, "import-session", "--from", "hermes", str(state_db), "-o", str(out),
        "--session", "20260101_120000_abc",
    )  # fmt: skip
    assert code == 0
    assert stdout == f"wrote {out}\n"
    where = f"{state_db}: messages row 11 (session 20260101_120000_abc)"
    assert err == f"hermes-hooks: {where}: unknown role 'critic'; skipped\n"
    assert lines_of(out) == [
        {
            "type": "header",
            "version": 1,
            "session_id": "20260101_120000_abc",
            "platform": "telegram",
            "model": "anthropic/claude-sonnet-4.6",
            "provider": "openrouter",
            "cwd": "/srv/shop",
            "user_id": "1001",
            "chat_id": "1001",
            "chat_type": "dm",
        },
        {"type": "user", "text": "clean up the build directory"},
        {
            "type": "assistant",
            "text": "Removing it.",
            "tool_calls": [
                {"id": "call_1", "name": "terminal", "arguments": {"command": "rm -rf build/"}}
            ],
            "finish_reason": "tool_calls",
        },
        {"type": "tool_result", "tool_call_id": "call_1", "output": "", "returncode": 0},
        {"type": "assistant", "text": "Done.", "finish_reason": "stop"},
        {"type": "user", "text": "and show the README"},
        {
            "type": "assistant",
            "tool_calls": [
                {"id": "call_2", "name": "read_file", "arguments": {"path": "README.md"}}
            ],
        },
        {"type": "tool_result", "tool_call_id": "call_2", "content": '{"content": "# shop"}'},
        {"type": "assistant", "text": "It starts with '# shop'.", "finish_reason": "stop"},
    ]
    write_plugin(home / "plugins", "no-rm", BLOCK_RM)
    code, stdout, _ = run(
        capsys, "--no-entry-points", "--home", str(home), "replay", "--json", "--fail-on", "block",
        str(out),
    )  # fmt: skip
    assert code == 1
    data = json.loads(stdout)
    assert data["summary"]["calls_blocked"] == 1
    assert data["summary"]["turns"] == 2
    (failure,) = data["replays"][0]["failures"]
    assert (failure["where"], failure["callback"], failure["reason"]) == (
        'turn 1 (line 2), tool terminal call_1 {"command": "rm -rf build/"}',
        "no-rm:block",
        "no rm -rf",
    )


def test_every_session_of_a_state_db_gets_its_own_recording(
    state_db: Path, tmp_path: Path, capsys: Any
) -> None:
    out = tmp_path / "recordings"
    code, stdout, err = run(
        capsys, "import-session", "--from", "hermes", str(state_db.parent), "-o", str(out)
    )
    assert code == 0
    assert stdout.splitlines() == [
        f"wrote {out / '20260101_120000_abc.jsonl'}",
        f"wrote {out / '20260102_090000_def.jsonl'}",
    ]
    assert err.splitlines()[-1] == (
        f"hermes-hooks: {state_db}: messages row 14 (session 20260102_090000_def): "
        "tool_calls: not valid JSON (Expecting property name enclosed in double quotes at "
        "column 2); skipped"
    )
    assert lines_of(out / "20260102_090000_def.jsonl")[1:] == [
        {"type": "user", "text": "hello"},
        {"type": "assistant", "text": "Hi!", "finish_reason": "stop"},
    ]


def test_an_unknown_session_and_a_foreign_database_exit_2(
    state_db: Path, tmp_path: Path, capsys: Any
) -> None:
    import sqlite3

    code, _, err = run(
        capsys, "import-session", "--from", "hermes", str(state_db), "-o", str(tmp_path / "x"),
        "--session", "nope",
    )  # fmt: skip
    assert code == 2
    assert err == f"hermes-hooks: {state_db}: no session 'nope' in the session store\n"
    other = tmp_path / "other.db"
    sqlite3.connect(other).executescript("CREATE TABLE sessions (id TEXT);")
    code, _, err = run(
        capsys, "import-session", "--from", "hermes", str(other), "-o", str(tmp_path / "x")
    )
    assert code == 2
    assert err == (
        f"hermes-hooks: {other}: not a Hermes Agent session store (table sessions lacks "
        "source, model, started_at)\n"
    )


def test_a_trajectory_file_imports(tmp_path: Path, capsys: Any, home: Path) -> None:
    trajectory = tmp_path / "trajectory_samples.jsonl"
    conversation = [
        {"from": "system", "value": "You are a function calling AI model. <tools>...</tools>"},
        {"from": "human", "value": "what is in the folder?"},
        {
            "from": "gpt",
            "value": "<think>\nlist it\n</think>\nLet me look.\n<tool_call>\n"
            '{"name": "terminal", "arguments": {"command": "ls"}}\n</tool_call>',
        },
        {
            "from": "tool",
            "value": '<tool_response>\n{"tool_call_id": "x", "name": "terminal", "content": '
            '{"output": "a.txt", "exit_code": 0}}\n</tool_response>',
        },
        {"from": "gpt", "value": "<think>\n</think>\nOne file: a.txt."},
    ]
    entry = {"conversations": conversation, "model": "m1", "completed": True}
    trajectory.write_text(json.dumps(entry) + "\n" + "{broken\n", encoding="utf-8")
    out = tmp_path / "t.jsonl"
    code, _, err = run(
        capsys, "import-session", "--from", "hermes", str(trajectory), "-o", str(out)
    )
    assert code == 0
    assert err == (
        f"hermes-hooks: {trajectory}:2: not valid JSON (Expecting property name enclosed in "
        "double quotes at column 2); skipped\n"
    )
    assert lines_of(out)[1:] == [
        {"type": "user", "text": "what is in the folder?"},
        {
            "type": "assistant",
            "text": "Let me look.",
            "tool_calls": [
                {
                    "id": "trajectory_samples-1-call-1",
                    "name": "terminal",
                    "arguments": {"command": "ls"},
                }
            ],
            "reasoning": "list it",
        },
        {
            "type": "tool_result",
            "tool_call_id": "trajectory_samples-1-call-1",
            "output": "a.txt",
            "returncode": 0,
        },
        {"type": "assistant", "text": "One file: a.txt."},
    ]
    code, stdout, _ = run(capsys, "--no-entry-points", "--home", str(home), "replay", str(out))
    assert code == 0
    assert "  turns 1, commands 0, tool calls 1" in stdout.splitlines()


def claude_line(kind: str, content: Any, **extra: Any) -> str:
    message: dict[str, Any] = {"role": kind, "content": content}
    if kind == "assistant":
        message.update(
            id=extra.pop("message_id"), model="claude-sonnet-4-5", stop_reason=extra.pop("stop")
        )
    line = {
        "type": kind,
        "message": message,
        "sessionId": "5d1c7a2e",
        "cwd": "/home/dev/shop",
        "uuid": "u",
        "isSidechain": False,
        **extra,
    }
    return json.dumps(line)


def test_a_claude_code_transcript_imports_and_replays(
    tmp_path: Path, home: Path, capsys: Any
) -> None:
    project = tmp_path / ".claude" / "projects" / "-home-dev-shop"
    project.mkdir(parents=True)
    transcript = project / "5d1c7a2e.jsonl"
    transcript.write_text(
        "\n".join(
            [
                json.dumps({"type": "summary", "summary": "Cleaning up", "leafUuid": "x"}),
                claude_line("user", "<command-name>/clear</command-name>", isMeta=True),
                claude_line("user", "read the config then clean up"),
                claude_line(
                    "assistant",
                    [{"type": "thinking", "thinking": "read first"}],
                    message_id="msg_1",
                    stop=None,
                ),
                claude_line(
                    "assistant",
                    [
                        {"type": "text", "text": "Reading it."},
                        {
                            "type": "tool_use",
                            "id": "toolu_1",
                            "name": "Read",
                            "input": {"file_path": "/home/dev/shop/config.yaml"},
                        },
                    ],
                    message_id="msg_1",
                    stop="tool_use",
                ),
                claude_line(
                    "user",
                    [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "debug: true"}],
                ),
                claude_line(
                    "assistant",
                    [
                        {
                            "type": "tool_use",
                            "id": "toolu_2",
                            "name": "Bash",
                            "input": {"command": "rm -rf build", "description": "clean"},
                        }
                    ],
                    message_id="msg_2",
                    stop="tool_use",
                ),
                claude_line(
                    "user",
                    [
                        {
                            "type": "tool_result",
                            "tool_use_id": "toolu_2",
                            "content": [{"type": "text", "text": "permission denied"}],
                            "is_error": True,
                        }
                    ],
                ),
                claude_line(
                    "assistant",
                    [{"type": "text", "text": "Could not delete build."}],
                    message_id="msg_3",
                    stop="end_turn",
                ),
                claude_line(
                    "assistant",
                    [{"type": "text", "text": "side"}],
                    message_id="m",
                    stop="end_turn",
                    isSidechain=True,
                ),
                json.dumps({"type": "weird", "message": {}}),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    out = tmp_path / "claude.jsonl"
    code, _, err = run(
        capsys, "import-session", "--from", "claude-code", str(project), "-o", str(out)
    )
    assert code == 0
    assert err == f"hermes-hooks: {transcript}:11: unknown line type 'weird'; skipped\n"
    assert lines_of(out) == [
        {
            "type": "header",
            "version": 1,
            "session_id": "5d1c7a2e",
            "platform": "cli",
            "model": "claude-sonnet-4-5",
            "provider": "anthropic",
            "cwd": "/home/dev/shop",
        },
        {"type": "user", "text": "read the config then clean up"},
        {
            "type": "assistant",
            "text": "Reading it.",
            "tool_calls": [
                {
                    "id": "toolu_1",
                    "name": "read_file",
                    "arguments": {"path": "/home/dev/shop/config.yaml"},
                }
            ],
            "finish_reason": "tool_calls",
            "reasoning": "read first",
        },
        {"type": "tool_result", "tool_call_id": "toolu_1", "content": "debug: true"},
        {
            "type": "assistant",
            "tool_calls": [
                {
                    "id": "toolu_2",
                    "name": "terminal",
                    "arguments": {"command": "rm -rf build"},  # description: Claude's note, dropped
                }
            ],
            "finish_reason": "tool_calls",
        },
        {
            "type": "tool_result",
            "tool_call_id": "toolu_2",
            "status": "error",
            "error": "permission denied",
        },
        {"type": "assistant", "text": "Could not delete build.", "finish_reason": "stop"},
    ]
    write_plugin(home / "plugins", "no-rm", BLOCK_RM)
    code, stdout, _ = run(
        capsys, "--no-entry-points", "--home", str(home), "replay", "--fail-on", "block", str(out)
    )
    assert code == 1
    assert "  calls blocked          1  (block answers: python 1)" in stdout.splitlines()


def test_a_turn_whose_calls_got_no_results_is_marked_interrupted(
    tmp_path: Path, capsys: Any
) -> None:
    transcript = tmp_path / "s.jsonl"
    bash = {"type": "tool_use", "id": "toolu_9", "name": "Bash", "input": {"command": "sleep 99"}}
    transcript.write_text(
        "\n".join(
            [
                claude_line("user", "wait a bit"),
                claude_line("assistant", [bash], message_id="a", stop="tool_use"),
                claude_line("user", "never mind"),
                claude_line(
                    "assistant", [{"type": "text", "text": "OK."}], message_id="b", stop="end_turn"
                ),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    out = tmp_path / "o.jsonl"
    code, _, err = run(
        capsys, "import-session", "--from", "claude-code", str(transcript), "-o", str(out)
    )
    assert code == 0
    assert err == (
        f"hermes-hooks: {transcript}:3: tool call(s) toolu_9 have no result before this row; "
        "the turn is marked interrupted there\n"
    )
    assert [line["type"] for line in lines_of(out)] == [
        "header", "user", "assistant", "interrupt", "user", "assistant",
    ]  # fmt: skip
