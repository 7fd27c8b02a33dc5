"""``hermes-hooks approve <event> <command>``: allowlist a shell hook without a prompt.

For headless deployments (gateway, cron, CI) where no TTY prompt can appear.  It
records the approval with a fresh baseline (time, script mtime and sha256), so running
it again after reviewing an edited script refreshes what ``list`` and ``doctor``
compare against.  It pins where the command leads from here (this directory and this
``PATH``): the program and script paths it prints are the only files the approval runs.
A file the command names relative to the home is pinned relative to it, so the
approval holds in a copy, a move or a git clone of the home while the script's bytes
are the same.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from hermes_hooks._contract import ShellUse
from hermes_hooks._escape import escape, escape_lines
from hermes_hooks._manager import suggest_hook
from hermes_hooks.claude.tables import event_for_key
from hermes_hooks.cli import EXIT_FAILURE, EXIT_OK, EXIT_USAGE
from hermes_hooks.cli._run import print_json
from hermes_hooks.config import read_config, resolve_home
from hermes_hooks.hookspecs import CATALOGUE
from hermes_hooks.shell import consent
from hermes_hooks.shell.config import parse_hooks
from hermes_hooks.shell.pin import Resolution


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``<event> <command...>`` (several words are joined with single spaces)."""
    parser.add_argument("event", help="the hook event, e.g. pre_tool_call")
    parser.add_argument(
        "command",
        nargs="*",
        help="the command exactly as configured (quote it to keep ~ unexpanded); none "
        "when the event is an MCP tool (mcp__SERVER__TOOL, globs allowed) whose "
        "definition mcp-proxy saw",
    )


def run(args: argparse.Namespace) -> int:
    """Record the approval and print the baseline."""

    if args.event.startswith("mcp__") and not args.command:
        from hermes_hooks.integrations.mcp.approve import approve_tools

        return approve_tools(args)
    event = event_for_key(args.event)[0] or args.event  # Claude Code names map to ours
    command = " ".join(args.command).strip()
    contract = CATALOGUE.get(event)
    if contract is None:
        print(f"hermes-hooks: unknown event '{event}' — {suggest_hook(event)}", file=sys.stderr)
        return EXIT_USAGE
    if contract.shell is ShellUse.REFUSED:
        print(f"hermes-hooks: shell hooks cannot run on {event}", file=sys.stderr)
        return EXIT_USAGE
    if not command:
        print("hermes-hooks: the command is empty", file=sys.stderr)
        return EXIT_USAGE
    # Absolute: the paths printed below are pasted elsewhere, from another directory.
    home = resolve_home(getattr(args, "home", None)).absolute()
    allowlist = consent.Allowlist(home)
    config = read_config(home)
    entries = [
        e
        for e in parse_hooks(config, str(home / "config.yaml"), quiet=True).entries
        if e.event == event and e.command == command
    ]
    # Relative paths from the home; a plugin's ${CLAUDE_PLUGIN_ROOT} written out as the
    # entry's shell will, so what is pinned is the file that runs.
    variables = next((e.variables for e in entries if e.variables), ())
    shown = consent.baseline(command, home, variables)
    # A Claude Code prompt or agent hook is approved by its text: it runs no program.
    runs_program = not entries or any(e.runs_program for e in entries)
    problem = _not_runnable(shown.resolution) if runs_program else None
    if problem is not None:
        # An approval of something that cannot run approves nothing useful, and hides
        # the mistake until the gate silently fails at its first firing.
        print(f"hermes-hooks: not approved: {escape(command)}: {problem}", file=sys.stderr)
        return EXIT_FAILURE
    try:
        approval = allowlist.approve(event, command, shown)
    except OSError as exc:
        print(f"hermes-hooks: cannot write {allowlist.path}: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    configured = bool(entries)
    resolution = shown.resolution
    script = Path(resolution.script) if resolution and resolution.script else None
    if args.json:
        print_json(
            {
                "approved": approval.as_json(),
                "script": str(script) if script else None,
                "configured": configured,
                "allowlist": str(allowlist.path),
            }
        )
        return EXIT_OK

    # The command and its paths come from the command line or config.yaml: escaped.
    lines = [f"Approved shell hook for {event}: {command}"]
    if approval.script_mtime_at_approval:
        lines.append(f"  script: {script}")
        lines.append(f"  mtime:  {approval.script_mtime_at_approval}")
        lines.append(f"  sha256: {approval.script_sha256}")
    else:
        lines.append(
            f"  script: {script or '?'} not found — no baseline recorded, edits go unnoticed"
        )
    if resolution is not None and resolution.program != resolution.script:
        lines.append(f"  program: {resolution.program or 'not found on PATH'}")
    if resolution is not None and resolution.depends_on:
        lines.append(
            f"  pinned: the command depends on {' and '.join(resolution.depends_on)}; "
            "it runs only while it leads to these files"
        )
    if approval.home_path is not None:
        lines.append(
            f"  pinned: relative to the home {approval.home_path}; a copy, a move or a "
            "clone of the home keeps this approval while the script keeps this sha256"
        )
    if not configured:
        lines.append(
            f"  note: {home / 'config.yaml'} has no hooks.{event} entry with this exact "
            "command yet; the approval applies once one is added"
        )
    lines.append(f"  saved in {allowlist.path}")
    print(escape_lines(lines))
    return EXIT_OK


def _not_runnable(resolution: Resolution | None) -> str | None:
    """Why the command cannot run as it stands (with the fix), or None."""
    if resolution is None:
        return (
            "cannot tell which program it runs. Fix: write the command as a program and "
            "its arguments"
        )
    if resolution.program is None:
        return "its program is not found on PATH. Fix: install it, or write its full path"
    program = Path(resolution.program)
    if not program.is_file():
        return f"{program} does not exist. Fix: create it, or correct the path in the command"
    if not os.access(program, os.X_OK):
        return f"{program} is not executable. Fix: chmod +x {program}"
    if resolution.script is not None and not Path(resolution.script).is_file():
        return (
            f"{resolution.script} does not exist. Fix: create it, or correct the path in "
            "the command"
        )
    return None
