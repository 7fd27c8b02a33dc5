"""Shell hooks: the ``hooks:`` block of ``config.yaml`` as ordinary callbacks (SH-*).

``load(hooks)`` reads the block (:mod:`.config`), applies consent to each
``(event, command)`` pair (:mod:`.consent`: the allowlist, the three bypasses, the TTY
prompt, the D-72 warning) and registers every approved entry on the manager in the
SHELL group, ranked by its index in ``hooks.<event>``, so shell hooks run after Python
plugins and in list order (D-19).  Loading twice into the same manager registers
nothing twice (D-08).

The package, one job per module:

* :mod:`.entry` -- :class:`~.entry.ShellEntry`, one loaded entry;
* :mod:`.config` -- reading the ``hooks:`` block into entries;
* :mod:`.consent` -- the allowlist, bypasses, prompt and drift baselines;
* :mod:`.hook` -- :class:`ShellHook`, the callback of one entry, and :class:`ShellRecord`;
* :mod:`.run` -- spawning one command, bounded in time and output;
* :mod:`.persistent` -- the running process of a ``persistent: true`` entry;
* :mod:`.output` -- the one interpretation core shared by every dialect;
* :mod:`.dialects` -- the :class:`~.dialects.Dialect` protocol, the Hermes dialect, the
  Claude Code dialect and its settings importer;
* :mod:`.report` -- this source's part of ``list`` and its ``doctor`` findings.
"""

from __future__ import annotations

import itertools
import logging
import time
import weakref
from typing import TYPE_CHECKING, Any

from hermes_hooks._callback import Group
from hermes_hooks.adapters.shell import consent, report
from hermes_hooks.adapters.shell.config import ConfigProblem, ParsedHooks, parse_hooks
from hermes_hooks.adapters.shell.dialects.claude_code import register_session_context
from hermes_hooks.adapters.shell.entry import ShellEntry
from hermes_hooks.adapters.shell.hook import ShellHook, ShellRecord
from hermes_hooks.errors import PluginLoadError

if TYPE_CHECKING:
    from hermes_hooks._manager import HookManager
    from hermes_hooks.hooks import Hooks
    from hermes_hooks.report import Finding, Section

__all__ = ["ShellHook", "ShellRecord", "ShellSource", "load"]

log = logging.getLogger("hermes_hooks.shell")

_LOADS = itertools.count(1)
# D-08: what each manager already holds, per home: (home, event, matcher, command, dialect).
_Key = tuple[str, str, str | None, str, str]
_REGISTERED: weakref.WeakKeyDictionary[HookManager, set[_Key]] = weakref.WeakKeyDictionary()


class ShellSource:
    """The shell hooks of one load."""

    name = "shell"

    def __init__(self, hooks: Hooks) -> None:
        self.home = hooks.home
        self.config_path = hooks.home / "config.yaml"
        self.allowlist = consent.Allowlist(hooks.home)
        self.watch = consent.AllowlistWatch(self.allowlist)
        # One owner per load, so unloading a source removes exactly what it registered.
        self.owner = f"shell-hooks:{hooks.home}:{next(_LOADS)}"
        self.bypass = consent.bypass_reason(hooks.accept_hooks, hooks.config)
        self.parsed = ParsedHooks()
        self.entries: list[ShellRecord] = []
        self._manager = hooks.manager
        self._keys: set[_Key] = set()

    def records(self) -> list[ShellRecord]:
        """Every configured entry, in config order, with its state."""
        return list(self.entries)

    def problems(self) -> list[ConfigProblem]:
        """The warnings raised while reading the ``hooks:`` block."""
        return list(self.parsed.problems)

    def load(self, config: dict[str, Any]) -> None:
        """Parse, apply consent, register."""
        self.parsed = parse_hooks(config, str(self.config_path))
        decisions: dict[tuple[str, str], tuple[str, str | None]] = {}
        held = _REGISTERED.setdefault(self._manager, set())
        seen: dict[tuple[str, str | None, str, str], ShellEntry] = {}
        for entry in self.parsed.entries:
            if entry.key in seen:
                first = seen[entry.key]
                log.warning(
                    "%s: %s repeats %s (same event, matcher and command); ignored",
                    self.config_path,
                    entry.where,
                    first.where,
                )
                self.entries.append(ShellRecord(entry, "duplicate", note=f"repeats {first.where}"))
                continue
            seen[entry.key] = entry
            pair = (entry.event, entry.command)
            if pair not in decisions:
                decisions[pair] = self._consent(entry)
            state, how = decisions[pair]
            if state != "approved":
                note = None
                if self.bypass is not None and consent.is_inspecting():
                    note = f"{self.bypass} is set: approved when the agent next loads"
                self.entries.append(ShellRecord(entry, state, note=note))
                continue
            self.entries.append(self._register(entry, how, held))
        # Claude Code's SessionStart context reaches the model through pre_llm_call.
        claude = self.parsed.claude
        starts = [r for r in self.entries if r.hook and r.entry.event == "on_session_start"]
        if claude is not None and any(r.entry.claude is not None for r in starts):
            register_session_context(self._manager, self.owner, claude)

    def _consent(self, entry: ShellEntry) -> tuple[str, str | None]:
        """("approved", how) or (the reason it is not)."""
        if self.watch.approved(entry.event, entry.command):
            return "approved", "allowlist"
        inspecting = consent.is_inspecting()
        if self.bypass is not None and not inspecting:
            self._record(entry)
            log.info("shell hook %s (%s) approved by %s", entry.where, entry.command, self.bypass)
            return "approved", self.bypass
        if inspecting:
            return "not allowlisted", None
        answer = consent.prompt(entry.event, entry.command, allowlist_path=self.allowlist.path)
        if answer:
            self._record(entry)
            return "approved", "prompt"
        log.warning(consent.NOT_ALLOWLISTED_WARNING, entry.event, entry.command)
        return ("declined" if answer is False else "not allowlisted"), None

    def _record(self, entry: ShellEntry) -> None:
        try:
            self.allowlist.approve(entry.event, entry.command)
        except OSError as exc:
            log.warning(
                "cannot save the approval of shell hook %s (%s) to %s (%s); it is approved "
                "for this run only",
                entry.where,
                entry.command,
                self.allowlist.path,
                exc,
            )
        self.watch.refresh()

    def _register(self, entry: ShellEntry, how: str | None, held: set[_Key]) -> ShellRecord:
        key = (str(self.home), *entry.key)
        if key in held:
            log.debug("shell hook %s already registered on this manager", entry.where)
            return ShellRecord(entry, "registered", how, note="already registered")
        hook = ShellHook(entry, self.watch)
        try:
            self._manager.register_callback(
                entry.event,
                hook,
                owner=self.owner,
                group=Group.SHELL,
                rank=entry.rank,
                name=f"shell {entry.where} {entry.command}",
                source="shell",
            )
        except PluginLoadError as exc:
            log.warning("%s", exc)
            return ShellRecord(entry, "failed", how, note=str(exc))
        held.add(key)
        self._keys.add(key)
        return ShellRecord(entry, "registered", how, hook=hook)

    def unload(self) -> None:
        """Remove every callback this source registered (a reload starts here, D-08)
        and end the processes of its persistent entries."""
        self._manager.unregister_owner(self.owner)
        self.close(1.0)
        held = _REGISTERED.get(self._manager)
        if held is not None:
            held.difference_update(self._keys)
        self._keys.clear()

    def close(self, timeout: float) -> None:
        """End the processes of persistent entries within ``timeout`` seconds in total
        (per-firing hooks run on the firing thread: nothing else runs in the background)."""
        deadline = time.monotonic() + timeout
        for record in self.entries:
            if record.hook is not None and record.hook.process is not None:
                record.hook.close(max(0.0, deadline - time.monotonic()))

    def section(self) -> Section:
        """This source's part of ``hermes-hooks list``: each entry with its settings,
        consent state and drift since approval."""
        return report.section(self)

    def check(self) -> list[Finding]:
        """This source's ``doctor`` findings: programs, permissions, approvals, drift,
        and a smoke test of each approved hook on the synthetic payload."""
        return report.check(self)


def load(hooks: Hooks) -> ShellSource:
    """The adapter entry point: load the shell hooks of ``hooks.home``."""
    source = ShellSource(hooks)
    source.load(hooks.config)
    return source
