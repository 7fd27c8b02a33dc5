"""``hermes-hooks doctor``: check every hook of a home and report problems.

Each hook source contributes its own findings through
:meth:`~hermes_hooks.sources.Source.check` (a source that did not load is asked
through its adapter's stand-in); ``config.yaml`` itself is checked first, and
telemetry adds whether its setting is usable, and the Hermes Agent bridge which hooks
would fire twice or not at all inside the agent.
The exit code is 1 when any finding is an error.
"""

from __future__ import annotations

import argparse
from dataclasses import asdict
from typing import TYPE_CHECKING

from hermes_hooks._escape import escape_lines
from hermes_hooks.cli import EXIT_FAILURE, EXIT_OK
from hermes_hooks.cli._run import load_home, print_json
from hermes_hooks.config import check_config, resolve_home
from hermes_hooks.integrations.hermes_agent.doctor import check_bridge, doctor_host
from hermes_hooks.sources import every_source
from hermes_hooks.telemetry import check_telemetry

if TYPE_CHECKING:
    from hermes_hooks.report import Finding


_MARKS = {"ok": "✓", "info": "ℹ", "warn": "⚠", "error": "✗"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``doctor`` takes only the common options."""


def run(args: argparse.Namespace) -> int:
    """Run every source's checks and print the findings."""

    # The gateway surface loads every source the CLI does, plus gateway hooks.
    # A home the agent runs through the bridge has the agent's model for prompt hooks.
    host = doctor_host(resolve_home(getattr(args, "home", None)))
    with load_home(args, surface="gateway", inspect=True, host=host) as hooks:
        findings: list[Finding] = check_config(hooks)
        for source in every_source(hooks.sources, hooks.context):
            findings.extend(source.check())
        findings.extend(check_telemetry(hooks))
        findings.extend(check_bridge(hooks))
    failed = any(f.level == "error" for f in findings)
    if args.json:
        print_json({"ok": not failed, "findings": [asdict(f) for f in findings]})
    else:
        lines = (f"{_MARKS[f.level]} {f.subject}: {f.message}" for f in findings)
        if findings:
            print(escape_lines(lines))
        print(f"\n{'problems found' if failed else 'no problems found'} ({len(findings)} checks)")
    return EXIT_FAILURE if failed else EXIT_OK
