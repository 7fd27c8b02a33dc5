"""One recording replayed the way ``hermes-hooks replay`` does it: on a copy of the
home, with outbound webhooks captured, its timeline written out entry by entry, and
every ``--fail-on`` hit collected with the turn and the callback that caused it.

:func:`replay_file` is what the CLI runs, in its own process or in a worker process
(``--jobs``); it returns a picklable :class:`ReplayResult`.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from hermes_hooks._escape import escape_json, escape_lines
from hermes_hooks.config import resolve_home
from hermes_hooks.host.timeline import (
    CapturedWebhook,
    Entry,
    Summary,
    Timeline,
    background_lines,
    entry_lines,
    heading_lines,
    summary_lines,
)

if TYPE_CHECKING:
    from hermes_hooks.host.recording import Header
    from hermes_hooks.webhooks.delivery import Delivery
    from hermes_hooks.webhooks.targets import Target

__all__ = [
    "ERROR_VERDICTS",
    "FAIL_ON",
    "Hit",
    "ReplayOptions",
    "ReplayResult",
    "crashed_result",
    "entry_hits",
    "replay_file",
    "write_to",
]

#: What ``--fail-on`` can name.
FAIL_ON = ("block", "error")

#: Verdicts that count as a callback error: it raised, failed, timed out or was
#: skipped because it hung.
ERROR_VERDICTS = frozenset({"error", "timeout", "skipped"})


@dataclass(frozen=True)
class ReplayOptions:
    """How to replay (the CLI's options, picklable for worker processes)."""

    home: str | None = None
    surface: str | None = None  # None: cli for platform cli/tui, else gateway
    approve: str = "deny"
    accept_hooks: bool = False
    entry_points: bool = True
    live_webhooks: bool = False
    in_place: bool = False
    flush_timeout: float = 2.0
    all_steps: bool = False
    json: bool = False
    fail_on: tuple[str, ...] = ()


@dataclass(frozen=True)
class Hit:
    """One ``--fail-on`` hit: a blocked call or a callback error, where it happened."""

    kind: str  # "block" or "error"
    where: str  # "turn 3 (line 7)", "command 2 (line 6)", "start-up", "shutdown"
    hook: str
    callback: str
    source: str
    reason: str

    def describe(self) -> str:
        """One line: where, which hook and callback, and why."""
        return f"{self.where}: {self.hook} {self.source} {self.callback}: {self.reason}"


@dataclass
class ReplayResult:
    """What one replay came to."""

    path: str
    summary: Summary
    hits: list[Hit] = field(default_factory=list)
    output: str = ""  # the text or JSON written, when collected (worker processes)
    seconds: float = 0.0
    #: Why the recording was not replayed to its end (its worker process died), or "".
    crashed: str = ""

    def failed_on(self, fail_on: tuple[str, ...]) -> list[str]:
        """The ``--fail-on`` reasons this replay hit, in ``FAIL_ON`` order."""
        kinds = {hit.kind for hit in self.hits}
        return [reason for reason in FAIL_ON if reason in fail_on and reason in kinds]


def _where(entry: Entry) -> str:
    if entry.kind in ("startup", "shutdown"):
        return "start-up" if entry.kind == "startup" else "shutdown"
    kind = "message" if entry.kind == "dropped" else entry.kind
    return f"{kind} {entry.index}" + (f" (line {entry.line})" if entry.line else "")


def entry_hits(entry: Entry, fail_on: tuple[str, ...]) -> list[Hit]:
    """The ``--fail-on`` hits of one finished entry, in firing order."""
    hits: list[Hit] = []
    where = _where(entry)
    for step in entry.steps:
        if "error" in fail_on:
            hits.extend(
                Hit("error", where, step.hook, run.callback, run.source, run.reason or run.verdict)
                for run in step.runs
                if run.verdict in ERROR_VERDICTS
            )
        if (
            "block" in fail_on
            and step.hook == "pre_tool_call"
            and step.outcome.startswith("BLOCKED")
        ):
            deciders = [r for r in step.runs if r.verdict in ("block", "approve", *ERROR_VERDICTS)]
            first = deciders[0] if deciders else None
            hits.append(
                Hit(
                    "block",
                    f"{where}, {step.group}" if step.group else where,
                    step.hook,
                    first.callback if first else "--approve deny",
                    first.source if first else "host",
                    step.outcome.removeprefix("BLOCKED: "),
                )
            )
    if "error" in fail_on:
        hits.extend(
            Hit("error", where, run.hook, run.callback, run.source, run.reason or run.verdict)
            for run in entry.background
            if run.verdict in ERROR_VERDICTS
        )
    return hits


def _signature(target: Target) -> str:
    if not target.signed:
        return "unsigned"
    return "github+standard" if target.signature == "standard" else "github"


#: Loggers whose messages keep the copy's paths: consent names the files it checked.
_CHECKED_PATHS = ("hermes_hooks.consent",)


class _RealHomePath(logging.Filter):
    """Shows the user's home where a message names the replay's copy of it (except
    consent's, which name the very files they checked, and say it is a copy)."""

    def __init__(self, copy: str, real: str) -> None:
        super().__init__()
        self.copy, self.real = copy, real

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name in _CHECKED_PATHS:
            return True
        message = record.getMessage()
        if self.copy in message:
            record.msg, record.args = message.replace(self.copy, self.real), None
        return True


@contextmanager
def _loaded_home(options: ReplayOptions) -> Iterator[str | None]:
    """The home to load: the real one (``--in-place``) or a throw-away copy, whose
    path log messages show as the real home's.  The copy holds the real home's
    approvals of shell hooks, asks for none and records none (an answer stored in it
    would be lost with it)."""
    if options.in_place:
        yield options.home
        return
    from hermes_hooks.host.sandbox import home_copy
    from hermes_hooks.shell.home import replay_copy

    real = resolve_home(options.home)
    with home_copy(real) as copy, replay_copy(copy, real):
        handlers = list(logging.getLogger().handlers)
        if not handlers and logging.lastResort is not None:
            handlers = [logging.lastResort]
        rename = _RealHomePath(str(copy), str(real))
        for handler in handlers:
            handler.addFilter(rename)
        try:
            yield str(copy)
        finally:
            for handler in handlers:
                handler.removeFilter(rename)


def _shown_home(loaded: str | None, options: ReplayOptions) -> Callable[[str], str]:
    """Text as the user should read it: the replay's copy of the home named as the home
    itself (log lines get the same from :class:`_RealHomePath`)."""
    if options.in_place or loaded is None:
        return lambda text: text

    real = str(resolve_home(options.home))
    return lambda text: text.replace(loaded, real)


#: Platforms of hosts that run in a terminal or a program, not behind the messaging
#: gateway: our CLI and TUI, the MCP proxy and the agent SDK adapters. A recording from
#: any of them replays on the CLI surface; every other platform is a messaging platform.
LOCAL_PLATFORMS = frozenset({"cli", "tui", "mcp", "openai-agents", "langchain", "claude-agent-sdk"})


def _surface(platform: str, chosen: str | None) -> str:
    if chosen:
        return chosen
    return "cli" if platform in LOCAL_PLATFORMS else "gateway"


def replay_file(
    path: str,
    header: Header,
    options: ReplayOptions,
    write: Callable[[str], None] | None = None,
    progress: Callable[[int], None] | None = None,
) -> ReplayResult:
    """Replay the validated recording at ``path`` (its ``header`` already read).

    Output (text, or one JSON object for ``options.json``) goes to ``write`` piece by
    piece as each entry finishes; without ``write`` it is collected in
    :attr:`ReplayResult.output`.  ``progress`` is called with the number of entries
    done after each one.
    """
    from hermes_hooks import load
    from hermes_hooks.host.load_check import LoadErrors, load_problems
    from hermes_hooks.host.loop import ReferenceHost
    from hermes_hooks.host.recording import open_recording
    from hermes_hooks.telemetry import replay_span
    from hermes_hooks.webhooks.capture import capturing

    collected: list[str] = []
    out = write or collected.append
    result = ReplayResult(path, Summary())
    recording = open_recording(path, header=header)
    started = time.perf_counter()
    done = 0

    def finished(entry: Entry) -> None:
        nonlocal done
        done += 1
        result.hits.extend(entry_hits(entry, options.fail_on))
        if options.json:
            out(("" if done == 1 else ",\n") + _json(asdict(entry)))
        else:
            out(escape_lines([*entry_lines(entry, options.all_steps), ""]) + "\n")
        if progress is not None:
            progress(done)

    def captured(target: Target, delivery: Delivery) -> None:
        # Deliveries are built while the host replays, so its timeline exists.
        host.timeline.capture(
            CapturedWebhook(
                target.label, target.url, delivery.event, len(delivery.body), _signature(target)
            )
        )

    with _loaded_home(options) as home:
        capture = nullcontext() if options.live_webhooks else capturing(captured)
        with capture, LoadErrors().attached() as load_errors:
            hooks = load(
                home,
                surface=_surface(header.platform, options.surface),
                accept_hooks=options.accept_hooks,
                entry_points=options.entry_points,
            )
        if "error" in options.fail_on:  # a guard that never loaded fails the gate too
            shown = _shown_home(home, options)
            result.hits.extend(
                Hit("error", "start-up", "load", subject, "home", shown(message))
                for subject, message in load_problems(hooks, load_errors.messages)
            )
        host = ReferenceHost(
            hooks, approve=options.approve, keep_fired=False, on_entry=finished, keep_entries=False
        )
        _begin(out, path, header, host.surface, options.json)
        try:
            with replay_span(path):  # one trace per recording, when telemetry is on
                timeline = host.replay(recording)
        finally:
            host.finish(options.flush_timeout)
    result.summary = timeline.summary
    result.seconds = time.perf_counter() - started
    _end(out, timeline, result, options)
    result.output = "".join(collected)
    return result


def crashed_result(
    path: str, header: Header, options: ReplayOptions, reason: str, seconds: float
) -> ReplayResult:
    """The result of a recording whose replay died before it finished: no timeline, an
    empty summary, and an output that says why in the place the timeline would be."""
    result = ReplayResult(path, Summary(), seconds=seconds, crashed=reason)
    if options.json:
        head = {
            "recording": path,
            "session_id": header.session_id,
            "platform": header.platform,
            "model": header.model,
            "crashed": reason,
            "entries": [],
            "background": [],
            "summary": asdict(result.summary),
            "failures": [],
        }
        result.output = json.dumps(head, ensure_ascii=False)
        return result
    lines = [f"Replay of {path}", f"  NOT REPLAYED: {reason}"]
    result.output = "\n".join(lines) + "\n"
    return result


def _begin(out: Callable[[str], None], path: str, header: Header, surface: str, js: bool) -> None:
    if js:
        head = {
            "recording": path,
            "session_id": header.session_id,
            "platform": header.platform,
            "model": header.model,
            "surface": surface,
        }
        out(_json(head)[:-1] + ', "entries": [\n')
        return
    lines = heading_lines(path, header.session_id, header.platform, header.model, surface)
    out(escape_lines(lines) + "\n")


def _end(
    out: Callable[[str], None], timeline: Timeline, result: ReplayResult, options: ReplayOptions
) -> None:
    if options.json:
        tail = {
            "background": [asdict(r) for r in timeline.background],
            "summary": asdict(timeline.summary),
            "failures": [asdict(hit) for hit in result.hits],
        }
        out("\n], " + _json(tail)[1:])
        return
    lines = [*background_lines(timeline.background), *summary_lines(timeline.summary)]
    out(escape_lines(lines) + "\n")


def _json(data: Any) -> str:
    """``data`` as one JSON line of the report, safe on a terminal
    (:func:`~hermes_hooks._escape.escape_json`)."""
    return escape_json(json.dumps(data, ensure_ascii=False))


def write_to(stream: Any) -> Callable[[str], None]:
    """A ``write`` for :func:`replay_file` that flushes ``stream`` after each piece, so
    each turn shows as soon as it finishes."""

    def write(text: str) -> None:
        stream.write(text)
        stream.flush()

    return write
