"""``hermes-hooks emit <event>``: fire a gateway event by hand, and show what each
gateway hook did with it.

Only the gateway hooks of the home are loaded (directly, for the gateway surface): the
command is for trying them out without a gateway.  ``command:<name>`` events go through
the awaited command protocol and print the decision; other events are emitted
as the gateway would, then the command waits for the lanes to drain and for threads
the handlers started (such as boot-md's) to finish, up to ``--wait`` seconds.  Log
records at INFO and above written meanwhile are shown too.  Whatever the handlers
print (``print``, child processes) goes to stderr, so stdout holds only the report and
``--json`` output is always pure JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import threading
import time
from dataclasses import asdict
from typing import Any

from hermes_hooks._context import LoadContext
from hermes_hooks._escape import escape_lines
from hermes_hooks.cli import EXIT_FAILURE, EXIT_OK
from hermes_hooks.cli._run import print_json
from hermes_hooks.cli._stdout import hook_output_to_stderr
from hermes_hooks.config import read_config, resolve_home
from hermes_hooks.errors import ConfigError, UnknownHookError
from hermes_hooks.gateway import source as gateway
from hermes_hooks.gateway.events import (
    COMMAND_PREFIX,
    context_keys,
    is_known_event,
    is_wildcard,
    suggest_event,
)
from hermes_hooks.hooks import Hooks

_MARKS = {"ok": "✓", "error": "✗", "timeout": "✗", "skipped": "–", "dropped": "✗"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``emit EVENT [--context JSON] [--wait SECONDS]``."""
    parser.add_argument("event", help="a gateway event, e.g. agent:start or command:model")
    parser.add_argument(
        "--context", default="{}", help="the event context as a JSON object (default {})"
    )
    parser.add_argument(
        "--wait",
        type=float,
        default=60.0,
        help="seconds to wait for handlers and the threads they start (default 60)",
    )


def _parse_context(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"--context is not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise ConfigError(f"--context must be a JSON object, got {type(value).__name__}")
    return value


def _check_event(event: str) -> None:

    if is_wildcard(event):
        raise UnknownHookError(
            f"'{event}' is a subscription, not an event: emit one event, e.g. "
            f"{event[:-1]}{'model' if event.startswith('command:') else 'start'}"
        )
    if not is_known_event(event):
        raise UnknownHookError(f"unknown gateway event '{event}' — {suggest_event(event)}")


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.levelname} {record.name}: {record.getMessage()}")


async def _fire(hooks: Any, event: str, context: dict[str, Any], wait: float) -> dict[str, Any]:

    emitter = hooks.gateway
    records: list[Any] = []
    unsubscribe = emitter.subscribe(records.append)
    before = set(threading.enumerate())
    deadline = time.monotonic() + wait
    decision = None
    drained = True
    try:
        if event.startswith(COMMAND_PREFIX):
            decision = await emitter.emit_command(
                event[len(COMMAND_PREFIX) :], str(context.get("args", "")), context
            )
        else:
            await emitter.emit(event, context)
            drained = await emitter.drain(wait)
        started = [
            t
            for t in threading.enumerate()
            if t not in before and t.is_alive() and not t.name.startswith("hermes-hooks:")
        ]
        for thread in started:
            await asyncio.to_thread(thread.join, max(0.0, deadline - time.monotonic()))
        drained = drained and not any(t.is_alive() for t in started)
    finally:
        unsubscribe()
        emitter.close(0.0)
    # Lanes run concurrently; show the records in delivery order, not finish order.
    order = {hook.name: i for i, hook in enumerate(emitter.subscribers(event))}
    records.sort(key=lambda r: order.get(r.hook, len(order)))
    return {
        "records": records,
        "decision": decision,
        "drained": drained,
        "subscribers": [h.name for h in emitter.subscribers(event)],
    }


def _fire_capturing_logs(
    hooks: Any, event: str, context: dict[str, Any], wait: float
) -> tuple[dict[str, Any], list[str]]:
    """Run :func:`_fire`, collecting the INFO+ log records written meanwhile."""

    root = logging.getLogger()
    collect = _Collect()
    previous = root.level
    # Show INFO records of the handlers (e.g. boot-md) without letting the console
    # handler print them twice: pin existing handlers to the old level first.
    pinned = [h for h in root.handlers if h.level == logging.NOTSET]
    for handler in pinned:
        handler.setLevel(previous)
    root.addHandler(collect)
    root.setLevel(min(previous, logging.INFO))
    try:
        return asyncio.run(_fire(hooks, event, context, wait)), collect.lines
    finally:
        root.removeHandler(collect)
        root.setLevel(previous)
        for handler in pinned:
            handler.setLevel(logging.NOTSET)


def _load(args: argparse.Namespace) -> Any:

    root = resolve_home(getattr(args, "home", None))
    context = LoadContext(home=root, surface="gateway").with_config(read_config(root))
    hooks = Hooks(context)
    hooks.sources["gateway"] = gateway.load(context)
    return hooks


def run(args: argparse.Namespace) -> int:
    """Fire the event and print each hook's outcome; exit 1 if any failed or denied."""

    event = args.event.strip()
    _check_event(event)
    context = _parse_context(args.context)
    with hook_output_to_stderr() as report:
        hooks = _load(args)  # a handler module may print when it is imported
        try:
            result, logs = _fire_capturing_logs(hooks, event, context, args.wait)
        finally:
            hooks.close(0.0)
        # The report goes to the real stdout; a handler's thread that outlived --wait
        # still prints to stderr.
        with contextlib.redirect_stdout(report):
            _report(args, event, result, context, logs)
    decision = result["decision"]
    failed = any(r.outcome != "ok" for r in result["records"]) or not result["drained"]
    blocked = decision is not None and decision.action == "deny"
    return EXIT_FAILURE if failed or blocked else EXIT_OK


def _report(
    args: argparse.Namespace,
    event: str,
    result: dict[str, Any],
    context: dict[str, Any],
    logs: list[str],
) -> None:
    """Print what the hooks did: the ``--json`` object or the text lines."""

    missing = [k for k in context_keys(event) if k not in context]
    decision = result["decision"]
    if args.json:
        print_json(
            {
                "event": event,
                "subscribers": result["subscribers"],
                "hooks": [
                    {**asdict(r), "result": r.result if _jsonable(r.result) else repr(r.result)}
                    for r in result["records"]
                ],
                "decision": None
                if decision is None
                else {**asdict(decision), "text": decision.text},
                "drained": result["drained"],
                "missing_keys": missing,
                "logs": logs,
            }
        )
    else:
        _print_text(event, result, missing, logs)


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def _print_text(event: str, result: dict[str, Any], missing: list[str], logs: list[str]) -> None:

    lines: list[str] = []  # each escaped whole when shown: hooks' text is untrusted
    subscribers = result["subscribers"]
    lines.append(f"{event} → {len(subscribers)} gateway hook(s)")
    if missing:
        keys = ", ".join(missing)
        lines.append(f"  note: the context lacks keys documented for this event: {keys}")
    for record in result["records"]:
        line = f"  {_MARKS[record.outcome]} {record.hook}  {record.outcome}"
        line += f" ({record.duration * 1000:.1f} ms)" if record.outcome == "ok" else ""
        if record.detail:
            line += f": {record.detail}"
        elif record.result is not None:
            line += f", returned {record.result!r}"
        lines.append(line + f"  {record.path}")
    if not result["drained"]:
        lines.append("  ✗ still running when --wait ran out")
    decision = result["decision"]
    if decision is not None:
        text = {
            "allow": "allow (the command runs as typed)",
            "deny": f"deny by {decision.hook}: {decision.reply}",
            "handled": f"handled by {decision.hook}"
            + (f": {decision.reply}" if decision.reply else " (no reply)"),
            "rewrite": f"rewrite by {decision.hook}: {decision.text}",
        }[decision.action]
        lines.append(f"decision: {text}")
    if logs:
        lines.append("log:")
        lines.extend(f"  {line}" for line in logs)
    print(escape_lines(lines))
