"""How a claude-code hook's exit code and output are read: the rules of Claude Code's
hooks reference, event by event, and what Hermes cannot honour (one WARNING, no effect)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.claude.dialect import DEFAULT_CONTINUE_MESSAGE
from hermes_hooks.hooks import Hooks
from tests.claude.helpers import configure, payload
from tests.shell.helpers import py, warnings_of, write_script

ARGS = {"command": "ls"}  # the terminal call every PreToolUse case judges


@pytest.fixture
def answer(tmp_path: Path) -> Callable[..., str]:
    """``answer(stdout, stderr="", code=0)``: a script that prints that and exits so."""
    made = iter(range(1000))

    def make(stdout: bytes | str, stderr: str = "", code: int = 0) -> str:
        data = stdout.encode() if isinstance(stdout, str) else stdout
        body = (
            "import sys\nsys.stdin.read()\n"
            f"sys.stdout.buffer.write({data!r})\nsys.stderr.write({stderr!r})\nsys.exit({code})"
        )
        return str(write_script(tmp_path / f"answer{next(made)}.py", py(body)))

    return make


def fire(hooks: Hooks, key: str) -> Any:
    """Fire the event of ``key`` once; the facade's answer in a comparable form."""
    if key == "PreToolUse":
        decision = hooks.pre_tool_call(**payload("pre_tool_call", "terminal", args=dict(ARGS)))
        return (decision.action, decision.message, decision.args)
    if key == "UserPromptSubmit":
        return hooks.pre_llm_call(**payload("pre_llm_call"))
    if key == "Stop":
        directive = hooks.pre_verify(**payload("pre_verify"))
        return directive.message if directive else None
    event = {
        "PostToolUse": "post_tool_call",
        "SubagentStop": "subagent_stop",
        "SessionStart": "on_session_start",
        "SessionEnd": "on_session_finalize",
    }[key]
    hooks.invoke(event, **payload(event, "terminal"))
    return None


ALLOW = ("allow", None, ARGS)
UNPARSEABLE = "unparseable stdout (starts with '{' but is not a JSON object)"


def deny(message: str) -> tuple[str, str, dict[str, str]]:
    return ("block", message, ARGS)


def unhonoured(what: str, key: str, event: str) -> str:
    return (
        f"shell hook hooks.{key}[0] ({{cmd}}, {key}): {what} is not honoured: Hermes cannot do "
        f"that on {event}; ignored"
    )


def feedback(how: str, reason: str) -> str:
    return (
        f"shell hook hooks.PostToolUse[0] ({{cmd}}, PostToolUse): {how} after the call ran; "
        f"the reason goes to the model with the tool's result: {reason}"
    )


CASES: list[tuple[str, Any, str, int, Any, list[str]]] = [
    # (key, stdout, stderr, exit code, expected answer, expected warnings)
    (
        "PreToolUse",
        '{"hookSpecificOutput": {"permissionDecision": "deny"}}',
        "",
        0,
        deny("Blocked by shell hook."),
        [],
    ),
    (
        "PreToolUse",
        '{"hookSpecificOutput": {"permissionDecision": " DENY ", '
        '"permissionDecisionReason": "not today"}}',
        "",
        0,
        deny("not today"),
        [],
    ),
    ("PreToolUse", '{"decision": "approve"}', "", 0, ALLOW, []),
    (
        "PreToolUse",
        '{"hookSpecificOutput": {"permissionDecision": "allow", '
        '"updatedInput": {"command": "ls -l"}}}',
        "",
        0,
        ("allow", None, {"command": "ls -l"}),
        [],
    ),
    (
        "PreToolUse",
        '{"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": '
        '"sure?", "updatedInput": {"command": "ls -l"}}}',
        "",
        0,
        ("approve", "sure?", ARGS),
        [unhonoured("updatedInput together with ask", "PreToolUse", "pre_tool_call")],
    ),
    (
        "PreToolUse",
        '{"decision": "block", "reason": "legacy", '
        '"hookSpecificOutput": {"permissionDecision": "allow"}}',
        "",
        0,
        deny("legacy"),
        [],
    ),
    (
        "PreToolUse",
        '{"hookSpecificOutput": {"additionalContext": "this is prod"}}',
        "",
        0,
        ALLOW,
        [unhonoured("additionalContext", "PreToolUse", "pre_tool_call")],
    ),
    ("PreToolUse", '{"continue": false}', "", 0, deny("Blocked by shell hook."), []),
    (
        "PreToolUse",
        '{"continue": false, "stopReason": "halt", '
        '"hookSpecificOutput": {"permissionDecision": "allow"}}',
        "",
        0,
        deny("halt"),
        [],
    ),
    ("PreToolUse", "Checked 3 rules, all fine.\n", "", 0, ALLOW, []),
    (
        "PreToolUse",
        "[1, 2]",
        "",
        0,
        ALLOW,
        [
            "shell hook hooks.PreToolUse[0] ({cmd}): stdout is a JSON array, not an object: "
            "Claude Code reads it as plain text and ignores it; print only the JSON object"
        ],
    ),
    (
        "PreToolUse",
        '{"hookSpecificOutput": ',
        "",
        0,
        ALLOW,
        [f"shell hook hooks.PreToolUse[0] ({{cmd}}): {UNPARSEABLE}"],
    ),
    (
        "PreToolUse",
        '{"hookSpecificOutput": {"permissionDecision": "deny"}}',
        "oops",
        1,
        ALLOW,
        ["shell hook hooks.PreToolUse[0] ({cmd}): exit code 1; stderr: oops"],
    ),
    ("PreToolUse", "", "", 2, deny("Blocked by shell hook."), []),
    ("PreToolUse", "", "x" * 450 + "\n", 2, deny("x" * 400), []),
    (
        "PreToolUse",
        b"\xff\xfe",
        "",
        0,
        ALLOW,
        ["shell hook hooks.PreToolUse[0] ({cmd}): stdout is not UTF-8 text"],
    ),
    (
        "UserPromptSubmit",
        '{"hookSpecificOutput": {"additionalContext": "Use metric units."}}',
        "",
        0,
        "Use metric units.",
        [],
    ),
    ("UserPromptSubmit", "{}", "", 0, None, []),
    (
        "UserPromptSubmit",
        '{"decision": "block", "reason": "secret in prompt"}',
        "",
        0,
        None,
        [unhonoured("decision: block", "UserPromptSubmit", "pre_llm_call")],
    ),
    (
        "UserPromptSubmit",
        "",
        "secret in prompt",
        2,
        None,
        [unhonoured("exit code 2", "UserPromptSubmit", "pre_llm_call")],
    ),
    (
        "UserPromptSubmit",
        '{"continue": false, "hookSpecificOutput": {"additionalContext": "x"}}',
        "",
        0,
        None,
        [unhonoured("continue: false", "UserPromptSubmit", "pre_llm_call")],
    ),
    ("Stop", '{"decision": "block"}', "", 0, DEFAULT_CONTINUE_MESSAGE, []),
    ("Stop", '{"decision": "block", "reason": "go on", "continue": false}', "", 0, None, []),
    ("Stop", "", "", 2, DEFAULT_CONTINUE_MESSAGE, []),
    ("Stop", "All good, stop.", "", 0, None, []),
    (
        "PostToolUse",
        '{"decision": "block", "reason": "lint failed"}',
        "",
        0,
        None,
        [feedback("decision: block", "lint failed")],
    ),
    (
        "PostToolUse",
        '{"hookSpecificOutput": {"additionalContext": "lint: 2 warnings"}}',
        "",
        0,
        None,
        [unhonoured("additionalContext", "PostToolUse", "post_tool_call")],
    ),
    (
        "PostToolUse",
        "",
        "lint failed",
        2,
        None,
        [feedback("exit code 2", "lint failed")],
    ),
    (
        "SubagentStop",
        '{"decision": "block", "reason": "not done"}',
        "",
        0,
        None,
        [unhonoured("decision: block", "SubagentStop", "subagent_stop")],
    ),
    (
        "SessionStart",
        "",
        "no network",
        2,
        None,
        [
            "shell hook hooks.SessionStart[0] ({cmd}): exit code 2 (Claude Code shows stderr "
            "to the user and carries on); stderr: no network"
        ],
    ),
    ("SessionEnd", "bye", "", 0, None, []),
]


@pytest.mark.parametrize(
    ("key", "stdout", "stderr", "code", "expected", "warnings"),
    CASES,
    ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)],
)
def test_output_rules(
    home: Path,
    load: Callable[..., Hooks],
    answer: Callable[..., str],
    caplog: pytest.LogCaptureFixture,
    key: str,
    stdout: Any,
    stderr: str,
    code: int,
    expected: Any,
    warnings: list[str],
) -> None:
    command = answer(stdout, stderr, code)
    configure(home, {key: [{"command": command}]})
    hooks = load()
    assert fire(hooks, key) == expected
    assert warnings_of(caplog) == [w.replace("{cmd}", command) for w in warnings]


@pytest.mark.parametrize(
    ("stdout", "code", "reason"),
    [
        ('{"hookSpecificOutput": {', 0, UNPARSEABLE),
        ('{"hookSpecificOutput": {"permissionDecision": "deny", "x": 1}}', 3, "exit code 3"),
        (b"\xff", 0, "stdout is not UTF-8 text"),
    ],
)
def test_fail_closed_blocks_every_failure(
    home: Path,
    load: Callable[..., Hooks],
    answer: Callable[..., str],
    stdout: Any,
    code: int,
    reason: str,
) -> None:
    command = answer(stdout, "", code)
    configure(home, {"PreToolUse": [{"command": command, "fail_closed": True}]})
    assert fire(load(), "PreToolUse") == deny(f"hook {command} failed closed: {reason}")


def test_fail_closed_lets_plain_text_through(
    home: Path, load: Callable[..., Hooks], answer: Callable[..., str]
) -> None:
    # Plain text is a normal answer in Claude Code (shown in verbose mode), not garbage.
    command = answer("ok\n")
    configure(home, {"PreToolUse": [{"command": command, "failClosed": True}]})
    assert fire(load(), "PreToolUse") == ALLOW


def test_a_system_message_is_logged(
    home: Path,
    load: Callable[..., Hooks],
    answer: Callable[..., str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    command = answer('{"systemMessage": "3 files formatted"}')
    configure(home, {"PreToolUse": [{"command": command}]})
    assert fire(load(), "PreToolUse") == ALLOW
    assert f"shell hook hooks.PreToolUse[0] ({command}) says: 3 files formatted" in [
        r.getMessage() for r in caplog.records if r.levelno == logging.INFO
    ]


def test_session_start_json_context_waits_for_the_sessions_first_prompt(
    home: Path, load: Callable[..., Hooks], answer: Callable[..., str]
) -> None:
    first = answer('{"hookSpecificOutput": {"additionalContext": "Branch: main"}}')
    second = answer("Open issues: 2")
    configure(
        home,
        {
            "SessionStart": [{"command": first}, {"command": second}],
            "UserPromptSubmit": [{"command": answer("It is Friday.")}],
        },
    )
    hooks = load()
    assert hooks.invoke("on_session_start", **payload("on_session_start")) == []
    assert hooks.pre_llm_call(**payload("pre_llm_call")) == (
        "Branch: main\n\nOpen issues: 2\n\nIt is Friday."
    )
    assert hooks.pre_llm_call(**payload("pre_llm_call")) == "It is Friday."


def test_session_start_context_without_prompts_is_bounded() -> None:
    from hermes_hooks.claude.tables import SessionContexts

    waiting = SessionContexts()
    for number in range(SessionContexts.LIMIT + 5):
        waiting.put(f"s{number}", f"text {number}")
    assert waiting.take("s0") is None
    assert waiting.take("s5") == "text 5"
    assert waiting(session_id=f"s{SessionContexts.LIMIT + 4}") == {
        "context": f"text {SessionContexts.LIMIT + 4}"
    }
    assert waiting(session_id=None) is None


def test_no_session_start_entry_registers_no_context_callback(
    home: Path, load: Callable[..., Hooks], answer: Callable[..., str]
) -> None:
    configure(home, {"PreToolUse": [{"command": answer("")}]})
    hooks = load()
    assert [c.name for c in hooks.manager.callbacks("pre_llm_call")] == []
    configure(home, {"SessionStart": [{"command": answer("x")}]})
    again = load()
    assert [c.name for c in again.manager.callbacks("pre_llm_call")] == [
        "claude-code SessionStart context"
    ]
    assert again.sources["shell"].problems() == []


@pytest.mark.parametrize("key", ["PreToolUse", "pre_tool_call"])
def test_stderr_secret_across_the_cut_is_redacted_before_cutting(
    home: Path,
    load: Callable[..., Hooks],
    answer: Callable[..., str],
    caplog: pytest.LogCaptureFixture,
    key: str,
) -> None:
    # Both dialects share one reading core: the token starts 9 characters before the
    # 400-character cut, so cutting first would leave "sk-AAAAAA", too short for the
    # redactor to recognise, in the warning.
    secret = "sk-" + "A" * 30
    command = answer("", "x" * 390 + " " + secret, 1)
    configure(home, {key: [{"command": command}]})
    fire(load(), "PreToolUse")
    assert warnings_of(caplog) == [
        f"shell hook hooks.{key}[0] ({command}): exit code 1; stderr: {'x' * 390} [REDACTED"
    ]
