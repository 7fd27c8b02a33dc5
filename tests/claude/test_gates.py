"""No partial views for gates: a call that is several Claude Code inputs runs the hook
once per input and any block blocks the call; a call that cannot be shown whole is
blocked by a ``fail_closed`` gate and warned about for any other hook."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.claude.tools import DEFAULT_TOOLS, ToolTable
from hermes_hooks.hooks import Hooks
from tests.claude.helpers import corpus, payload
from tests.shell.helpers import py, warnings_of, write_script

ALLOWED = "https://docs.example.com/guide"
EVIL = "https://evil.example.net/steal"

PATCH = """\
*** Begin Patch
*** Update File: src/app.py
@@ def main():
-    print("hi")
+    print("hello")
*** Add File: secrets/token.txt
+abc
*** Delete File: old.txt
*** End Patch
"""


@pytest.fixture
def counter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[], list[dict[str, Any]]]:
    """A hook that records each stdin it reads and answers nothing."""
    out = tmp_path / "seen.jsonl"
    monkeypatch.setenv("SEEN", str(out))
    write_script(
        tmp_path / "count.py",
        py(
            "import json, os, sys\n"
            "doc = json.load(sys.stdin)\n"
            "with open(os.environ['SEEN'], 'a') as f:\n"
            "    f.write(json.dumps(doc['tool_input']) + '\\n')\n"
        ),
    )

    def seen() -> list[dict[str, Any]]:
        if not out.exists():
            return []
        return [json.loads(line) for line in out.read_text().splitlines()]

    return seen


def test_web_extract_with_an_allowed_and_an_evil_url_is_blocked(
    claude: Callable[..., Hooks],
) -> None:
    hooks = claude("PreToolUse", corpus("web-domain-gate.py"), matcher="WebFetch", fail_closed=True)
    call = payload("pre_tool_call", "web_extract", args={"urls": [ALLOWED, EVIL]})
    decision = hooks.pre_tool_call(**call)
    assert (decision.action, decision.message) == (
        "block",
        "evil.example.net is not an allowed host",
    )
    only_allowed = payload("pre_tool_call", "web_extract", args={"urls": [ALLOWED]})
    assert hooks.pre_tool_call(**only_allowed).action == "allow"


def test_the_evil_url_blocks_wherever_it_is_in_the_list(claude: Callable[..., Hooks]) -> None:
    hooks = claude("PreToolUse", corpus("web-domain-gate.py"), matcher="WebFetch")
    for urls in ([EVIL, ALLOWED], [ALLOWED, ALLOWED, EVIL]):
        decision = hooks.pre_tool_call(
            **payload("pre_tool_call", "web_extract", args={"urls": urls})
        )
        assert decision.action == "block", urls


def test_a_block_stops_the_remaining_inputs(
    claude: Callable[..., Hooks], tmp_path: Path, counter: Any
) -> None:
    write_script(
        tmp_path / "deny-second.py",
        py(
            "import json, os, sys\n"
            "doc = json.load(sys.stdin)\n"
            "open(os.environ['SEEN'], 'a').write(json.dumps(doc['tool_input']) + '\\n')\n"
            "if 'b.example' in doc['tool_input']['url']:\n"
            "    print('no b', file=sys.stderr); sys.exit(2)\n"
        ),
    )
    hooks = claude("PreToolUse", str(tmp_path / "deny-second.py"))
    urls = ["https://a.example/", "https://b.example/", "https://c.example/"]
    decision = hooks.pre_tool_call(**payload("pre_tool_call", "web_extract", args={"urls": urls}))
    assert (decision.action, decision.message) == ("block", "no b")
    assert counter() == [{"url": "https://a.example/"}, {"url": "https://b.example/"}]


def test_a_multi_file_patch_is_one_edit_input_per_file(
    claude: Callable[..., Hooks], project: Path, tmp_path: Path, counter: Any
) -> None:
    hooks = claude("PreToolUse", str(tmp_path / "count.py"), matcher="Edit")
    hooks.pre_tool_call(**payload("pre_tool_call", "patch", args={"mode": "patch", "patch": PATCH}))
    seen = counter()
    assert [(s["file_path"], s["mode"]) for s in seen] == [
        (f"{project}/src/app.py", "patch"),
        (f"{project}/secrets/token.txt", "patch"),
        (f"{project}/old.txt", "patch"),
    ]
    assert seen[1]["patch"] == "*** Add File: secrets/token.txt\n+abc\n"


def test_a_multi_file_patch_touching_a_protected_file_is_blocked(
    claude: Callable[..., Hooks], project: Path
) -> None:
    hooks = claude("PreToolUse", corpus("protect-secrets-dir.py"), matcher="Edit|Write")
    decision = hooks.pre_tool_call(
        **payload("pre_tool_call", "patch", args={"mode": "patch", "patch": PATCH})
    )
    assert (decision.action, decision.message) == (
        "block",
        f"{project}/secrets/token.txt is under secrets/",
    )


def test_a_delegate_task_batch_is_one_task_input_per_task(
    claude: Callable[..., Hooks], tmp_path: Path, counter: Any
) -> None:
    hooks = claude("PreToolUse", corpus("task-guard.py"), matcher="Task")
    tasks = [{"goal": "Summarise the README"}, {"goal": "Deploy the release to prod"}]
    decision = hooks.pre_tool_call(
        **payload("pre_tool_call", "delegate_task", args={"tasks": tasks})
    )
    assert (decision.action, decision.message) == (
        "block",
        "Subagents may not deploy: Deploy the release to prod",
    )
    counting = claude("PreToolUse", str(tmp_path / "count.py"), matcher="Task")
    counting.pre_tool_call(
        **payload("pre_tool_call", "delegate_task", args={"tasks": tasks, "toolsets": ["web"]})
    )
    assert counter() == [
        {"toolsets": ["web"], "prompt": "Summarise the README"},
        {"toolsets": ["web"], "prompt": "Deploy the release to prod"},
    ]


def test_a_call_that_cannot_be_shown_whole_fails_closed_or_warns(
    claude: Callable[..., Hooks], caplog: pytest.LogCaptureFixture, tmp_path: Path, counter: Any
) -> None:
    broken = payload("pre_tool_call", "patch", args={"mode": "patch", "patch": "garbage"})
    command = str(tmp_path / "count.py")
    gate = claude("PreToolUse", command, matcher="Edit", fail_closed=True)
    decision = gate.pre_tool_call(**broken)
    assert (decision.action, decision.message) == (
        "block",
        f"hook {command} failed closed: the call cannot be shown whole (the patch text names "
        "no file)",
    )
    assert counter() == []  # a fail-closed gate never ran on a partial view
    caplog.set_level(logging.WARNING)
    observer = claude("PreToolUse", command, matcher="Edit")
    assert observer.pre_tool_call(**broken).action == "allow"
    assert warnings_of(caplog) == [
        f"shell hook hooks.PreToolUse[0] ({command}): the call cannot be shown whole (the "
        "patch text names no file); blocked (fail_closed)",
        f"shell hook hooks.PreToolUse[0] ({command}): the call cannot be shown whole (the "
        "patch text names no file); the hook sees part of it",
    ]
    assert counter() == [{"mode": "patch", "patch": "garbage"}]


def test_every_row_of_the_table_shows_a_whole_call() -> None:
    # The audit: each built-in row, with a call using every argument our tool has.
    table = ToolTable(DEFAULT_TOOLS)
    calls = {
        "terminal": {"command": "ls", "background": False, "timeout": 30, "workdir": "/w"},
        "read_file": {"path": "/a", "offset": 1, "limit": 5},
        "write_file": {"path": "/a", "content": "x"},
        "patch": {"mode": "replace", "path": "/a", "old_string": "x", "new_string": "y"},
        "web_search": {"query": "q"},
        "web_extract": {"urls": ["https://a/", "https://b/"]},
        "delegate_task": {"goal": "g", "context": "c", "toolsets": ["web"]},
    }
    shown = {tool: table.inputs(tool, args, "/p") for tool, args in calls.items()}
    assert all(inputs.whole for inputs in shown.values())
    assert {tool: len(inputs.items) for tool, inputs in shown.items()} == {
        "terminal": 1,
        "read_file": 1,
        "write_file": 1,
        "patch": 1,
        "web_search": 1,
        "web_extract": 2,
        "delegate_task": 1,
    }
    # Every argument is in some input (renamed or not): nothing is dropped.
    for tool, args in calls.items():
        names = {key for item in shown[tool].items for key in item}
        assert len(names) == len(args), tool
