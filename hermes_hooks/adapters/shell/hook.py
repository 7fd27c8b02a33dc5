"""One shell entry as a callback (:class:`ShellHook`) and as ``list`` shows it
(:class:`ShellRecord`).

A firing checks the entry's dialect says it fires (a non-matching entry is never
spawned), checks with one ``stat`` that the approval still stands (D-84), runs the
command with the dialect's stdin and environment (:mod:`.run`; a ``persistent: true``
entry sends it to its running process instead, :mod:`.persistent`), reads the answer
through the shared core (:mod:`.output`) and hands the dispatcher what the dialect
delivers.  It never raises into the host.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from hermes_hooks._log import warn_once
from hermes_hooks.adapters.shell.config import script_for_command
from hermes_hooks.adapters.shell.consent import AllowlistWatch
from hermes_hooks.adapters.shell.dialects import dialect_of
from hermes_hooks.adapters.shell.entry import ShellEntry
from hermes_hooks.adapters.shell.output import Outcome, interpret
from hermes_hooks.adapters.shell.persistent import PersistentProcess
from hermes_hooks.adapters.shell.run import run_command

__all__ = ["ShellHook", "ShellRecord", "run_once"]

log = logging.getLogger("hermes_hooks.shell")


class ShellHook:
    """The callback of one shell entry: one subprocess per matching firing, or one
    request to its running process when the entry is persistent."""

    __slots__ = ("_present", "dialect", "entry", "process", "watch")

    def __init__(self, entry: ShellEntry, watch: AllowlistWatch | None) -> None:
        self.entry = entry
        self.dialect = dialect_of(entry)
        self.watch = watch
        self.process: PersistentProcess | None = None
        if entry.persistent:
            self.process = PersistentProcess(entry, script_for_command(entry.command))
        # D-84: only a hook whose approval was seen in the file stops when it goes.
        self._present = watch is not None and watch.approved(entry.event, entry.command)

    def __call__(self, **payload: Any) -> dict[str, Any] | None:
        """Fire for one event: the dispatcher calls this with the keyword payload."""
        entry = self.entry
        if not self.dialect.fires(entry, payload):
            return None
        if self.watch is not None and not self._still_approved():
            return None
        return self.dialect.deliver(entry, payload, self.run(payload))

    def _still_approved(self) -> bool:
        assert self.watch is not None
        entry = self.entry
        if self.watch.approved(entry.event, entry.command):
            self._present = True
            return True
        if not self._present:
            return True  # approved by a bypass whose approval could not be saved
        warn_once(
            log,
            ("revoked", self.watch.allowlist.path, entry.event, entry.command),
            "shell hook %s (%s) is no longer in %s — not run until it is approved again",
            entry.where,
            entry.command,
            self.watch.allowlist.path,
        )
        return False

    def run(self, payload: dict[str, Any]) -> Outcome:
        """Spawn the command on ``payload`` and interpret the result (no consent or
        matcher check: ``hermes-hooks test`` and ``doctor`` call this directly)."""
        entry, dialect = self.entry, self.dialect
        stdin, env = dialect.stdin(entry, payload)
        if self.process is not None:
            result = self.process.request(stdin)
        else:
            result = run_command(entry.argv, stdin, entry.timeout, env=env)
        return interpret(entry, result, dialect.read, payload)

    def close(self, timeout: float = 1.0) -> None:
        """End a persistent entry's process (nothing to do for a per-firing one)."""
        if self.process is not None:
            self.process.close(timeout)

    def __repr__(self) -> str:
        return f"<ShellHook {self.entry.where} {self.entry.command!r}>"


def run_once(entry: ShellEntry, payload: dict[str, Any]) -> Outcome:
    """Fire ``entry`` once on ``payload`` outside any load (``hermes-hooks test``,
    ``doctor``): no consent or matcher check; a persistent entry's process is started
    for this one firing and ended after it."""
    hook = ShellHook(entry, None)
    try:
        return hook.run(payload)
    finally:
        hook.close()


@dataclass
class ShellRecord:
    """One configured entry as ``list`` and ``doctor`` show it."""

    entry: ShellEntry
    state: str  # "registered", "not allowlisted", "declined", "duplicate", "failed"
    consent: str | None = None  # "allowlist", "prompt", or the bypass that approved it
    note: str | None = None
    hook: ShellHook | None = field(default=None, repr=False)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready view."""
        entry = self.entry
        return {
            "event": entry.event,
            "index": entry.index,
            "command": entry.command,
            "argv": list(entry.argv),
            "matcher": entry.matcher,
            "timeout": entry.timeout,
            "fail_closed": entry.fail_closed,
            "dialect": entry.dialect,
            "persistent": entry.persistent,
            "state": self.state,
            "consent": self.consent,
            "note": self.note,
        }
