"""What the outbound source says in ``hermes-hooks list`` and ``doctor``.

``list`` shows every ``hooks.outbound`` entry: label, url, events, matcher, timeout,
signed or ``UNSIGNED``, durable or not, and why an entry was skipped.  ``doctor``
checks each target's scheme and secret, and the durable outbox: dead letters, events
of targets no longer configured, and the file's permissions.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from hermes_hooks.report import EntryErrors, Finding, Level, Section
from hermes_hooks.webhooks.outbox import OUTBOX_FILE, Outbox
from hermes_hooks.webhooks.urls import redact_urls

if TYPE_CHECKING:
    from hermes_hooks.webhooks.targets import Target, TargetRecord


class OutboundSource(Protocol):
    """What the report reads of the loaded webhook source (the source hands itself
    over, so this module never imports it)."""

    targets: list[Target]
    outbox: Outbox | None
    outbox_error: str | None

    def records(self) -> list[TargetRecord]:
        """Every ``hooks.outbound`` entry, loaded or skipped."""


__all__ = ["check_outbound", "outbound_section", "signing_text"]


def signing_text(record: TargetRecord) -> str:
    """``signed (<where the secret comes from>[, standard])`` or ``UNSIGNED``."""
    if not record.signed:
        return "UNSIGNED" + (f" ({record.secret})" if record.secret else "")
    scheme = ", + Standard Webhooks headers" if record.signature == "standard" else ""
    return f"signed ({record.secret}{scheme})"


def entry_of(record: TargetRecord) -> str:
    """The ``list`` entry of an outbound target, as its findings name it."""
    return f"outbound hooks.outbound[{record.index}]"


def _located(problem: dict[str, str | None]) -> str:
    """A config problem of an entry as a line: ``<place>: hooks.outbound[i]: <message>``."""
    place = f"{problem['position']}: " if problem["position"] else ""
    return f"{place}{problem['where']}: {problem['message']}"


def _target_lines(record: TargetRecord, errors: Sequence[str] = ()) -> list[str]:
    warnings = [f"      ⚠ {_located(p)}" for p in record.config_problems]
    if record.state == "skipped":
        head = f"  ✗ hooks.outbound[{record.index}] {record.label}: skipped"
        if not errors:  # not checked: the reason as the entry holds it
            return [f"{head} — {record.reason}", *warnings]
        # As doctor says it, at its place in config.yaml.
        return [head, *(f"      ✗ {error}" for error in errors), *warnings]
    details = [f"timeout: {record.timeout} s", signing_text(record)]
    details.append("durable (outbox)" if record.durable else "best effort")
    events = ", ".join(record.events) or "(none registered)"
    matcher = f"  matcher: {record.matcher}" if record.matcher else ""
    lines = [
        f"  {'✗' if errors else '✓'} {record.label} → {record.url}",
        f"      events: {events}{matcher}",
        f"      {' · '.join(details)}",
    ]
    lines.extend(warnings)
    lines.extend(f"      problem: {problem}" for problem in record.problems)
    lines.extend(f"      ✗ {error}" for error in errors if error not in record.problems)
    return lines


def outbound_section(source: OutboundSource | None, errors: EntryErrors | None = None) -> Section:
    """The ``list`` section of the outbound targets (``None``: not loaded, shown empty);
    a target with an error finding in ``errors`` is marked ✗ with it."""
    records = source.records() if source is not None else []
    lines = [f"Outbound webhooks ({len(records)}):"]
    if not records:
        lines.append("  (none)")
    for record in records:
        lines.extend(_target_lines(record, (errors or {}).get(entry_of(record), ())))
    return Section([r.as_dict() for r in records], lines, [entry_of(r) for r in records])


def _config_finding(level: Level, record: TargetRecord, problem: dict[str, str | None]) -> Finding:
    """A problem of the entry as written, at its ``config.yaml:line:col`` as the
    ``hooks:`` block's findings are (the target's label when the place is unknown)."""
    text = f"{problem['where']}: {problem['message']}"
    return Finding(level, problem["position"] or f"outbound {record.label}", text)


def _target_findings(record: TargetRecord) -> list[Finding]:
    subject = f"outbound {record.label}"
    # A problem of the file is at its place in it, like every config finding; the
    # url's scheme and an unset secret_env are among them, said once.
    findings = [_config_finding("warn", record, p) for p in record.config_problems]
    if record.state == "skipped":
        where = f"hooks.outbound[{record.index}]"
        if record.position is None:
            return [Finding("error", subject, f"skipped: {record.reason}"), *findings]
        skipped = Finding("error", record.position, f"{where}: {record.reason}; skipped")
        return [skipped, *findings]
    if not record.signed and not record.secret:
        findings.append(
            Finding(
                "warn",
                subject,
                "UNSIGNED: receivers cannot tell these deliveries are genuine; set secret_env",
            )
        )
    elif record.secret == "inline secret":
        findings.append(
            Finding(
                "info",
                subject,
                "signed with an inline secret; prefer secret_env so config.yaml holds no "
                "credentials",
            )
        )
    findings.extend(Finding("warn", subject, problem) for problem in record.problems)
    if not any(f.level in ("warn", "error") for f in findings):
        findings.append(
            Finding(
                "ok",
                subject,
                f"{signing_text(record)}, {', '.join(record.events)}"
                + (", durable" if record.durable else ""),
            )
        )
    return findings


def _outbox_findings(home: Path, source: OutboundSource) -> list[Finding]:

    path = home / OUTBOX_FILE
    findings: list[Finding] = []
    if source.outbox_error:
        findings.append(Finding("error", "outbox", f"cannot open {path}: {source.outbox_error}"))
        return findings
    if not path.exists():
        return findings
    if os.name == "posix" and path.stat().st_mode & 0o077:
        findings.append(
            Finding("warn", "outbox", f"{path} is readable by others; run chmod 600 on it")
        )
    outbox = source.outbox or Outbox(path)
    try:
        durable = {t.label for t in source.targets if t.durable}
        for label in sorted({row.target for row in outbox.rows()}):
            pending = outbox.count(state="pending", target=label)
            dead = outbox.count(state="dead", target=label)
            subject = f"outbox {redact_urls(label)}"
            if label not in durable:
                findings.append(
                    Finding(
                        "warn",
                        subject,
                        f"{pending + dead} stored event(s) for a target that is no longer a "
                        "durable target in hooks.outbound; restore its name or purge them "
                        "with `hermes-hooks outbox purge`",
                    )
                )
            elif dead:
                findings.append(
                    Finding(
                        "warn",
                        subject,
                        f"{dead} dead event(s) (undeliverable after the last attempt); "
                        "`hermes-hooks outbox` shows them, `hermes-hooks outbox redeliver "
                        "--dead` resends them",
                    )
                )
            if pending and label in durable:
                findings.append(Finding("info", subject, f"{pending} event(s) awaiting delivery"))
    finally:
        if outbox is not source.outbox:
            outbox.close()
    return findings


def check_outbound(home: Path, source: OutboundSource) -> list[Finding]:
    """Doctor: every outbound target's scheme and secret, and the durable outbox."""
    findings: list[Finding] = []
    for record in source.records():
        entry = entry_of(record)
        findings.extend(dataclasses.replace(f, entry=entry) for f in _target_findings(record))
    findings.extend(_outbox_findings(home, source))
    return findings
