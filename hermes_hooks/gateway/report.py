"""What the gateway source says in ``hermes-hooks list`` and ``doctor``.

Both commands load the home for the gateway surface, because gateway hooks load only
there; every other hook source serves both surfaces.  Under
``HERMES_SAFE_MODE`` nothing is imported, so ``doctor`` falls back to reading the
manifests alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_hooks._perms import loose_paths
from hermes_hooks.config import safe_mode
from hermes_hooks.gateway.manifest import HANDLER_FILE, MANIFEST_FILE, GatewayHookRecord
from hermes_hooks.report import EntryErrors, Finding, Section

if TYPE_CHECKING:
    from hermes_hooks.gateway.manifest import Problem

__all__ = ["check_gateway_hooks", "gateway_section", "not_loaded_reason"]

_MARKS = {"loaded": "✓", "disabled": "–"}


def entry_of(record: GatewayHookRecord) -> str:
    """The ``list`` entry of a gateway hook, as its findings name it."""
    return f"gateway hook {record.key}"


def _record_lines(record: GatewayHookRecord, errors: Sequence[str] = ()) -> list[str]:
    mark = "✗" if errors else _MARKS.get(record.state, "✗")
    # host_loop: true is the one placement worth a word: a blocking handler there
    # stalls the gateway.
    on_host = record.runs_on == "host loop" and "on the gateway's event loop"
    tags = ", ".join(
        t for t in (record.plugin, record.handler and f"{record.handler} handler", on_host) if t
    )
    lines = [f"  {mark} {record.name}  {record.path}" + (f"  [{tags}]" if tags else "")]
    if record.events:
        lines.append(f"      events: {', '.join(record.events)}")
    if record.state != "loaded" and record.error:
        lines.append(f"      {record.state}: {_plain(record.error)}")
    lines.extend(
        f"      problem: {_plain(p.message)}"
        for p in record.problems
        if p.level != "info" and p.message != record.error
    )
    # An error the lines above already give (a problem of the manifest) is not repeated.
    said = [_plain(p.message) for p in record.problems] + [_plain(record.error or "")]
    lines.extend(f"      ✗ {e}" for e in errors if not any(s and s in e for s in said))
    return lines


def not_loaded_reason() -> str:
    """Why a command finds no gateway source: safe mode, or another surface."""
    return "HERMES_SAFE_MODE set" if safe_mode() else "gateway surface not loaded"


def gateway_section(
    directory: Path, records: list[GatewayHookRecord] | None, errors: EntryErrors | None = None
) -> Section:
    """The gateway hooks: name, directory, events, plugin name, handler kind, problems
    (``records=None``: the source was not loaded); a hook with an error finding in
    ``errors`` is marked ✗ with it."""
    if records is None:
        return Section([], [f"Gateway hooks: not loaded ({not_loaded_reason()})"])
    lines = [f"Gateway hooks ({len(records)}) in {directory}:"]
    if not records:
        lines.append("  (none)")
    for record in records:
        lines.extend(_record_lines(record, (errors or {}).get(entry_of(record), ())))
    return Section([r.as_dict() for r in records], lines, [entry_of(r) for r in records])


def _plain(message: str) -> str:
    """A log line without its ``[hooks] `` tag, for tables that have their own."""
    return message.removeprefix("[hooks] ")


def _finding_text(problem: Problem) -> str:
    where = problem.file + (f" (key '{problem.key}')" if problem.key else "")
    text = f"{where}: {_plain(problem.message)}"
    return f"{text}; fix: {problem.fix}" if problem.fix else text


def check_gateway_hooks(
    directory: Path, records: list[GatewayHookRecord], *, loaded: bool = True
) -> list[Finding]:
    """Every hook directory: manifest, handler and events, with the file and the key
    (``loaded=False``: only the manifests were read, the source did not load)."""
    findings: list[Finding] = []
    if not loaded:
        findings.append(
            Finding(
                "info",
                "gateway hooks",
                f"{not_loaded_reason()}: manifests checked, handlers not imported",
            )
        )
    if not records:
        findings.append(Finding("info", "gateway hooks", f"no gateway hooks in {directory}"))
    findings.extend(
        Finding("warn", f"gateway hooks {directory}", p) for p in loose_paths([directory])
    )
    for record in records:
        findings.extend(_record_findings(record))
    return findings


def _record_findings(record: GatewayHookRecord) -> list[Finding]:
    """One hook directory's findings, each naming the hook as its ``list`` entry."""
    subject = entry_of(record)
    findings: list[Finding] = []
    code = [
        Path(record.path),
        Path(record.path) / MANIFEST_FILE,
        Path(record.path) / HANDLER_FILE,
    ]
    findings.extend(Finding("warn", subject, p) for p in loose_paths(code))
    for problem in record.problems:
        findings.append(Finding(problem.level, subject, _finding_text(problem)))
    if record.state == "loaded":
        findings.append(
            Finding(
                "ok",
                subject,
                f"loaded as {record.plugin} ({record.handler} handler) for "
                f"{', '.join(record.events)}",
            )
        )
    elif record.state == "pending":
        findings.append(
            Finding("info", subject, f"manifest ok ({', '.join(record.events)}); not imported")
        )
    return [Finding(f.level, f.subject, f.message, subject) for f in findings]
