"""``hermes-hooks revoke <command>``: remove every allowlist entry of a command.

A match is exact string equality after trimming, for every event.  Running CLI
and gateway processes notice at the hook's next firing and stop calling it.
"""

from __future__ import annotations

import argparse
import sys

from hermes_hooks._escape import escape
from hermes_hooks.cli import EXIT_FAILURE, EXIT_OK
from hermes_hooks.cli._run import print_json
from hermes_hooks.config import resolve_home
from hermes_hooks.shell import consent

#: Byte-exact: the reference prints this text and users port scripts from it.
RUNNING_NOTE = "Running CLI / gateway processes stop calling it at its next firing."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``<command...>`` (several words are joined with single spaces)."""
    parser.add_argument("command", nargs="+", help="the command exactly as configured")


def run(args: argparse.Namespace) -> int:
    """Remove the approvals and say how many went."""

    command = " ".join(args.command).strip()
    allowlist = consent.Allowlist(resolve_home(getattr(args, "home", None)))
    try:
        removed = allowlist.revoke(command)
    except OSError as exc:
        print(f"hermes-hooks: cannot write {allowlist.path}: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    if args.json:
        print_json(
            {
                "command": command,
                "removed": [a.as_json() for a in removed],
                "allowlist": str(allowlist.path),
            }
        )
        return EXIT_OK
    if not removed:
        print(f"No allowlist entry found for command: {escape(command)}")
        return EXIT_OK
    events = ", ".join(sorted({a.event for a in removed}))
    print(f"Removed {len(removed)} allowlist entry/entries for: {escape(command)} ({events})")
    print(RUNNING_NOTE)
    return EXIT_OK
