"""The corpus: Claude-Code-style scripts run unchanged, and each decision is the one
Claude Code's hooks reference says it would take.

Every case names the rule of the reference it checks (``claude=``).  The scripts live in
``tests/claude/corpus/``; they are exactly what a Claude Code user would have in
``.claude/hooks/`` — bash with jq and Python, exit-code style and JSON style.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.hooks import Hooks
from hermes_hooks.types import VerifyDirective
from tests.claude.helpers import corpus, payload
from tests.shell.helpers import warnings_of

Load = Callable[..., Hooks]


@dataclass
class ToolCase:
    """One pre_tool_call firing of a corpus script and the expected ToolDecision."""

    script: str
    matcher: str | None
    tool: str
    args: dict[str, Any]
    action: str  # block / approve / allow
    message: str | None = None
    final_args: dict[str, Any] | None = None  # when the hook rewrote them
    claude: str = ""  # the rule of Claude Code's hooks reference this mirrors
    extra: dict[str, Any] = field(default_factory=dict)


P = "{project}"  # replaced by the project directory (the agent's cwd)

TOOL_CASES = [
    ToolCase(
        "block-rm-rf.sh",
        "Bash",
        "terminal",
        {"command": "rm -rf build/"},
        "block",
        "Blocked: destructive command (rm -rf build/)",
        claude="exit 2 on PreToolUse blocks the tool call; stderr is the reason",
    ),
    ToolCase(
        "block-rm-rf.sh",
        "Bash",
        "terminal",
        {"command": "ls -la"},
        "allow",
        claude="exit 0 without output: the call proceeds",
    ),
    ToolCase(
        "block-rm-rf.sh",
        "Bash",
        "write_file",
        {"path": "rm -rf", "content": "x"},
        "allow",
        claude="the matcher Bash is an exact name: Write does not match",
    ),
    ToolCase(
        "protect-files.sh",
        "Edit|Write",
        "write_file",
        {"path": ".env", "content": "TOKEN=1"},
        "block",
        f"Blocked: {P}/.env matches protected pattern '.env'",
        claude="Edit|Write is a list of names; file_path is absolute; exit 2 blocks",
    ),
    ToolCase(
        "protect-files.sh",
        "Edit|Write",
        "patch",
        {"path": "package-lock.json", "old_string": "1", "new_string": "2"},
        "block",
        f"Blocked: {P}/package-lock.json matches protected pattern 'package-lock.json'",
        claude="our patch tool is Claude's Edit",
    ),
    ToolCase(
        "protect-files.sh",
        "Edit|Write",
        "write_file",
        {"path": "src/app.py", "content": "print(1)"},
        "allow",
        claude="exit 0: the call proceeds",
    ),
    ToolCase(
        "protect-files.sh",
        "Edit|Write",
        "terminal",
        {"command": "cat .env"},
        "allow",
        claude="Bash is not in the list Edit|Write",
    ),
    ToolCase(
        "deny-secrets.py",
        "Read|Write|Edit",
        "read_file",
        {"path": "config/secret.yaml"},
        "block",
        f"Read of {P}/config/secret.yaml is not allowed: it looks like a secret",
        claude="permissionDecision deny with exit 0 prevents the call; the reason goes to Claude",
    ),
    ToolCase(
        "deny-secrets.py",
        "Read|Write|Edit",
        "read_file",
        {"path": "README.md"},
        "allow",
        claude="no output: no decision",
    ),
    ToolCase(
        "ask-git-push.sh",
        "Bash",
        "terminal",
        {"command": "git push origin main"},
        "approve",
        "Pushing publishes commits: confirm first",
        claude="permissionDecision ask prompts the user to confirm, with the reason",
        extra={"rule_key": "terminal", "review": "human"},
    ),
    ToolCase(
        "ask-git-push.sh",
        "Bash",
        "terminal",
        {"command": "git status"},
        "allow",
        claude="no output: no decision",
    ),
    ToolCase(
        "allow-readonly.py",
        "Bash",
        "terminal",
        {"command": "ls -la"},
        "allow",
        claude="permissionDecision allow raises no objection (rules and other hooks still apply)",
    ),
    ToolCase(
        "rewrite-npm.py",
        "Bash",
        "terminal",
        {"command": "npm test"},
        "allow",
        final_args={"command": "pnpm test"},
        claude="updatedInput replaces the tool input; allow lets it run",
    ),
    ToolCase(
        "rewrite-npm.py",
        "Bash",
        "terminal",
        {"command": "make test"},
        "allow",
        claude="no output: the input is unchanged",
    ),
    ToolCase(
        "normalise-path.py",
        "Write",
        "write_file",
        {"path": "scratch/notes.md", "content": "- a\n"},
        "allow",
        final_args={"path": f"{P}/build/scratch/notes.md", "content": "- a\n"},
        claude="updatedInput in Claude's field names (file_path) comes back as ours (path)",
    ),
    ToolCase(
        "legacy-block.py",
        "WebFetch",
        "web_extract",
        {"urls": ["https://internal.example/wiki"]},
        "block",
        "https://internal.example/wiki is an internal address",
        claude="the deprecated top-level decision block means deny; url is urls[0]",
    ),
    ToolCase(
        "legacy-block.py",
        "WebFetch",
        "web_extract",
        {"urls": ["https://example.com/"]},
        "allow",
        claude="no output: no decision",
    ),
    ToolCase(
        "exit2-ignores-json.sh",
        "Bash",
        "terminal",
        {"command": "ls"},
        "block",
        "Blocked by policy: every Bash call needs a ticket number",
        claude="exit 2: Claude Code ignores stdout and any JSON in it; stderr is the reason",
    ),
    ToolCase(
        "crash.py",
        "Bash",
        "terminal",
        {"command": "ls"},
        "allow",
        claude="any other exit code is a non-blocking error: execution continues",
    ),
]


def _expand(value: Any, project: Path) -> Any:
    if isinstance(value, str):
        return value.replace(P, str(project))
    if isinstance(value, dict):
        return {k: _expand(v, project) for k, v in value.items()}
    return value


@pytest.mark.parametrize(
    "case",
    TOOL_CASES,
    ids=[f"{c.script}:{c.tool}:{c.action}" for c in TOOL_CASES],
)
def test_pre_tool_use_corpus(case: ToolCase, claude: Callable[..., Hooks], project: Path) -> None:
    entry = {"matcher": case.matcher} if case.matcher else {}
    hooks = claude("PreToolUse", corpus(case.script), **entry)
    decision = hooks.pre_tool_call(**payload("pre_tool_call", case.tool, args=dict(case.args)))
    assert decision.action == case.action, case.claude
    assert decision.message == _expand(case.message, project), case.claude
    expected_args = _expand(case.final_args or case.args, project)
    assert decision.args == expected_args, case.claude
    assert decision.modified is (case.final_args is not None)
    for key, value in case.extra.items():
        assert getattr(decision, key) == value


def test_continue_false_blocks_with_the_stop_reason(
    claude: Callable[..., Hooks], project: Path
) -> None:
    # "continue: false ... takes precedence over any event-specific decision fields";
    # the script finds the marker through CLAUDE_PROJECT_DIR.
    hooks = claude("PreToolUse", corpus("continue-false.sh"))
    call = payload("pre_tool_call", "terminal", args={"command": "ls"})
    assert hooks.pre_tool_call(**call).action == "allow"
    (project / ".build-red").touch()
    decision = hooks.pre_tool_call(**call)
    assert (decision.action, decision.message) == (
        "block",
        "The build is red: fix it before doing anything else",
    )


def test_a_crash_blocks_only_a_fail_closed_gate(
    claude: Callable[..., Hooks], caplog: pytest.LogCaptureFixture
) -> None:
    command = corpus("crash.py")
    hooks = claude("PreToolUse", command, matcher="Bash", fail_closed=True)
    decision = hooks.pre_tool_call(**payload("pre_tool_call", "terminal"))
    assert (decision.action, decision.message) == (
        "block",
        f"hook {command} failed closed: exit code 1",
    )
    assert warnings_of(caplog) == [
        f"shell hook hooks.PreToolUse[0] ({command}): exit code 1; stderr: policy server "
        "unreachable while checking Bash"
    ]


@pytest.mark.parametrize(
    ("prompt", "context"),
    [
        (
            "please deploy the app",
            "Project: project\nDeploys go through the release checklist in docs/release.md.",
        ),
        ("hi", "Project: project"),
    ],
)
def test_user_prompt_submit_plain_text_is_context(
    claude: Callable[..., Hooks], prompt: str, context: str
) -> None:
    # "Plain text stdout: any non-JSON text written to stdout is added as context."
    hooks = claude("UserPromptSubmit", corpus("prompt-context.sh"))
    assert hooks.pre_llm_call(**payload("pre_llm_call", user_message=prompt)) == context


def test_user_prompt_submit_additional_context_is_context(claude: Callable[..., Hooks]) -> None:
    # "JSON with additionalContext: the additionalContext field is added as context."
    hooks = claude("UserPromptSubmit", corpus("prompt-json-context.py"))
    answer = hooks.pre_llm_call(**payload("pre_llm_call", user_message="What changed today?"))
    assert answer == "The user asked 3 words; answer briefly."


def test_stop_decision_block_keeps_going_once(claude: Callable[..., Hooks]) -> None:
    # Stop: "decision: block prevents Claude from stopping"; the reason is the next
    # instruction.  stop_hook_active is true once a stop hook already kept it going.
    hooks = claude("Stop", corpus("stop-until-tests.sh"))
    assert hooks.pre_verify(**payload("pre_verify", attempt=0)) == VerifyDirective(
        "Run the test suite and report the result before finishing."
    )
    assert hooks.pre_verify(**payload("pre_verify", attempt=1)) is None


def test_stop_exit_two_keeps_going_with_stderr(claude: Callable[..., Hooks]) -> None:
    # Exit 2 on Stop: "Prevents Claude from stopping, continues the conversation".
    hooks = claude("Stop", corpus("stop-exit2.py"))
    unfinished = payload("pre_verify", final_response="Done. TODO: docs", attempt=0)
    assert hooks.pre_verify(**unfinished) == VerifyDirective(
        "Your answer still contains a TODO: finish it."
    )
    assert hooks.pre_verify(**payload("pre_verify", final_response="Done.")) is None


def test_session_start_text_reaches_the_first_prompt_of_that_session(
    claude: Callable[..., Hooks],
) -> None:
    # SessionStart: "Any text your hook script prints to stdout is added as context."
    hooks = claude("SessionStart", corpus("session-start-context.sh"))
    hooks.on_session_start(**payload("on_session_start", session_id="s-1"))
    expected = (
        "Session source: startup. Conventions: use pnpm, never npm; run pnpm test before "
        "committing."
    )
    assert hooks.pre_llm_call(**payload("pre_llm_call", session_id="s-2")) is None
    assert hooks.pre_llm_call(**payload("pre_llm_call", session_id="s-1")) == expected
    assert hooks.pre_llm_call(**payload("pre_llm_call", session_id="s-1")) is None


def test_post_tool_use_sees_claude_input_and_only_successful_calls(
    claude: Callable[..., Hooks], project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # PostToolUse "runs immediately after a tool completes successfully"; it receives
    # tool_input and tool_response.
    caplog.set_level(logging.DEBUG)
    hooks = claude("PostToolUse", corpus("log-post-tool.sh"), matcher="Write|Edit")
    done = payload("post_tool_call", "write_file", args={"path": "a.txt", "content": "x"})
    hooks.post_tool_call(**{**done, "result": '{"success": true}'})
    hooks.post_tool_call(**{**done, "status": "error", "error_message": "disk full"})
    hooks.post_tool_call(**{**done, "status": "blocked"})
    hooks.post_tool_call(**payload("post_tool_call", "terminal"))
    log = (project / "post-tool.log").read_text(encoding="utf-8")
    assert log == f"Write {project}/a.txt true\n"
