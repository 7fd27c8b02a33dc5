"""``hermes-hooks outbox``: the durable outbox of ``durable: true`` outbound targets.

::

    hermes-hooks outbox [list] [--state pending|dead|all] [--target LABEL]
    hermes-hooks outbox show ID
    hermes-hooks outbox redeliver (ID ... | --dead) [--target LABEL] [--timeout S]
    hermes-hooks outbox purge (ID ... | --dead) [--target LABEL]

``redeliver`` gives the chosen events a fresh attempt budget and attempts each due
event of their targets once, now, from this process, to the url currently configured
for the target; an event that fails again stays pending on the target's schedule, for
the next Hermes process to carry on.  It runs no plugin or shell hook.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_hooks._escape import escape
from hermes_hooks.cli import EXIT_FAILURE, EXIT_OK, EXIT_USAGE
from hermes_hooks.cli._run import print_json
from hermes_hooks.config import read_config, resolve_home
from hermes_hooks.webhooks.delivery import DurableLane, flush_lanes
from hermes_hooks.webhooks.outbox import OUTBOX_FILE, Outbox
from hermes_hooks.webhooks.targets import parse_outbound
from hermes_hooks.webhooks.urls import redact_urls

if TYPE_CHECKING:
    from hermes_hooks.webhooks.outbox import Row


_ACTIONS = ("list", "show", "redeliver", "purge")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``outbox [ACTION] [ID ...]`` and its filters."""
    parser.add_argument(
        "action",
        nargs="?",
        default="list",
        choices=_ACTIONS,
        help="list (the default): events and their state; show ID: one event with its body; "
        "redeliver: a fresh attempt for the chosen events; purge: delete them",
    )
    parser.add_argument("ids", nargs="*", type=int, metavar="ID", help="outbox event ids")
    parser.add_argument(
        "--state", choices=("pending", "dead", "all"), default="all", help="list filter"
    )
    parser.add_argument("--target", help="only events of this target (its name, else its url)")
    parser.add_argument("--dead", action="store_true", help="redeliver/purge every dead event")
    parser.add_argument(
        "--timeout",
        type=float,
        default=30.0,
        help="seconds redeliver may spend sending (default 30)",
    )


def _when(epoch: float | None) -> str:
    if epoch is None:
        return "-"

    return datetime.fromtimestamp(epoch, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _row_json(row: Row) -> dict[str, Any]:

    return {
        "id": row.id,
        "target": redact_urls(row.target),
        "url": redact_urls(row.url),
        "event": row.event,
        "delivery_id": row.delivery_id,
        "timestamp": row.timestamp,
        "state": row.state,
        "attempts": row.attempts,
        "last_attempt": _when(row.last_attempt),
        "next_attempt": _when(row.next_attempt) if row.state == "pending" else None,
        "last_error": redact_urls(row.last_error) if row.last_error else None,
    }


def _row_line(row: Row) -> str:

    when = f"next {_when(row.next_attempt)}" if row.state == "pending" else "dead"
    error = f"  last error: {redact_urls(row.last_error)}" if row.last_error else ""
    return (
        f"  {row.id:>5}  {row.state:<7} {redact_urls(row.target)}  {row.event}  "
        f"{row.delivery_id}  attempts {row.attempts}  {when}{error}"
    )


def _open(home: Path) -> Outbox | None:

    path = home / OUTBOX_FILE
    return Outbox(path) if path.exists() else None


def _selected(outbox: Outbox, args: argparse.Namespace) -> list[Row] | None:
    """Rows named by ids or ``--dead`` (None: the command named nothing)."""
    if args.ids:
        return outbox.rows(ids=args.ids, target=args.target)
    if args.dead:
        return outbox.rows(state="dead", target=args.target)
    return None


def _list(outbox: Outbox | None, args: argparse.Namespace, home: Path) -> int:

    state = None if args.state == "all" else args.state
    rows = outbox.rows(state=state, target=args.target) if outbox is not None else []
    if args.json:
        print_json({"home": str(home), "events": [_row_json(r) for r in rows]})
        return 0
    pending = sum(r.state == "pending" for r in rows)
    dead = len(rows) - pending
    print(f"Outbox of {home}: {pending} pending, {dead} dead")
    for row in rows:
        print(escape(_row_line(row)))
    return 0


def _show(outbox: Outbox | None, args: argparse.Namespace) -> int:

    if len(args.ids) != 1:
        print("hermes-hooks outbox show: give exactly one event id", file=sys.stderr)
        return EXIT_USAGE
    rows = outbox.rows(ids=args.ids) if outbox is not None else []
    if not rows:
        print(f"hermes-hooks outbox: no event {args.ids[0]}", file=sys.stderr)
        return EXIT_FAILURE
    row = rows[0]
    if args.json:
        print_json({**_row_json(row), "body": row.body.decode("utf-8", errors="replace")})
    else:
        print(escape(_row_line(row).strip()))
        print(escape(row.body.decode("utf-8", errors="replace"), keep_newlines=True))
    return 0


def _durable_targets(home: Path) -> dict[str, Any]:

    targets, _ = parse_outbound(read_config(home), str(home / "config.yaml"))
    return {t.label: t for t in targets if t.durable}


def _redeliver(outbox: Outbox, rows: list[Row], args: argparse.Namespace, home: Path) -> int:

    outbox.redeliver([r.id for r in rows], time.time())
    targets = _durable_targets(home)
    lanes = []
    for label in sorted({r.target for r in rows}):
        target = targets.get(label)
        if target is None:
            continue
        lane = DurableLane(target, outbox)
        lane.start_if_pending()
        lanes.append(lane)
    flush_lanes(lanes, args.timeout)
    remaining = {r.id: r for r in outbox.rows(ids=[r.id for r in rows])}
    results = []
    for row in rows:
        after = remaining.get(row.id)
        if row.target not in targets:
            outcome = "not configured: no durable target with this name in hooks.outbound"
        elif after is None:
            outcome = "delivered"
        else:
            outcome = f"{after.state}: {after.last_error or 'not attempted yet'}"
        results.append(
            {"id": row.id, "target": redact_urls(row.target), "outcome": redact_urls(outcome)}
        )
    if args.json:
        print_json({"redelivered": results})
    else:
        for result in results:
            print(f"  {result['id']:>5}  {result['target']}  {result['outcome']}")
    delivered = sum(r["outcome"] == "delivered" for r in results)
    if not args.json:
        print(f"{delivered} of {len(results)} event(s) delivered")
    return EXIT_OK if delivered == len(results) else EXIT_FAILURE


def run(args: argparse.Namespace) -> int:
    """Run the chosen outbox action on the home's outbox; a file that is not a readable
    outbox is a clear error, not a traceback."""

    home = resolve_home(getattr(args, "home", None))
    try:
        return _run(args, home)
    except (sqlite3.DatabaseError, OSError) as exc:  # not an outbox, damaged, unreadable
        print(
            f"hermes-hooks outbox: cannot read {home / OUTBOX_FILE} ({exc}). Fix: if it is "
            "damaged, move it aside (its events are then lost) or restore it from a backup",
            file=sys.stderr,
        )
        return EXIT_FAILURE


def _run(args: argparse.Namespace, home: Path) -> int:

    outbox = _open(home)
    try:
        if args.action == "list":
            return _list(outbox, args, home)
        if args.action == "show":
            return _show(outbox, args)
        rows = _selected(outbox, args) if outbox is not None else []
        if rows is None:
            print(
                f"hermes-hooks outbox {args.action}: name event ids, or pass --dead",
                file=sys.stderr,
            )
            return EXIT_USAGE
        if not rows:
            print(f"hermes-hooks outbox {args.action}: no matching event", file=sys.stderr)
            return EXIT_FAILURE
        assert outbox is not None
        if args.action == "purge":
            count = outbox.purge([r.id for r in rows])
            if args.json:
                print_json({"purged": [r.id for r in rows]})
            else:
                print(f"{count} event(s) purged")
            return 0
        return _redeliver(outbox, rows, args, home)
    finally:
        if outbox is not None:
            outbox.close()
