"""What the Python plugin source says in ``hermes-hooks list`` and ``doctor``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_hooks._perms import loose_paths
from hermes_hooks.report import EntryErrors, Finding, Level, Section

if TYPE_CHECKING:
    from hermes_hooks.plugins.record import PluginRecord

__all__ = ["check_python_plugins", "python_section"]


def entry_of(record: PluginRecord) -> str:
    """The ``list`` entry of a plugin, as its findings name it."""
    return f"plugin {record.key}"


def _plugin_lines(record: PluginRecord, errors: Sequence[str] = ()) -> list[str]:
    origin = record.path or ""
    if record.distribution:
        origin = f"{record.distribution} {record.version or ''}".strip() + f" ({record.path})"
    elif record.version:  # plugin.yaml's version
        origin = f"{record.version} ({origin})"
    # A plugin that loaded but has a problem (a gate doctor fails on) is marked as one.
    mark = {"loaded": "✓", "disabled": "–"}.get(record.state, "✗")
    if (record.problems or errors) and mark == "✓":
        mark = "✗"
    lines = [f"  {mark} {record.key}  [{record.source}]  {origin}"]
    if record.description:
        lines.append(f"      {record.description}")
    if record.hooks:
        lines.append(f"      hooks: {', '.join(record.hooks)}")
    if record.error:
        lines.append(f"      {record.state}: {record.error}")
    lines.extend(
        f"      {kind}: {', '.join(names)}" for kind, names in record.registrations.items()
    )
    lines.extend(f"      problem: {problem}" for problem in record.problems)
    lines.extend(f"      warning: {warning}" for warning in record.warnings)
    # An error the lines above already give (a load failure, a problem) is not repeated.
    shown = [text for text in (record.error, *record.problems) if text]
    lines.extend(
        f"      problem: {error}" for error in errors if not any(t in error for t in shown)
    )
    return lines


def python_section(records: list[PluginRecord], errors: EntryErrors | None = None) -> Section:
    """The Python plugins: key, origin, state, hooks, load errors; a plugin with an
    error finding in ``errors`` is marked ✗ with it."""
    lines = [f"Python plugins ({len(records)}):"]
    if not records:
        lines.append("  (none)")
    for record in records:
        lines.extend(_plugin_lines(record, (errors or {}).get(entry_of(record), ())))
    return Section([r.as_dict() for r in records], lines, [entry_of(r) for r in records])


def check_python_plugins(
    home: Path,
    records: list[PluginRecord],
    discovery: Sequence[tuple[Level, str]] = (),
    answers: Mapping[str, list[str]] | None = None,
) -> list[Finding]:
    """Python plugins: every load failure and refused callback is an error; a plugin
    directory (or its files, or the plugins root) writable by others is a warning;
    ``discovery``: (level, message) for what is wrong with discovery as a whole (a
    folder without ``plugin.yaml``, ``plugins.enabled``/``disabled`` names that match
    no plugin);
    ``answers``: plugin key -> the gate answers in its source that the dispatcher
    ignores, each an error (the gate lets every action through)."""
    root = home / "plugins"
    findings = [Finding("warn", f"plugins {root}", p) for p in loose_paths([root])]
    findings.extend(Finding(level, "plugin discovery", message) for level, message in discovery)
    for record in records:
        findings.extend(_record_findings(record, entry_of(record), answers))
    return findings


def _record_findings(
    record: PluginRecord, subject: str, answers: Mapping[str, list[str]] | None
) -> list[Finding]:
    """One plugin's findings, each naming the plugin as its ``list`` entry."""
    found: list[tuple[Level, str]] = []
    if record.state == "failed":
        found.append(("error", f"failed to load: {record.error}"))
    elif record.state == "disabled":
        found.append(("info", str(record.error)))
    else:
        found.append(("ok", f"loaded ({', '.join(record.hooks) or 'no hooks'})"))
    found.extend(("error", problem) for problem in record.problems)
    if answers and record.state == "loaded":
        found.extend(("error", answer) for answer in answers.get(record.key, ()))
    found.extend(("warn", warning) for warning in record.warnings)
    if record.source in ("directory", "project") and record.path:
        path = Path(record.path)
        code = [path, path / "__init__.py", path / "plugin.yaml"]
        found.extend(("warn", problem) for problem in loose_paths(code))
    return [Finding(level, subject, message, subject) for level, message in found]
