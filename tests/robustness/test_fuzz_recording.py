"""Fuzzing the session-recording reader (hermes_hooks.host.recording).

Property: any input is either read into a Recording or refused with a RecordingError
whose message names the file and the line (``<file>:<line>: <reason>``), never any
other exception.  Profiles as in ``conftest.py`` (``HYPOTHESIS_PROFILE=fuzz`` for many
examples).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

_json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
_json_values = st.recursive(
    _json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
_LINE_TYPES = ["header", "user", "assistant", "tool_result", "subagent", "interrupt", "edit", "x"]
_record_lines = st.fixed_dictionaries(
    {"type": st.sampled_from(_LINE_TYPES)},
    optional={
        "version": st.integers(-1, 3) | st.text(max_size=3),
        "session_id": _json_values,
        "platform": _json_values,
        "model": _json_values,
        "text": _json_values,
        "tool_calls": _json_values,
        "tool_call_id": _json_values,
        "content": _json_values,
        "status": _json_values,
        "deltas": _json_values,
        "error": _json_values,
    },
)


@given(
    lines=st.lists(
        st.one_of(
            _record_lines.map(json.dumps),
            st.text(max_size=40),  # garbage, blank lines, half JSON
            _json_values.map(json.dumps),
        ),
        max_size=8,
    ),
    valid_header=st.booleans(),
)
def test_the_recording_reader_accepts_or_names_the_line(
    lines: list[str], valid_header: bool
) -> None:
    from hermes_hooks.errors import RecordingError
    from hermes_hooks.host.recording import Recording, parse_recording

    if valid_header:
        header = {
            "type": "header",
            "version": 1,
            "session_id": "s",
            "platform": "cli",
            "model": "m",
        }
        lines = [json.dumps(header), *lines]
    try:
        recording = parse_recording(lines, path="fuzz.jsonl")
    except RecordingError as exc:
        assert re.match(r"^fuzz\.jsonl:\d+: \S", str(exc)), str(exc)
    else:
        assert isinstance(recording, Recording)


# -- hostile recordings ---------------------------------------------------------------

_HEADER = '{"type": "header", "version": 1, "session_id": "s", "platform": "cli", "model": "m"}'
_HOSTILE = {
    "deep nesting": (
        '{"type": "user", "text": "x", "extra": ' + "[" * 100_000 + "]" * 100_000 + "}",
        "nested deeper than 64 levels",
    ),
    "nesting just over the limit": (
        '{"type": "user", "text": "x", "extra": ' + "[" * 64 + "]" * 64 + "}",
        "nested deeper than 64 levels",
    ),
    "huge integer": (
        '{"type": "user", "text": "x", "n": ' + "9" * 5000 + "}",
        "integer with 5000 digits is out of range (at most 2**63 - 1)",
    ),
    "integer just past 64 bits": (
        '{"type": "user", "text": "x", "n": 9223372036854775808}',
        "integer 9223372036854775808 is out of range (at most 2**63 - 1)",
    ),
    "infinite float": (
        '{"type": "user", "text": "x", "n": 1e999}',
        "number 1e999 is too large (not a finite number)",
    ),
    "NaN": ('{"type": "user", "text": "x", "n": NaN}', "NaN is not JSON (use a number or null)"),
    "lone surrogate": (
        '{"type": "user", "text": "\\ud800 oops"}',
        "a string holds a lone UTF-16 surrogate (not valid Unicode text)",
    ),
    "surrogate in a key": (
        '{"type": "user", "text": "x", "\\udfff": 1}',
        "a key holds a lone UTF-16 surrogate (not valid Unicode text)",
    ),
}


@pytest.mark.parametrize("case", sorted(_HOSTILE))
def test_hostile_lines_are_refused_naming_the_line(case: str) -> None:
    from hermes_hooks.errors import RecordingError
    from hermes_hooks.host.recording import parse_recording

    line, reason = _HOSTILE[case]
    with pytest.raises(RecordingError) as caught:
        parse_recording([_HEADER, line], path="hostile.jsonl")
    assert str(caught.value) == f"hostile.jsonl:2: {reason}"


def test_a_huge_line_is_refused_without_parsing_it() -> None:
    from hermes_hooks.errors import RecordingError
    from hermes_hooks.host.recording import parse_recording
    from hermes_hooks.host.recording_lines import MAX_LINE_CHARS

    line = '{"type": "user", "text": "' + "x" * MAX_LINE_CHARS + '"}'
    with pytest.raises(RecordingError) as caught:
        parse_recording([_HEADER, line], path="big.jsonl")
    assert str(caught.value) == (
        f"big.jsonl:2: line is {len(line)} characters long; the limit is {MAX_LINE_CHARS} "
        "(split the content or shorten the tool output)"
    )


def test_the_deepest_accepted_nesting_reads() -> None:
    from hermes_hooks.host.recording import parse_recording

    line = '{"type": "user", "text": "x", "extra": ' + "[" * 63 + "]" * 63 + "}"
    recording = parse_recording([_HEADER, line], path="ok.jsonl")
    assert [e.user.text for e in recording.exchanges] == ["x"]


@pytest.mark.parametrize("case", ["deep nesting", "huge integer", "lone surrogate"])
def test_replay_refuses_a_hostile_recording_before_any_hook_runs(case: str, tmp_path: Path) -> None:
    """Exit 2 with ``file:line: reason`` and no traceback, while a good recording
    given first would have run a hook that writes a file."""
    home = tmp_path / "home"
    plugin = home / "plugins" / "marker"
    plugin.mkdir(parents=True)
    (plugin / "plugin.yaml").write_text("name: marker\nversion: 1.0.0\n", encoding="utf-8")
    marker = tmp_path / "ran"
    (plugin / "__init__.py").write_text(
        "from pathlib import Path\n\n"
        f"def mark(**kw):\n    Path({str(marker)!r}).write_text('x')\n\n"
        "def register(ctx):\n    ctx.register_hook('pre_llm_call', mark)\n",
        encoding="utf-8",
    )
    good = tmp_path / "good.jsonl"
    good.write_text(_HEADER + '\n{"type": "user", "text": "hi"}\n', encoding="utf-8")
    bad = tmp_path / "bad.jsonl"
    line, reason = _HOSTILE[case]
    bad.write_text(_HEADER + "\n" + line + "\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "hermes_hooks", "--no-entry-points", "--home", str(home),
         "replay", "--in-place", str(good), str(bad)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == f"hermes-hooks: {bad}:2: {reason}\n"
    assert not marker.exists()
