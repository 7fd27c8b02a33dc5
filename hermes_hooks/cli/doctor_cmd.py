"""``hermes-hooks doctor``: check every hook of a home and report problems.

Checks are functions ``check(hooks) -> list[Finding]`` named in :data:`CHECKS`; each
source contributes its own (plugin load failures here; shell, outbound and gateway
checks beside their commands).  The exit code is 1 when any finding is an error.
"""

from __future__ import annotations

import argparse
import importlib
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks

NAME = "doctor"
HELP = "check every plugin, shell hook, outbound target and gateway hook of a home"

Level = Literal["ok", "info", "warn", "error"]
_MARKS = {"ok": "✓", "info": "ℹ", "warn": "⚠", "error": "✗"}


@dataclass(frozen=True)
class Finding:
    """One result of a check: its level, what it is about, and what to do."""

    level: Level
    subject: str
    message: str


#: "module:function" of every check, in report order.
CHECKS: tuple[str, ...] = (
    "hermes_hooks.config:check_config",
    "hermes_hooks.cli.doctor_cmd:check_python_plugins",
    "hermes_hooks.cli.shell_views:check_shell_hooks",
    "hermes_hooks.cli.outbound_views:check_outbound",
    "hermes_hooks.cli.gateway_views:check_gateway_hooks",
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``doctor`` takes only the common options."""


def check_python_plugins(hooks: Hooks) -> list[Finding]:
    """Python plugins: every load failure and refused callback is an error; a plugin
    directory (or its files, or the plugins root) writable by others is a warning."""
    from pathlib import Path

    from hermes_hooks._perms import loose_paths
    from hermes_hooks.adapters.python import PythonSource

    source = hooks.sources.get("python")
    findings: list[Finding] = []
    if not isinstance(source, PythonSource):
        return findings
    root = hooks.home / "plugins"
    findings.extend(Finding("warn", f"plugins {root}", p) for p in loose_paths([root]))
    for record in source.records():
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
        findings.extend(Finding("warn", subject, warning) for warning in record.warnings)
        if record.source in ("directory", "project") and record.path:
            path = Path(record.path)
            code = [path, path / "__init__.py", path / "plugin.yaml"]
            findings.extend(Finding("warn", subject, p) for p in loose_paths(code))
    return findings


def run(args: argparse.Namespace) -> int:
    """Run every check and print the findings."""
    from hermes_hooks.cli import EXIT_FAILURE, EXIT_OK, load_home, print_json

    # The gateway surface loads every source the CLI does, plus gateway hooks (GW-01).
    hooks = load_home(args, surface="gateway", inspect=True)
    try:
        findings: list[Finding] = []
        for spec in CHECKS:
            module_name, _, function = spec.partition(":")
            findings.extend(getattr(importlib.import_module(module_name), function)(hooks))
    finally:
        hooks.close()
    failed = any(f.level == "error" for f in findings)
    if args.json:
        print_json({"ok": not failed, "findings": [asdict(f) for f in findings]})
    else:
        for finding in findings:
            print(f"{_MARKS[finding.level]} {finding.subject}: {finding.message}")
        print(f"\n{'problems found' if failed else 'no problems found'} ({len(findings)} checks)")
    return EXIT_FAILURE if failed else EXIT_OK
