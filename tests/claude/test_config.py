"""Reading claude-code entries: event names in either spelling, ``dialect``, Claude Code's
matcher rules, order and identity, and how ``list``, ``test`` and ``doctor`` show them."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.claude.tables import compile_matcher, spec_of
from hermes_hooks.cli import main
from hermes_hooks.hooks import Hooks
from hermes_hooks.shell.config import parse_hooks
from hermes_hooks.shell.dialect import entry_matches
from tests.claude.helpers import Problems, configure, payload
from tests.shell.helpers import py, sh, warnings_of, write_script


def parse(block: dict[str, Any], **top: Any) -> Any:
    return parse_hooks({"hooks": block, **top}, "/h/config.yaml")


# -- events and dialect -----------------------------------------------------------------


def test_claude_names_map_to_our_events_and_imply_the_dialect() -> None:
    parsed = parse(
        {
            "PreToolUse": [{"command": "/a.sh"}],
            "post_tool_call": [{"command": "/b.sh", "dialect": "claude-code"}],
            "PostToolUseFailure": [{"command": "/c.sh"}],
            "pre_llm_call": [{"command": "/d.sh"}],
            "Stop": [{"command": "/e.sh", "dialect": "hermes"}],
        }
    )
    assert [(e.event, e.dialect, e.where) for e in parsed.entries] == [
        ("pre_tool_call", "claude-code", "hooks.PreToolUse[0]"),
        ("post_tool_call", "claude-code", "hooks.post_tool_call[0]"),
        ("post_tool_call", "claude-code", "hooks.PostToolUseFailure[0]"),
        ("pre_llm_call", "hermes", "hooks.pre_llm_call[0]"),
        ("pre_verify", "hermes", "hooks.Stop[0]"),
    ]
    claude_events = [e.variant for e in parsed.entries]
    assert claude_events == ["PreToolUse", "PostToolUse", "PostToolUseFailure", None, None]
    assert parsed.problems == []


def test_bad_dialects_and_unmapped_events_warn_and_skip(caplog: pytest.LogCaptureFixture) -> None:
    parsed = parse(
        {
            "pre_tool_call": [
                {"command": "/a.sh", "dialect": "Claude_Code"},
                {"command": "/b.sh", "dialect": "cursor"},
            ],
            "post_llm_call": [{"command": "/c.sh", "dialect": "claude-code"}],
            "Notification": [{"command": "/d.sh"}],
            "PreToolUze": [{"command": "/e.sh"}],
        }
    )
    assert [(e.command, e.dialect) for e in parsed.entries] == [("/a.sh", "claude-code")]
    assert [(p.where, p.message) for p in parsed.problems] == [
        (
            "hooks.pre_tool_call[1]",
            "dialect 'cursor' is not known (valid: hermes, claude-code); skipped. Fix: "
            "'dialect: claude-code'.",
        ),
        (
            "hooks.post_llm_call[0]",
            "dialect claude-code is not available on post_llm_call: Claude Code has no "
            "equivalent event (it is on on_session_finalize, on_session_start, post_tool_call, "
            "pre_llm_call, pre_tool_call, pre_verify, subagent_start, subagent_stop); skipped",
        ),
        (
            "hooks.Notification",
            "'Notification' is a Claude Code event with no Hermes equivalent (Hermes has no "
            "notification event); its entries are skipped",
        ),
        (
            "hooks.PreToolUze",
            parsed.problems[3].message,
        ),
    ]
    assert parsed.problems[3].message.startswith("unknown hook event 'PreToolUze' in hooks: config")
    # The pre_tool_call entry lost to a bad dialect is a gate dropped, and so is the entry
    # under PreToolUze (a misspelt PreToolUse): both ERRORs.
    assert [p.weakens_gate for p in parsed.problems] == [True, False, False, True]
    assert len(warnings_of(caplog)) == 2
    assert [r.levelname for r in caplog.records if r.levelno >= logging.ERROR] == [
        "ERROR",
        "ERROR",
    ]


def test_problems_of_an_entry_under_a_claude_name_name_that_key() -> None:
    parsed = parse({"PreToolUse": [{"matcher": "Bash"}, {"command": "/a.sh", "timeout": 0}]})
    assert [(p.where, p.message) for p in parsed.problems] == [
        (
            "hooks.PreToolUse[0]",
            "has no non-empty 'command' string; skipped (set command to the program to run)",
        ),
        ("hooks.PreToolUse[1]", "timeout 0 is below 1 second; using 60"),
    ]


# -- matchers ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("matcher", "matching", "not_matching"),
    [
        ("Bash", ["Bash"], ["BashOutput", "bash", "Bas"]),
        ("Edit|Write", ["Edit", "Write"], ["MultiEdit", "Read"]),
        ("Edit, Write", ["Edit", "Write"], ["Edit, Write"]),
        ("Notebook", ["Notebook"], ["NotebookEdit"]),
        ("mcp__lab", ["mcp__lab"], ["mcp__lab__query"]),
        ("mcp__memory__.*", ["mcp__memory__store", "x_mcp__memory__y"], ["mcp__github__x"]),
        ("^Bash$", ["Bash"], ["BashOutput"]),
        ("Notebook.*", ["NotebookEdit", "Notebook"], ["Note"]),
        ("Write(", ["Write("], ["Write"]),
    ],
)
def test_claude_matcher_rules(matcher: str, matching: list[str], not_matching: list[str]) -> None:
    problems = Problems()
    compiled = compile_matcher(matcher, problems)
    assert compiled is not None
    assert [compiled(name) for name in matching] == [True] * len(matching)
    assert [compiled(name) for name in not_matching] == [False] * len(not_matching)
    assert compiled(None) is False
    if matcher == "Write(":
        # compared literally, it fires for fewer names than written: narrowing
        assert problems == [
            (
                "matcher 'Write(' is not a regular expression Python understands (missing ), "
                "unterminated subpattern at position 5); the hook fires only for a name equal "
                "to it. Fix: write it as Python's re module reads it (escape a literal '(' or "
                "'[' with a backslash)",
                True,
            )
        ]
    else:
        assert problems == []


@pytest.mark.parametrize("matcher", ["*", "", "  ", None])
def test_star_blank_and_missing_match_everything(matcher: str | None) -> None:
    entry = {"command": "/a.sh"} if matcher is None else {"command": "/a.sh", "matcher": matcher}
    [parsed] = parse({"PreToolUse": [entry]}).entries
    assert spec_of(parsed).matcher is None
    assert entry_matches(parsed, "anything") and entry_matches(parsed, None)


def test_the_matcher_is_applied_to_claude_names() -> None:
    [entry] = parse({"PreToolUse": [{"command": "/a.sh", "matcher": "Bash"}]}).entries
    assert entry_matches(entry, "terminal") is True
    assert entry_matches(entry, "write_file") is False  # Claude's Write
    assert entry_matches(entry, "Bash") is True  # a tool the table does not list keeps its name
    [ours] = parse({"pre_tool_call": [{"command": "/a.sh", "matcher": "Bash"}]}).entries
    assert entry_matches(ours, "terminal") is False  # the hermes dialect matches our names


def test_matchers_on_stop_and_prompt_are_ignored_silently_as_claude_does() -> None:
    parsed = parse(
        {
            "Stop": [{"command": "/a.sh", "matcher": "Bash"}],
            "UserPromptSubmit": [{"command": "/b.sh", "matcher": 3}],
            "SessionStart": [{"command": "/c.sh", "matcher": ["startup"]}],
        }
    )
    assert [e.matcher for e in parsed.entries] == [None, None, None]
    assert [(p.where, p.message) for p in parsed.problems] == [
        (
            "hooks.SessionStart[0]",
            "matcher must be a string, got list; ignored, so the hook fires on every SessionStart",
        )
    ]


def test_session_and_subagent_matchers_filter_their_own_fields(
    home: Path, load: Callable[..., Hooks], tmp_path: Path
) -> None:
    log = tmp_path / "fired.log"
    script = write_script(tmp_path / "mark.sh", sh(f'cat >/dev/null; echo "$1" >> {log}'))
    configure(
        home,
        {
            "SessionStart": [
                {"command": f"{script} startup", "matcher": "startup"},
                {"command": f"{script} compact", "matcher": "compact"},
            ],
            "SessionEnd": [{"command": f"{script} clear", "matcher": "clear"}],
            "SubagentStop": [{"command": f"{script} explore", "matcher": "Explore|leaf"}],
        },
    )
    hooks = load()
    hooks.on_session_start(**payload("on_session_start"))
    hooks.on_session_finalize(**payload("on_session_finalize", reason="shutdown"))
    hooks.on_session_finalize(**payload("on_session_finalize", reason="new_session"))
    hooks.subagent_stop(**payload("subagent_stop", child_role="orchestrator"))
    hooks.subagent_stop(**payload("subagent_stop", child_role="leaf"))
    assert log.read_text().split() == ["startup", "clear", "explore"]


# -- order and identity ------------------------------------------------------------------


def test_entries_under_both_names_run_in_file_order(
    home: Path, load: Callable[..., Hooks], tmp_path: Path
) -> None:
    log = tmp_path / "order.log"
    script = write_script(tmp_path / "mark.sh", sh(f'cat >/dev/null; echo "$1" >> {log}'))
    configure(
        home,
        {
            "pre_tool_call": [{"command": f"{script} first"}, {"command": f"{script} second"}],
            "PreToolUse": [{"command": f"{script} third"}],
            "pre_tool_call ": None,
        },
    )
    hooks = load()
    hooks.pre_tool_call(**payload("pre_tool_call"))
    assert log.read_text().split() == ["first", "second", "third"]
    ranks = [(r.entry.where, r.entry.rank) for r in hooks.sources["shell"].records()]
    assert ranks == [
        ("hooks.pre_tool_call[0]", 0),
        ("hooks.pre_tool_call[1]", 1),
        ("hooks.PreToolUse[0]", 2),
    ]


def test_identity_includes_the_dialect_and_the_claude_event(
    home: Path, load: Callable[..., Hooks], caplog: pytest.LogCaptureFixture
) -> None:
    configure(
        home,
        {
            "post_tool_call": [{"command": "/bin/true"}],
            "PostToolUse": [{"command": "/bin/true"}, {"command": "/bin/true"}],
            "PostToolUseFailure": [{"command": "/bin/true"}],
        },
    )
    hooks = load()
    states = [(r.entry.where, r.state) for r in hooks.sources["shell"].records()]
    assert states == [
        ("hooks.post_tool_call[0]", "registered"),
        ("hooks.PostToolUse[0]", "registered"),
        ("hooks.PostToolUse[1]", "duplicate"),
        ("hooks.PostToolUseFailure[0]", "registered"),
    ]
    assert warnings_of(caplog) == [
        f"{home / 'config.yaml'}: hooks.PostToolUse[1] repeats hooks.PostToolUse[0] (the "
        "same entry, written again); ignored"
    ]


def test_entries_that_differ_only_in_an_option_are_two_gates_not_a_repeat(
    home: Path, load: Callable[..., Hooks], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # One guard, asked for two kinds of command through two if: rules: the second was
    # once taken for a repeat of the first (same event, matcher and command) and
    # dropped with a WARNING, so curl went through.
    guard = tmp_path / "guard.sh"
    guard.write_text('#!/bin/sh\necho "blocked by guard" >&2\nexit 2\n', encoding="utf-8")
    guard.chmod(0o755)
    entries = [
        {"matcher": "Bash", "if": "Bash(rm *)", "command": str(guard)},
        {"matcher": "Bash", "if": "Bash(curl *)", "command": str(guard)},
    ]
    configure(home, {"PreToolUse": entries})
    hooks = load()
    states = [(r.entry.where, r.state) for r in hooks.sources["shell"].records()]
    assert states == [("hooks.PreToolUse[0]", "registered"), ("hooks.PreToolUse[1]", "registered")]
    assert warnings_of(caplog) == []
    actions = [
        hooks.pre_tool_call(
            **payload("pre_tool_call", "terminal", args={"command": command})
        ).action
        for command in ("rm -rf build", "curl example.invalid", "ls")
    ]
    assert actions == ["block", "block", "allow"]


def test_consent_is_keyed_by_our_event_and_the_command(
    home: Path, load: Callable[..., Hooks], caplog: pytest.LogCaptureFixture
) -> None:
    configure(home, {"PreToolUse": [{"command": "/bin/true", "matcher": "Bash"}]}, approved=False)
    hooks = load()
    [record] = hooks.sources["shell"].records()
    assert record.state == "not allowlisted"
    assert warnings_of(caplog) == [
        "shell hook for pre_tool_call (/bin/true) not allowlisted — skipped. Use "
        "--accept-hooks / HERMES_ACCEPT_HOOKS=1 / hooks_auto_accept: true, or approve at the "
        "TTY prompt next run."
    ]


# -- list, test, doctor ---------------------------------------------------------------------


def run_cli(home: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["--home", str(home), "--no-entry-points", *argv])
    return code, capsys.readouterr().out


def test_list_and_test_show_the_dialect(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = write_script(
        tmp_path / "deny.py",
        py(
            "import json, sys\n"
            "data = json.load(sys.stdin)\n"
            "print(json.dumps({'hookSpecificOutput': {'permissionDecision': 'deny',"
            " 'permissionDecisionReason': 'no ' + data['tool_name']}}))"
        ),
    )
    configure(home, {"PreToolUse": [{"command": str(script), "matcher": "Bash"}]})
    code, out = run_cli(home, capsys, "list")
    assert code == 0
    assert (
        f"    ✓ {script}  matcher='Bash' dialect=claude-code (PreToolUse) timeout=60s  "
        "(registered)" in out.splitlines()
    )
    code, out = run_cli(home, capsys, "list", "--json")
    [view] = json.loads(out)["shell"]["hooks"]
    assert (view["dialect"], view["matcher"]) == ("claude-code", "Bash")
    code, out = run_cli(home, capsys, "test", "pre_tool_call", "--for-tool", "terminal")
    assert code == 0
    assert '      parsed: {"action": "block", "message": "no Bash"}' in out.splitlines()
    code, out = run_cli(home, capsys, "test", "pre_tool_call", "--for-tool", "write_file")
    assert out == (
        "No callbacks for pre_tool_call (tool: write_file): no Python plugin registers it "
        "and no shell hook for this tool is configured.\n"
    )


def test_doctor_accepts_plain_text_and_shows_unhonoured_answers(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    context = write_script(tmp_path / "context.sh", sh("cat >/dev/null; echo 'It is Friday.'"))
    feedback = write_script(
        tmp_path / "feedback.sh",
        sh("""cat >/dev/null; echo '{"decision": "block", "reason": "lint failed"}'"""),
    )
    configure(
        home,
        {
            "UserPromptSubmit": [{"command": str(context)}],
            "PostToolUse": [{"command": str(feedback)}],
        },
    )
    code, out = run_cli(home, capsys, "doctor")
    assert code == 0, out
    lines = out.splitlines()
    assert f"✓ shell hooks.UserPromptSubmit[0] {context}: smoke test: plain text (exit 0, " in out
    assert any(
        line.startswith(f"✓ shell hooks.UserPromptSubmit[0] {context}: smoke test:")
        and line.endswith('parsed: {"context": "It is Friday."}')
        for line in lines
    )
    code, out = run_cli(home, capsys, "test", "post_tool_call")
    assert out.splitlines()[-1] == '      parsed: {"feedback": "lint failed"}'
    assert "not honoured" not in out


def test_doctor_fails_on_a_gate_matcher_or_a_tool_row_it_cannot_honour(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = write_script(tmp_path / "allow.sh", sh("cat >/dev/null; exit 0"))
    configure(
        home,
        {"PreToolUse": [{"command": str(script), "matcher": "Bash("}]},
        hooks_claude_tools={"Shell": {"fields": {}}},
    )
    code, out = run_cli(home, capsys, "doctor")
    assert code == 1, out
    lines = out.splitlines()
    assert (
        f"✗ {home / 'config.yaml'}:4:5: hooks.PreToolUse[0]: matcher 'Bash(' is not a "
        "regular expression Python "
        "understands (missing ), unterminated subpattern at position 4); the hook fires only "
        "for a name equal to it. Fix: write it as Python's re module reads it (escape a "
        "literal '(' or '[' with a backslash)"
    ) in lines
    assert (
        f"✗ {home / 'config.yaml'}:5:1: hooks_claude_tools: hooks_claude_tools.Shell: has no "
        "'tool' (our tool name); "
        "skipped. Fix: 'tool: terminal'"
    ) in lines


@pytest.mark.parametrize(
    ("block", "where", "matcher", "ours", "theirs"),
    [
        ({"PreToolUse": [{"matcher": "terminal", "command": "/g.sh"}]}, "PreToolUse[0]",
         "terminal", "terminal", "Bash"),
        (
            {"pre_tool_call": [{"matcher": "write_file|patch", "command": "/g.sh",
                                "dialect": "claude-code"}]},
            "pre_tool_call[0]", "write_file|patch", "write_file, patch", "Write, Edit",
        ),
    ],
)  # fmt: skip
def test_a_hermes_tool_name_in_a_claude_code_matcher_is_an_error_on_a_gate(
    caplog: pytest.LogCaptureFixture,
    block: dict[str, Any],
    where: str,
    matcher: str,
    ours: str,
    theirs: str,
) -> None:
    # The claude-code dialect matches Claude's names (Bash), so this gate never fires.
    parsed = parse(block)
    assert [(p.where, p.weakens_gate) for p in parsed.problems] == [(f"hooks.{where}", True)]
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        (
            "ERROR",
            f"/h/config.yaml: hooks.{where}: matcher {matcher!r} matches Hermes' tool names "
            f"({ours}), never Claude Code's ({theirs}), which a claude-code entry is matched "
            f"against, so the hook never fires for them. Fix: write matcher: "
            f"{theirs.replace(', ', '|')}, or set dialect: hermes to use Hermes' names",
        )
    ]


@pytest.mark.parametrize("matcher", ["Bash", "Bash|terminal", "search_files", "mcp__.*"])
def test_a_claude_code_matcher_that_can_fire_is_quiet(
    caplog: pytest.LogCaptureFixture, matcher: str
) -> None:
    parse({"PreToolUse": [{"matcher": matcher, "command": "/g.sh"}]})
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []
