"""One shell entry as a callback (:class:`ShellHook`) and as ``list`` shows it
(:class:`ShellRecord`).

A firing checks the entry's dialect says it fires (a non-matching entry is never
spawned), checks with one ``stat`` that the approval still stands, checks that
the command still leads to the files its approval pinned (:mod:`.pin`; refused, and a
fail-closed gate blocks, when not), runs those files with the dialect's stdin and
environment (:mod:`.run`; a ``persistent: true`` entry sends the stdin to its running
process instead, :mod:`.persistent`), reads the answer
through the shared core (:mod:`.output`) and hands the dispatcher what the dialect
delivers.  It never raises into the host.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hermes_hooks._callback import Degraded
from hermes_hooks._log import get_logger, warn_once
from hermes_hooks.shell.background import owned_by
from hermes_hooks.shell.consent import (
    AllowlistWatch,
    Approval,
    approve_hint,
    reapprove_hint,
)
from hermes_hooks.shell.consent import log as consent_log
from hermes_hooks.shell.dialect import Dialect, dialect_of
from hermes_hooks.shell.entry import ShellEntry
from hermes_hooks.shell.output import Outcome, Reading, delivered
from hermes_hooks.shell.persistent import PersistentProcess, StartRefused
from hermes_hooks.shell.pin import resolve
from hermes_hooks.shell.pin_check import drift, refusal
from hermes_hooks.shell.run import RunResult, run_command

__all__ = ["ShellHook", "ShellRecord", "UnapprovedGate", "run_once"]

log = get_logger("hermes_hooks.shell")


class ShellHook:
    """The callback of one shell entry: one subprocess per matching firing, or one
    request to its running process when the entry is persistent."""

    __slots__ = ("_present", "dialect", "entry", "owner", "pin", "process", "source", "watch")

    def __init__(
        self,
        entry: ShellEntry,
        watch: AllowlistWatch | None,
        *,
        pin: Approval | None = None,
        source: str = "config.yaml",
        owner: object | None = None,
    ) -> None:
        self.entry = entry
        self.dialect = dialect_of(entry)
        self.watch = watch
        # The approval to hold the command to while the file has none (a bypass whose
        # approval could not be saved).
        self.pin = pin
        self.source = source  # the config file, for messages
        # The load this hook belongs to: its close() ends the background runs started here.
        self.owner = owner
        # Only a hook whose approval was seen in the file stops when it goes.
        self._present = watch is not None and watch.approved(entry.event, entry.command)
        self.process = PersistentProcess(entry) if entry.persistent else None

    def __call__(self, **payload: Any) -> dict[str, Any] | Degraded | None:
        """Fire for one event: the dispatcher calls this with the keyword payload."""
        entry = self.entry
        if not self.dialect.fires(entry, payload):
            return None
        argv = None
        if self.watch is not None:
            if not self._still_approved():
                self.close(0.0)  # a persistent process never serves a revoked hook
                if not entry.fail_closed:
                    return None
                # Revoked: the script never runs again, but a gate that must fail closed
                # blocks rather than let the agent run unguarded.
                return refuse(self.dialect, entry, payload, not_allowlisted(entry))
            argv, refused = self.check_resolution()
            if refused is not None:
                self.close(0.0)
                return refuse(self.dialect, entry, payload, refused)
            if argv is not None and argv != entry.argv:
                # Run exactly the files the approval pinned: nothing is looked up again
                # between this check and the spawn.
                entry = dataclasses.replace(entry, argv=argv)
        if self.process is not None:  # persistent: the answer of its running process
            try:
                outcome = self.run(payload, entry.argv, admit=self._admit)
            except StartRefused as exc:
                return refuse(self.dialect, entry, payload, str(exc))
            return delivered(self.dialect.deliver(entry, payload, outcome), outcome)
        with owned_by(self.owner):
            return self.dialect.fire(entry, payload)

    def check_resolution(self) -> tuple[tuple[str, ...] | None, str | None]:
        """(the argv to execute, None) while the command leads to the files its approval
        pinned; (None, why) when it does not, after one ERROR per distinct resolution
        naming the entry, both resolutions (the files it checked) and the fix."""
        entry = self.entry
        allowlist = self.watch.allowlist if self.watch else None
        approval = self.watch.approval(entry.event, entry.command) if self.watch else None
        approval = approval or self.pin or Approval(entry.event, entry.command)
        now = resolve(entry.command, entry.base, entry.variables)
        identity = allowlist.identity if allowlist is not None else entry.base
        why = refusal(approval, now, identity)
        if why is None:
            return (now.argv if now is not None else None), None
        copy = ""
        if allowlist is not None and allowlist.identity != allowlist.home:
            copy = f" (a replay's copy of {allowlist.identity})"
        # Logged as consent: a replay shows these paths as they are, not as the home's.
        warn_once(
            consent_log,
            ("refused", entry.event, entry.index, entry.command, approval.resolution, now),
            "%s%s: shell hook %s (%s) refused: %s. Not run%s until approved again: %s",
            self.source,
            copy,
            entry.where,
            entry.command,
            why,
            " (a fail_closed gate blocks)" if entry.fail_closed else "",
            reapprove_hint(entry.event, entry.command, now),
            level=logging.ERROR,
        )
        return None, why

    def _admit(self) -> None:
        """Consent again as a persistent process (re)starts, on the script it is about
        to load (the firing's check came before its change on disk was seen): the
        command must still lead to the approved files (else :class:`StartRefused`), and
        a script whose content differs from the approval's baseline is said so once per
        version (edits are trusted: it runs, as a per-firing hook's would).  The hash
        is taken here, once per start, never per firing."""
        if self.watch is None:
            return  # not loaded (``test``, ``doctor``): no consent to check
        _, refused = self.check_resolution()
        if refused is not None:
            raise StartRefused(refused)
        entry = self.entry
        approval = self.watch.approval(entry.event, entry.command) or self.pin
        if approval is None or approval.script_sha256 is None:
            return
        allowlist = self.watch.allowlist
        state = drift(
            approval, entry.base, allowlist.identity if allowlist else None, entry.variables
        )
        if state.content_changed:
            warn_once(
                log,
                (
                    "persistent-edited",
                    entry.event,
                    entry.index,
                    entry.command,
                    state.current.sha256,
                ),
                "%s: persistent shell hook %s (%s) starts on %s, edited since it was "
                "approved (its sha256 is no longer the approved one); edits are trusted, "
                "so the new code runs. %s",
                self.source,
                entry.where,
                entry.command,
                state.current.path,
                reapprove_hint(entry.event, entry.command, state.current.resolution),
            )

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
            "shell hook %s (%s) is no longer in %s — not run until it is approved again%s",
            entry.where,
            entry.command,
            self.watch.allowlist.path,
            " (a fail_closed gate blocks meanwhile)" if entry.fail_closed else "",
        )
        return False

    def run(
        self,
        payload: dict[str, Any],
        argv: tuple[str, ...] | None = None,
        admit: Callable[[], None] | None = None,
    ) -> Outcome:
        """Spawn the command (or ``argv``, its resolved form) on ``payload`` and interpret
        the result (no consent or matcher check: ``hermes-hooks test`` and ``doctor``
        call this directly).  ``admit``: a persistent process's start check (see
        :meth:`PersistentProcess.request`)."""
        entry = self.entry
        if argv is not None and argv != entry.argv:
            entry = dataclasses.replace(entry, argv=argv)
        process = self.process
        if process is None:
            return self.dialect.run(entry, payload, run_command)

        def persistent(
            argv: tuple[str, ...], stdin: bytes, timeout: float, *, env: dict[str, str] | None
        ) -> RunResult:
            # The running process answers (it keeps the agent's environment and its own
            # timeout per request).
            return process.request(stdin, argv, admit)

        return self.dialect.run(entry, payload, persistent)

    def close(self, timeout: float = 1.0) -> None:
        """End a persistent entry's process (nothing to do for a per-firing one)."""
        if self.process is not None:
            self.process.close(timeout)

    def __repr__(self) -> str:
        return f"<ShellHook {self.entry.where} {self.entry.command!r}>"


def run_once(
    entry: ShellEntry, payload: dict[str, Any], argv: tuple[str, ...] | None = None
) -> Outcome:
    """Fire ``entry`` once on ``payload`` (``argv``: its resolved form) outside any load
    (``hermes-hooks test``, ``doctor``): no consent or matcher check; a persistent
    entry's process is started for this one firing and ended after it."""
    hook = ShellHook(entry, None)
    try:
        return hook.run(payload, argv)
    finally:
        hook.close()


def refuse(
    dialect: Dialect, entry: ShellEntry, payload: dict[str, Any], why: str
) -> dict[str, Any] | Degraded | None:
    """A firing refused before anything ran, delivered as its dialect delivers a run:
    no verdict, so a fail-closed gate blocks with ``hook <command> failed closed:
    not run: <why>``, and any other hook lets the call through with a warning."""
    reading = Reading(entry, RunResult(error=f"refused: {why}"))
    reading.problem = reading.failure = f"not run: {why}"
    outcome = reading.outcome(None)
    return delivered(dialect.deliver(entry, payload, outcome), outcome)


def not_allowlisted(entry: ShellEntry) -> str:
    """Why a gate without an approval is refused, with the fix."""
    return f"not allowlisted; review it, then: {approve_hint(entry.event, entry.command)}"


class UnapprovedGate:
    """Stands in for a ``fail_closed`` gate that has no approval (none was ever given
    here, and no bypass or prompt gave one).

    The command never runs, as for any unapproved hook, but ``fail_closed: true`` says
    the agent must not run unguarded when the gate cannot decide: every call the entry
    matches is refused, so the gate blocks with a message naming the fix.  Approving
    the command takes effect when the home is loaded again.
    """

    __slots__ = ("dialect", "entry")

    def __init__(self, entry: ShellEntry) -> None:
        self.entry = entry
        self.dialect = dialect_of(entry)

    def __call__(self, **payload: Any) -> dict[str, Any] | Degraded | None:
        """Refuse every matching firing (the dispatcher calls this like a shell hook)."""
        entry = self.entry
        if not self.dialect.fires(entry, payload):
            return None
        return refuse(self.dialect, entry, payload, not_allowlisted(entry))


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
