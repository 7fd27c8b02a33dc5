"""``hermes-hooks list``: what a home loads, and what failed to.

Each hook source (python, shell, outbound, gateway) contributes one section.  A
section renderer lives beside the command that owns it and is named in
:data:`SECTIONS`; it takes the source and returns ``(json_value, text_lines)``.
"""

from __future__ import annotations

import argparse
import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hermes_hooks.adapters.python import PluginRecord, PythonSource

NAME = "list"
HELP = "show what a Hermes home loads: plugins, shell hooks, outbound targets, gateway hooks"

#: source name -> "module:function" rendering its section, in display order.
SECTIONS: dict[str, str] = {
    "python": "hermes_hooks.cli.list_cmd:python_section",
    "shell": "hermes_hooks.cli.shell_views:shell_section",
    "outbound": "hermes_hooks.cli.outbound_views:outbound_section",
    "gateway": "hermes_hooks.cli.gateway_views:gateway_section",
}


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
    lines.extend(f"      warning: {warning}" for warning in record.warnings)
    return lines


def python_section(source: PythonSource | None) -> tuple[Any, list[str]]:
    """The Python plugins: key, origin, state, hooks, load errors."""
    records = source.records() if source is not None else []
    lines = [f"Python plugins ({len(records)}):"]
    if not records:
        lines.append("  (none)")
    for record in records:
        lines.extend(_plugin_lines(record))
    return [r.as_dict() for r in records], lines


def _renderer(spec: str) -> Any:
    module_name, _, function = spec.partition(":")
    return getattr(importlib.import_module(module_name), function)


def run(args: argparse.Namespace) -> int:
    """Load the home and print each source's section."""
    from hermes_hooks.cli import load_home, print_json

    # The gateway surface loads every source the CLI does, plus gateway hooks (GW-01).
    hooks = load_home(args, surface="gateway", inspect=True)
    try:
        data: dict[str, Any] = {"home": str(hooks.home)}
        text = [f"Hermes home: {hooks.home}"]
        for name, spec in SECTIONS.items():
            value, lines = _renderer(spec)(hooks.sources.get(name))
            data[name] = value
            text.extend(lines)
        if args.json:
            print_json(data)
        else:
            print("\n".join(text))
        return 0
    finally:
        hooks.close()
