"""``hermes-hooks list``: what a home loads, and what failed to."""

from __future__ import annotations

import argparse
from typing import Any

from hermes_hooks.adapters.python import PluginRecord

NAME = "list"
HELP = "show the hooks a Hermes home loads: plugins, shell hooks, outbound targets"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``list`` takes only the common options."""


def _plugin_lines(record: PluginRecord) -> list[str]:
    origin = record.path or ""
    if record.distribution:
        origin = f"{record.distribution} {record.version or ''}".strip() + f" ({record.path})"
    mark = {"loaded": "✓", "disabled": "–"}.get(record.state, "✗")
    lines = [f"  {mark} {record.key}  [{record.source}]  {origin}"]
    if record.hooks:
        lines.append(f"      hooks: {', '.join(record.hooks)}")
    if record.error:
        lines.append(f"      {record.state}: {record.error}")
    lines.extend(f"      problem: {problem}" for problem in record.problems)
    return lines


def run(args: argparse.Namespace) -> int:
    """Load the home and print each source's records."""
    from hermes_hooks import load
    from hermes_hooks.cli import print_json

    hooks = load(getattr(args, "home", None), accept_hooks=getattr(args, "accept_hooks", False))
    try:
        data: dict[str, Any] = {"home": str(hooks.home), "plugins": []}
        python = hooks.sources.get("python")
        records: list[PluginRecord] = python.records() if python is not None else []
        data["plugins"] = [r.as_dict() for r in records]
        if args.json:
            print_json(data)
            return 0
        print(f"Hermes home: {hooks.home}")
        print(f"Python plugins ({len(records)}):")
        if not records:
            print("  (none)")
        for record in records:
            print("\n".join(_plugin_lines(record)))
        return 0
    finally:
        hooks.close()
