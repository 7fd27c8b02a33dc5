"""Fuzzing the session-recording reader (hermes_hooks.host.recording).

Property: any input is either read into a Recording or refused with a RecordingError
whose message names the file and the line (``<file>:<line>: <reason>``), never any
other exception.  Profiles as in ``conftest.py`` (``HYPOTHESIS_PROFILE=fuzz`` for many
examples).
"""

from __future__ import annotations

import json
import re

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
