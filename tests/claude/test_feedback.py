"""A ``PostToolUse`` hook that exits 2, or answers ``decision: block``, cannot undo the
call; as in Claude Code its reason reaches the model, here below the tool's result
(``transform_tool_result``), and the warning carries the hook's stderr."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from hermes_hooks.hooks import Hooks
from tests.claude.helpers import configure, payload
from tests.shell.helpers import py, sh, warnings_of, write_script

RESULT = '{"output": "wrote 2 files"}'


def call(event: str, call_id: str, **extra: object) -> dict[str, object]:
    return payload(
        event, "write_file", args={"path": "a.py"}, session_id="s-1", tool_call_id=call_id, **extra
    )


def test_exit_two_reaches_the_model_below_the_result_of_its_call(
    tmp_path: Path, claude: Callable[..., Hooks], caplog: pytest.LogCaptureFixture
) -> None:
    lint = write_script(
        tmp_path / "lint.sh", sh("cat >/dev/null; echo 'a.py:1: unused import os' >&2; exit 2")
    )
    hooks = claude("PostToolUse", str(lint), matcher="Write")
    assert hooks.post_tool_call(**call("post_tool_call", "call-1", result=RESULT)) is None
    # another call's result is left alone
    assert (
        hooks.transform_tool_result(**call("transform_tool_result", "call-2", result=RESULT))
        is None
    )
    assert hooks.transform_tool_result(
        **call("transform_tool_result", "call-1", result=RESULT)
    ) == ('{"output": "wrote 2 files"}\n\nPostToolUse hook feedback:\na.py:1: unused import os')
    # delivered once
    assert (
        hooks.transform_tool_result(**call("transform_tool_result", "call-1", result=RESULT))
        is None
    )
    assert warnings_of(caplog) == [
        f"shell hook hooks.PostToolUse[0] ({lint}, PostToolUse): exit code 2 after the call "
        "ran; the reason goes to the model with the tool's result: a.py:1: unused import os"
    ]


def test_decision_block_gives_its_reason_and_the_warning_its_stderr(
    tmp_path: Path, claude: Callable[..., Hooks], caplog: pytest.LogCaptureFixture
) -> None:
    review = write_script(
        tmp_path / "review.py",
        py(
            "import json, sys\n"
            "json.load(sys.stdin)\n"
            "print('ruff: 2 findings', file=sys.stderr)\n"
            "print(json.dumps({'decision': 'block', 'reason': 'Fix the 2 ruff findings.'}))"
        ),
    )
    hooks = claude("PostToolUse", str(review))
    hooks.post_tool_call(**call("post_tool_call", "call-7", result=RESULT))
    assert hooks.transform_tool_result(
        **call("transform_tool_result", "call-7", result=RESULT)
    ) == ('{"output": "wrote 2 files"}\n\nPostToolUse hook feedback:\nFix the 2 ruff findings.')
    assert warnings_of(caplog) == [
        f"shell hook hooks.PostToolUse[0] ({review}, PostToolUse): decision: block after the "
        "call ran; the reason goes to the model with the tool's result: Fix the 2 ruff "
        "findings.; stderr: ruff: 2 findings"
    ]


def test_two_hooks_on_one_call_are_both_heard(
    home: Path, tmp_path: Path, load: Callable[..., Hooks]
) -> None:
    first = write_script(tmp_path / "one.sh", sh("cat >/dev/null; echo 'first' >&2; exit 2"))
    second = write_script(tmp_path / "two.sh", sh("cat >/dev/null; echo 'second' >&2; exit 2"))
    quiet = write_script(tmp_path / "quiet.sh", sh("cat >/dev/null; exit 0"))
    configure(
        home,
        {
            "PostToolUse": [
                {"command": str(first)},
                {"command": str(second)},
                {"command": str(quiet)},
            ]
        },
    )
    hooks = load()
    hooks.post_tool_call(**call("post_tool_call", "call-3", result=RESULT))
    assert hooks.transform_tool_result(
        **call("transform_tool_result", "call-3", result=RESULT)
    ) == ('{"output": "wrote 2 files"}\n\nPostToolUse hook feedback:\nfirst\n\nsecond')


def test_a_hook_that_exits_zero_leaves_the_result_alone(
    tmp_path: Path, claude: Callable[..., Hooks], caplog: pytest.LogCaptureFixture
) -> None:
    quiet = write_script(tmp_path / "quiet.sh", sh("cat >/dev/null; echo 'all fine' >&2"))
    hooks = claude("PostToolUse", str(quiet))
    hooks.post_tool_call(**call("post_tool_call", "call-4", result=RESULT))
    assert (
        hooks.transform_tool_result(**call("transform_tool_result", "call-4", result=RESULT))
        is None
    )
    assert warnings_of(caplog) == []


def test_a_post_tool_use_failure_hook_is_heard_on_the_failed_call(
    tmp_path: Path, claude: Callable[..., Hooks]
) -> None:
    hint = write_script(
        tmp_path / "hint.sh", sh("cat >/dev/null; echo 'Run make deps first.' >&2; exit 2")
    )
    hooks = claude("PostToolUseFailure", str(hint))
    failed = '{"error": "No such file: a.py"}'
    hooks.post_tool_call(**call("post_tool_call", "call-9", result=failed, status="error"))
    done = call("transform_tool_result", "call-9", result=failed, status="error")
    assert hooks.transform_tool_result(**done) == (
        '{"error": "No such file: a.py"}\n\nPostToolUse hook feedback:\nRun make deps first.'
    )
