"""What the Python plugin source says in ``hermes-hooks list`` and ``doctor``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_hooks._perms import loose_paths
from hermes_hooks.report import Finding, Level, Section

if TYPE_CHECKING:
    from hermes_hooks.plugins.record import PluginRecord

__all__ = ["check_python_plugins", "python_section"]


def _plugin_lines(record: PluginRecord) -> list[str]:
    origin = record.path or ""
    if record.distribution:
        origin = f"{record.distribution} {record.version or ''}".strip() + f" ({record.path})"
    elif record.version:  # plugin.yaml's version
        origin = f"{record.version} ({origin})"
    # A plugin that loaded but has a problem (a gate doctor fails on) is marked as one.
    mark = {"loaded": "✓", "disabled": "–"}.get(record.state, "✗")
    if record.problems and mark == "✓":
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
    return lines


def python_section(records: list[PluginRecord]) -> Section:
    """The Python plugins: key, origin, state, hooks, load errors."""
    lines = [f"Python plugins ({len(records)}):"]
    if not records:
        lines.append("  (none)")
    for record in records:
        lines.extend(_plugin_lines(record))
    return Section([r.as_dict() for r in records], lines)


def check_python_plugins(
    home: Path,
    records: list[PluginRecord],
    discovery: Sequence[tuple[Level, str]] = (),
    answers: Mapping[str, list[str]] | None = None,
) -> list[Finding]:
    """Python plugins: every load failure and refused callback is an error; a plugin
    directory (or its files, or the plugins root) writable by others is a warning;
    ``discovery``: (level, message) for what is wrong with discovery as a whole (a key
    found twice, ``plugins.enabled``/``disabled`` names that match no plugin);
    ``answers``: plugin key -> the gate answers in its source that the dispatcher
    ignores, each an error (the gate lets every action through)."""
    root = home / "plugins"
    findings = [Finding("warn", f"plugins {root}", p) for p in loose_paths([root])]
    findings.extend(Finding(level, "plugin discovery", message) for level, message in discovery)
    for record in records:
        subject = f"plugin {record.key}"
        if record.state == "failed":
            findings.append(Finding("error", subject, f"failed to load: {record.error}"))
        elif record.state == "disabled":
            findings.append(Finding("info", subject, str(record.error)))
        else:
            findings.append(
                Finding("ok", subject, f"loaded ({', '.join(record.hooks) or 'no hooks'})")
            )
        findings.extend(Finding("error", subject, problem) for problem in record.problems)
        if answers and record.state == "loaded":
            findings.extend(Finding("error", subject, a) for a in answers.get(record.key, ()))
        findings.extend(Finding("warn", subject, warning) for warning in record.warnings)
        if record.source in ("directory", "project") and record.path:
            path = Path(record.path)
            code = [path, path / "__init__.py", path / "plugin.yaml"]
            findings.extend(Finding("warn", subject, p) for p in loose_paths(code))
    return findings
