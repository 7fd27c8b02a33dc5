"""Shell hooks: the ``hooks:`` block of ``config.yaml`` as ordinary callbacks (SH-*).

``load(hooks)`` reads the block (:mod:`.shell_config`), applies consent to each
``(event, command)`` pair (:mod:`hermes_hooks.consent`: the allowlist, the three
bypasses, the TTY prompt, the D-72 warning) and registers every approved entry on the
manager in the SHELL group, ranked by its index in ``hooks.<event>``, so shell hooks run
after Python plugins and in list order (D-19).  Loading twice into the same manager
registers nothing twice (D-08).

A firing (:class:`ShellHook`) checks the matcher (a non-matching entry is never
spawned), checks with one ``stat`` that the approval still stands (D-84), builds the
SH-13 envelope, runs the command (:mod:`.shell_run`) and returns the canonical directive
(:mod:`.shell_output`).  A ``dialect: claude-code`` entry takes Claude Code's matcher,
stdin and output rules from :mod:`.claude_code` instead.  It never raises into the host.
"""

from __future__ import annotations

import itertools
import logging
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hermes_hooks import consent
from hermes_hooks._callback import Degraded, Group
from hermes_hooks._log import warn_once
from hermes_hooks.adapters import claude_code
from hermes_hooks.adapters.shell_config import ConfigProblem, ParsedHooks, ShellEntry, parse_hooks
from hermes_hooks.adapters.shell_output import Outcome, interpret
from hermes_hooks.adapters.shell_run import run_command
from hermes_hooks.envelope import build_envelope, dumps
from hermes_hooks.errors import PluginLoadError

if TYPE_CHECKING:
    from hermes_hooks._manager import HookManager
    from hermes_hooks.hooks import Hooks

__all__ = ["ShellHook", "ShellRecord", "ShellSource", "load"]

log = logging.getLogger("hermes_hooks.shell")

_LOADS = itertools.count(1)
# D-08: what each manager already holds, per home: (home, event, matcher, command, dialect).
_Key = tuple[str, str, str | None, str, str]
_REGISTERED: weakref.WeakKeyDictionary[HookManager, set[_Key]] = weakref.WeakKeyDictionary()


class ShellHook:
    """The callback of one shell entry: one subprocess per matching firing."""

    __slots__ = ("_present", "entry", "watch")

    def __init__(self, entry: ShellEntry, watch: consent.AllowlistWatch | None) -> None:
        self.entry = entry
        self.watch = watch
        # D-84: only a hook whose approval was seen in the file stops when it goes.
        self._present = watch is not None and watch.approved(entry.event, entry.command)

    def __call__(self, **payload: Any) -> dict[str, Any] | Degraded | None:
        """Fire for one event: the dispatcher calls this with the keyword payload."""
        entry = self.entry
        if entry.claude is not None:
            if not entry.claude.fires(payload):
                return None
        elif entry.matcher is not None and not entry.matches(payload.get("tool_name")):
            return None
        if self.watch is not None and not self._still_approved():
            return None
        outcome = self.run(payload)
        value = (
            claude_code.deliver(entry, payload, outcome)
            if entry.claude is not None
            else outcome.directive
        )
        if outcome.problem is None:
            return value
        # Not found, not executable, killed, timed out or unreadable output: the
        # directive (None, or a fail-closed block) still counts, and the dispatcher
        # reports the run as the error it was.
        kind = "timeout" if outcome.result.timed_out else "error"
        return Degraded(value, outcome.problem, kind)

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
        if self.entry.claude is not None:
            return claude_code.run(self.entry, payload)
        stdin = dumps(build_envelope(self.entry.event, payload))
        return interpret(self.entry, run_command(self.entry.argv, stdin, self.entry.timeout))

    def __repr__(self) -> str:
        return f"<ShellHook {self.entry.where} {self.entry.command!r}>"


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
            "state": self.state,
            "consent": self.consent,
            "note": self.note,
        }


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
        self.parsed = parse_hooks(config, str(self.config_path), base=self.config_path.parent)
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
            claude_code.register_session_context(self._manager, self.owner, claude)

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
        """Remove every callback this source registered (a reload starts here, D-08)."""
        self._manager.unregister_owner(self.owner)
        held = _REGISTERED.get(self._manager)
        if held is not None:
            held.difference_update(self._keys)
        self._keys.clear()

    def close(self, timeout: float) -> None:
        """Nothing runs in the background: hooks run on the firing thread."""


def load(hooks: Hooks) -> ShellSource:
    """The adapter entry point: load the shell hooks of ``hooks.home``."""
    source = ShellSource(hooks)
    source.load(hooks.config)
    return source
