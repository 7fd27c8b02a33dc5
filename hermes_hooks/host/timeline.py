"""What a replay saw: a timeline of steps with the decision records of each, and a summary.

The reference host opens a :class:`Step` around every hook firing and gateway emission;
the :class:`Timeline` is subscribed to the dispatcher's decision records (and to the
gateway emitter's call records) and files each record under the step that was open
when the callback ran.  Records that arrive from other threads while no matching step
is open (streaming lanes, late deliveries) go to the ``background`` of the entry being
built, so they stay under their turn.  Captured webhook deliveries are filed the same
way.  Entries are numbered with a counter; a finished entry can be handed to a sink
at once and forgotten, so a long replay prints as it goes in constant memory.
Rendering (text and JSON) lives here too, so the CLI only presents.

A shell hook whose matcher does not accept a call's tool is never started (a Claude Code
``Bash`` hook on a ``write_file`` call), though the dispatcher still records the callback
with nothing to say: such a record is left out of the timeline and out of the counts
(:func:`matcher_check`), so the report shows the hooks that ran.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from hermes_hooks.types import DecisionRecord

if TYPE_CHECKING:
    from hermes_hooks._manager import HookManager

#: ``started(hook, callback name, tool name)``: False when the callback's matcher
#: does not accept the tool, so it was never started.
Started = Callable[[str, str, str], bool]

__all__ = [
    "CallbackRun",
    "CapturedWebhook",
    "Entry",
    "Step",
    "Summary",
    "Timeline",
    "background_lines",
    "entry_lines",
    "heading_lines",
    "matcher_check",
    "render_text",
]


_UNNUMBERED = frozenset({"startup", "shutdown"})


@dataclass
class CallbackRun:
    """One callback run, from a :class:`~hermes_hooks.types.DecisionRecord`."""

    hook: str
    callback: str
    source: str
    verdict: str
    reason: str | None
    duration_ms: float

    @classmethod
    def from_record(cls, record: DecisionRecord) -> CallbackRun:
        """Copy the fields the timeline keeps."""
        return cls(
            hook=record.hook,
            callback=record.callback,
            source=record.source,
            verdict=record.verdict,
            reason=record.reason,
            duration_ms=round(record.duration * 1000.0, 3),
        )


@dataclass
class CapturedWebhook:
    """One signed webhook delivery the replay built and kept instead of sending."""

    target: str
    url: str
    event: str
    body_bytes: int
    signature: str  # the scheme ("github", "standard", "github+standard") or "unsigned"


@dataclass
class Step:
    """One firing: a plugin hook (``system="plugin"``), a gateway event or a middleware
    pass (``system="middleware"``)."""

    hook: str
    system: str = "plugin"
    group: str | None = None  # e.g. "tool terminal call-1": steps of one tool call
    detail: str = ""
    outcome: str = ""
    notable: bool = False  # shown even without callbacks (blocks, errors, nudges)
    runs: list[CallbackRun] = field(default_factory=list)
    duration_ms: float = 0.0
    webhooks: list[CapturedWebhook] = field(default_factory=list)


@dataclass
class Entry:
    """One user line of the recording: a model turn or a slash command."""

    index: int
    session_id: str
    kind: str  # "turn", "command", "dropped", "startup" or "shutdown"
    text: str
    line: int | None = None
    steps: list[Step] = field(default_factory=list)
    response: str | None = None
    exit_reason: str | None = None
    notes: list[str] = field(default_factory=list)
    background: list[CallbackRun] = field(default_factory=list)
    webhooks: list[CapturedWebhook] = field(default_factory=list)


@dataclass
class Summary:
    """The counts a replay reports (from decision records and what the host saw)."""

    turns: int = 0
    commands: int = 0
    tool_calls: int = 0
    calls_blocked: int = 0
    approvals_requested: int = 0
    approvals_denied: int = 0
    args_modified: int = 0
    context_injected: int = 0
    verify_nudges: int = 0
    results_transformed: int = 0
    terminal_outputs_transformed: int = 0
    responses_transformed: int = 0
    api_errors: int = 0
    webhooks_queued: int = 0
    #: Deliveries built and signed but not sent (the default of ``replay``).
    webhooks_captured: int = 0
    #: None = unknown (no outbound adapter reported delivery counts).
    webhooks_delivered: int | None = None
    webhooks_failed: int | None = None
    callbacks_run: int = 0
    errors: int = 0
    timeouts: int = 0
    skipped: int = 0
    blocks_by_source: dict[str, int] = field(default_factory=dict)

    def add(self, other: Summary) -> None:
        """Add ``other``'s counts into this one (for a multi-file total)."""
        for name, value in vars(other).items():
            mine = getattr(self, name)
            if isinstance(value, dict):
                merged = Counter(mine)
                merged.update(value)
                setattr(self, name, dict(sorted(merged.items())))
            elif value is None:
                continue
            else:
                setattr(self, name, (mine or 0) + value)


class Timeline:
    """The replay of one recording, built while the host runs.

    ``on_entry`` receives each entry once it is finished (the next one began, or
    :meth:`end` was called); with ``keep_entries=False`` it is then dropped from
    :attr:`entries`.
    """

    def __init__(
        self,
        source: str,
        *,
        session_id: str,
        platform: str,
        model: str,
        surface: str,
        on_entry: Callable[[Entry], None] | None = None,
        keep_entries: bool = True,
        started: Started | None = None,
    ) -> None:
        self.source = source
        self.session_id = session_id
        self.platform = platform
        self.model = model
        self.surface = surface
        self.entries: list[Entry] = []
        self.background: list[CallbackRun] = []  # records that came before any entry
        self.summary = Summary()
        self._lock = threading.Lock()
        self._open: Step | None = None
        self._thread: int | None = None
        self._current: Entry | None = None
        self._numbered = 0
        self._on_entry = on_entry
        self._keep = keep_entries
        self._started = started

    # -- building ----------------------------------------------------------------------

    def begin(self, kind: str, text: str, *, session_id: str, line: int | None = None) -> Entry:
        """Start the entry of the next user line (or the start-up / shutdown entry).

        User lines are numbered from 1; start-up and shutdown entries get 0, so the
        numbers do not depend on whether the gateway emitted a start-up event.
        """
        index = 0
        if kind not in _UNNUMBERED:
            self._numbered += 1
            index = self._numbered
        entry = Entry(index, session_id, kind, text, line)
        with self._lock:
            previous, self._current = self._current, entry
        if self._keep:
            self.entries.append(entry)
        if previous is not None and self._on_entry is not None:
            self._on_entry(previous)
        return entry

    def end(self) -> None:
        """The replay is over: hand the last entry to the sink (once)."""
        with self._lock:
            last, self._current = self._current, None
        if last is not None and self._on_entry is not None:
            self._on_entry(last)

    @property
    def entry(self) -> Entry:
        """The entry being built (a ``startup`` entry is created on demand)."""
        current = self._current
        if current is None:
            return self.begin("startup", "", session_id=self.session_id)
        return current

    def open(self, step: Step) -> Step:
        """Make ``step`` the one records of this thread go to."""
        entry = self.entry
        with self._lock:
            entry.steps.append(step)
            self._open = step
            self._thread = threading.get_ident()
        return step

    def close(self, step: Step) -> None:
        """Stop filing records under ``step``."""
        with self._lock:
            if self._open is step:
                self._open = None

    def _file(self, run: CallbackRun) -> None:
        """File ``run`` under the open step that fired it, else its entry's background
        (the lock is held)."""
        step = self._open
        # Gateway handlers run on the bridge's loop thread while the host waits for
        # the emission, so a gateway step takes matching records from any thread.
        if (
            step is not None
            and step.hook == run.hook
            and (step.system == "gateway" or self._thread == threading.get_ident())
        ):
            step.runs.append(run)
        elif self._current is not None:
            self._current.background.append(run)
        else:
            self.background.append(run)
        self._count(run)

    def listen(self, record: DecisionRecord) -> None:
        """The decision-record subscriber: file the record and count it (unless its
        hook was never started: its matcher does not accept the call's tool)."""
        run = CallbackRun.from_record(record)
        with self._lock:
            if not self._never_started(run):
                self._file(run)

    def _never_started(self, run: CallbackRun) -> bool:
        """Whether ``run`` is a shell hook that said nothing because its matcher does
        not accept the tool of the open step (the lock is held)."""
        step = self._open
        if self._started is None or run.source != "shell" or run.verdict != "none":
            return False
        if step is None or step.hook != run.hook or self._thread != threading.get_ident():
            return False
        tool = tool_of(step)
        return tool is not None and not self._started(run.hook, run.callback, tool)

    def listen_gateway(self, record: Any) -> None:
        """The gateway emitter's call-record subscriber: a handler run, filed and
        counted like a callback run (``ok`` is shown as ``ok``; a failure counts as
        an error, a timeout as a timeout, a dropped event as skipped)."""
        verdict = {"ok": "ok", "dropped": "skipped"}.get(record.outcome, record.outcome)
        run = CallbackRun(
            hook=record.event,
            callback=record.hook,
            source="gateway",
            verdict=verdict,
            reason=record.detail or None,
            duration_ms=round(float(getattr(record, "duration", 0.0) or 0.0) * 1000.0, 3),
        )
        with self._lock:
            self._file(run)

    def capture(self, webhook: CapturedWebhook) -> None:
        """File a captured webhook delivery under the step whose callback built it."""
        with self._lock:
            step = self._open
            if step is not None and step.hook == webhook.event:
                step.webhooks.append(webhook)
            elif self._current is not None:
                self._current.webhooks.append(webhook)
            self.summary.webhooks_captured += 1

    def _count(self, run: CallbackRun) -> None:
        summary = self.summary
        summary.callbacks_run += 1
        if run.verdict == "error":
            summary.errors += 1
        elif run.verdict == "timeout":
            summary.timeouts += 1
        elif run.verdict == "skipped":
            summary.skipped += 1
        if run.source == "webhook" and run.verdict not in ("error", "timeout", "skipped"):
            summary.webhooks_queued += 1
        if run.verdict == "block":
            by = summary.blocks_by_source
            by[run.source] = by.get(run.source, 0) + 1

    # -- presenting --------------------------------------------------------------------

    def as_dict(self) -> dict[str, Any]:
        """The JSON form of the replay (``hermes-hooks replay --json``)."""
        return {
            "recording": self.source,
            "session_id": self.session_id,
            "platform": self.platform,
            "model": self.model,
            "surface": self.surface,
            "entries": [asdict(e) for e in self.entries],
            "background": [asdict(r) for r in self.background],
            "summary": asdict(self.summary),
        }


def tool_of(step: Step) -> str | None:
    """The tool of a step of a tool call (its group is ``tool <name> <id> <args>``)."""
    if step.group is None or not step.group.startswith("tool "):
        return None
    parts = step.group.split(" ", 2)
    return parts[1] if len(parts) > 1 else None


def matcher_check(manager: HookManager) -> Started:
    """``started`` for a :class:`Timeline` of hooks on ``manager``: asks the dialect of
    a shell hook's entry whether its matcher accepts the tool (the same question the
    hook asks before it spawns anything); any other callback counts as started."""

    def started(hook: str, name: str, tool: str) -> bool:
        for callback in manager.callbacks(hook):
            if callback.name != name:
                continue
            function = callback.function
            entry = getattr(function, "entry", None)
            dialect = getattr(function, "dialect", None)
            if entry is None or dialect is None or not hasattr(dialect, "matches"):
                return True
            try:
                return bool(dialect.matches(entry, tool))
            except Exception:  # in doubt it ran: a record is never hidden by mistake
                return True
        return True

    return started


# -- text rendering ------------------------------------------------------------------------


def _short(text: str | None, limit: int = 80) -> str:
    """One line, at most ``limit`` characters."""
    if text is None:
        return ""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _ms(value: float) -> str:
    return f"{value:.1f} ms" if value < 1000 else f"{value / 1000:.2f} s"


def _step_lines(step: Step, indent: str) -> list[str]:
    label = step.hook if step.system == "plugin" else f"[{step.system}] {step.hook}"
    head = f"{indent}{label}"
    if step.detail:
        head += f"  {step.detail}"
    if step.outcome:
        head += f"  → {step.outcome}"
    lines = [head]
    lines.extend(_run_line(run, f"{indent}    ") for run in step.runs)
    lines.extend(_webhook_line(hook, f"{indent}    ") for hook in step.webhooks)
    return lines


def _run_line(run: CallbackRun, indent: str, hook: bool = False) -> str:
    name = f"{run.hook} {run.callback}" if hook else run.callback
    line = f"{indent}{run.source:<7} {name}  {run.verdict}  {_ms(run.duration_ms)}"
    if run.reason and run.verdict not in ("none", "ok"):
        line += f"  {_short(run.reason, 60)!r}"
    return line


def _webhook_line(hook: CapturedWebhook, indent: str) -> str:
    return (
        f"{indent}captured webhook {hook.target} → {hook.url}  {hook.event}, "
        f"{hook.body_bytes} bytes, signature {hook.signature} (not sent)"
    )


def entry_lines(entry: Entry, all_steps: bool = False) -> list[str]:
    """The readable lines of one entry (a turn, command, start-up or shutdown)."""
    title = {
        "turn": "Turn",
        "command": "Command",
        "dropped": "Message",
        "startup": "Start-up",
        "shutdown": "Shutdown",
    }[entry.kind]
    where = f" (line {entry.line})" if entry.line else ""
    number = f" {entry.index}" if entry.index else ""
    lines = [f"{title}{number}{where} · session {entry.session_id}"]
    if entry.text:
        lines[0] += f' · "{_short(entry.text, 60)}"'
    group: str | None = None
    hidden = 0
    for step in entry.steps:
        if not (all_steps or step.runs or step.notable):
            hidden += 1
            continue
        if step.group != group:
            group = step.group
            if group:
                lines.append(f"  {group}")
        lines.extend(_step_lines(step, "    " if group else "  "))
    if hidden:
        lines.append(f"  ({hidden} firing(s) with no callbacks not shown; --all-steps shows them)")
    if entry.background or entry.webhooks:
        lines.append("  background (outside a host step, during this entry)")
        lines.extend(_run_line(run, "    ", hook=True) for run in entry.background)
        lines.extend(_webhook_line(hook, "    ") for hook in entry.webhooks)
    lines.extend(f"  note: {note}" for note in entry.notes)
    if entry.kind == "turn":
        outcome = entry.exit_reason or "?"
        if entry.response is not None:
            lines.append(f'  response: "{_short(entry.response)}"  ({outcome})')
        else:
            lines.append(f"  no response delivered ({outcome})")
    return lines


def summary_lines(summary: Summary) -> list[str]:
    """The summary block of the text output."""
    delivered = "unknown" if summary.webhooks_delivered is None else str(summary.webhooks_delivered)
    failed = "" if summary.webhooks_failed is None else f", {summary.webhooks_failed} failed"
    fate = f"delivered {delivered}{failed}"
    if summary.webhooks_captured:
        fate = f"captured {summary.webhooks_captured}, not sent; --live-webhooks sends them"
    # Several gates may block the same call: the calls blocked, then the answers that
    # said block, by hook system (two shell gates on one call: 1, and shell 2).
    by = ", ".join(f"{k} {v}" for k, v in sorted(summary.blocks_by_source.items()))
    if by:
        by = f"block answers: {by}"
    return [
        "Summary",
        f"  turns {summary.turns}, commands {summary.commands}, tool calls {summary.tool_calls}",
        f"  calls blocked          {summary.calls_blocked}" + (f"  ({by})" if by else ""),
        f"  approvals requested    {summary.approvals_requested}"
        f"  (denied {summary.approvals_denied})",
        f"  args modified          {summary.args_modified}",
        f"  context injected       {summary.context_injected}"
        f"  (verify nudges {summary.verify_nudges})",
        f"  results transformed    {summary.results_transformed}"
        f"  (terminal outputs {summary.terminal_outputs_transformed},"
        f" responses {summary.responses_transformed})",
        f"  api errors             {summary.api_errors}",
        f"  webhooks queued        {summary.webhooks_queued}  ({fate})",
        f"  callback errors        {summary.errors}"
        f"  (timeouts {summary.timeouts}, skipped {summary.skipped};"
        f" {summary.callbacks_run} callback runs)",
    ]


def heading_lines(
    source: str, session_id: str, platform: str, model: str, surface: str
) -> list[str]:
    """The first lines of a replay's text output (a blank line last)."""
    return [
        f"Replay of {source}",
        f"  session {session_id} · platform {platform} · model {model} · surface {surface}",
        "",
    ]


def background_lines(runs: list[CallbackRun]) -> list[str]:
    """The block of callback runs that came before the first entry, if any."""
    if not runs:
        return []
    return [
        "Background (callbacks that ran outside a host step):",
        *(_run_line(run, "    ", hook=True) for run in runs),
        "",
    ]


def render_text(timeline: Timeline, *, all_steps: bool = False) -> list[str]:
    """The readable timeline of one replay, then its summary."""
    t = timeline
    lines = heading_lines(t.source, t.session_id, t.platform, t.model, t.surface)
    for entry in timeline.entries:
        lines.extend(entry_lines(entry, all_steps))
        lines.append("")
    lines.extend(background_lines(timeline.background))
    lines.extend(summary_lines(timeline.summary))
    return lines
