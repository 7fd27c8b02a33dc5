"""``hermes-hooks doctor``: check every hook of a home and report problems.

The findings are the ones ``list`` marks its entries with (:mod:`._findings`: every
source's checks, ``config.yaml``, telemetry, and which hooks would fire twice or not at
all inside Hermes Agent through the bridge), plus the smoke test of each approved shell
hook.  Each is printed once: the load's log
lines that say the same are not repeated on stderr.
The exit code is 1 when any finding is an error.
"""

from __future__ import annotations

import argparse
from dataclasses import asdict

from hermes_hooks._escape import escape_lines
from hermes_hooks.cli import EXIT_FAILURE, EXIT_OK
from hermes_hooks.cli._findings import HeldLogs, collect_findings, inspect_host
from hermes_hooks.cli._run import load_home, print_json

_MARKS = {"ok": "✓", "info": "ℹ", "warn": "⚠", "error": "✗"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``doctor`` takes only the common options."""


def run(args: argparse.Namespace) -> int:
    """Run every source's checks and print the findings."""

    # The gateway surface loads every source the CLI does, plus gateway hooks.
    with HeldLogs() as held:
        with load_home(args, surface="gateway", inspect=True, host=inspect_host(args)) as hooks:
            findings = collect_findings(hooks, fire=True)
        failed = any(f.level == "error" for f in findings)
        if args.json:
            print_json({"ok": not failed, "findings": [asdict(f) for f in findings]})
        else:
            lines = (f"{_MARKS[f.level]} {f.subject}: {f.message}" for f in findings)
            if findings:
                print(escape_lines(lines))
            print(
                f"\n{'problems found' if failed else 'no problems found'} ({len(findings)} checks)"
            )
        held.printed("\n".join(f"{f.subject}: {f.message}" for f in findings))
    return EXIT_FAILURE if failed else EXIT_OK
