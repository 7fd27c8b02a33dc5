"""The reference host: a small agent loop, driven by session recordings, that fires every
hook where the spec says and shows what each hook decided (``hermes-hooks replay``).

::

    from hermes_hooks import load
    from hermes_hooks.host import load_recording, replay, render_text

    recording = load_recording("session.jsonl")          # RecordingError names the line
    timeline = replay(recording, load("~/.hermes"))     # closes the hooks afterwards
    print("\\n".join(render_text(timeline)))

See ``docs/host-and-replay.md`` for the firing order and the recording format.
"""

from __future__ import annotations

from hermes_hooks.host.loop import (
    APPROVAL_POLICIES,
    DEFAULT_MAX_VERIFY_NUDGES,
    ReferenceHost,
    delivery_stats,
    replay,
)
from hermes_hooks.host.recording import (
    LINE_TYPES,
    RECORDING_VERSION,
    Recording,
    RecordingWriter,
    iter_recording,
    load_recording,
    open_recording,
    parse_recording,
    scan_recording,
)
from hermes_hooks.host.timeline import Summary, Timeline, render_text, summary_lines
from hermes_hooks.host.tools import RecordedToolRunner, SubagentRun, ToolOutcome, ToolRunner

__all__ = [
    "APPROVAL_POLICIES",
    "DEFAULT_MAX_VERIFY_NUDGES",
    "LINE_TYPES",
    "RECORDING_VERSION",
    "RecordedToolRunner",
    "Recording",
    "RecordingWriter",
    "ReferenceHost",
    "SubagentRun",
    "Summary",
    "Timeline",
    "ToolOutcome",
    "ToolRunner",
    "delivery_stats",
    "iter_recording",
    "load_recording",
    "open_recording",
    "parse_recording",
    "render_text",
    "replay",
    "scan_recording",
    "summary_lines",
]
