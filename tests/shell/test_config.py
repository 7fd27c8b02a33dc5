"""The hooks: block: every rule of SH-04..SH-11 and D-64..D-68, one entry at a time."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from hermes_hooks.cli import main
from hermes_hooks.hookspecs import VALID_HOOKS
from hermes_hooks.shell.config import (
    parse_hooks,
    script_for_command,
    split_command,
)
from hermes_hooks.shell.dialect import entry_matches
from tests.shell.helpers import (
    approve,
    errors_of,
    sh,
    warnings_of,
    write_config,
    write_script,
)


def parse(block: object, **top: object):  # type: ignore[no-untyped-def]
    return parse_hooks({"hooks": block, **top}, "/h/config.yaml")


def test_a_valid_entry_keeps_every_setting() -> None:
    parsed = parse(
        {
            "pre_tool_call": [
                {
                    "matcher": " terminal|write_file ",
                    "command": "  python3 ~/.hermes/agent-hooks/gate.py --strict  ",
                    "timeout": 10,
                    "fail_closed": True,
                }
            ]
        }
    )
    assert parsed.problems == []
    (entry,) = parsed.entries
    assert entry.event == "pre_tool_call"
    assert entry.index == 0
    assert entry.command == "python3 ~/.hermes/agent-hooks/gate.py --strict"
    assert entry.argv == (
        "python3",
        os.path.expanduser("~/.hermes/agent-hooks/gate.py"),
        "--strict",
    )
    assert entry.matcher == "terminal|write_file"
    assert entry.timeout == 10
    assert entry.fail_closed is True


def test_unknown_event_with_a_close_match_warns_did_you_mean(
    caplog: pytest.LogCaptureFixture,
) -> None:
    parsed = parse({"post_tool_cal": [{"command": "x"}], "pre_llm_call": [{"command": "y"}]})
    assert warnings_of(caplog) == [
        "unknown hook event 'post_tool_cal' in hooks: config — did you mean 'post_tool_call'?"
    ]
    assert [e.event for e in parsed.entries] == ["pre_llm_call"]
    assert [p.weakens_gate for p in parsed.problems] == [False]


@pytest.mark.parametrize(
    ("key", "tail"),
    [
        ("pre_tool_cal", " — did you mean 'pre_tool_call'?"),
        ("pretooluse", " — did you mean 'pre_tool_call'?"),  # Claude Code's name, lower-cased
    ],
)
def test_an_unknown_event_that_resembles_a_gate_is_an_error(
    caplog: pytest.LogCaptureFixture, key: str, tail: str
) -> None:
    # Its entries are skipped, so the guard the user wrote never runs: not a warning.
    parsed = parse({key: [{"command": "/gate.sh"}], "post_tool_call": [{"command": "y"}]})
    message = f"unknown hook event '{key}' in hooks: config{tail}"
    assert errors_of(caplog) == [message]
    assert warnings_of(caplog) == []
    assert [e.event for e in parsed.entries] == ["post_tool_call"]
    assert [(p.where, p.weakens_gate) for p in parsed.problems] == [(f"hooks.{key}", True)]


def test_unknown_event_without_a_close_match_lists_the_valid_events(
    caplog: pytest.LogCaptureFixture,
) -> None:
    parse({"zzzz": [{"command": "x"}]})
    # Where the names are, not all 37 of them in every message.
    assert warnings_of(caplog) == [
        "unknown hook event 'zzzz' in hooks: config — no hook has a similar name; skipped. "
        f"`hermes-hooks hooks` lists the {len(VALID_HOOKS)} events"
    ]


def test_reserved_keys_are_skipped_without_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    parsed = parse(
        {
            "outbound": [{"url": "https://example.com", "events": ["on_session_end"]}],
            "output_spill": {"dir": "/tmp"},
            "on_session_end": [{"command": "x"}],
        }
    )
    assert warnings_of(caplog) == []
    assert [e.event for e in parsed.entries] == ["on_session_end"]


@pytest.mark.parametrize("event", ["transform_api_error_classification", "on_stream_delta"])
def test_python_only_events_are_refused(event: str, caplog: pytest.LogCaptureFixture) -> None:
    parsed = parse({event: [{"command": "x"}]})
    assert parsed.entries == []
    (message,) = warnings_of(caplog)
    assert message.startswith(f"/h/config.yaml: hooks.{event}: shell hooks cannot run on {event}")
    assert message.endswith("Use a Python plugin instead.")


def test_one_bad_entry_never_drops_the_others_and_each_warning_names_its_index(
    caplog: pytest.LogCaptureFixture,
) -> None:
    parsed = parse(
        {
            "post_tool_call": [
                "just a string",
                {"matcher": "x"},
                {"command": "   "},
                {"command": "ok-1"},
                {"command": "'unbalanced"},
                {"command": 42},
                {"command": "ok-2", "surprise": "unknown keys are ignored"},
            ]
        }
    )
    assert [(e.index, e.command) for e in parsed.entries] == [(3, "ok-1"), (6, "ok-2")]
    assert [p.where for p in parsed.problems] == [
        "hooks.post_tool_call[0]",
        "hooks.post_tool_call[1]",
        "hooks.post_tool_call[2]",
        "hooks.post_tool_call[4]",
        "hooks.post_tool_call[5]",
    ]
    messages = warnings_of(caplog)
    assert messages[0] == (
        "/h/config.yaml: hooks.post_tool_call[0]: must be a mapping with a 'command' key, "
        "got str; skipped"
    )
    assert messages[1] == (
        "/h/config.yaml: hooks.post_tool_call[1]: has no non-empty 'command' string; "
        "skipped (set command to the program to run)"
    )
    assert "cannot be split" in messages[3]


def test_an_event_that_is_not_a_list_is_skipped_with_the_fix(
    caplog: pytest.LogCaptureFixture,
) -> None:
    parsed = parse({"post_tool_call": {"command": "x"}, "pre_llm_call": None})
    assert parsed.entries == []
    assert warnings_of(caplog) == [
        "/h/config.yaml: hooks.post_tool_call: must be a list of entries, got dict; skipped. "
        "Fix: write each entry as a list item ('- command: ...')."
    ]


NOT_A_MAPPING = (
    "/h/config.yaml: 'hooks' must be a mapping of event names to lists of entries, got "
    "list; no shell hook loaded. Fix: write each event as a key ('pre_tool_call:') with its "
    "entries as a list under it"
)


def test_a_hooks_block_that_is_not_a_mapping_loads_nothing_and_is_an_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # A list of single-key mappings is an easy slip; every gate in it would be lost.
    parsed = parse([{"pre_tool_call": [{"command": "/gate.sh"}]}])
    assert parsed.entries == []
    assert errors_of(caplog) == [NOT_A_MAPPING]
    assert [(p.where, p.weakens_gate) for p in parsed.problems] == [("hooks", True)]


def test_an_empty_hooks_list_loses_nothing_and_only_warns(
    caplog: pytest.LogCaptureFixture,
) -> None:
    parsed = parse([])
    assert parsed.entries == []
    assert warnings_of(caplog) == [NOT_A_MAPPING]
    assert errors_of(caplog) == []
    assert [p.weakens_gate for p in parsed.problems] == [False]


# -- matcher (D-66) --------------------------------------------------------------------


def test_matcher_must_match_the_whole_tool_name() -> None:
    (entry,) = parse({"pre_tool_call": [{"matcher": "terminal", "command": "x"}]}).entries
    assert entry_matches(entry, "terminal")
    assert not entry_matches(entry, "terminal_x")
    assert not entry_matches(entry, "my_terminal")
    assert not entry_matches(entry, None)


def test_alternation_matcher_matches_each_alternative_whole() -> None:
    (entry,) = parse({"post_tool_call": [{"matcher": "write_file|patch", "command": "x"}]}).entries
    assert [entry_matches(entry, t) for t in ("write_file", "patch", "patch_x", "read_file")] == [
        True,
        True,
        False,
        False,
    ]


def test_blank_matcher_means_no_matcher() -> None:
    (entry,) = parse({"pre_tool_call": [{"matcher": "   ", "command": "x"}]}).entries
    assert entry.matcher is None
    assert entry_matches(entry, None) and entry_matches(entry, "anything")


def test_invalid_regex_falls_back_to_literal_equality_loudly_on_a_gate(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Compared literally, the gate fires for fewer tools than written: an ERROR on a hook
    # that can block, a warning on one that only observes.
    entries = [{"matcher": "term(inal", "command": "x"}]
    parsed = parse({"pre_tool_call": entries, "post_tool_call": entries})
    gate, observer = parsed.entries
    assert entry_matches(gate, "term(inal")
    assert not entry_matches(gate, "terminal")
    assert not entry_matches(observer, "terminal")
    problem = (
        "matcher 'term(inal' is not a valid regular expression (missing ), unterminated "
        "subpattern at position 4); the hook fires only for a tool named exactly that. Fix: "
        "correct the expression, e.g. escape a literal '(' or '[' with a backslash"
    )
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        ("ERROR", f"/h/config.yaml: hooks.pre_tool_call[0]: {problem}"),
        ("WARNING", f"/h/config.yaml: hooks.post_tool_call[0]: {problem}"),
    ]
    assert [p.weakens_gate for p in parsed.problems] == [True, False]


@pytest.mark.parametrize(
    ("matcher", "problem"),
    [
        (
            "Bash",
            "matcher 'Bash' matches Claude Code's tool names (Bash), never ours (terminal), so "
            "the hook never fires for them. Fix: write matcher: terminal, or set dialect: "
            "claude-code to use Claude Code's names",
        ),
        (
            "Write|Edit",
            "matcher 'Write|Edit' matches Claude Code's tool names (Write, Edit), never ours "
            "(write_file, patch), so the hook never fires for them. Fix: write matcher: "
            "write_file|patch, or set dialect: claude-code to use Claude Code's names",
        ),
        ("Bash|terminal", None),  # ours too: it fires
        ("mcp__github__.*", None),  # no tool of the table at all
    ],
)
def test_a_claude_code_tool_name_in_a_hermes_matcher_is_an_error_on_a_gate(
    matcher: str, problem: str | None, caplog: pytest.LogCaptureFixture
) -> None:
    # Copied from a Claude Code settings file into a Hermes entry, the gate never fires.
    entries = [{"matcher": matcher, "command": "x"}]
    parsed = parse({"pre_tool_call": entries, "post_tool_call": entries})
    assert [e.matcher for e in parsed.entries] == [matcher, matcher]  # kept as written
    logged = [(r.levelname, r.getMessage()) for r in caplog.records]
    if problem is None:
        assert logged == []
        return
    assert logged == [
        ("ERROR", f"/h/config.yaml: hooks.pre_tool_call[0]: {problem}"),
        ("WARNING", f"/h/config.yaml: hooks.post_tool_call[0]: {problem}"),
    ]


@pytest.mark.parametrize(
    ("matcher", "meant"),
    [
        ("Terminal", "terminal"),
        ("read-file", "read_file"),
        ("WriteFile|Patch", "patch, write_file"),
        ("terminal", None),  # as written: fires
        ("TERMINAL|write_file", None),  # one branch fires
        ("my_plugin_tool", None),  # no built-in tool at all: a plugin's or an MCP tool
    ],
)
def test_a_misspelt_hermes_tool_name_in_a_matcher_is_an_error_on_a_gate(
    matcher: str, meant: str | None, caplog: pytest.LogCaptureFixture
) -> None:
    entries = [{"matcher": matcher, "command": "x"}]
    parsed = parse({"pre_tool_call": entries, "post_tool_call": entries})
    assert [e.matcher for e in parsed.entries] == [matcher, matcher]  # kept as written
    logged = [(r.levelname, r.getMessage()) for r in caplog.records]
    if meant is None:
        assert logged == []
        return
    problem = (
        f"matcher {matcher!r} matches none of Hermes' tool names, only another spelling of "
        f"{meant} (tool names are lower case, with underscores), so the hook never fires for "
        f"them. Fix: write matcher: {meant.replace(', ', '|')}"
    )
    assert logged == [
        ("ERROR", f"/h/config.yaml: hooks.pre_tool_call[0]: {problem}"),
        ("WARNING", f"/h/config.yaml: hooks.post_tool_call[0]: {problem}"),
    ]
    assert [p.weakens_gate for p in parsed.problems] == [True, False]


def test_a_matcher_that_is_not_a_string_widens_and_only_warns(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Ignored, the hook fires for every tool: more than written, so the gate is not weaker.
    parsed = parse({"pre_tool_call": [{"matcher": 3, "command": "x"}]})
    assert parsed.entries[0].matcher is None
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        (
            "WARNING",
            "/h/config.yaml: hooks.pre_tool_call[0]: matcher must be a string (a regular "
            "expression), got int; ignored, so the hook fires for every tool",
        )
    ]
    assert [p.weakens_gate for p in parsed.problems] == [False]


def test_matcher_on_another_event_is_dropped_with_the_reference_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    (entry,) = parse({"pre_llm_call": [{"matcher": "terminal", "command": "x"}]}).entries
    assert entry.matcher is None
    (message,) = warnings_of(caplog)
    assert message.startswith("/h/config.yaml: hooks.pre_llm_call[0]: ")
    assert message.endswith(
        "the matcher field is only honored for pre_tool_call / post_tool_call. "
        "The hook will fire on every pre_llm_call event."
    )


def test_non_string_matcher_is_ignored_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    (entry,) = parse({"pre_tool_call": [{"matcher": ["terminal"], "command": "x"}]}).entries
    assert entry.matcher is None
    assert "matcher must be a string" in warnings_of(caplog)[0]


# -- timeout (D-68) ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected", "warned"),
    [
        (None, 60, False),
        (30, 30, False),
        ("30", 30, False),
        (2.5, 2, False),
        ("2.5", 2, False),
        (1, 1, False),
        (300, 300, False),
        (301, 300, True),
        (9999, 300, True),
        (0, 60, True),
        (-5, 60, True),
        (0.5, 60, True),
        ("soon", 60, True),
        (True, 60, True),
        ([10], 60, True),
        (float("nan"), 60, True),
    ],
)
def test_timeout_conversion_and_clamps(
    value: object, expected: int, warned: bool, caplog: pytest.LogCaptureFixture
) -> None:
    entry: dict[str, object] = {"command": "x"}
    if value is not None:
        entry["timeout"] = value
    (parsed,) = parse({"post_tool_call": [entry]}).entries
    assert parsed.timeout == expected
    messages = warnings_of(caplog)
    assert bool(messages) is warned
    if warned:
        assert messages[0].startswith("/h/config.yaml: hooks.post_tool_call[0]: timeout ")


# -- fail_closed (SH-09) --------------------------------------------------------------------


@pytest.mark.parametrize("key", ["fail_closed", "failClosed"])
def test_fail_closed_and_its_alias(key: str) -> None:
    (entry,) = parse({"pre_tool_call": [{"command": "x", key: True}]}).entries
    assert entry.fail_closed is True


def test_fail_closed_wins_over_the_alias() -> None:
    (entry,) = parse(
        {"pre_tool_call": [{"command": "x", "fail_closed": False, "failClosed": True}]}
    ).entries
    assert entry.fail_closed is False


def test_fail_closed_on_another_event_warns_and_is_ignored(
    caplog: pytest.LogCaptureFixture,
) -> None:
    (entry,) = parse({"post_tool_call": [{"command": "x", "failClosed": True}]}).entries
    assert entry.fail_closed is False
    assert warnings_of(caplog) == [
        "/h/config.yaml: hooks.post_tool_call[0]: failClosed: true is ignored — only "
        "pre_tool_call hooks can block, so this hook fails open on post_tool_call like any other"
    ]


def test_fail_closed_as_a_string_is_read_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    (entry,) = parse({"pre_tool_call": [{"command": "x", "fail_closed": "yes"}]}).entries
    assert entry.fail_closed is True
    assert "read as true" in warnings_of(caplog)[0]


def test_fail_closed_of_another_type_fails_open_with_an_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # The gate runs weaker than written (it fails open): an ERROR, and doctor fails.
    parsed = parse({"pre_tool_call": [{"command": "x", "fail_closed": 3}]})
    (entry,) = parsed.entries
    assert entry.fail_closed is False
    assert warnings_of(caplog) == []
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR] == [
        "/h/config.yaml: hooks.pre_tool_call[0]: fail_closed must be true or false, got 3; "
        "the hook fails open"
    ]
    assert [p.weakens_gate for p in parsed.problems] == [True]


def test_a_dropped_gate_entry_is_an_error_and_a_dropped_observer_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    parsed = parse({"pre_tool_call": [{"matcher": "terminal"}], "post_tool_call": [{}]})
    assert parsed.entries == []
    by_level = [(r.levelname, r.getMessage()) for r in caplog.records]
    message = "has no non-empty 'command' string; skipped (set command to the program to run)"
    assert by_level == [
        ("ERROR", f"/h/config.yaml: hooks.pre_tool_call[0]: {message}"),
        ("WARNING", f"/h/config.yaml: hooks.post_tool_call[0]: {message}"),
    ]
    assert [p.weakens_gate for p in parsed.problems] == [True, False]


# -- command splitting and ~ (D-67), the script rule (D-73) ---------------------------------


def test_command_is_split_without_a_shell_and_tilde_expands_per_argument(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HOME", "/home/u")
    monkeypatch.setenv("SECRET", "leak")
    (entry,) = parse(
        {"post_tool_call": [{"command": "python3 ~/a.py '~/b' ~ ~user/c x~/d $SECRET 'a b'"}]}
    ).entries
    assert entry.argv == (
        "python3",
        "/home/u/a.py",
        "/home/u/b",  # quoting does not protect ~ here: the argument starts with ~/
        "/home/u",
        "~user/c",
        "x~/d",
        "$SECRET",
        "a b",
    )
    assert entry.command == "python3 ~/a.py '~/b' ~ ~user/c x~/d $SECRET 'a b'"


def test_split_command_keeps_shell_syntax_as_plain_words() -> None:
    assert split_command("a.sh; rm -rf / && echo $(id) | tee x") == [
        "a.sh;",
        "rm",
        "-rf",
        "/",
        "&&",
        "echo",
        "$(id)",
        "|",
        "tee",
        "x",
    ]


def test_script_rule_prefers_a_script_extension_then_a_path_then_the_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", "/home/u")
    assert script_for_command("python3 -u ~/hooks/gate.py --x") == Path("/home/u/hooks/gate.py")
    assert script_for_command("/opt/bin/gate --config ./g.toml") == Path("/opt/bin/gate")
    assert script_for_command("bash ./run/my-hook") == Path("run/my-hook")
    tool = write_script(tmp_path / "bin" / "my-gate", sh("exit 0"))
    monkeypatch.setenv("PATH", str(tool.parent))
    assert script_for_command("my-gate --flag") == tool
    assert script_for_command("'unbalanced") is None


# -- through load() -------------------------------------------------------------------------


def test_bad_entries_do_not_stop_good_ones_from_registering(home: Path, load) -> None:  # type: ignore[no-untyped-def]
    good = write_script(home / "agent-hooks" / "ok.sh", sh("cat >/dev/null; echo '{}'"))
    write_config(
        home,
        {
            "pre_tool_cal": [{"command": str(good)}],
            "pre_tool_call": [{"timeout": 5}, {"command": str(good), "timeout": "x"}],
        },
    )
    approve(home, "pre_tool_call", str(good))
    hooks = load()
    (callback,) = hooks.manager.callbacks("pre_tool_call")
    assert callback.source == "shell"
    assert callback.rank == 1
    source = hooks.sources["shell"]
    assert [p.where for p in source.problems()] == [
        "hooks.pre_tool_cal",
        "hooks.pre_tool_call[0]",
        "hooks.pre_tool_call[1]",
    ]


def test_inline_shell_code_is_not_taken_for_a_script() -> None:
    from hermes_hooks.shell.config import script_for_command

    assert script_for_command("bash -c 'cd /srv && ./check.sh'") is None
    assert script_for_command("/bin/sh -c 'exit 0'") is None
    assert str(script_for_command("bash ~/.hermes/agent-hooks/x.sh")).endswith(
        ".hermes/agent-hooks/x.sh"
    )


def test_doctor_fails_when_a_gate_matcher_is_compared_literally(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(
        home, {"pre_tool_call": [{"command": "x", "matcher": "[bad"}]}, plugins={"enabled": []}
    )
    code = main(["--home", str(home), "--no-entry-points", "doctor"])
    out = capsys.readouterr().out
    assert code == 1
    assert (
        f"✗ {home / 'config.yaml'}:4:5: hooks.pre_tool_call[0]: matcher '[bad' is not a "
        "valid regular expression "
        "(unterminated character set at position 0); the hook fires only for a tool named "
        "exactly that. Fix: correct the expression, e.g. escape a literal '(' or '[' with a "
        "backslash"
    ) in out.splitlines()


def test_doctor_fails_when_a_gate_entry_is_dropped(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(home, {"pre_tool_call": [{"command": ""}]}, plugins={"enabled": []})
    code = main(["--home", str(home), "--no-entry-points", "doctor"])
    out = capsys.readouterr().out
    assert code == 1
    assert (
        f"✗ {home / 'config.yaml'}:3:5: hooks.pre_tool_call[0]: has no non-empty 'command' "
        "string; skipped (set command to the program to run)"
    ) in out.splitlines()


def test_a_claude_code_matcher_group_pasted_into_config_yaml_is_named_as_such(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # settings.json nests the commands of a matcher group; here each entry is a command.
    group = {"matcher": "Bash", "hooks": [{"type": "command", "command": "/gate.sh"}]}
    parsed = parse({"PreToolUse": [group]})
    assert parsed.entries == []
    assert [(p.where, p.weakens_gate) for p in parsed.problems] == [("hooks.PreToolUse[0]", True)]
    assert errors_of(caplog) == [
        "/h/config.yaml: hooks.PreToolUse[0]: is a Claude Code settings.json matcher group "
        "(a 'hooks' list inside the entry); each entry here is one command, so it is "
        "skipped. Fix: write one '- matcher: ...' / 'command: ...' entry per command, or "
        "convert the file with hermes-hooks import-claude"
    ]
