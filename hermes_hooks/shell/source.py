"""Shell hooks: the ``hooks:`` block of ``config.yaml`` as ordinary callbacks (SH-*).

``load(context)`` reads the block (:mod:`.config`), applies consent to each
``(event, command)`` pair (:mod:`.consent`: the allowlist, the three bypasses, the TTY
prompt, the not-allowlisted warning) and registers every approved entry on the manager in the
SHELL group, ranked by its index in ``hooks.<event>``, so shell hooks run after Python
plugins and in list order.  Loading twice into the same manager registers
nothing twice.

The package, one job per module:

* :mod:`.entry` -- :class:`~.entry.ShellEntry`, one loaded entry;
* :mod:`.config` -- reading the ``hooks:`` block into entries;
* :mod:`.consent` -- the allowlist, bypasses, prompt and drift baselines;
* :mod:`.pin` -- where a command leads (program and script), pinned at approval;
* :mod:`.pin_check` -- whether an approval still covers what a command runs now;
* :mod:`.hook` -- :class:`ShellHook`, the callback of one entry, and :class:`ShellRecord`;
* :mod:`.run` -- spawning one command, bounded in time and output;
* :mod:`.persistent` -- the running process of a ``persistent: true`` entry;
* :mod:`.output` -- the one interpretation core shared by every dialect;
* :mod:`.background` -- runs a dialect starts and does not wait for;
* :mod:`.dialect` -- the :class:`~.dialect.Dialect` protocol and the registry of
  dialects; :mod:`.hermes` -- the Hermes dialect (the Claude Code one lives in its own
  package, found through the registry);
* :mod:`.report` -- this source's part of ``list`` and its ``doctor`` findings.
"""

from __future__ import annotations

import itertools
import time
from functools import cached_property
from typing import TYPE_CHECKING, Any

from hermes_hooks._callback import Group
from hermes_hooks._log import get_logger
from hermes_hooks.errors import PluginLoadError
from hermes_hooks.shell.home import ALLOWLIST_NAME, bypass_reason, copy_of
from hermes_hooks.sources import Unloaded

if TYPE_CHECKING:
    from hermes_hooks._context import LoadContext
    from hermes_hooks.report import EntryErrors, Finding, Section
    from hermes_hooks.shell import consent
    from hermes_hooks.shell.config import ConfigProblem, ParsedHooks
    from hermes_hooks.shell.entry import ShellEntry
    from hermes_hooks.shell.hook import ShellRecord
    from hermes_hooks.sources import Source

__all__ = ["ShellSource", "load", "unloaded"]

log = get_logger("hermes_hooks.shell")

_LOADS = itertools.count(1)
# What each manager already holds, per home: (home, *ShellEntry.key).
_Key = tuple[str, str, str, str]
_STATE = "shell"


class ShellSource:
    """The shell hooks of one load."""

    name = "shell"

    def __init__(self, context: LoadContext) -> None:
        self.home = context.home
        self.config_path = context.config_path
        # One owner per load, so unloading a source removes exactly what it registered.
        self.owner = f"shell-hooks:{context.home}:{next(_LOADS)}"
        self.bypass = bypass_reason(context.accept_hooks, context.config)
        # Loaded for looking only (list, doctor): consent never prompts, approves or
        # writes, and nothing is registered that a firing would need.
        self.inspect = context.inspect
        self.host = context.host
        # A replay's copy of a home: the real home's approvals hold in it, and nothing
        # is asked or written (an answer stored in the copy would be lost with it).
        self.copy_of = copy_of(context.home)
        self.entries: list[ShellRecord] = []
        # Approvals made in this load (a bypass or the prompt), kept for hooks whose
        # approval is not saved: they still hold the command to what was approved.
        self._approved_now: dict[tuple[str, str], consent.Approval] = {}
        self._unsaved: list[tuple[ShellEntry, consent.Approval]] = []
        self._manager = context.manager
        self._keys: set[_Key] = set()
        if (self.home / ALLOWLIST_NAME).exists():
            # Read now, as a load with hooks does, so that an unusable file is reported
            # at load; without one the consent machinery waits until it is needed.
            _ = self.watch

    # The consent and parsing modules load on first use: a home with no ``hooks:``
    # block and no allowlist never needs them (start-up cost, paid by every agent).

    @cached_property
    def allowlist(self) -> consent.Allowlist:
        """The home's shell-hooks allowlist."""
        from hermes_hooks.shell import consent

        return consent.Allowlist(self.home, self.copy_of)

    @cached_property
    def watch(self) -> consent.AllowlistWatch:
        """The allowlist as firings see it (re-read when the file changes)."""
        from hermes_hooks.shell import consent

        return consent.AllowlistWatch(self.allowlist)

    @cached_property
    def parsed(self) -> ParsedHooks:
        """The ``hooks:`` block as read by :meth:`load` (empty until then)."""
        from hermes_hooks.shell.config import ParsedHooks

        return ParsedHooks()

    def records(self) -> list[ShellRecord]:
        """Every configured entry, in config order, with its state."""
        return list(self.entries)

    def problems(self) -> list[ConfigProblem]:
        """The warnings raised while reading the ``hooks:`` block."""
        return list(self.parsed.problems)

    def load(self, config: dict[str, Any]) -> None:
        """Parse, apply consent, register."""
        if config.get("hooks") is None:
            return  # nothing to parse, ask about or register
        from hermes_hooks.shell.config import parse_hooks
        from hermes_hooks.shell.dialect import dialect_named
        from hermes_hooks.shell.hook import ShellRecord

        self.parsed = parse_hooks(config, str(self.config_path), base=self.home, host=self.host)
        decisions: dict[tuple[str, str], tuple[str, str | None]] = {}
        held: set[_Key] = self._manager.adapter_state.setdefault(_STATE, set())
        seen: dict[tuple[str, str, str], ShellEntry] = {}
        # Consent first, for every entry; then the approvals it gave are written in one
        # go (a load approving a thousand hooks writes the file once, not a thousand
        # times); then the entries are registered, in config order.
        planned: list[ShellRecord | ShellEntry] = []
        for entry in self.parsed.entries:
            if entry.key in seen:
                first = seen[entry.key]
                log.warning(
                    "%s: %s repeats %s (the same entry, written again); ignored",
                    self.config_path,
                    entry.where,
                    first.where,
                )
                planned.append(ShellRecord(entry, "duplicate", note=f"repeats {first.where}"))
                continue
            seen[entry.key] = entry
            refusal = self._refusal(entry)
            if refusal is not None:
                log.warning(
                    "%s: %s (%s): %s", self.config_path, entry.where, entry.command, refusal
                )
                planned.append(ShellRecord(entry, "failed", note=refusal))
                continue
            pair = (entry.event, entry.command)
            if pair not in decisions:
                decisions[pair] = self._consent(entry)
            planned.append(entry)
        self._save_approvals()
        for item in planned:
            if isinstance(item, ShellRecord):
                self.entries.append(item)
                continue
            entry = item
            state, how = decisions[(entry.event, entry.command)]
            if state != "approved":
                note = None
                if self.bypass is not None and self.inspect:
                    note = f"{self.bypass} is set: approved when the agent next loads"
                elif entry.fail_closed:
                    note = self._hold_closed(entry)
                self.entries.append(ShellRecord(entry, state, note=note))
                continue
            self.entries.append(self._register(entry, how, held))
        # Each dialect registers what its registered entries need besides themselves.
        by_dialect: dict[str, list[ShellEntry]] = {}
        for record in self.entries:
            if record.hook is not None:
                by_dialect.setdefault(record.entry.dialect, []).append(record.entry)
        for name, registered in by_dialect.items():
            dialect_named(name).loaded(registered, self._manager, self.owner)

    def _hold_closed(self, entry: ShellEntry) -> str | None:
        """Register the stand-in of an unapproved ``fail_closed`` gate, which blocks every
        call it matches (the command itself never runs); returns the record's note.
        ``list`` and ``doctor`` only say so (they fire nothing, and report it)."""
        from hermes_hooks.shell.consent import approve_hint
        from hermes_hooks.shell.hook import UnapprovedGate
        from hermes_hooks.shell.output import SHELL_CALLBACKS

        note = "fail_closed: every call it matches is blocked until it is approved"
        if self.inspect:
            return note
        try:
            self._manager.register_callback(
                entry.event,
                UnapprovedGate(entry),
                owner=self.owner,
                group=Group.SHELL,
                rank=entry.rank,
                name=f"shell {entry.where} {entry.command} (not allowlisted)",
                policy=SHELL_CALLBACKS,
            )
        except PluginLoadError as exc:
            log.warning("%s", exc)
            return None
        log.error(
            "%s: shell hook %s (%s) is a fail_closed gate without an approval: every call "
            "it matches is blocked until it is approved (the command does not run). Review "
            "it, then: %s",
            self.config_path,
            entry.where,
            entry.command,
            approve_hint(entry.event, entry.command),
        )
        return note

    def _refusal(self, entry: ShellEntry) -> str | None:
        """Why an entry cannot run at all here (a handler answered by the host's model,
        such as a Claude Code prompt or agent handler, without that model), or None."""
        if entry.runs_program or getattr(self.host, "hook_model", None) is not None:
            return None
        return (
            f"a type: {entry.argv[0]} handler is answered by the host's model, and "
            "this host supplies none (load(..., host=HostCapabilities(hook_model=...))); refused"
        )

    def _consent(self, entry: ShellEntry) -> tuple[str, str | None]:
        """("approved", how) or (the reason it is not).

        An approved command that no longer leads to the files its approval pinned (or
        an unpinned one that goes through ``PATH``) needs
        re-approval: a bypass or the prompt may give it; without one it is registered
        all the same and refuses every firing while the files differ, so a fail-closed
        gate blocks instead of silently not guarding.
        """
        from hermes_hooks.shell import consent
        from hermes_hooks.shell.pin import resolve
        from hermes_hooks.shell.pin_check import refusal

        inspecting = self.inspect
        approval = self.watch.approval(entry.event, entry.command)
        again = None
        if approval is not None:
            now = resolve(entry.command, entry.base, entry.variables)
            again = refusal(approval, now, self.allowlist.identity)
            if again is None or inspecting:
                return "approved", "allowlist"
        if self.bypass is not None and not inspecting:
            self._record(entry, consent.baseline(entry.command, entry.base, entry.variables))
            if again is not None:
                log.warning(
                    "shell hook %s (%s) approved again by %s: %s",
                    entry.where,
                    entry.command,
                    self.bypass,
                    again,
                )
            else:
                log.info(
                    "shell hook %s (%s) approved by %s%s",
                    entry.where,
                    entry.command,
                    self.bypass,
                    " for this replay only" if self.copy_of is not None else "",
                )
            return "approved", self.bypass
        if inspecting:
            return "not allowlisted", None
        answer = None  # a replay's copy asks nothing: the real home's approvals decide
        shown = consent.baseline(entry.command, entry.base, entry.variables)
        if self.copy_of is None:
            answer = consent.prompt(
                entry.event,
                entry.command,
                allowlist_path=self.allowlist.path,
                shown=shown,
                why=again,
                base=entry.base,
                variables=entry.variables,
            )
        if answer:
            self._record(entry, shown)
            return "approved", "prompt"
        if approval is not None:
            return "approved", "allowlist"  # refused at each firing; the ERROR follows
        log.warning(consent.NOT_ALLOWLISTED_WARNING, entry.event, entry.command)
        return ("declined" if answer is False else "not allowlisted"), None

    def _record(self, entry: ShellEntry, shown: consent.Baseline) -> None:
        """Hold the approval of ``entry`` for this load; :meth:`_save_approvals` writes
        it (a replay's copy never is: the approval lasts for that run)."""
        from hermes_hooks.shell import consent

        approval = consent.Approval.of(entry.event, entry.command, shown, self.allowlist.identity)
        self._approved_now[(entry.event, entry.command)] = approval
        if self.copy_of is None:
            self._unsaved.append((entry, approval))

    def _save_approvals(self) -> None:
        """Write the approvals this load gave, in one locked write of the allowlist."""
        pending, self._unsaved = self._unsaved, []
        if not pending:
            return
        try:
            self.allowlist.add(*(approval for _, approval in pending))
        except OSError as exc:
            for entry, _ in pending:
                log.warning(
                    "cannot save the approval of shell hook %s (%s) to %s (%s); it is "
                    "approved for this run only",
                    entry.where,
                    entry.command,
                    self.allowlist.path,
                    exc,
                )
        self.watch.refresh()

    def _register(self, entry: ShellEntry, how: str | None, held: set[_Key]) -> ShellRecord:
        from hermes_hooks.shell.hook import ShellHook, ShellRecord
        from hermes_hooks.shell.output import SHELL_CALLBACKS

        key = (str(self.home), *entry.key)
        if key in held:
            log.debug("shell hook %s already registered on this manager", entry.where)
            return ShellRecord(entry, "registered", how, note="already registered")
        pin = self._approved_now.get((entry.event, entry.command))
        hook = ShellHook(entry, self.watch, pin=pin, source=str(self.config_path), owner=self.owner)
        try:
            self._manager.register_callback(
                entry.event,
                hook,
                owner=self.owner,
                group=Group.SHELL,
                rank=entry.rank,
                name=f"shell {entry.where} {entry.command}",
                policy=SHELL_CALLBACKS,
            )
        except PluginLoadError as exc:
            log.warning("%s", exc)
            return ShellRecord(entry, "failed", how, note=str(exc))
        held.add(key)
        self._keys.add(key)
        note = None
        if not self.inspect:
            _, refused = hook.check_resolution()  # says so now, not at the first firing
            note = f"refused until approved again: {refused}" if refused else None
        return ShellRecord(entry, "registered", how, note=note, hook=hook)

    def unload(self) -> None:
        """Remove every callback this source registered (a reload starts here)
        and end the processes of its persistent entries."""
        self._manager.unregister_owner(self.owner)
        self.close(1.0)
        held = self._manager.adapter_state.get(_STATE)
        if held is not None:
            held.difference_update(self._keys)
        self._keys.clear()

    def close(self, timeout: float) -> None:
        """End what this source's hooks run, within ``timeout`` seconds in total: the
        processes of persistent entries, and the background runs its hooks started
        (Claude Code's ``async`` hooks), which are waited for and then killed with their whole
        process group."""
        from hermes_hooks.shell.background import BACKGROUND

        deadline = time.monotonic() + timeout
        for shell_hook in (record.hook for record in self.entries):
            if shell_hook is not None and shell_hook.process is not None:
                shell_hook.close(max(0.0, deadline - time.monotonic()))
        for name in BACKGROUND.stop(self.owner, max(0.0, deadline - time.monotonic())):
            log.warning(
                "async shell hook %s was still running at close; its process group is killed",
                name,
            )

    def section(self, errors: EntryErrors | None = None) -> Section:
        """This source's part of ``hermes-hooks list``: each entry with its settings,
        consent state and drift since approval."""
        from hermes_hooks.shell import report

        return report.section(self, errors)

    def check(self, *, fire: bool = True) -> list[Finding]:
        """This source's ``doctor`` findings: programs, permissions, approvals, drift,
        and (``fire``) a smoke test of each approved hook on the synthetic payload."""
        from hermes_hooks.shell import report

        return report.check(self, fire=fire)


def load(context: LoadContext) -> ShellSource:
    """The adapter entry point: load the shell hooks of ``context.home``."""
    source = ShellSource(context)
    source.load(context.config)
    return source


def unloaded(context: LoadContext) -> Source:
    """The stand-in ``list`` and ``doctor`` ask when this adapter did not run."""
    from hermes_hooks.shell import report

    return Unloaded("shell", report.unloaded_section, list)
