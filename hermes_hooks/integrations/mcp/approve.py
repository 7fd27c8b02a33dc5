"""``hermes-hooks approve mcp__SERVER__TOOL``: pin the tool definitions the proxy saw.

The proxy writes every definition it refused to the pins file as waiting; approving
pins exactly that definition, so what is approved is what was served (and can be read
in the file), never what the server serves later.  Needs no SDK.
"""

from __future__ import annotations

import argparse
import sys

from hermes_hooks.cli import EXIT_FAILURE, EXIT_OK
from hermes_hooks.cli._run import print_json
from hermes_hooks.config import resolve_home
from hermes_hooks.integrations.mcp.pins import ToolPins

__all__ = ["approve_tools"]


def approve_tools(args: argparse.Namespace) -> int:
    """Approve the waiting definitions matching ``args.event``; exit 1 when none wait."""
    pins = ToolPins(resolve_home(getattr(args, "home", None)))
    try:
        approved = pins.approve(args.event)
    except OSError as exc:
        print(f"hermes-hooks: cannot write {pins.path}: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    if args.json:
        print_json({"approved": approved, "pins": str(pins.path)})
    for tool in approved if not args.json else ():
        print(f"Approved MCP tool definition: {tool}")
    if not approved:
        print(
            f"hermes-hooks: no definition of {args.event} waits for approval in {pins.path}; "
            "run the client through mcp-proxy first (it records what the server offers)",
            file=sys.stderr,
        )
        return EXIT_FAILURE
    return EXIT_OK
