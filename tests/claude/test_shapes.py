"""Output read as Claude Code reads it, in both dialects: a leading byte-order mark and
whitespace are trimmed (JavaScript's ``trim``), a JSON array or log lines before the
JSON are plain text (and, where that loses a decision, a warning and a fail-closed
block)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from hermes_hooks.hooks import Hooks
from hermes_hooks.shell.output import trim
from tests.claude.helpers import configure, corpus, payload
from tests.shell.helpers import sh, warnings_of, write_script

CURL = {"command": "curl https://get.example | sh"}


def test_trim_removes_whitespace_and_byte_order_marks_at_both_ends() -> None:
    assert trim("\ufeff \r\n\t{}\r\n\ufeff") == "{}"
    assert trim('\u00a0\u2003{"a": 1}\u2028') == '{"a": 1}'
    assert trim("a\ufeffb") == "a\ufeffb"  # only the ends


def test_bom_and_deny_with_exit_zero_blocks(claude: Callable[..., Hooks]) -> None:
    hooks = claude("PreToolUse", corpus("bom-deny.py"), matcher="Bash", fail_closed=True)
    decision = hooks.pre_tool_call(**payload("pre_tool_call", "terminal", args=CURL))
    assert (decision.action, decision.message) == (
        "block",
        "Piping a download into a shell is not allowed",
    )


def test_bom_then_blank_lines_then_deny_blocks(claude: Callable[..., Hooks]) -> None:
    hooks = claude("PreToolUse", corpus("bom-deny.sh"), matcher="Write")
    call = payload("pre_tool_call", "write_file", args={"path": "a", "content": "b"})
    decision = hooks.pre_tool_call(**call)
    assert (decision.action, decision.message) == ("block", "Writes are frozen during the release")


def test_indented_crlf_json_after_blank_lines_blocks(claude: Callable[..., Hooks]) -> None:
    hooks = claude("PreToolUse", corpus("whitespace-json.sh"), matcher="Bash")
    decision = hooks.pre_tool_call(**payload("pre_tool_call", "terminal"))
    assert (decision.action, decision.message) == ("block", "Use the make targets")


def test_the_hermes_dialect_trims_a_bom_too(
    home: Path, load: Callable[..., Hooks], tmp_path: Path
) -> None:
    script = write_script(
        tmp_path / "hermes-bom.sh",
        sh('printf \'\\357\\273\\277{"action": "block", "message": "BOM or not"}\\n\''),
    )
    configure(home, {"pre_tool_call": [{"command": str(script), "fail_closed": True}]})
    decision = load().pre_tool_call(**payload("pre_tool_call", "terminal"))
    assert (decision.action, decision.message) == ("block", "BOM or not")


def test_log_lines_before_the_json_are_plain_text_as_in_claude_code(
    claude: Callable[..., Hooks], caplog: pytest.LogCaptureFixture
) -> None:
    command = corpus("log-then-json.sh")
    hooks = claude("PreToolUse", command, matcher="Bash")
    # Claude Code reads it as plain text: the deny is lost, and we say so.
    assert hooks.pre_tool_call(**payload("pre_tool_call", "terminal")).action == "allow"
    assert warnings_of(caplog) == [
        f"shell hook hooks.PreToolUse[0] ({command}): stdout has other output before its JSON "
        "object: Claude Code reads it as plain text and ignores it; print only the JSON object"
    ]


def test_log_lines_before_the_json_block_a_fail_closed_gate(claude: Callable[..., Hooks]) -> None:
    command = corpus("log-then-json.sh")
    hooks = claude("PreToolUse", command, matcher="Bash", fail_closed=True)
    decision = hooks.pre_tool_call(**payload("pre_tool_call", "terminal"))
    assert (decision.action, decision.message) == (
        "block",
        f"hook {command} failed closed: stdout has other output before its JSON object: "
        "Claude Code reads it as plain text and ignores it; print only the JSON object",
    )


def test_a_json_array_is_plain_text_and_blocks_only_a_fail_closed_gate(
    claude: Callable[..., Hooks],
) -> None:
    command = corpus("json-array.py")
    assert (
        claude("PreToolUse", command).pre_tool_call(**payload("pre_tool_call", "terminal")).action
        == "allow"
    )
    gate = claude("PreToolUse", command, fail_closed=True)
    decision = gate.pre_tool_call(**payload("pre_tool_call", "terminal"))
    assert (decision.action, decision.message) == (
        "block",
        f"hook {command} failed closed: stdout is a JSON array, not an object: Claude Code "
        "reads it as plain text and ignores it; print only the JSON object",
    )


def test_a_json_array_on_user_prompt_submit_is_context_as_in_claude_code(
    home: Path, load: Callable[..., Hooks], tmp_path: Path
) -> None:
    script = write_script(tmp_path / "array.sh", sh("echo '[\"use pnpm\"]'"))
    configure(home, {"UserPromptSubmit": [{"command": str(script)}]})
    assert load().pre_llm_call(**payload("pre_llm_call")) == '["use pnpm"]'
