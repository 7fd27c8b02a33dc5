"""Fuzzing the parsers that read what others wrote: never an unhandled exception, and
bad input gets the documented warning or error.

Parsers under fuzz: the shell stdout interpreter (Hermes and Claude Code dialects,
:data:`SHELL_PARSERS`), the ``hooks:`` and ``hooks.outbound`` config parsers, the
``config.yaml`` reader, ``HOOK.yaml``, the shell-hooks allowlist and the webhook
receiver's ``verify``, and the bash command analysis behind Claude Code ``if:`` rules.
The normal suite runs a few derandomised examples of each; ``tox
-e fuzz`` runs thousands (see ``conftest.py``).  The session-recording reader lives on
another branch and is not fuzzed here.
"""

from __future__ import annotations

import json
import logging
import os
import re
import stat
from collections.abc import Callable
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from hermes_hooks._contract import ShellUse
from hermes_hooks._escape import escape
from hermes_hooks._select import AGGREGATORS
from hermes_hooks._yaml import MAX_INT_DIGITS
from hermes_hooks.claude.bash_commands import commands_run
from hermes_hooks.claude.rules import parse_rule
from hermes_hooks.config import read_config
from hermes_hooks.gateway.manifest import MANIFEST_FILE, read_manifest
from hermes_hooks.hookspecs import CATALOGUE, VALID_HOOKS
from hermes_hooks.shell import hermes
from hermes_hooks.shell.config import (
    MAX_TIMEOUT,
    RESERVED_KEYS,
    ShellEntry,
    parse_hooks,
)
from hermes_hooks.shell.consent import ALLOWLIST_NAME, Allowlist, AllowlistWatch
from hermes_hooks.shell.dialect import entry_matches
from hermes_hooks.shell.output import SHELL_CALLBACKS, Outcome
from hermes_hooks.shell.run import RunResult, run_command
from hermes_hooks.webhooks.targets import MAX_TIMEOUT as OUT_MAX
from hermes_hooks.webhooks.targets import MIN_TIMEOUT as OUT_MIN
from hermes_hooks.webhooks.targets import parse_outbound
from tests.robustness.helpers import any_text, capture_logs, encode_json, json_values, nested

#: Shell stdout interpreters under fuzz: name -> ``interpret(entry, result) -> Outcome``.
#: The Hermes dialect reads our ``action`` field and the Claude Code fields
#: (``decision``/``reason``/``tool_input``, ``hookSpecificOutput``); the dedicated
#: Claude Code dialect needs a claude-code entry, so it is fuzzed in its own tests.
SHELL_PARSERS: dict[str, Callable[[ShellEntry, RunResult], Outcome]] = {
    "hermes": hermes.interpret,
}

SHELL_EVENTS = sorted(name for name, c in CATALOGUE.items() if c.shell is not ShellUse.REFUSED)
UNPARSEABLE = "unparseable stdout (expected a JSON object)"

# -- strategies --------------------------------------------------------------------------

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**400), max_value=10**400)
    | st.floats()
    | st.text(max_size=30)
    | any_text
)
directive_words = st.sampled_from(
    ["block", " BLOCK ", "approve", "modify", "continue", "allow", "deny", "ask", "", "x"]
)


yaml_keys = st.text(max_size=12) | st.integers() | st.none() | st.booleans()
yaml_values = nested(scalars, yaml_keys)


@st.composite
def dialect_documents(draw: st.DrawFn) -> dict[str, Any]:
    """JSON objects in either dialect, with the right and the wrong value types."""
    doc: dict[str, Any] = {}
    for key in ("action", "decision", "permissionDecision"):
        if draw(st.booleans()):
            doc[key] = draw(directive_words | json_values)
    for key in ("message", "reason", "rule_key", "review", "context"):
        if draw(st.booleans()):
            doc[key] = draw(st.text(max_size=30) | json_values)
    for key in ("args", "tool_input"):
        if draw(st.booleans()):
            doc[key] = draw(
                st.dictionaries(st.text(max_size=8), json_values, max_size=3) | json_values
            )
    if draw(st.booleans()):
        doc["hookSpecificOutput"] = draw(
            st.fixed_dictionaries(
                {},
                optional={
                    "permissionDecision": directive_words | json_values,
                    "permissionDecisionReason": st.text(max_size=20) | json_values,
                    "additionalContext": st.text(max_size=20) | json_values,
                },
            )
            | json_values
        )
    doc.update(draw(st.dictionaries(st.text(max_size=8), json_values, max_size=2)))
    return doc


stdout_bytes = (
    st.binary(max_size=200)
    | st.text(max_size=60).map(str.encode)
    | json_values.map(encode_json)
    | dialect_documents().map(encode_json)
    | st.integers(min_value=1, max_value=3000).map(lambda n: b"[" * n + b"]" * n)
    | st.integers(min_value=1, max_value=3000).map(lambda n: b'{"a":' * n + b"1" + b"}" * n)
)


@st.composite
def run_results(draw: st.DrawFn) -> RunResult:
    """Any finished run: exit codes, signals, timeouts, spawn errors, cut output."""
    error = draw(st.none() | st.sampled_from(["command not found", "command not executable"]))
    timed_out = error is None and draw(st.booleans())
    code = draw(st.sampled_from([0, 0, 0, 1, 2, 2, 3, 127, -9, -15]) | st.integers(-64, 255))
    return RunResult(
        returncode=None if error else code,
        stdout=draw(stdout_bytes),
        stderr=draw(st.binary(max_size=600) | st.text(max_size=600).map(str.encode)),
        stdout_truncated=draw(st.booleans()) and draw(st.booleans()),
        stderr_truncated=draw(st.booleans()),
        timed_out=timed_out,
        error=error,
    )


@st.composite
def shell_entries(draw: st.DrawFn) -> ShellEntry:
    """A configured entry on a shell-capable event, fail-closed or not."""
    event = draw(
        st.sampled_from(["pre_tool_call"] * 4 + ["pre_llm_call", "pre_verify"] + SHELL_EVENTS)
    )
    fail_closed = event == "pre_tool_call" and draw(st.booleans())
    return ShellEntry(
        event=event,
        index=draw(st.integers(0, 3)),
        command="/hooks/gate.sh",
        argv=("/hooks/gate.sh",),
        timeout=draw(st.integers(1, MAX_TIMEOUT)),
        fail_closed=fail_closed,
    )


# -- shell stdout ------------------------------------------------------------------------


def _is_object(stdout: bytes) -> bool | None:
    """True: a JSON object; False: unusable; None: blank (no output)."""
    try:
        text = stdout.decode("utf-8").strip()
    except UnicodeDecodeError:
        return False
    if not text:
        return None
    try:
        return isinstance(json.loads(text), dict)
    except (ValueError, RecursionError):
        return False


def _check_directive(event: str, directive: dict[str, Any] | None) -> None:
    """The canonical shapes the aggregators understand (see ``_select``)."""
    if directive is None:
        return
    if event == "pre_tool_call":
        action = directive["action"]
        assert action in ("block", "approve", "modify")
        if action == "block":
            assert isinstance(directive["message"], str) and directive["message"].strip()
        if action == "modify":
            assert isinstance(directive["args"], dict) and directive["args"]
        if action == "approve":
            assert all(isinstance(v, str) for v in directive.values())
    elif event == "pre_llm_call":
        assert set(directive) == {"context"} and directive["context"] is not None
    elif event == "pre_verify":
        assert directive["action"] == "continue"
        assert isinstance(directive["message"], str) and directive["message"].strip()
    else:
        raise AssertionError(f"{event} must never yield a directive (D-74): {directive!r}")


@pytest.mark.parametrize("parser", sorted(SHELL_PARSERS))
@given(entry=shell_entries(), result=run_results())
def test_shell_stdout_never_raises_and_follows_the_matrix(
    parser: str, entry: ShellEntry, result: RunResult
) -> None:
    interpret = SHELL_PARSERS[parser]
    with capture_logs() as logs:
        outcome = interpret(entry, result)
    directive = outcome.directive
    _check_directive(entry.event, directive)
    gate = entry.event == "pre_tool_call"
    shape = None if result.stdout_truncated else _is_object(result.stdout)
    failed_to_run = result.error is not None or result.timed_out
    if not failed_to_run:
        unusable = result.stdout_truncated or shape is False
        assert outcome.unparseable == unusable
        if unusable:  # SH-19: warned (DEBUG when the same warning was logged before)
            assert any(UNPARSEABLE in m for m in logs.messages())
    if gate and not failed_to_run and result.returncode == 2:
        assert directive is not None and directive["action"] == "block"  # exit 2 blocks (SH-17)
    if entry.fail_closed:
        broken = failed_to_run or result.returncode not in (0, 2) or outcome.unparseable
        if broken:  # D-70: only a clean exit lets a fail-closed call through
            assert directive is not None and directive["action"] == "block"
    # Whatever came out, the dispatcher's aggregator takes it without raising.
    contract = CATALOGUE[entry.event]
    aggregator = AGGREGATORS[contract.selection](contract, {"tool_name": "terminal", "args": {}})

    class ShellCallback:
        source = "shell"
        name = "fuzzed shell hook"
        block_message = SHELL_CALLBACKS.block_message

    aggregator.add(ShellCallback(), directive)  # type: ignore[arg-type]
    aggregator.answer()


@given(
    body=stdout_bytes,
    exit_code=st.sampled_from([0, 1, 2, 3]),
    fail_closed=st.booleans(),
)
def test_a_real_hook_printing_anything_never_breaks_a_firing(
    tmp_path_factory: pytest.TempPathFactory, body: bytes, exit_code: int, fail_closed: bool
) -> None:
    # End to end on a real process: the hook prints the fuzzed bytes and exits.
    where = tmp_path_factory.mktemp("hook")
    (where / "out").write_bytes(body)
    script = where / "hook.sh"
    script.write_text(f"#!/bin/sh\ncat >/dev/null\ncat '{where}/out'\nexit {exit_code}\n")
    script.chmod(0o755)
    entry = ShellEntry(
        "pre_tool_call", 0, str(script), (str(script),), timeout=30, fail_closed=fail_closed
    )
    result = run_command(entry.argv, b'{"hook_event_name": "pre_tool_call"}', entry.timeout)
    assert result.stdout == body and result.returncode == exit_code
    for interpret in SHELL_PARSERS.values():
        outcome = interpret(entry, result)
        _check_directive("pre_tool_call", outcome.directive)
        if exit_code == 2 or (fail_closed and (exit_code != 0 or outcome.unparseable)):
            assert outcome.directive is not None and outcome.directive["action"] == "block"


# -- the hooks: block --------------------------------------------------------------------

event_names = (
    st.sampled_from(sorted(VALID_HOOKS))
    | st.sampled_from(sorted(RESERVED_KEYS))
    | st.sampled_from(["pre_tool_cal", "PreToolUse", "on_stream_delta", "outbound", ""])
    | yaml_keys
)


@st.composite
def shell_entry_dicts(draw: st.DrawFn) -> Any:
    """Entry mappings with plausible keys and odd values (or anything at all)."""
    if draw(st.integers(0, 4)) == 0:
        return draw(yaml_values)
    entry: dict[Any, Any] = {}
    if draw(st.integers(0, 5)):
        entry["command"] = draw(
            st.sampled_from(["/bin/true", "  ~/x.sh arg  ", "'unbalanced", "", "   ", "a\0b"])
            | st.text(max_size=30)
            | scalars
        )
    for key, values in (
        ("matcher", st.sampled_from(["terminal", "(", "a{99999999999}", "(" * 600 + ")" * 600])),
        ("timeout", st.sampled_from(["30", "2.5", "x", "nan", "1e999", "9" * 5000])),
        ("fail_closed", st.sampled_from(["yes", "off", "maybe"])),
        ("failClosed", st.sampled_from(["true", "0"])),
    ):
        if draw(st.booleans()):
            entry[key] = draw(values | scalars)
    entry.update(draw(st.dictionaries(yaml_keys, scalars, max_size=2)))
    return entry


hooks_blocks = st.dictionaries(
    event_names, st.lists(shell_entry_dicts(), max_size=3) | yaml_values, max_size=4
)


@given(block=hooks_blocks | yaml_values)
def test_hooks_block_never_raises_and_warns_for_every_problem(block: Any) -> None:
    with capture_logs() as logs:
        parsed = parse_hooks({"hooks": block}, "config.yaml")
    # every problem logged once, nothing else: an ERROR when it drops or narrows a gate
    logged = [r for r in logs.records if r.levelno >= logging.WARNING]
    assert len(logged) == len(parsed.problems)
    for problem, record in zip(parsed.problems, logged, strict=True):
        assert escape(problem.message) in record.getMessage()  # shown with visible escapes
        assert record.levelno == (logging.ERROR if problem.weakens_gate else logging.WARNING)
    for entry in parsed.entries:
        assert entry.event in CATALOGUE and CATALOGUE[entry.event].shell is not ShellUse.REFUSED
        assert entry.command == entry.command.strip() and entry.command
        assert entry.argv and entry.argv[0]
        assert isinstance(entry.timeout, int) and 1 <= entry.timeout <= MAX_TIMEOUT
        assert entry.fail_closed in (True, False)
        assert not entry.fail_closed or entry.event == "pre_tool_call"
        assert entry.matcher is None or entry.matcher == entry.matcher.strip() != ""
        entry_matches(entry, None), entry_matches(entry, "terminal")  # a matcher never raises


@given(
    events=st.dictionaries(
        st.sampled_from(SHELL_EVENTS),
        st.lists(
            st.sampled_from(["/bin/true", "/usr/bin/env x", "~/h.sh a"]), min_size=1, max_size=3
        ),
        min_size=1,
        max_size=3,
    )
)
def test_valid_hooks_blocks_keep_every_entry_in_order(events: dict[str, list[str]]) -> None:
    block = {event: [{"command": c, "timeout": 5} for c in cmds] for event, cmds in events.items()}
    with capture_logs() as logs:
        parsed = parse_hooks({"hooks": block})
    assert logs.messages(logging.WARNING) == []
    assert [(e.event, e.index, e.command) for e in parsed.entries] == [
        (event, i, c) for event, cmds in events.items() for i, c in enumerate(cmds)
    ]


# -- hooks.outbound ------------------------------------------------------------------------


@st.composite
def outbound_entries(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 4)) == 0:
        return draw(yaml_values)
    entry: dict[Any, Any] = {}
    choices: dict[str, st.SearchStrategy[Any]] = {
        "url": st.sampled_from(
            [
                "https://example.invalid/hook",
                "http://127.0.0.1:9/x",
                "ftp://example.invalid/",
                "http://[::1",
                "https://h:99999/",
                "https://",
                "https:///path",
            ]
        ),
        "events": st.lists(
            st.sampled_from([*sorted(VALID_HOOKS), "on_stream_delta", "nope"]) | yaml_values,
            max_size=3,
        ),
        "name": st.text(max_size=10),
        "secret": st.text(max_size=20),
        "secret_env": st.sampled_from(["FUZZ_SECRET", "UNSET_VAR", "  "]),
        "timeout": st.sampled_from([0, 1, 60, 61, 9999, 2.5, "10"]),
        "matcher": st.sampled_from(["terminal", "(", "a{99999999999}", "(" * 600 + ")" * 600]),
        "signature": st.sampled_from(["github", "standard", "other"]),
        "durable": st.sampled_from([True, False, "yes"]),
        "retry_schedule": st.lists(st.floats() | st.integers(), max_size=3),
    }
    for key, values in choices.items():
        if draw(st.booleans()):
            entry[key] = draw(values | scalars)
    return entry


@given(
    block=st.lists(outbound_entries(), max_size=4) | yaml_values,
    secret=st.text(max_size=30),
)
def test_outbound_block_never_raises_and_keeps_only_valid_targets(block: Any, secret: str) -> None:
    environ = {"FUZZ_SECRET": secret}
    with capture_logs():
        targets, skipped = parse_outbound({"hooks": {"outbound": block}}, "config.yaml", environ)
    for target in targets:
        assert target.url.split("://")[0] in ("http", "https")
        assert target.events and set(target.events) <= VALID_HOOKS - {"on_stream_delta"}
        assert OUT_MIN <= target.timeout <= OUT_MAX
        assert target.signature in ("github", "standard")
        if target.matcher is not None:
            target.matcher.matches("terminal"), target.matcher.matches(None)
    for skip in skipped:
        assert skip.reason
    if isinstance(block, list):
        assert sorted([t.index for t in targets] + [s.index for s in skipped]) == list(
            range(len(block))
        )


# -- config.yaml and HOOK.yaml from raw text -------------------------------------------------

yaml_texts = (
    st.text(max_size=200)
    | yaml_values.map(lambda v: yaml.safe_dump(v, allow_unicode=True) if _dumpable(v) else "")
    | st.integers(1, 1200).map(lambda n: "[" * n)
    | st.integers(1, 400).map(lambda n: "a:\n" + "".join(" " * i + "- b:\n" for i in range(n)))
    | st.sampled_from(
        [
            "a: &a [*a]\n",
            "events: !!python/object/apply:os.system [echo]\n",
            "\ufeffevents: [agent:start]\n",
            "events: agent:start\n",
            "enabled: 'false'\nevents: [x]\n",
            "name: 3\nevents: [agent:*, 'command:x', '  ']\n",
        ]
    )
)


def _dumpable(value: Any) -> bool:
    try:
        yaml.safe_dump(value)
    except (yaml.YAMLError, ValueError, TypeError):
        return False
    return True


def _expected_config(raw: bytes) -> tuple[dict[str, Any], bool]:
    """(what read_config should return, whether the file is unusable) for file bytes
    ``raw``; an unusable file turns every hook of it off, which must be an ERROR."""
    try:
        data = yaml.safe_load(raw.decode("utf-8-sig"))
    except (yaml.YAMLError, RecursionError, ValueError):  # UnicodeDecodeError included
        return {}, True
    if _cyclic(data):  # an alias inside the value that holds it: a value that never ends
        return {}, True
    data = _bounded(data)
    if data is None:
        return {}, False
    return (data, False) if isinstance(data, dict) else ({}, True)


def _bounded(value: Any) -> Any:
    """``value`` as the bounded reader builds it: an integer of more digits than
    ``MAX_INT_DIGITS`` is a bad value, read as None."""
    if isinstance(value, dict):
        return {_bounded(k): _bounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_bounded(v) for v in value]
    if isinstance(value, int) and not isinstance(value, bool):
        return None if len(str(abs(value))) > MAX_INT_DIGITS else value
    return value


def _cyclic(value: Any, holding: frozenset[int] = frozenset()) -> bool:
    """Whether ``value`` contains itself (YAML ``a: &a [*a]``)."""
    if not isinstance(value, (dict, list)):
        return False
    if id(value) in holding:
        return True
    inner = holding | {id(value)}
    children = [*value.keys(), *value.values()] if isinstance(value, dict) else value
    return any(_cyclic(child, inner) for child in children)


@given(text=yaml_texts)
def test_config_yaml_never_raises(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    home = tmp_path_factory.mktemp("home")
    (home / "config.yaml").write_text(text, encoding="utf-8", errors="surrogatepass")
    with capture_logs() as logs:
        config = read_config(home)
    expected, unusable = _expected_config((home / "config.yaml").read_bytes())
    # Compared as reprs: NaN never equals itself, and YAML aliases can build cycles
    # (``a: &a [*a]``) that == would recurse into forever; repr prints them as [...].
    assert repr(config) == repr(expected)
    refused = [
        m
        for m in logs.messages(logging.ERROR)
        if m.startswith(str(home / "config.yaml")) and "no hook or setting of this file" in m
    ]
    assert len(refused) == (1 if unusable else 0)


@given(text=yaml_texts)
def test_hook_yaml_never_raises_and_refuses_with_the_d03_prefix(
    tmp_path_factory: pytest.TempPathFactory, text: str
) -> None:
    directory = tmp_path_factory.mktemp("hook")
    (directory / MANIFEST_FILE).write_bytes(text.encode("utf-8", "surrogatepass"))
    manifest = read_manifest(directory)
    for problem in manifest.problems:
        assert problem.message.startswith("[hooks] ")
        # The file, at the line and column of the key the problem is about when known.
        assert re.fullmatch(
            re.escape(str(directory / MANIFEST_FILE)) + r"(:\d+:\d+)?", problem.file
        )
    if manifest.skip is None:
        assert manifest.enabled
        assert manifest.events and len(set(manifest.events)) == len(manifest.events)
        assert all(isinstance(e, str) and e == e.strip() and e for e in manifest.events)
    else:
        assert manifest.skip.startswith("[hooks] Skipping ")


# -- the allowlist ---------------------------------------------------------------------------

DOCUMENTED_PROBLEMS = re.compile(
    r"^(cannot be read \(.*\)|is not valid JSON \(.*\)|"
    r"must be a JSON object \{\"approvals\": \[\{\"event\": \.\.\., \"command\": \.\.\.\}\]\})$",
    re.S,
)

approval_items = (
    st.fixed_dictionaries(
        {},
        optional={
            "event": st.sampled_from(SHELL_EVENTS) | scalars,
            "command": st.text(max_size=20) | scalars,
            "approved_at": scalars,
            "script_mtime_at_approval": scalars,
            "script_sha256": scalars,
        },
    )
    | json_values
)

allowlist_bytes = (
    st.binary(max_size=300)
    | st.builds(lambda items: {"approvals": items}, st.lists(approval_items, max_size=5)).map(
        encode_json
    )
    | json_values.map(encode_json)
    | st.integers(1, 5000).map(lambda n: b"[" * n)
    | st.integers(1, 5000).map(lambda n: b'{"approvals": ' + b"[" * n + b"]" * n + b"}")
    | st.just(
        b"\xef\xbb\xbf"
        + encode_json({"approvals": [{"event": "on_session_end", "command": " x "}]})
    )
)


@given(content=allowlist_bytes)
def test_allowlist_reading_never_raises(
    tmp_path_factory: pytest.TempPathFactory, content: bytes
) -> None:
    home = tmp_path_factory.mktemp("home")
    (home / ALLOWLIST_NAME).write_bytes(content)
    allowlist = Allowlist(home)
    with capture_logs():
        approvals, problem = allowlist.read()
        watch = AllowlistWatch(allowlist)
        watch.approved("on_session_end", "x")
    if problem is not None:
        assert DOCUMENTED_PROBLEMS.match(problem), problem
        assert approvals == []
    for approval in approvals:
        assert isinstance(approval.event, str) and isinstance(approval.command, str)
        assert approval.command == approval.command.strip()


@given(content=allowlist_bytes, command=st.text(min_size=1, max_size=20).filter(str.strip))
def test_approving_over_any_file_keeps_a_valid_private_allowlist(
    tmp_path_factory: pytest.TempPathFactory, content: bytes, command: str
) -> None:
    home = tmp_path_factory.mktemp("home")
    (home / ALLOWLIST_NAME).write_bytes(content)
    allowlist = Allowlist(home)
    with capture_logs():
        allowlist.approve("on_session_end", command)
        approvals, problem = allowlist.read()
    assert problem is None
    assert ("on_session_end", command.strip()) in {(a.event, a.command) for a in approvals}
    assert stat.S_IMODE(os.stat(home / ALLOWLIST_NAME).st_mode) == 0o600


# -- the Bash command analysis behind Claude Code ``if:`` rules ----------------------------

#: Text built from the characters and words that steer bash's grammar, so the examples
#: reach quotes, substitutions, here-documents and wrappers, not only parse errors.
shell_texts = any_text | st.lists(
    st.sampled_from(
        [
            *["rm", " ", "x", ";", "|", "&", "&&", "\n", "$(", ")", "`", "'", '"', "\\", "{"],
            *["}", "(", "<<EOF\n", "EOF", "$'\\x72'", "${", "$((", "[[", "]]", "bash -c "],
            *["eval ", "sudo ", "xargs ", "find . -exec ", "case ", " in ", "esac", "#", "="],
            *["*", "~"],
        ]
    ),
    max_size=30,
).map("".join)


@given(command=shell_texts)
def test_bash_command_analysis_never_raises_or_faults(command: str) -> None:
    """Any command: a list of simple commands or None (the rule then matches), never an
    exception and never an ERROR (a fault inside the analysis is logged as one)."""
    with capture_logs() as logs:
        found = commands_run(command)
        matched = parse_rule("Bash(rm:*)").matches("Bash", {"command": command}, "/")
    assert found is None or all(simple.words and simple.words[0] for simple in found)
    assert matched is True or (found is not None and matched is False)
    assert [r.getMessage() for r in logs.records if r.levelno >= logging.ERROR] == []
