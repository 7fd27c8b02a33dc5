"""Environment and stdin as Claude Code provides them: ``CLAUDE_ENV_FILE`` on
SessionStart, ``CLAUDE_PLUGIN_ROOT``/``CLAUDE_PLUGIN_DATA`` for a plugin's hooks,
``transcript_path`` from the host (the reference host writes a real transcript during
replay), ``permission_mode``, ``stop_hook_active`` and each event's own fields."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from hermes_hooks.claude.input import TRANSCRIPTS
from hermes_hooks.hooks import Hooks
from hermes_hooks.host.loop import ReferenceHost
from hermes_hooks.types import VerifyDirective
from tests.claude.helpers import configure, corpus, payload
from tests.host.helpers import calls, header, recording, result, say, user
from tests.shell.helpers import py, write_script


@pytest.fixture
def records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "records"
    path.mkdir()
    monkeypatch.setenv("RECORD_DIR", str(path))
    return path


def test_session_start_variables_reach_later_hooks_and_the_host(
    home: Path, load: Callable[..., Hooks], records: Path, project: Path
) -> None:
    configure(
        home,
        {
            "SessionStart": [{"command": corpus("env-file-setup.sh")}],
            "PreToolUse": [{"command": corpus("env-reader.py"), "matcher": "Bash"}],
        },
    )
    hooks = load()
    answer = hooks.invoke("on_session_start", **payload("on_session_start", session_id="s-1"))
    tools = f"{Path.home()}/.tools/bin"
    expected = {"NODE_ENV": "production", "DEPLOY_TARGET": "staging eu-1", "TOOLS_PATH": tools}
    assert answer == [{"env": expected}]  # reported to the host in the answer
    deploy = {"command": "make deploy"}
    call = payload("pre_tool_call", "terminal", args=deploy, session_id="s-1")
    assert hooks.pre_tool_call(**call).action == "allow"
    assert json.loads((records / "env.json").read_text()) == expected
    # Another session never ran SessionStart: nothing exported there.
    other = payload("pre_tool_call", "terminal", args=deploy, session_id="s-2")
    assert hooks.pre_tool_call(**other).message == "No deploy target for this session"
    # The hook's plain stdout is still SessionStart context.
    context = hooks.pre_llm_call(**payload("pre_llm_call", session_id="s-1"))
    assert context == "Environment prepared for project."


def test_the_env_file_is_fresh_per_run_and_removed(
    home: Path, load: Callable[..., Hooks], tmp_path: Path
) -> None:
    script = tmp_path / "where.sh"
    script.write_text(f'#!/bin/sh\necho "$CLAUDE_ENV_FILE" >> {tmp_path}/paths\n')
    script.chmod(0o755)
    configure(home, {"SessionStart": [{"command": str(script)}]})
    hooks = load()
    hooks.on_session_start(**payload("on_session_start", session_id="a"))
    hooks.on_session_start(**payload("on_session_start", session_id="b"))
    first, second = (tmp_path / "paths").read_text().splitlines()
    assert first != second
    assert not Path(first).exists() and not Path(second).exists()


def test_plugin_hooks_get_their_root_and_data_directory(
    home: Path, load: Callable[..., Hooks], tmp_path: Path
) -> None:
    data = tmp_path / "plugin-data"
    entry = {
        "command": corpus("plugin-data-note.sh"),
        "plugin_root": str(tmp_path / "plugin"),
        "plugin_data": str(data),
    }
    configure(home, {"PostToolUse": [entry]})
    load().post_tool_call(**payload("post_tool_call", "terminal"))
    assert (data / "calls.log").read_text() == "seen\n"


def test_the_reference_host_writes_a_claude_code_transcript(
    home: Path, load: Callable[..., Hooks], records: Path
) -> None:
    configure(home, {"PreToolUse": [{"command": corpus("transcript-snapshot.py")}]})
    hooks = load()
    rec = recording(
        header(),
        user("list the files"),
        calls(("c1", "terminal", {"command": "ls"})),
        result("c1", output="a\nb\n", returncode=0),
        calls(("c2", "read_file", {"path": "a"})),
        result("c2", content="alpha"),
        say("Two files."),
    )
    host = ReferenceHost(hooks)
    host.replay(rec)
    host.finish(5.0)
    snapshots = [
        json.loads(line) for line in (records / "transcripts.jsonl").read_text().splitlines()
    ]
    assert snapshots == [
        # The assistant message asking for the call is written before its PreToolUse.
        {"types": ["user", "assistant"], "last_user": "list the files", "session": True},
        {
            "types": ["user", "assistant", "user", "assistant"],
            "last_user": "list the files",
            "session": True,
        },
    ]


def test_an_async_hook_still_reads_its_transcript_after_the_replay_returns(
    home: Path, load: Callable[..., Hooks], records: Path, tmp_path: Path
) -> None:
    # It runs in the background: it may read the transcript after the last message was
    # replayed, until finish() has closed the hooks; the file goes after that.
    script = write_script(
        tmp_path / "late-reader.py",
        py(
            "import json, os, sys, time\n"
            "data = json.load(sys.stdin)\n"
            "time.sleep(0.5)\n"
            "with open(data['transcript_path'], encoding='utf-8') as handle:\n"
            "    count = sum(1 for line in handle if line.strip())\n"
            "with open(os.path.join(os.environ['RECORD_DIR'], 'late'), 'w') as out:\n"
            "    out.write(f\"{count} {data['transcript_path']}\")\n"
        ),
    )
    configure(home, {"PostToolUse": [{"command": str(script), "async": True}]})
    host = ReferenceHost(load())
    host.replay(
        recording(header(), user("ls"), calls(("c1", "terminal", {"command": "ls"})), result("c1"))
    )
    host.finish(10.0)
    count, path = (records / "late").read_text().split(" ", 1)
    assert count == "2"  # the user message and the call, as when the hook fired
    assert not Path(path).exists()  # removed once the hooks were closed


def test_a_stop_hook_reads_the_transcript_the_host_names(
    claude: Callable[..., Hooks], tmp_path: Path
) -> None:
    transcript = tmp_path / "t.jsonl"
    line = {
        "type": "assistant",
        "sessionId": "test-session",
        "message": {"role": "assistant", "content": [{"type": "text", "text": "Done. TODO: docs"}]},
    }
    transcript.write_text(json.dumps(line) + "\n")
    forget = TRANSCRIPTS.add(lambda session: str(transcript) if session == "test-session" else None)
    try:
        hooks = claude("Stop", corpus("transcript-todo.py"))
        assert hooks.pre_verify(**payload("pre_verify", attempt=0)) == VerifyDirective(
            "The last answer still has a TODO: finish it."
        )
        # stop_hook_active: a stop hook already kept this turn going.
        assert hooks.pre_verify(**payload("pre_verify", attempt=1)) is None
    finally:
        forget()


def test_permission_mode_is_default(claude: Callable[..., Hooks]) -> None:
    hooks = claude("PreToolUse", corpus("permission-mode.py"), matcher="Write|Edit")
    call = payload("pre_tool_call", "write_file", args={"path": "a", "content": ""})
    assert hooks.pre_tool_call(**call).action == "allow"  # exit 2 on any other mode


def test_event_fields_of_session_end_subagent_stop_and_failure(
    home: Path, load: Callable[..., Hooks], records: Path
) -> None:
    configure(
        home,
        {
            "SessionEnd": [{"command": corpus("session-end-log.py")}],
            "SubagentStop": [{"command": corpus("subagent-stop-log.py")}],
            "PostToolUseFailure": [{"command": corpus("failure-log.py")}],
        },
    )
    hooks = load()
    hooks.on_session_finalize(**payload("on_session_finalize"))
    hooks.subagent_stop(**payload("subagent_stop"))
    failed = payload("post_tool_call", "terminal", status="error", error_message="exit 1")
    hooks.post_tool_call(**failed)
    assert (records / "ends.log").read_text() == "test-session clear -\n"
    assert json.loads((records / "subagents.jsonl").read_text()) == {
        "agent_id": "child-session",
        "agent_type": "leaf",
        "stop_hook_active": False,
        "last_assistant_message": "Three tests fail on a missing fixture.",
    }
    assert json.loads((records / "failures.jsonl").read_text()) == {
        "tool_name": "Bash",
        "error": "exit 1",
        "is_interrupt": False,
        "tool_use_id": "test-call",
    }


def test_a_blocked_prompt_keeps_its_context_and_is_warned(
    claude: Callable[..., Hooks],
) -> None:
    hooks = claude("UserPromptSubmit", corpus("prompt-block.py"))
    assert hooks.pre_llm_call(**payload("pre_llm_call")) == "Keys go in the vault."
    pasted = payload("pre_llm_call", user_message="-----BEGIN RSA PRIVATE KEY----- ...")
    assert hooks.pre_llm_call(**pasted) is None  # pre_llm_call cannot reject (warned)


def test_subagent_stop_names_the_childs_transcript_when_the_host_has_one(
    claude: Callable[..., Hooks], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "stdin.json"
    script = tmp_path / "dump.sh"
    script.write_text(f"#!/bin/sh\ncat > {out}\n")
    script.chmod(0o755)
    hooks = claude("SubagentStop", str(script))
    hooks.subagent_stop(**payload("subagent_stop"))
    assert "agent_transcript_path" not in json.loads(out.read_text())
    child = str(tmp_path / "child.jsonl")
    forget = TRANSCRIPTS.add(lambda session: child if session == "child-session" else None)
    try:
        hooks.subagent_stop(**payload("subagent_stop"))
    finally:
        forget()
    assert json.loads(out.read_text())["agent_transcript_path"] == child
