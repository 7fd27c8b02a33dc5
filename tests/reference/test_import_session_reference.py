"""``import-session --from hermes`` on a ``state.db`` written by Hermes Agent itself.

The session store is created and filled through hermes-agent's own API
(``hermes_state.SessionDB``: ``create_session``, ``append_message``), the way the
agent records a conversation, then imported and replayed through a home whose plugin
blocks ``rm -rf``.  Needs ``hermes-agent`` installed (the ``reference`` tox
environment); the default test run does not collect this directory.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.cli import main
from tests.helpers import write_plugin

hermes_state = pytest.importorskip("hermes_state", reason="needs hermes-agent installed")

BLOCK_RM = """
def block(tool_name, args, **kwargs):
    if tool_name == "terminal" and "rm -rf" in str(args.get("command", "")):
        return {"action": "block", "message": "no rm -rf"}
    return None


def register(ctx):
    ctx.register_hook("pre_tool_call", block)
"""

SESSION = "20260301_101500_ref"


def _call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


@pytest.fixture
def agent_state_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A state.db written by hermes-agent's SessionDB, as the agent writes one turn."""
    agent_home = tmp_path / "agent-home"
    agent_home.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(agent_home))
    path = agent_home / "state.db"
    db = hermes_state.SessionDB(path)
    try:
        db.create_session(
            SESSION,
            "telegram",
            model="anthropic/claude-sonnet-4.6",
            user_id="1001",
            chat_id="1001",
            chat_type="dm",
        )
        db.append_message(SESSION, "user", "tidy the workspace")
        db.append_message(
            SESSION,
            "assistant",
            "Cleaning up.",
            tool_calls=[_call("call_a", "terminal", {"command": "rm -rf build"})],
            finish_reason="tool_calls",
        )
        db.append_message(
            SESSION,
            "tool",
            json.dumps({"output": "", "exit_code": 0, "error": None}),
            tool_name="terminal",
            tool_call_id="call_a",
        )
        db.append_message(
            SESSION,
            "assistant",
            "",
            tool_calls=[_call("call_b", "read_file", {"path": "notes.md"})],
            finish_reason="tool_calls",
        )
        db.append_message(
            SESSION, "tool", '{"content": "todo"}', tool_name="read_file", tool_call_id="call_b"
        )
        db.append_message(SESSION, "assistant", "The workspace is tidy.", finish_reason="stop")
    finally:
        db.close()
    monkeypatch.delenv("HERMES_HOME")
    return path


def test_a_state_db_written_by_hermes_agent_imports_and_replays(
    agent_state_db: Path, tmp_path: Path, home: Path, capsys: Any
) -> None:
    out = tmp_path / "session.jsonl"
    code = main(["import-session", "--from", "hermes", str(agent_state_db), "-o", str(out)])
    stdout, stderr = capsys.readouterr()
    assert code == 0, stderr
    assert stdout == f"wrote {out}\n"
    assert stderr == ""
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert lines[0]["session_id"] == SESSION
    assert (lines[0]["platform"], lines[0]["model"]) == ("telegram", "anthropic/claude-sonnet-4.6")
    assert [line["type"] for line in lines[1:]] == [
        "user", "assistant", "tool_result", "assistant", "tool_result", "assistant",
    ]  # fmt: skip
    assert lines[2]["tool_calls"] == [
        {"id": "call_a", "name": "terminal", "arguments": {"command": "rm -rf build"}}
    ]
    assert lines[3] == {
        "type": "tool_result",
        "tool_call_id": "call_a",
        "output": "",
        "returncode": 0,
    }

    write_plugin(home / "plugins", "no-rm", BLOCK_RM)
    code = main(
        [
            "--no-entry-points",
            "--home",
            str(home),
            "replay",
            "--json",
            "--fail-on",
            "block",
            str(out),
        ]
    )
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    summary = report["summary"]
    assert (summary["turns"], summary["tool_calls"], summary["calls_blocked"]) == (1, 2, 1)
    (failure,) = report["replays"][0]["failures"]
    assert (failure["callback"], failure["reason"]) == ("no-rm:block", "no rm -rf")
