"""``hermes-hooks list``: what a home loads, and what failed to.

Each hook source (python, shell, outbound, gateway) renders its own section through
:meth:`~hermes_hooks.sources.Source.section`; a source that did not load (safe mode)
is asked through its adapter's stand-in, so every section keeps its place.
"""

from __future__ import annotations

import argparse
from typing import Any

from hermes_hooks._escape import escape_lines
from hermes_hooks.cli._run import load_home, print_json
from hermes_hooks.sources import every_source


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``list`` takes only the common options."""


def run(args: argparse.Namespace) -> int:
    """Load the home and print each source's section."""

    # The gateway surface loads every source the CLI does, plus gateway hooks.
    with load_home(args, surface="gateway", inspect=True) as hooks:
        data: dict[str, Any] = {"home": str(hooks.home)}
        text = [f"Hermes home: {hooks.home}"]
        for source in every_source(hooks.sources, hooks.context):
            section = source.section()
            data[source.name] = section.data
            text.extend(section.lines)
        if args.json:
            print_json(data)
        else:
            print(escape_lines(text))
        return 0
