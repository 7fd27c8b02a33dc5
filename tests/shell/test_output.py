"""What a hook's exit code and stdout mean: dialects (SH-14/15, D-23), exit 2 (SH-17/18)
and the fail-closed matrix (SH-19/20, D-70), each through a real firing."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import pytest

from hermes_hooks.hooks import Hooks
from hermes_hooks.types import VerifyDirective
from tests.helpers import tool_payload
from tests.shell.helpers import approve, py, sh, warnings_of, write_config, write_script
from tests.shell.test_run import wait_gone

Gate = Callable[..., Hooks]


def stdout_is(text: str, exit_code: int = 0) -> str:
    """A sh body that drains stdin, prints ``text`` and exits with ``exit_code``."""
    quoted = text.replace("'", "'\\''")
    return sh(f"cat >/dev/null\nprintf '%s' '{quoted}'\nexit {exit_code}")


# -- block, approve, modify dialects ---------------------------------------------------


@pytest.mark.parametrize(
    ("output", "exit_code", "message"),
    [
        ('{"decision": "block", "reason": "Forbidden: rm -rf"}', 0, "Forbidden: rm -rf"),
        ('{"action": "block", "message": "Forbidden: rm -rf"}', 0, "Forbidden: rm -rf"),
        ('{"action": " BLOCK ", "message": "case and spaces"}', 0, "case and spaces"),
        ('{"action": "block"}', 0, "Blocked by shell hook."),
        ('{"decision": "block", "reason": "  "}', 0, "Blocked by shell hook."),
        ('{"action": "block", "reason": "the other key"}', 0, "the other key"),
        (
            '{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
            '"permissionDecision": "deny", "permissionDecisionReason": "Claude says no"}}',
            0,
            "Claude says no",
        ),
        ('{"hookSpecificOutput": {"permissionDecision": "deny"}}', 0, "Blocked by shell hook."),
        (
            '{"decision": "block", "reason": "block wins", '
            '"hookSpecificOutput": {"permissionDecision": "allow"}}',
            0,
            "block wins",
        ),
    ],
)
def test_block_dialects(gate: Gate, output: str, exit_code: int, message: str) -> None:
    hooks = gate(stdout_is(output, exit_code))
    decision = hooks.pre_tool_call(**tool_payload())
    assert (decision.action, decision.message) == ("block", message)


@pytest.mark.parametrize(
    "output",
    [
        "{}",
        '{"action": "allow"}',
        '{"action": " Continue "}',
        '{"decision": "approve"}',
        '{"hookSpecificOutput": {"permissionDecision": "allow"}}',
    ],
)
def test_an_answer_that_lets_the_call_through_is_quiet(
    gate: Gate, caplog: pytest.LogCaptureFixture, output: str
) -> None:
    hooks = gate(stdout_is(output))
    decision = hooks.pre_tool_call(**tool_payload())
    assert (decision.action, decision.message) == ("allow", None)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_shell_approve_keeps_message_rule_key_and_review(gate: Gate) -> None:
    hooks = gate(
        stdout_is(
            '{"action": "approve", "message": "needs a human", '
            '"rule_key": "terminal:rm", "review": "smart"}'
        )
    )
    decision = hooks.pre_tool_call(**tool_payload())
    assert (decision.action, decision.message, decision.rule_key, decision.review) == (
        "approve",
        "needs a human",
        "terminal:rm",
        "smart",
    )


def test_claude_ask_escalates_to_the_approval_gate(gate: Gate) -> None:
    hooks = gate(
        stdout_is(
            '{"hookSpecificOutput": {"permissionDecision": "ask", '
            '"permissionDecisionReason": "confirm this"}}'
        )
    )
    decision = hooks.pre_tool_call(**tool_payload())
    assert (decision.action, decision.message, decision.rule_key) == (
        "approve",
        "confirm this",
        "terminal",
    )


@pytest.mark.parametrize(
    "output",
    [
        '{"decision": "approve"}',  # Claude Code's "allow": no effect (D-23)
        '{"hookSpecificOutput": {"permissionDecision": "allow"}}',
        '{"continue": true}',
        "{}",
        "",
        "   \n",
    ],
)
def test_outputs_without_effect_let_the_call_through(gate: Gate, output: str) -> None:
    decision = gate(stdout_is(output)).pre_tool_call(**tool_payload())
    assert (decision.action, decision.message) == ("allow", None)


@pytest.mark.parametrize(
    "output",
    [
        '{"action": "modify", "args": {"command": "ls -la --color=never"}}',
        '{"decision": "modify", "tool_input": {"command": "ls -la --color=never"}}',
    ],
)
def test_modify_dialects_rewrite_the_args(gate: Gate, output: str) -> None:
    decision = gate(stdout_is(output)).pre_tool_call(**tool_payload(args={"command": "ls -la"}))
    assert decision.action == "allow"
    assert decision.args == {"command": "ls -la --color=never"}
    assert decision.modified


def test_modify_with_empty_args_is_ignored(gate: Gate) -> None:
    decision = gate(stdout_is('{"action": "modify", "args": {}}')).pre_tool_call(**tool_payload())
    assert (decision.action, decision.modified) == ("allow", False)


# -- exit code 2 (SH-17, SH-18, EX-30) -------------------------------------------------


def test_exit_2_blocks_with_stderr(gate: Gate) -> None:
    hooks = gate(
        sh("cat >/dev/null\necho 'violação de política: rm -rf não é permitido' >&2\nexit 2")
    )
    decision = hooks.pre_tool_call(**tool_payload())
    assert (decision.action, decision.message) == (
        "block",
        "violação de política: rm -rf não é permitido",
    )


def test_exit_2_prefers_the_stdout_block_message(gate: Gate) -> None:
    hooks = gate(
        sh(
            'cat >/dev/null\necho \'{"decision": "block", "reason": "from stdout"}\'\n'
            "echo 'from stderr' >&2\nexit 2"
        )
    )
    assert hooks.pre_tool_call(**tool_payload()).message == "from stdout"


def test_exit_2_blocks_even_when_stdout_says_modify(gate: Gate) -> None:
    hooks = gate(
        sh(
            'cat >/dev/null\necho \'{"action": "modify", "args": {"command": "ls"}}\'\n'
            "echo denied >&2\nexit 2"
        )
    )
    decision = hooks.pre_tool_call(**tool_payload())
    assert (decision.action, decision.message, decision.modified) == ("block", "denied", False)


def test_exit_2_without_any_message_uses_the_default(gate: Gate) -> None:
    assert gate(sh("exit 2")).pre_tool_call(**tool_payload()).message == "Blocked by shell hook."


def test_exit_2_stderr_is_cut_to_400_characters(gate: Gate) -> None:
    hooks = gate(py("import sys\nsys.stderr.write('x' * 399 + 'yz' + 'w' * 600)\nsys.exit(2)"))
    assert hooks.pre_tool_call(**tool_payload()).message == "x" * 399 + "y"


def test_exit_2_on_another_event_only_warns_and_stdout_still_counts(
    gate: Gate, caplog: pytest.LogCaptureFixture
) -> None:
    hooks = gate(
        sh('cat >/dev/null\necho \'{"context": "still injected"}\'\nexit 2'),
        event="pre_llm_call",
    )
    assert hooks.pre_llm_call(session_id="s", user_message="hi") == "still injected"
    assert any("exit code 2" in m for m in warnings_of(caplog))


# -- pre_llm_call, pre_verify, observers -------------------------------------------------


@pytest.mark.parametrize(
    ("output", "context"),
    [
        ('{"context": "Hoje é sexta-feira, 2026-04-17"}', "Hoje é sexta-feira, 2026-04-17"),
        ('{"hookSpecificOutput": {"additionalContext": "from Claude"}}', "from Claude"),
        ('{"context": 42}', "42"),
        ('{"context": "   "}', None),
        ('{"action": "block", "message": "not here"}', None),
    ],
)
def test_pre_llm_call_context(gate: Gate, output: str, context: str | None) -> None:
    hooks = gate(stdout_is(output), event="pre_llm_call")
    assert hooks.pre_llm_call(session_id="s", user_message="hi") == context


@pytest.mark.parametrize(
    ("output", "message"),
    [
        ('{"action": "continue", "message": "Run the formatter."}', "Run the formatter."),
        (
            '{"decision": "block", "reason": "Rode o formatador e então termine."}',
            "Rode o formatador e então termine.",
        ),
        ('{"action": "continue"}', None),
        ('{"decision": "approve", "reason": "fine"}', None),
    ],
)
def test_pre_verify_continue(gate: Gate, output: str, message: str | None) -> None:
    hooks = gate(stdout_is(output), event="pre_verify")
    directive = hooks.pre_verify(session_id="s", coding=True, attempt=0)
    assert directive == (VerifyDirective(message) if message else None)


@pytest.mark.parametrize(
    ("event", "payload"),
    [
        ("post_tool_call", tool_payload(result="{}")),
        ("pre_gateway_dispatch", {"event": {"text": "hi"}, "gateway": None, "session_store": None}),
        ("transform_llm_output", {"response_text": "hello", "session_id": "s"}),
    ],
)
def test_output_on_other_events_is_ignored(
    gate: Gate, event: str, payload: dict[str, object]
) -> None:
    hooks = gate(
        stdout_is('{"action": "skip", "reason": "x", "text": "rewritten", "context": "c"}'),
        event=event,
    )
    assert hooks.invoke(event, **payload) == []
    if event == "pre_gateway_dispatch":
        assert hooks.pre_gateway_dispatch(**payload) is None
    if event == "transform_llm_output":
        assert hooks.transform_llm_output(**payload) is None


# -- the fail-closed matrix (SH-19, SH-20, D-70) ---------------------------------------------


FAILURES: dict[str, tuple[str | None, int, str]] = {
    # name: (script body or None for "no such file", file mode, fail-closed reason)
    "missing binary": (None, 0o755, "command not found"),
    "not executable": (sh("echo '{}'"), 0o644, "command not executable"),
    "killed by signal": (sh("cat >/dev/null\nkill -KILL $$"), 0o755, "killed by signal 9"),
    "exit 1": (sh("cat >/dev/null\nexit 1"), 0o755, "exit code 1"),
    "exit 127": (sh("cat >/dev/null\nexit 127"), 0o755, "exit code 127"),
    "empty stdout, non-zero exit": (sh("exit 3"), 0o755, "exit code 3"),
    "non-JSON stdout": (
        sh("echo 'Traceback (most recent call last):'\necho '  oops'"),
        0o755,
        "unparseable stdout (expected a JSON object)",
    ),
    "JSON that is not an object": (
        sh("echo '[\"block\"]'"),
        0o755,
        "unparseable stdout (expected a JSON object)",
    ),
    "non-UTF-8 stdout": (
        sh(r"printf '\377\376{}'"),
        0o755,
        "unparseable stdout (expected a JSON object)",
    ),
    "stdout over the capture cap": (
        py("import sys\nsys.stdout.write('{\"a\": \"' + 'x' * (2 << 20) + '\"}')"),
        0o755,
        "unparseable stdout (expected a JSON object)",
    ),
    # Meant to decide, in words no reader knows: ignored, loudly, and fail-closed blocks.
    "an action word no reader knows": (
        stdout_is('{"action": "deny", "message": "no"}'),
        0o755,
        "answered action 'deny', which a pre_tool_call hook cannot say (block, approve or "
        "modify); the answer is ignored",
    ),
    "a decision word no reader knows": (
        stdout_is('{"decision": "Reject"}'),
        0o755,
        "answered decision 'Reject', which a pre_tool_call hook cannot say (block, approve "
        "or modify); the answer is ignored",
    ),
    "a modify without arguments": (
        stdout_is('{"action": "modify"}'),
        0o755,
        "answered action 'modify' without a non-empty arguments object, which a "
        "pre_tool_call hook cannot say (block, approve or modify); the answer is ignored",
    ),
    "a permission decision no reader knows": (
        stdout_is('{"hookSpecificOutput": {"permissionDecision": "block"}}'),
        0o755,
        "answered permissionDecision 'block', which a pre_tool_call hook cannot say "
        "(block, approve or modify); the answer is ignored",
    ),
}


@pytest.mark.parametrize("fail_closed", [False, True], ids=["fail-open", "fail-closed"])
@pytest.mark.parametrize("case", list(FAILURES))
def test_failure_matrix(
    home: Path,
    load: Callable[..., Hooks],
    caplog: pytest.LogCaptureFixture,
    case: str,
    fail_closed: bool,
) -> None:
    body, mode, reason = FAILURES[case]
    script = home / "agent-hooks" / "gate.sh"
    if body is not None:
        write_script(script, body, mode=mode)
    write_config(home, {"pre_tool_call": [{"command": str(script), "fail_closed": fail_closed}]})
    approve(home, "pre_tool_call", str(script))
    decision = load().pre_tool_call(**tool_payload())
    if fail_closed:
        assert (decision.action, decision.message) == (
            "block",
            f"hook {script} failed closed: {reason}",
        )
    else:
        assert (decision.action, decision.message) == ("allow", None)
    # An answer in words no reader knows is an ERROR (the gate's decision is lost, as
    # for a Python guard's); every other failure of the matrix warns.
    level = logging.ERROR if reason.startswith("answered ") else logging.WARNING
    logged = [r.getMessage() for r in caplog.records if r.levelno == level]
    warned = [m for m in logged if m.startswith("shell hook hooks.pre_tool_call[0]")]
    assert warned and reason in warned[0]


@pytest.mark.parametrize("fail_closed", [False, True], ids=["fail-open", "fail-closed"])
def test_timeout_matrix_and_no_process_left_behind(
    home: Path, load: Callable[..., Hooks], fail_closed: bool
) -> None:
    pid_file = home / "grandchild.pid"
    script = write_script(
        home / "agent-hooks" / "slow.sh",
        sh(f"sleep 300 &\necho $! > {pid_file}\nsleep 300"),
    )
    write_config(
        home,
        {"pre_tool_call": [{"command": str(script), "timeout": 1, "fail_closed": fail_closed}]},
    )
    approve(home, "pre_tool_call", str(script))
    decision = load().pre_tool_call(**tool_payload())
    expected = ("block", f"hook {script} failed closed: timed out after 1s")
    assert (decision.action, decision.message) == (expected if fail_closed else ("allow", None))
    assert wait_gone(int(pid_file.read_text()))


@pytest.mark.parametrize("fail_closed", [False, True], ids=["fail-open", "fail-closed"])
def test_a_clean_no_effect_answer_proceeds_either_way(gate: Gate, fail_closed: bool) -> None:
    for output in ("{}", ""):
        hooks = gate(stdout_is(output), fail_closed=fail_closed)
        assert hooks.pre_tool_call(**tool_payload()).action == "allow"
        hooks.close()


@pytest.mark.parametrize("fail_closed", [False, True], ids=["fail-open", "fail-closed"])
def test_a_crash_that_printed_a_block_blocks_with_that_message(
    gate: Gate, fail_closed: bool
) -> None:
    hooks = gate(
        stdout_is('{"decision": "block", "reason": "secret found"}', exit_code=1),
        fail_closed=fail_closed,
    )
    decision = hooks.pre_tool_call(**tool_payload())
    assert (decision.action, decision.message) == ("block", "secret found")


@pytest.mark.parametrize("fail_closed", [False, True], ids=["fail-open", "fail-closed"])
def test_a_crash_that_printed_a_modify(gate: Gate, fail_closed: bool) -> None:
    hooks = gate(
        stdout_is('{"action": "modify", "args": {"command": "true"}}', exit_code=1),
        fail_closed=fail_closed,
    )
    decision = hooks.pre_tool_call(**tool_payload())
    if fail_closed:
        assert decision.action == "block"
        assert decision.message is not None and decision.message.endswith("exit code 1")
    else:  # fail open: the exit only warns and stdout is still parsed (D-70)
        assert (decision.action, decision.args) == ("allow", {"command": "true"})


def test_fail_closed_uses_the_configured_command_unexpanded(
    home: Path, load: Callable[..., Hooks], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(home))
    write_script(home / "agent-hooks" / "crash.sh", sh("exit 1"))
    command = "~/agent-hooks/crash.sh --strict"
    write_config(home, {"pre_tool_call": [{"command": command, "failClosed": True}]})
    approve(home, "pre_tool_call", command)
    decision = load().pre_tool_call(**tool_payload())
    assert decision.message == f"hook {command} failed closed: exit code 1"


# -- a ported Claude Code gate (the "must show") ---------------------------------------


CLAUDE_GATE = py(
    """
import json, sys
doc = json.load(sys.stdin)
command = (doc.get("tool_input") or {}).get("command", "")
mode = sys.argv[1]
if "rm -rf" in command:
    if mode == "json":
        print(json.dumps({"decision": "block", "reason": "no rm -rf here"}))
    elif mode == "exit2":
        print("no rm -rf here", file=sys.stderr)
        sys.exit(2)
    elif mode == "specific":
        print(json.dumps({"hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "no rm -rf here"}}))
    elif mode == "crash":
        raise RuntimeError("the gate itself is broken")
"""
)


@pytest.mark.parametrize("mode", ["json", "exit2", "specific"])
def test_a_ported_claude_code_gate_blocks(
    home: Path, load: Callable[..., Hooks], mode: str
) -> None:
    script = write_script(home / "agent-hooks" / "claude_gate.py", CLAUDE_GATE)
    command = f"{script} {mode}"
    write_config(home, {"pre_tool_call": [{"matcher": "terminal", "command": command}]})
    approve(home, "pre_tool_call", command)
    hooks = load()
    blocked = hooks.pre_tool_call(**tool_payload(args={"command": "rm -rf /"}))
    assert (blocked.action, blocked.message) == ("block", "no rm -rf here")
    assert hooks.pre_tool_call(**tool_payload(args={"command": "ls"})).action == "allow"


def test_a_crashing_claude_gate_blocks_only_with_fail_closed(
    home: Path, load: Callable[..., Hooks], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    script = write_script(home / "agent-hooks" / "claude_gate.py", CLAUDE_GATE)
    open_cmd, closed_cmd = f"{script} crash", f"{script} crash --closed"
    write_config(
        home,
        {
            "pre_tool_call": [
                {"command": open_cmd},
                {"command": closed_cmd, "fail_closed": True},
            ]
        },
    )
    approve(home, "pre_tool_call", open_cmd)
    hooks = load(accept_hooks=True)
    decision = hooks.pre_tool_call(**tool_payload(args={"command": "rm -rf /"}))
    assert (decision.action, decision.message) == (
        "block",
        f"hook {closed_cmd} failed closed: exit code 1",
    )
    assert any("RuntimeError: the gate itself is broken" in m for m in warnings_of(caplog))
