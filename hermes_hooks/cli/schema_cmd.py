"""``hermes-hooks schema``: print the JSON Schema of an event's wire document."""

from __future__ import annotations

import argparse

from hermes_hooks._manager import unknown_hook
from hermes_hooks.hookspecs import CATALOGUE
from hermes_hooks.schemas import all_schemas, render

_FILES = {
    "shell-stdout": "shell-stdout.schema.json",
    "hook-yaml": "hook-yaml.schema.json",
    "config-hooks": "config-hooks.schema.json",
    "config": "config.schema.json",
    "plugin-yaml": "plugin-yaml.schema.json",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """An event name (or one of the file schemas) and the wire."""
    parser.add_argument("name", help=f"a hook event, or one of: {', '.join(_FILES)}")
    parser.add_argument(
        "--wire",
        choices=("shell-stdin", "webhook-body"),
        default="shell-stdin",
        help="which document of the event (default: shell-stdin)",
    )


def run(args: argparse.Namespace) -> int:
    """Print the schema (always JSON; ``--json`` changes nothing)."""

    if args.name in _FILES:
        key = _FILES[args.name]
    elif args.name in CATALOGUE:
        key = f"{args.wire}/{args.name}.schema.json"
    else:
        raise unknown_hook(args.name)
    print(render(all_schemas()[key]), end="")
    return 0
