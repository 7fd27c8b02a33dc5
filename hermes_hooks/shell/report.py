"""Shell hooks in ``hermes-hooks list`` and ``doctor``, as the shell source reports them.

:func:`section` renders the list section (matcher, timeout, consent state,
drift warnings); :func:`check` yields the doctor findings: execute
bit, allowlist status, mtime and content drift, and a JSON smoke test on the synthetic
payload with the elapsed time.  Neither writes the allowlist.  The helpers
(:func:`approve_hint`, :func:`describe_entry`, :func:`drift_lines`, ...) are shared
with the ``test`` and ``approve`` commands.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from collections.abc import Sequence
from typing import Any, Literal, Protocol

from hermes_hooks._perms import loose_paths
from hermes_hooks.report import EntryErrors, Finding, Section
from hermes_hooks.shell.config import BLOCKING_EVENTS, ConfigProblem, script_for_argv
from hermes_hooks.shell.consent import (
    Allowlist,
    Approval,
    approve_hint,
    reapprove_hint,
)
from hermes_hooks.shell.dialect import dialect_of
from hermes_hooks.shell.entry import ShellEntry
from hermes_hooks.shell.hook import ShellRecord, run_once
from hermes_hooks.shell.pin_check import drift
from hermes_hooks.synthetic import synthetic_payload

__all__ = [
    "NO_MTIME_NOTE",
    "LoadedShell",
    "approve_hint",
    "check",
    "describe_entry",
    "drift_lines",
    "program_problem",
    "section",
    "short_text",
    "unloaded_section",
]

DriftLevel = Literal["ok", "info", "warn", "error"]
_LEVEL_MARKS = {"ok": "✓", "info": "ℹ", "warn": "⚠", "error": "✗"}
#: Byte-exact, carrying its own mark: an old entry is a note, not an issue.
NO_MTIME_NOTE = "ℹ no approval-time mtime recorded — cannot detect edits"


class LoadedShell(Protocol):
    """What reporting needs of a loaded shell source (:class:`~.ShellSource`)."""

    bypass: str | None

    @property
    def allowlist(self) -> Allowlist:
        """The home's shell-hooks allowlist."""

    def records(self) -> list[ShellRecord]:
        """Every configured entry, in config order, with its state."""

    def problems(self) -> list[ConfigProblem]:
        """The warnings raised while reading the ``hooks:`` block."""


def describe_entry(entry: ShellEntry) -> str:
    """``matcher='x' timeout=5s fail_closed``: the settings of one entry (with its
    dialect's own, such as ``dialect=claude-code (PreToolUse)``, from the dialect)."""
    parts = [f"matcher={entry.matcher!r}"] if entry.matcher else []
    parts.extend(dialect_of(entry).describe(entry))
    parts.append(f"timeout={entry.timeout}s")
    if entry.fail_closed:
        parts.append("fail_closed")
    return " ".join(parts)


def short_text(text: str, limit: int) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def drift_lines(
    approval: Approval,
    base: str | None = None,
    identity: str | os.PathLike[str] | None = None,
    variables: tuple[tuple[str, str], ...] = (),
) -> tuple[list[tuple[DriftLevel, str]], dict[str, Any]]:
    """(level, text) lines about a script's changes since ``approval``, and a JSON view.

    A command that resolves to other files than its approval pinned is an error: it is
    refused at every firing until approved again.  Edits to the pinned script are
    warnings: edits to an approved script are trusted and only flagged.  ``base`` is the
    home relative paths in the command resolve against, ``identity`` the home it is (a
    replay's copy stands for the home it was copied from).  In another home than the
    one it was approved in, only the bytes count: a copy or clone has new mtimes.
    """
    found = drift(approval, base, identity, variables)
    lines: list[tuple[DriftLevel, str]] = []
    if found.refused is not None:
        fix = reapprove_hint(approval.event, approval.command, found.current.resolution)
        lines.append(("error", f"refused — {found.refused}; not run until approved again: {fix}"))
    hint = f"review it, then re-approve: {approve_hint(approval.event, approval.command)}"
    if found.missing:
        where = found.current.path or approval.command
        lines.append(("warn", f"script not found: {where}"))
    elif not found.mtime_recorded:
        lines.append(("info", NO_MTIME_NOTE))  # the note keeps its own mark, byte-exact
    elif found.moved_from is not None and found.content_changed is False:
        lines.append(
            (
                "ok",
                "script unchanged since approval (same sha256; approved in the home "
                f"{found.moved_from})",
            )
        )
    elif found.mtime_changed:
        lines.append(
            (
                "warn",
                f"script modified since approval (was {approval.script_mtime_at_approval}, "
                f"now {found.current.mtime}) — {hint}",
            )
        )
    if found.content_changed:
        was = (approval.script_sha256 or "")[:12]
        now = (found.current.sha256 or "")[:12]
        same_mtime = found.mtime_recorded and not found.mtime_changed
        lines.append(
            (
                "warn",
                f"script content changed since approval (sha256 {was}… → {now}…"
                f"{', mtime preserved' if same_mtime else ''}) — {hint}",
            )
        )
    if not lines:
        lines.append(("ok", "script unchanged since approval"))
    view = {
        "script": str(found.current.path) if found.current.path else None,
        "mtime_now": found.current.mtime,
        "sha256_now": found.current.sha256,
        "mtime_changed": found.mtime_changed if found.mtime_recorded else None,
        "content_changed": found.content_changed,
        "missing": found.missing,
        "program": found.current.resolution.program if found.current.resolution else None,
        "refused": found.refused,
        "approved_in": found.moved_from,
    }
    return lines, view


def _mark(level: str, text: str) -> str:
    """``text`` with its level's mark in front (the no-mtime note carries its own)."""
    if text == NO_MTIME_NOTE:
        return text
    return f"{_LEVEL_MARKS[level]} {text}"


def program_problem(entry: ShellEntry) -> str | None:
    """Why ``entry`` cannot start, or None: the program must exist and be executable,
    and the script it names must be readable.  A Claude Code prompt or agent
    handler runs no program."""
    if not entry.runs_program:
        return None
    program = entry.argv[0]
    if os.sep in program or (os.altsep and os.altsep in program):
        if not os.path.isfile(program):
            return f"{program} not found"
        if not os.access(program, os.X_OK):
            return f"{program} is not executable (chmod +x it)"
    elif shutil.which(program) is None:
        return f"{program} not found on PATH"
    script = script_for_argv(entry.argv)
    if script is not None and str(script) != program and os.sep in str(script):
        if not script.is_file():
            return f"script {script} not found"
        if not os.access(script, os.R_OK):
            return f"script {script} is not readable"
    return None


# -- list ------------------------------------------------------------------------------


_MARK = {
    "registered": "✓",
    "not allowlisted": "✗",
    "declined": "✗",
    "duplicate": "–",
    "failed": "✗",
    "refused": "✗",
}


def entry_of(where: str) -> str:
    """The ``list`` entry of the shell hook at ``hooks.<event>[<index>]``, as its
    findings name it."""
    return f"shell {where}"


def _record_view(
    record: ShellRecord,
    allowlist: Allowlist,
    errors: Sequence[str] = (),
    problems: Sequence[ConfigProblem] = (),
) -> tuple[dict[str, Any], list[str]]:
    entry = record.entry
    view = record.as_dict()
    approval = allowlist.find(entry.event, entry.command)
    state = record.state
    if state == "registered" and approval is None and record.consent == "allowlist":
        state = "revoked"  # removed after load: running processes stop calling it
    details: list[str] = []
    view["drift"] = None
    if approval is not None:
        details.append(f"        approved {approval.approved_at or '(no date recorded)'}")
        changes, view["drift"] = drift_lines(
            approval, entry.base, allowlist.identity, entry.variables
        )
        details.extend(f"        {_mark(level, text)}" for level, text in changes if level != "ok")
        if state == "registered" and view["drift"]["refused"]:
            state = "refused"  # resolves elsewhere than approved: not run until re-approved
    else:
        details.append(f"        approve it with: {approve_hint(entry.event, entry.command)}")
    if record.note:
        details.append(f"        note: {record.note}")
    # The problems of reading this entry, at their place in config.yaml.
    details.extend(
        f"        {'✗' if p.weakens_gate else '⚠'} {p.position or p.where}: {p.message}"
        for p in problems
    )
    # What doctor fails the entry on (a misspelt fail_closed, a program that cannot
    # start) is shown on it, unless a line above already says it.
    said = [line.strip().split(": ", 1)[-1] for line in details]
    details.extend(f"        ✗ {e}" for e in errors if not any(e in t or t in e for t in said if t))
    mark = "✗" if errors else _MARK.get(state, "✗")
    view["state"] = state
    view["approval"] = approval.as_json() if approval else None
    return view, [f"    {mark} {entry.command}  {describe_entry(entry)}  ({state})", *details]


def unloaded_section() -> Section:
    """The ``list`` section when the shell adapter did not run (safe mode)."""
    return Section(None, ["Shell hooks: not loaded (HERMES_SAFE_MODE, or not this surface)"])


def section(source: LoadedShell, errors: EntryErrors | None = None) -> Section:
    """The ``list`` section: each shell hook with its settings and consent state; an
    entry with an error finding in ``errors`` is marked ✗ with it."""
    records = source.records()
    allowlist_view, problem = source.allowlist.read()
    lines = [f"Shell hooks ({len(records)}):"]
    if not records:
        lines.append("  (none configured in the hooks: block of config.yaml)")
    views: list[dict[str, Any]] = []
    current_event = None
    problems = source.problems()
    # A problem of an entry that is listed is shown under it, once; the rest (an
    # unknown event, a skipped entry) in a block of their own.
    shown = {record.entry.where for record in records}
    by_entry: dict[str, list[ConfigProblem]] = {}
    for p in problems:
        if p.index is not None and p.where in shown:
            by_entry.setdefault(p.where, []).append(p)
    for record in records:
        if record.entry.event != current_event:
            current_event = record.entry.event
            lines.append(f"  [{current_event}]")
        where = record.entry.where
        mine = (errors or {}).get(entry_of(where), ())
        view, record_lines = _record_view(record, source.allowlist, mine, by_entry.pop(where, []))
        views.append(view)
        lines.extend(record_lines)
    rest = [p for p in problems if not (p.index is not None and p.where in shown)]
    if rest:
        lines.append(f"  Config problems ({len(rest)}):")
        lines.extend(f"    {'✗' if p.weakens_gate else '⚠'} {p.located}: {p.message}" for p in rest)
    status = problem or f"{len(allowlist_view)} approval(s)"
    lines.append(f"  Allowlist: {source.allowlist.path} ({status})")
    if source.bypass:
        lines.append(f"  Consent bypass active: {source.bypass}")
    data = {
        "allowlist": str(source.allowlist.path),
        "allowlist_problem": problem,
        "bypass": source.bypass,
        "hooks": views,
        "problems": [
            {"event": p.event, "index": p.index, "message": p.message, "position": p.position}
            for p in problems
        ],
    }
    return Section(data, lines, [entry_of(r.entry.where) for r in records])


# -- doctor ----------------------------------------------------------------------------


def _smoke(record: ShellRecord, subject: str) -> Finding:
    """Fire the hook once on the synthetic payload, with its own timeout."""
    outcome = run_once(record.entry, synthetic_payload(record.entry.event))
    result = outcome.result
    took = f"{result.elapsed:.3f}s"
    if result.error is not None:
        return Finding("error", subject, f"could not start: {result.error}")
    if result.timed_out:
        return Finding(
            "error",
            subject,
            f"timed out after {took} on the synthetic payload (timeout={record.entry.timeout}s)",
        )
    status = (
        f"killed by signal {result.signal}"
        if result.signal is not None
        else f"exit {result.returncode}"
    )
    text = result.stdout.decode("utf-8", errors="replace").strip()
    if outcome.unparseable:
        return Finding(
            "error",
            subject,
            f"stdout is not a JSON object ({status}, {took}): {short_text(text, 120)}",
        )
    parsed = json.dumps(outcome.directive, ensure_ascii=False) if outcome.directive else "none"
    level: DriftLevel = "ok" if result.returncode in (0, 2) else "warn"
    what = "empty stdout (observer-only)" if not text else "valid JSON"
    if text and not text.startswith("{"):
        what = "plain text"  # a claude-code hook's context (JSON otherwise)
    return Finding(level, subject, f"smoke test: {what} ({status}, {took}); parsed: {parsed}")


def check(source: LoadedShell, *, fire: bool = True) -> list[Finding]:
    """Doctor findings for every configured shell hook; ``fire=False`` (``list``)
    leaves out the smoke test, the one check that runs a hook."""
    findings = [_problem_finding(p) for p in source.problems()]
    _, problem = source.allowlist.read()
    if problem is not None:
        findings.append(Finding("error", f"allowlist {source.allowlist.path}", problem))
    for record in source.records():
        findings.extend(_record_findings(source, record, fire))
    return findings


def _problem_finding(problem: ConfigProblem) -> Finding:
    """A problem of the ``hooks:`` block, at its ``config.yaml:line`` when known; one of
    a single entry names the entry."""
    level: DriftLevel = "error" if problem.weakens_gate else "warn"
    entry = entry_of(problem.where) if problem.index is not None else None
    if problem.position is None:
        return Finding(level, f"shell {problem.where}", problem.message, entry)
    return Finding(level, problem.position, f"{problem.where}: {problem.message}", entry)


def _record_findings(source: LoadedShell, record: ShellRecord, fire: bool) -> list[Finding]:
    """One entry's findings, each naming the entry as its ``list`` entry."""
    entry = record.entry
    findings = _entry_findings(source, record, f"shell {entry.where} {entry.command}", fire)
    return [dataclasses.replace(f, entry=entry_of(entry.where)) for f in findings]


def _entry_findings(
    source: LoadedShell, record: ShellRecord, subject: str, fire: bool
) -> list[Finding]:
    entry = record.entry
    findings: list[Finding] = []
    if record.state == "duplicate":
        findings.append(Finding("warn", subject, f"ignored: {record.note}"))
        return findings
    if record.state == "failed" and record.hook is None:
        findings.append(Finding("error", subject, f"not loaded: {record.note}"))
        return findings
    broken = program_problem(entry)
    if broken:
        findings.append(Finding("error", subject, broken))
    elif entry.runs_program:
        findings.append(Finding("ok", subject, "program found and executable"))
    script = None if not entry.runs_program else script_for_argv(entry.argv)
    if script is not None and script.exists():  # the script, and where it lives
        code = [script, script.parent]
        findings.extend(Finding("warn", subject, p) for p in loose_paths(code))
    approval = source.allowlist.find(entry.event, entry.command)
    if approval is None:
        # On a hook that can block, a gate that does not run is a gate that is off
        # (or, when fail_closed, one that blocks every call it matches): an error.
        gate = entry.event in BLOCKING_EVENTS
        effect = ""
        if entry.fail_closed:
            effect = ", so as a fail_closed gate it blocks every call it matches"
        elif gate:
            effect = ", so this gate is off"
        findings.append(
            Finding(
                "error" if gate else "warn",
                subject,
                f"not allowlisted — it will NOT run{effect}; review the script, then: "
                + approve_hint(entry.event, entry.command),
            )
        )
        findings.append(Finding("info", subject, "smoke test skipped — not allowlisted yet"))
        return findings
    findings.append(Finding("ok", subject, f"allowlisted (approved {approval.approved_at or '?'})"))
    changes, view = drift_lines(approval, entry.base, source.allowlist.identity, entry.variables)
    findings.extend(Finding(level, subject, text) for level, text in changes)
    if view["refused"]:  # never run a file nobody approved, not even for a smoke test
        findings.append(Finding("info", subject, "smoke test skipped — refused"))
    elif not broken and fire:
        findings.append(_smoke(record, subject))
    return findings
