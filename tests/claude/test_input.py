"""What a claude-code hook reads: Claude Code's stdin document, tool names and fields,
and ``CLAUDE_PROJECT_DIR``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.claude.tables import DEFAULT_TOOLS, ToolTable, tool_table
from hermes_hooks.hooks import Hooks
from tests.claude.helpers import Problems, payload
from tests.shell.helpers import py, write_script

RECORDER = """
import json, os, sys
from pathlib import Path
out = Path(os.environ["RECORD_DIR"])
with open(out / "stdin.jsonl", "a", encoding="utf-8") as handle:
    handle.write(sys.stdin.read().strip() + "\\n")
(out / "project_dir").write_text(os.environ.get("CLAUDE_PROJECT_DIR", "<unset>"))
"""


@pytest.fixture
def record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[], list[dict[str, Any]]]:
    """A recorder script at ``<tmp>/recorder.py``; calling the fixture returns what it read."""
    out = tmp_path / "records"
    out.mkdir()
    monkeypatch.setenv("RECORD_DIR", str(out))
    write_script(tmp_path / "recorder.py", py(RECORDER))

    def read() -> list[dict[str, Any]]:
        path = out / "stdin.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]

    return read


@pytest.fixture
def recorder(tmp_path: Path) -> str:
    return str(tmp_path / "recorder.py")


def test_pre_tool_use_reads_claude_code_stdin(
    claude: Callable[..., Hooks], recorder: str, record: Any, project: Path, tmp_path: Path
) -> None:
    hooks = claude("PreToolUse", recorder, matcher="Bash")
    hooks.pre_tool_call(**payload("pre_tool_call", "terminal", args={"command": "npm test"}))
    [document] = record()
    assert list(document.items()) == [
        ("session_id", "test-session"),
        ("cwd", str(project)),
        ("permission_mode", "default"),
        ("hook_event_name", "PreToolUse"),
        ("tool_name", "Bash"),
        ("tool_input", {"command": "npm test"}),
        ("tool_use_id", "test-call"),
    ]
    assert (tmp_path / "records" / "project_dir").read_text() == str(project)


def test_a_claude_project_dir_already_set_is_kept(
    claude: Callable[..., Hooks],
    recorder: str,
    record: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", "/srv/repo")
    hooks = claude("PreToolUse", recorder)
    hooks.pre_tool_call(**payload("pre_tool_call", "terminal"))
    assert (tmp_path / "records" / "project_dir").read_text() == "/srv/repo"


@pytest.mark.parametrize(
    ("tool", "args", "claude_tool", "claude_input"),
    [
        ("terminal", {"command": "ls"}, "Bash", {"command": "ls"}),
        ("read_file", {"path": "a.md", "limit": 3}, "Read", {"file_path": "<p>/a.md", "limit": 3}),
        (
            "write_file",
            {"path": "/abs/b.md", "content": "x"},
            "Write",
            {"file_path": "/abs/b.md", "content": "x"},
        ),
        (
            "patch",
            {"path": "c.py", "old_string": "a", "new_string": "b"},
            "Edit",
            {"file_path": "<p>/c.py", "old_string": "a", "new_string": "b"},
        ),
        ("web_search", {"query": "pluggy"}, "WebSearch", {"query": "pluggy"}),
        (
            "web_extract",
            {"urls": ["https://a.example/"]},
            "WebFetch",
            {"url": "https://a.example/"},
        ),
        ("delegate_task", {"goal": "Summarise"}, "Task", {"prompt": "Summarise"}),
        ("execute_code", {"code": "1"}, "execute_code", {"code": "1"}),
    ],
)
def test_the_tool_table_speaks_claude(
    claude: Callable[..., Hooks],
    recorder: str,
    record: Any,
    project: Path,
    tool: str,
    args: dict[str, Any],
    claude_tool: str,
    claude_input: dict[str, Any],
) -> None:
    hooks = claude("PreToolUse", recorder)
    hooks.pre_tool_call(**payload("pre_tool_call", tool, args=args))
    [document] = record()
    expected = {
        k: v.replace("<p>", str(project)) if isinstance(v, str) else v
        for k, v in claude_input.items()
    }
    assert (document["tool_name"], document["tool_input"]) == (claude_tool, expected)


def test_several_urls_are_one_webfetch_input_each(
    claude: Callable[..., Hooks], recorder: str, record: Any
) -> None:
    # One web_extract call fetches every URL: the hook sees each one, never urls[0] only.
    hooks = claude("PreToolUse", recorder, matcher="WebFetch")
    urls = ["https://a.example/", {"url": "https://b.example/"}]
    hooks.pre_tool_call(**payload("pre_tool_call", "web_extract", args={"urls": urls}))
    assert [(d["tool_name"], d["tool_input"]) for d in record()] == [
        ("WebFetch", {"url": "https://a.example/"}),
        ("WebFetch", {"url": "https://b.example/"}),
    ]


def test_updated_input_comes_back_in_our_field_names() -> None:
    table = ToolTable(DEFAULT_TOOLS)
    assert table.from_claude("web_extract", {"url": "https://x.example/", "prompt": "p"}) == {
        "urls": ["https://x.example/"],
        "prompt": "p",
    }
    assert table.from_claude("write_file", {"file_path": "/a", "content": "c"}) == {
        "path": "/a",
        "content": "c",
    }
    assert table.from_claude("delegate_task", {"prompt": "go"}) == {"goal": "go"}
    assert table.from_claude("unknown_tool", {"file_path": "/a"}) == {"file_path": "/a"}


def test_post_tool_use_and_failure_read_their_fields(
    home: Path, load: Callable[..., Hooks], recorder: str, record: Any
) -> None:
    from tests.claude.helpers import configure

    configure(
        home,
        {
            "PostToolUse": [{"command": recorder, "matcher": "Read"}],
            "PostToolUseFailure": [{"command": recorder, "matcher": "Read"}],
        },
    )
    hooks = load()
    done = payload("post_tool_call", "read_file", args={"path": "/r.md"})
    hooks.post_tool_call(**done)
    hooks.post_tool_call(**{**done, "result": "plain text"})
    hooks.post_tool_call(**{**done, "status": "error", "error_message": "no such file"})
    first, second, failure = record()
    assert first["hook_event_name"] == "PostToolUse"
    assert first["tool_response"] == {"content": "# Project\n"}
    assert list(first)[-3:] == ["tool_input", "tool_response", "tool_use_id"]
    assert second["tool_response"] == "plain text"
    assert failure["hook_event_name"] == "PostToolUseFailure"
    assert (failure["error"], failure["is_interrupt"]) == ("no such file", False)
    assert "tool_response" not in failure


@pytest.mark.parametrize(
    ("key", "event", "overrides", "fields"),
    [
        (
            "UserPromptSubmit",
            "pre_llm_call",
            {"user_message": "fix the bug"},
            {"prompt": "fix the bug"},
        ),
        (
            "Stop",
            "pre_verify",
            {"attempt": 0, "final_response": "Done."},
            {"stop_hook_active": False, "last_assistant_message": "Done."},
        ),
        ("Stop", "pre_verify", {"attempt": 2}, {"stop_hook_active": True}),
        (
            "SubagentStop",
            "subagent_stop",
            {"child_role": "leaf"},
            {
                "session_id": "test-session",
                "stop_hook_active": False,
                "agent_id": "child-session",
                "agent_type": "leaf",
                "last_assistant_message": "Three tests fail on a missing fixture.",
            },
        ),
        (
            "SubagentStart",
            "subagent_start",
            {"child_role": None},
            {"session_id": "test-session", "agent_id": "sub-1", "agent_type": ""},
        ),
        (
            "SessionStart",
            "on_session_start",
            {},
            {"source": "startup", "model": "anthropic/claude-sonnet-4"},
        ),
        ("SessionEnd", "on_session_finalize", {"reason": "new_session"}, {"reason": "clear"}),
        ("SessionEnd", "on_session_finalize", {"reason": "shutdown"}, {"reason": "other"}),
    ],
)
def test_each_event_reads_its_claude_fields(
    claude: Callable[..., Hooks],
    recorder: str,
    record: Any,
    key: str,
    event: str,
    overrides: dict[str, Any],
    fields: dict[str, Any],
) -> None:
    hooks = claude(key, recorder)
    hooks.invoke(event, **payload(event, **overrides))
    [document] = record()
    assert document["hook_event_name"] == key
    assert "tool_name" not in document
    assert {name: document[name] for name in fields} == fields


def test_hooks_claude_tools_extends_and_trims_the_table(
    home: Path, load: Callable[..., Hooks], recorder: str, record: Any
) -> None:
    from tests.claude.helpers import configure

    configure(
        home,
        {"PreToolUse": [{"command": recorder, "matcher": "NotebookEdit|terminal"}]},
        hooks_claude_tools={
            "NotebookEdit": {"tool": "notebook_edit", "fields": {"notebook_path": "path"}},
            "Bash": None,
        },
    )
    hooks = load()
    hooks.pre_tool_call(**payload("pre_tool_call", "notebook_edit", args={"path": "n.ipynb"}))
    hooks.pre_tool_call(**payload("pre_tool_call", "terminal", args={"command": "ls"}))
    notebook, terminal = record()
    assert notebook["tool_name"] == "NotebookEdit"
    assert notebook["tool_input"]["notebook_path"].endswith("/n.ipynb")
    assert (terminal["tool_name"], terminal["tool_input"]) == ("terminal", {"command": "ls"})


def test_bad_tool_rows_narrow_loudly_and_the_rest_apply() -> None:
    # Every skipped row changes what a Claude Code gate sees, so each one "narrows".
    problems = Problems()
    table = tool_table(
        {
            "hooks_claude_tools": {
                "Grep": "search_files",
                "Glob": {"fields": {}},
                "LS": 3,
                "Fetch": {"tool": "fetch", "fields": {"url": "bad name!"}},
            }
        },
        problems,
    )
    assert problems == [
        (
            "hooks_claude_tools.Glob: has no 'tool' (our tool name); skipped. Fix: "
            "'tool: terminal'",
            True,
        ),
        (
            "hooks_claude_tools.LS: must be our tool name or {tool: ..., fields: {...}}; skipped",
            True,
        ),
        (
            "hooks_claude_tools.Fetch.fields.url: 'bad name!' is not a field name (letters, "
            "digits, '_', optionally ending in '[*]'); this rename is skipped",
            True,
        ),
    ]
    assert table.claude_name("search_files") == "Grep"
    assert table.claude_name("fetch") == "Fetch"
    assert table.claude_name("terminal") == "Bash"
    problems.clear()
    tool_table({"hooks_claude_tools": ["Bash"]}, problems)
    assert problems == [
        (
            "must be a mapping of Claude Code tool names to our tool names, got list; ignored "
            "(the built-in table applies). Fix: e.g. 'hooks_claude_tools: {NotebookEdit: "
            "notebook_edit}'",
            True,
        )
    ]


def test_a_bad_row_over_a_built_in_name_leaves_the_built_in_row() -> None:
    # Dropping the built-in Bash row too would hide every terminal call from a Bash gate.
    problems = Problems()
    table = tool_table({"hooks_claude_tools": {"Bash": {"tool": ""}, "Read": None}}, problems)
    assert table.claude_name("terminal") == "Bash"
    assert table.claude_name("read_file") == "read_file"  # null did remove Read's row
    assert [narrows for _, narrows in problems] == [True]
