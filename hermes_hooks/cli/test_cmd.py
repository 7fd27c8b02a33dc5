"""``hermes-hooks test <event>``: fire every callback of one event on a synthetic payload.

Python plugin callbacks fire first, each alone through the dispatcher, showing what
it returned and the verdict the dispatcher records (a gate's answer that is ignored
shows as the callback error it is, with the fix).  Then, for every configured shell
entry of the event, what the script printed and the ``parsed`` directive exactly as
the dispatcher would receive it, ``fail_closed`` included.
Shell hooks fire only when allowlisted, unless a consent bypass is active; it never
writes the allowlist.  Outbound webhooks are not sent.  The exit code is 0 whatever
the hooks decide; 2 for bad usage (an unknown event), 1 for an unreadable
``--payload-file``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from hermes_hooks._contract import ShellUse
from hermes_hooks._escape import escape_lines
from hermes_hooks._log import get_logger
from hermes_hooks._manager import suggest_hook
from hermes_hooks.claude.tables import event_for_key
from hermes_hooks.cli import EXIT_FAILURE, EXIT_OK, EXIT_USAGE
from hermes_hooks.cli._run import load_home, print_json
from hermes_hooks.cli.python_views import fire_python, run_json, run_lines
from hermes_hooks.cli.shell_views import approve_hint, describe_entry, outcome_json, outcome_lines
from hermes_hooks.config import inspect_config, resolve_home
from hermes_hooks.envelope import TOOL_EVENTS
from hermes_hooks.hookspecs import CATALOGUE, VALID_HOOKS
from hermes_hooks.shell import consent
from hermes_hooks.shell.config import parse_hooks
from hermes_hooks.shell.dialect import entry_matches
from hermes_hooks.shell.hook import run_once
from hermes_hooks.shell.pin import resolve
from hermes_hooks.shell.pin_check import refusal
from hermes_hooks.synthetic import synthetic_payload

log = get_logger("hermes_hooks.cli")

#: Byte-exact: says how to fix it, so nobody runs an unapproved script.
NOT_ALLOWLISTED = "✗ not allowlisted — skipped (approve it first, or pass --accept-hooks)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``<event> [--for-tool X] [--payload-file F]``."""
    parser.add_argument("event", help="the hook event, e.g. pre_tool_call")
    parser.add_argument(
        "--for-tool",
        metavar="TOOL",
        help="the tool name of the payload; only entries whose matcher matches it fire",
    )
    parser.add_argument(
        "--payload-file",
        metavar="FILE",
        help="a JSON object whose top-level keys replace fields of the synthetic payload",
    )


def _read_payload_file(name: str) -> dict[str, Any] | str | None:
    """The overrides in ``name``: a dict, None when ignored, or the error text."""
    try:
        data = json.loads(Path(name).read_text(encoding="utf-8-sig"))
    except (OSError, ValueError) as exc:
        return str(exc)
    if not isinstance(data, dict):
        log.warning(
            "%s holds a JSON %s, not an object; ignored (the synthetic payload is used)",
            name,
            type(data).__name__,
        )
        return None
    return data


def _unknown_event(args: argparse.Namespace) -> int:

    # A did-you-mean, or where the names are listed: never all of them (``--json``
    # still lists them, for a program to choose from).
    hint = suggest_hook(args.event)
    if args.json:
        valid = sorted(VALID_HOOKS)
        print_json({"error": f"unknown event '{args.event}' — {hint}", "valid_events": valid})
    else:
        print(f"Unknown event: '{args.event}' — {hint}", file=sys.stderr)
    return EXIT_USAGE


def run(args: argparse.Namespace) -> int:
    """Fire every Python callback of ``args.event``, then every matching, allowlisted
    shell hook of it, once each."""

    event = event_for_key(args.event)[0] or args.event  # Claude Code names map to ours
    if event not in CATALOGUE:
        return _unknown_event(args)
    payload = synthetic_payload(event, tool_name=args.for_tool)
    if args.payload_file:
        overrides = _read_payload_file(args.payload_file)
        if isinstance(overrides, str):
            print(f"Error reading payload file: {overrides}", file=sys.stderr)
            return EXIT_FAILURE
        if overrides:
            payload.update(overrides)
    if args.for_tool and event in TOOL_EVENTS:
        payload["tool_name"] = args.for_tool
    tool = payload.get("tool_name") if event in TOOL_EVENTS else None
    target = f" (tool: {tool})" if tool else ""

    # Python callbacks first, as a firing orders them.  Loaded for looking only: the
    # shell hooks below are fired on their own, and nothing prompts or is approved.
    with load_home(args, inspect=True) as hooks:
        runs = fire_python(hooks, event, payload)
    if CATALOGUE[event].shell is ShellUse.REFUSED:
        refused = f"Shell hooks cannot run on {event}: use a Python plugin."
        if args.json:
            print_json(
                {
                    "event": event,
                    "error": refused,
                    "python_callbacks": [run_json(r) for r in runs],
                    "hooks": [],
                }
            )
            return EXIT_OK
        if runs:
            print(f"Firing {len(runs)} Python callback(s) for {event}{target}:\n")
            print(escape_lines([line for r in runs for line in [*run_lines(r), ""]]))
        print(refused)
        return EXIT_OK
    entries, reports, text, bypass = _fire_shell(args, event, payload, tool)

    if args.json:
        print_json(
            {
                "event": event,
                "tool_name": tool,
                "bypass": bypass,
                "payload": payload,
                "python_callbacks": [run_json(r) for r in runs],
                "hooks": reports,
            }
        )
        return EXIT_OK
    if not entries and not runs:
        shell = "no shell hook for this tool" if args.for_tool else "no shell hook"
        print(
            f"No callbacks for {event}{target}: no Python plugin registers it and "
            f"{shell} is configured."
        )
        return EXIT_OK
    counts = [f"{len(runs)} Python callback(s)"] if runs else []
    if entries or not runs:
        counts.append(f"{len(entries)} shell hook(s)")
    print(f"Firing {' and '.join(counts)} for {event}{target}:\n")
    lines = [line for r in runs for line in [*run_lines(r), ""]]
    print(escape_lines(lines + text).rstrip())
    return EXIT_OK


def _fire_shell(
    args: argparse.Namespace, event: str, payload: dict[str, Any], tool: Any
) -> tuple[list[Any], list[dict[str, Any]], list[str], str | None]:
    """Fire the matching, allowlisted shell hooks of ``event``: (the entries, a JSON
    report per entry, the text lines, the consent bypass in effect)."""

    home = resolve_home(getattr(args, "home", None))
    # The load before this logged every problem of the file: read it again quietly.
    config = inspect_config(home).data
    entries = parse_hooks(config, str(home / "config.yaml"), base=home, quiet=True).for_event(event)
    if args.for_tool:
        entries = [e for e in entries if entry_matches(e, args.for_tool)]
    bypass = consent.bypass_reason(getattr(args, "accept_hooks", False), config)
    allowlist = consent.Allowlist(home)
    approved = {(a.event, a.command): a for a in allowlist.approvals()}

    reports: list[dict[str, Any]] = []
    text: list[str] = []
    for entry in entries:
        report: dict[str, Any] = {
            "where": entry.where,
            "command": entry.command,
            "matcher": entry.matcher,
            "timeout": entry.timeout,
            "fail_closed": entry.fail_closed,
        }
        text.append(f"  → {entry.where}: {entry.command}  ({describe_entry(entry)})")
        approval = approved.get((event, entry.command))
        now = resolve(entry.command, entry.base, entry.variables)
        # A command that leads to other files than approved is not approved either.
        refused = refusal(approval, now, home) if approval is not None else None
        if (approval is None or refused) and bypass is None:
            report["status"] = "refused" if refused else "not allowlisted"
            if refused:
                text.append(f"      ✗ refused — {refused}; not run")
                text.append(f"      {consent.reapprove_hint(event, entry.command, now)}")
            else:
                text.append(f"      {NOT_ALLOWLISTED}")
                text.append(f"      approve it with: {approve_hint(event, entry.command)}")
        elif not entry_matches(entry, tool) and entry.matcher is not None:
            report["status"] = "not matched"
            text.append(f"      – matcher {entry.matcher!r} does not match tool {tool!r}: not run")
        else:
            outcome = run_once(entry, payload, now.argv if now else None)
            report["status"] = "fired"
            report.update(outcome_json(outcome))
            text.extend(outcome_lines(outcome))
        reports.append(report)
        text.append("")
    return entries, reports, text, bypass
