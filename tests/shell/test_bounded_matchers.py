"""Users' matcher expressions run in bounded time (SH-06, D-66): a catastrophic
expression never hangs ``load()`` or a firing, a gate whose matcher cannot finish runs,
with one WARNING per matcher, and every expression that finishes answers exactly as
Python's ``re`` does."""

from __future__ import annotations

import logging
import re
import threading
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_hooks.hooks import Hooks
from hermes_hooks.user_regex import UserRegex
from tests.helpers import tool_payload
from tests.shell.helpers import approve, sh, write_config, write_script

#: Backtracks without end in ``re``; RE2 answers it in linear time.
NESTED = r"(\w+)+_danger"
#: The same, with a look-ahead RE2 refuses: only ``re`` (in a child) can try it.
NESTED_LOOKAHEAD = r"(?=\w)(\w+)+_danger"
LONG_NAME = "a" * 34  # never matches; ``re`` would try 2**34 ways to say so
LONG_DANGER = "a" * 27 + "_danger"  # 34 characters that match
UNFINISHED = "could not be matched against"
BOUND = 120.0  # a generous bound on a wait: a hang fails the test, a slow machine does not


def finish(call: Callable[[], Any]) -> Any:
    """Run ``call`` in a thread; fail if it has not returned within :data:`BOUND`."""
    result: list[Any] = []
    thread = threading.Thread(target=lambda: result.append(call()), daemon=True)
    thread.start()
    thread.join(BOUND)
    assert not thread.is_alive(), "the call did not return: a matcher hangs"
    assert result, "the call raised"
    return result[0]


def unfinished(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if UNFINISHED in r.getMessage()]


def gate_home(
    home: Path, event: str, matcher: str, *, dialect: str | None = None
) -> tuple[Path, str]:
    """A home with one hook on ``event`` (a real script) that appends a line to a file
    on every run; (that file, the command)."""
    ran = home / "ran.txt"
    script = write_script(home / "agent-hooks" / "gate.sh", sh(f"echo ran >> {ran}\necho '{{}}'"))
    entry: dict[str, Any] = {"matcher": matcher, "command": str(script)}
    if dialect is not None:
        entry["dialect"] = dialect
    write_config(home, {event: [entry]})
    return ran, str(script)


def runs(ran: Path) -> int:
    return len(ran.read_text().splitlines()) if ran.exists() else 0


# -- the Hermes dialect --------------------------------------------------------------------


def test_sh_06_nested_repetition_loads_and_fires_with_re_s_answer(
    home: Path, load: Callable[..., Hooks], caplog: pytest.LogCaptureFixture
) -> None:
    ran, command = gate_home(home, "pre_tool_call", NESTED)
    approve(home, "pre_tool_call", command)
    hooks = finish(load)
    finish(lambda: hooks.pre_tool_call(**tool_payload(tool_name=LONG_NAME)))
    assert runs(ran) == 0  # RE2 finishes, and says what re would: no match
    finish(lambda: hooks.pre_tool_call(**tool_payload(tool_name=LONG_DANGER)))
    assert runs(ran) == 1
    assert unfinished(caplog) == []


def test_sh_06_a_gate_whose_matcher_cannot_finish_runs_with_one_warning(
    home: Path, load: Callable[..., Hooks], caplog: pytest.LogCaptureFixture
) -> None:
    ran, command = gate_home(home, "pre_tool_call", NESTED_LOOKAHEAD)
    approve(home, "pre_tool_call", command)
    hooks = finish(load)
    for _ in range(2):
        finish(lambda: hooks.pre_tool_call(**tool_payload(tool_name=LONG_NAME)))
    assert runs(ran) == 2
    finish(lambda: hooks.pre_tool_call(**tool_payload(tool_name="terminal")))
    assert runs(ran) == 2  # a name re finishes on still gets re's answer
    [record] = unfinished(caplog)
    assert record.levelno == logging.WARNING
    assert record.getMessage().startswith(
        f"{home / 'config.yaml'}: hooks.pre_tool_call[0]: matcher {NESTED_LOOKAHEAD!r} "
        f"could not be matched against {LONG_NAME!r} within 1s"
    )
    assert "the hook runs, as a gate does whenever it is unclear whether it applies" in (
        record.getMessage()
    )


def test_sh_06_an_observer_whose_matcher_cannot_finish_is_skipped_with_one_warning(
    home: Path, load: Callable[..., Hooks], caplog: pytest.LogCaptureFixture
) -> None:
    ran, command = gate_home(home, "post_tool_call", NESTED_LOOKAHEAD)
    approve(home, "post_tool_call", command)
    hooks = finish(load)
    for _ in range(2):
        finish(lambda: hooks.post_tool_call(**tool_payload(tool_name=LONG_NAME, result="ok")))
    assert runs(ran) == 0
    [record] = unfinished(caplog)
    assert record.getMessage().startswith(
        f"{home / 'config.yaml'}: hooks.post_tool_call[0]: matcher {NESTED_LOOKAHEAD!r}"
    )
    assert "the hook is skipped for such names" in record.getMessage()


def test_sh_06_a_look_around_matcher_keeps_re_s_answers(
    home: Path, load: Callable[..., Hooks]
) -> None:
    ran, command = gate_home(home, "pre_tool_call", r"(?!read_file$)\w+")
    approve(home, "pre_tool_call", command)
    hooks = finish(load)
    for tool in ("read_file", "terminal", "read_files", "wérd"):
        finish(lambda tool=tool: hooks.pre_tool_call(**tool_payload(tool_name=tool)))
    assert runs(ran) == 3


# -- the Claude Code dialect ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("matcher", "name", "expected_runs", "warnings"),
    [
        (NESTED, LONG_NAME, 0, 0),
        (NESTED, LONG_DANGER, 1, 0),
        (NESTED_LOOKAHEAD, LONG_NAME, 2, 1),
    ],
)
def test_sh_06_claude_pretooluse_matchers_are_bounded(
    home: Path,
    load: Callable[..., Hooks],
    caplog: pytest.LogCaptureFixture,
    matcher: str,
    name: str,
    expected_runs: int,
    warnings: int,
) -> None:
    ran, command = gate_home(home, "PreToolUse", matcher)
    approve(home, "pre_tool_call", command)
    hooks = finish(load)
    for _ in range(2 if warnings else 1):
        finish(lambda: hooks.pre_tool_call(**tool_payload(tool_name=name)))
    assert runs(ran) == expected_runs
    found = unfinished(caplog)
    assert len(found) == warnings
    if found:
        assert (
            found[0]
            .getMessage()
            .startswith(f"{home / 'config.yaml'}: hooks.PreToolUse[0]: matcher {matcher!r}")
        )


def test_sh_06_claude_matchers_search_as_before(home: Path, load: Callable[..., Hooks]) -> None:
    ran, command = gate_home(home, "PreToolUse", "mcp__.*")
    approve(home, "pre_tool_call", command)
    hooks = finish(load)
    for tool in ("mcp__github__create_issue", "terminal", "x_mcp__y"):
        finish(lambda tool=tool: hooks.pre_tool_call(**tool_payload(tool_name=tool)))
    assert runs(ran) == 2  # searched anywhere in the name, as Claude Code does


# -- the engine ------------------------------------------------------------------------------


def test_sh_06_a_matcher_re_rejects_is_rejected_the_same_way() -> None:
    with pytest.raises(re.error) as caught:
        UserRegex("write_file(")
    with pytest.raises(re.error) as expected:
        re.compile("write_file(")
    assert str(caught.value) == str(expected.value)


_TOKENS = [
    *"ab_Z.-|*+?()[]^$\\{},:1 ",
    *(r"\w", r"\d", r"\s", r"\b", r"\B", r"\Z", r"\A", r"\.", r"\1", r"\x41"),
    *("(?i)", "(?m)", "(?s)", "(?:", "(?=a)", "(?!b)", "{,2}", "{1,2}", "[^a]", "[a-c]"),
    *("[[:alpha:]]", "é", "\u212a", "\n"),
]
_NAME_CHARS = "abZ_-. :,1\nAé\u212aſ\x1c\x0b"


@settings(max_examples=300, deadline=None)
@given(
    tokens=st.lists(st.sampled_from(_TOKENS), min_size=1, max_size=6),
    names=st.lists(st.text(_NAME_CHARS, max_size=6), min_size=1, max_size=4),
    search=st.booleans(),
    ignore_case=st.booleans(),
)
def test_sh_06_every_answer_is_re_s(
    tokens: list[str], names: list[str], search: bool, ignore_case: bool
) -> None:
    pattern, flags = "".join(tokens), re.IGNORECASE if ignore_case else 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # "[[" : a possible nested set
        try:
            expected_regex = re.compile(pattern, flags)
        except re.error:
            return
        # Only the answers RE2 gives are checked here: the child process *is* re.
        regex = UserRegex(pattern, flags, search=search)
    for name in names:
        fast = regex._linear(name)
        if fast is not None:
            found = expected_regex.search(name) if search else expected_regex.fullmatch(name)
            assert fast is (found is not None), (pattern, name)
