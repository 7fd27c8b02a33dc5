"""``hermes-hooks list``: what a home loads, and what failed to.

Each hook source (python, shell, outbound, gateway) renders its own section through
:meth:`~hermes_hooks.sources.Source.section`; a source that did not load (safe mode)
is asked through its adapter's stand-in, so every section keeps its place.  An entry
with an error among the findings ``doctor`` reports (:mod:`._findings`, without the
smoke tests) is marked ✗ with it, and every other error is listed at the end: each
once, and the load's log lines that say the same are not repeated on stderr.
"""

from __future__ import annotations

import argparse
from dataclasses import asdict
from typing import Any

from hermes_hooks._escape import escape_lines
from hermes_hooks.cli._findings import HeldLogs, collect_findings, entry_errors, inspect_host
from hermes_hooks.cli._run import load_home, print_json
from hermes_hooks.sources import every_source


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``list`` takes only the common options."""


def run(args: argparse.Namespace) -> int:
    """Load the home and print each source's section, then the errors no entry shows."""

    # The gateway surface loads every source the CLI does, plus gateway hooks.
    with (
        HeldLogs() as held,
        load_home(args, surface="gateway", inspect=True, host=inspect_host(args)) as hooks,
    ):
        findings = collect_findings(hooks, fire=False)
        errors = entry_errors(findings)
        data: dict[str, Any] = {"home": str(hooks.home)}
        text = [f"Hermes home: {hooks.home}"]
        marked: set[str] = set()
        for source in every_source(hooks.sources, hooks.context):
            section = source.section(errors)
            data[source.name] = section.data
            text.extend(section.lines)
            marked.update(section.entries)
        shown = "\n".join(text)
        rest = [
            f
            for f in findings
            if f.level == "error" and f.entry not in marked and f.message not in shown
        ]
        if rest:
            text.append(f"Problems ({len(rest)}):")
            text.extend(f"  ✗ {f.subject}: {f.message}" for f in rest)
        data["errors"] = [asdict(f) for f in findings if f.level == "error"]
        if args.json:
            print_json(data)
            held.printed("\n".join(f"{e['subject']}: {e['message']}" for e in data["errors"]))
        else:
            print(escape_lines(text))
            held.printed("\n".join(text))
        return 0
