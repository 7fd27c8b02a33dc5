"""Gateway hooks in ``hermes-hooks list`` and ``doctor``.

Both commands load the home for the gateway surface, because gateway hooks load only
there (GW-01); every other hook source serves both surfaces.  Under
``HERMES_SAFE_MODE`` nothing is imported, so ``doctor`` falls back to reading the
manifests alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_hooks._perms import loose_paths
from hermes_hooks.adapters.gateway import GatewayHookRecord, GatewaySource, survey
from hermes_hooks.config import safe_mode
from hermes_hooks.gateway.manifest import HANDLER_FILE, MANIFEST_FILE

if TYPE_CHECKING:
    from hermes_hooks.cli.doctor_cmd import Finding
    from hermes_hooks.gateway.manifest import Problem
    from hermes_hooks.hooks import Hooks

__all__ = ["check_gateway_hooks", "gateway_section"]

_MARKS = {"loaded": "✓", "disabled": "–"}


def _record_lines(record: GatewayHookRecord) -> list[str]:
    mark = _MARKS.get(record.state, "✗")
    tags = ", ".join(
        t for t in (record.plugin, record.handler and f"{record.handler} handler") if t
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
    return lines


def gateway_section(source: GatewaySource | None) -> tuple[Any, list[str]]:
    """The gateway hooks: name, directory, events, plugin name, handler kind, problems."""
    if source is None:
        why = "HERMES_SAFE_MODE set" if safe_mode() else "gateway surface not loaded"
        return [], [f"Gateway hooks: not loaded ({why})"]
    records = source.records()
    lines = [f"Gateway hooks ({len(records)}) in {source.directory}:"]
    if not records:
        lines.append("  (none)")
    for record in records:
        lines.extend(_record_lines(record))
    return [r.as_dict() for r in records], lines


def _plain(message: str) -> str:
    """A log line without its ``[hooks] `` tag, for tables that have their own."""
    return message.removeprefix("[hooks] ")


def _finding_text(problem: Problem) -> str:
    where = problem.file + (f" (key '{problem.key}')" if problem.key else "")
    text = f"{where}: {_plain(problem.message)}"
    return f"{text}; fix: {problem.fix}" if problem.fix else text


def check_gateway_hooks(hooks: Hooks) -> list[Finding]:
    """Every hook directory: manifest, handler and events, with the file and the key."""
    from hermes_hooks.cli.doctor_cmd import Finding

    source = hooks.sources.get("gateway")
    findings: list[Finding] = []
    if isinstance(source, GatewaySource):
        directory, records = source.directory, source.records()
    else:
        directory = hooks.home / "hooks"
        records = [record for record, _ in survey(directory)]
        reason = "HERMES_SAFE_MODE set" if safe_mode() else "gateway surface not loaded"
        findings.append(
            Finding("info", "gateway hooks", f"{reason}: manifests checked, handlers not imported")
        )
    if not records:
        findings.append(Finding("info", "gateway hooks", f"no gateway hooks in {directory}"))
    findings.extend(
        Finding("warn", f"gateway hooks {directory}", p) for p in loose_paths([directory])
    )
    for record in records:
        subject = f"gateway hook {record.key}"
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
    return findings
