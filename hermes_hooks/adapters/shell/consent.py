"""Consent for shell hooks: ``<home>/shell-hooks-allowlist.json`` (SH-21..SH-25).

The file is the spec's document, one approval per ``(event, command)`` pair::

    {"approvals": [{"event": "post_llm_call",
                    "command": "/home/hermes/.hermes/hooks/my-hook.py",
                    "approved_at": "2026-07-22T14:00:00Z",
                    "script_mtime_at_approval": "2026-07-20T09:12:44.120000Z",
                    "script_sha256": "9f86d0..."}]}

Only ``event`` and ``command`` are needed to approve (hand-written entries work); the
rest is the baseline ``list`` and ``doctor`` compare against to flag edits (D-73), the
hash catching edits that preserved the mtime.  Commands compare trimmed and unexpanded
(D-67).

Writes are atomic (a temporary file renamed over the old one, mode 0600) and serialised
across processes by ``flock`` on a sibling ``.lock`` file, so concurrent approvals never
lose each other.  Reading never raises: a missing file approves nothing, a BOM is
skipped, a corrupt file approves nothing (and is kept aside, not overwritten, at the
next write).  Running processes re-check the file before every firing with one ``stat``
(:class:`AllowlistWatch`, D-84).
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import logging
import os
import shlex
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

from hermes_hooks._log import warn_once
from hermes_hooks.adapters.shell.config import auto_accept_configured, script_for_command
from hermes_hooks.config import env_flag

try:  # POSIX: cross-process locking
    import fcntl
except ImportError:  # pragma: no cover - Windows: in-process locking only
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "ALLOWLIST_NAME",
    "NOT_ALLOWLISTED_WARNING",
    "Allowlist",
    "AllowlistWatch",
    "Approval",
    "Baseline",
    "Drift",
    "approve_hint",
    "baseline",
    "bypass_reason",
    "drift",
    "inspecting",
    "is_inspecting",
    "prompt",
]

log = logging.getLogger("hermes_hooks.consent")

ALLOWLIST_NAME = "shell-hooks-allowlist.json"
#: D-72, byte-exact: logged once per unapproved hook that is skipped.
NOT_ALLOWLISTED_WARNING = (
    "shell hook for %s (%s) not allowlisted — skipped. Use --accept-hooks / "
    "HERMES_ACCEPT_HOOKS=1 / hooks_auto_accept: true, or approve at the TTY prompt next run."
)
_ENTRY_KEYS = ("event", "command", "approved_at", "script_mtime_at_approval", "script_sha256")
_process_lock = threading.Lock()  # in-process companion of the flock (and Windows' only lock)
_inspecting: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "hermes_hooks_consent_inspecting", default=False
)


def utc_iso(timestamp: float, *, seconds: bool = False) -> str:
    """``timestamp`` as UTC ISO 8601 with ``Z`` (D-73)."""
    moment = datetime.fromtimestamp(timestamp, tz=timezone.utc)
    text = moment.isoformat(timespec="seconds") if seconds else moment.isoformat()
    return text.replace("+00:00", "Z")


# -- inspection mode ------------------------------------------------------------------


@contextlib.contextmanager
def inspecting() -> Iterator[None]:
    """Within this block loading never prompts and never writes the allowlist.

    For tools that only look at a home (``list``, ``doctor``): unapproved hooks are
    reported, not approved, even when a consent bypass is active.
    """
    token = _inspecting.set(True)
    try:
        yield
    finally:
        _inspecting.reset(token)


def is_inspecting() -> bool:
    """Whether the current context is inside :func:`inspecting`."""
    return _inspecting.get()


def approve_hint(event: str, command: str) -> str:
    """The command line that approves ``command`` on ``event`` without a prompt."""
    return f"hermes-hooks approve {event} {shlex.quote(command)}"


def bypass_reason(accept_hooks: bool, config: Mapping[str, Any]) -> str | None:
    """Which SH-22 bypass is active, or None: the ``--accept-hooks`` flag,
    ``HERMES_ACCEPT_HOOKS``, or ``hooks_auto_accept: true``."""
    if accept_hooks:
        return "--accept-hooks"
    if env_flag("HERMES_ACCEPT_HOOKS"):
        return "HERMES_ACCEPT_HOOKS"
    if auto_accept_configured(config):
        return "hooks_auto_accept"
    return None


# -- approvals and baselines ------------------------------------------------------------


@dataclass(frozen=True)
class Approval:
    """One approval entry of the allowlist."""

    event: str
    command: str
    approved_at: str | None = None
    script_mtime_at_approval: str | None = None
    script_sha256: str | None = None

    @classmethod
    def from_json(cls, value: Any) -> Approval | None:
        """The approval an entry holds, or None if it lacks a string event and command."""
        if not isinstance(value, dict):
            return None
        event, command = value.get("event"), value.get("command")
        if not isinstance(event, str) or not isinstance(command, str):
            return None

        def text(key: str) -> str | None:
            item = value.get(key)
            return item if isinstance(item, str) else None

        return cls(
            event.strip(),
            command.strip(),
            text("approved_at"),
            text("script_mtime_at_approval"),
            text("script_sha256"),
        )

    def as_json(self) -> dict[str, Any]:
        """The entry as written: event, command, then the baseline."""
        return {key: getattr(self, key) for key in _ENTRY_KEYS}

    def matches(self, event: str | None, command: str) -> bool:
        """Whether this approves ``command`` (trimmed) for ``event`` (any when None)."""
        return (event is None or self.event == event) and self.command == command.strip()


@dataclass(frozen=True)
class Baseline:
    """The state of a command's script (D-73): where it is, its mtime, its hash."""

    path: Path | None
    mtime: str | None  # UTC ISO 8601 with Z, None if no script was found
    sha256: str | None


def _sha256(path: Path) -> str | None:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 16), b""):
                digest.update(block)
    except (OSError, ValueError):  # ValueError: a path with a NUL byte
        return None
    return digest.hexdigest()


def baseline(command: str) -> Baseline:
    """The current :class:`Baseline` of the script ``command`` runs."""
    path = script_for_command(command)
    if path is None:
        return Baseline(None, None, None)
    try:
        stat = path.stat()
    except (OSError, ValueError):  # ValueError: a command with a NUL byte names no file
        return Baseline(path, None, None)
    return Baseline(path, utc_iso(stat.st_mtime), _sha256(path))


@dataclass(frozen=True)
class Drift:
    """How a script compares with its approval baseline (``list``, ``doctor``)."""

    current: Baseline
    mtime_recorded: bool
    mtime_changed: bool  # only meaningful when mtime_recorded
    content_changed: bool | None  # None: no hash recorded, or the script is unreadable
    missing: bool  # the script is gone


def drift(approval: Approval) -> Drift:
    """Compare ``approval`` 's baseline with the script as it is now."""
    current = baseline(approval.command)
    recorded = approval.script_mtime_at_approval is not None
    missing = current.mtime is None
    mtime_changed = recorded and not missing and current.mtime != approval.script_mtime_at_approval
    content_changed = None
    if approval.script_sha256 is not None and current.sha256 is not None:
        content_changed = current.sha256 != approval.script_sha256.lower()
    return Drift(current, recorded, mtime_changed, content_changed, missing)


# -- the file ----------------------------------------------------------------------------


def _read_document(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """(document, problem): (None, None) when the file is missing; (None, why) when it
    cannot be used.  A UTF-8 BOM is skipped."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc})"
    try:
        document = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        return None, f"is not valid JSON ({exc})"
    except RecursionError:  # the json module parses nested arrays recursively
        return None, "is not valid JSON (nested too deeply)"
    if not isinstance(document, dict) or not isinstance(document.get("approvals"), list):
        return None, 'must be a JSON object {"approvals": [{"event": ..., "command": ...}]}'
    return document, None


def _approvals_of(document: dict[str, Any] | None) -> list[Approval]:
    if document is None:
        return []
    found = (Approval.from_json(item) for item in document["approvals"])
    return [a for a in found if a is not None]


class Allowlist:
    """The shell-hooks allowlist of one Hermes home."""

    def __init__(self, home: Path) -> None:
        self.home = Path(home)
        self.path = self.home / ALLOWLIST_NAME
        self.lock_path = self.home / (ALLOWLIST_NAME + ".lock")

    def read(self) -> tuple[list[Approval], str | None]:
        """(approvals, problem); never raises.  ``problem`` explains an unusable file."""
        document, problem = _read_document(self.path)
        return _approvals_of(document), problem

    def approvals(self) -> list[Approval]:
        """Every valid approval (an unusable file logs a warning and approves nothing)."""
        approvals, problem = self.read()
        if problem:
            warn_once(
                log,
                ("allowlist", str(self.path), problem),
                "%s %s; no shell hook is approved by it. Fix or delete it.",
                self.path,
                problem,
            )
        return approvals

    def find(self, event: str, command: str) -> Approval | None:
        """The approval of ``(event, command)``, if any."""
        return next((a for a in self.approvals() if a.matches(event, command)), None)

    def approve(self, event: str, command: str) -> Approval:
        """Record (or refresh) the approval of ``(event, command)`` with a new baseline.

        Raises ``OSError`` when the file cannot be written.
        """
        command = command.strip()
        current = baseline(command)
        approval = Approval(
            event,
            command,
            utc_iso(datetime.now(tz=timezone.utc).timestamp(), seconds=True),
            current.mtime,
            current.sha256,
        )
        with self._update() as entries:
            entries[:] = [
                e for e in entries if not _same(Approval.from_json(e), event, command)
            ] + [approval.as_json()]
        return approval

    def revoke(self, command: str) -> list[Approval]:
        """Remove every approval of ``command`` (trimmed, any event, D-84); return them.

        Raises ``OSError`` when the file cannot be written.
        """
        removed: list[Approval] = []
        if not self.path.exists():
            return removed
        with self._update() as entries:
            kept = []
            for item in entries:
                approval = Approval.from_json(item)
                if approval is not None and approval.matches(None, command):
                    removed.append(approval)
                else:
                    kept.append(item)
            entries[:] = kept
        return removed

    @contextlib.contextmanager
    def _update(self) -> Iterator[list[Any]]:
        """Locked read-modify-write of the ``approvals`` list; written only if changed."""
        self.home.mkdir(parents=True, exist_ok=True)
        with _process_lock, self._file_lock():
            document, problem = _read_document(self.path)
            if problem is not None:
                self._set_aside(problem)
            if document is None:
                document = {"approvals": []}
            entries: list[Any] = document["approvals"]
            before = list(entries)
            yield entries
            if entries != before or problem is not None or not self.path.exists():
                self._write(document)

    @contextlib.contextmanager
    def _file_lock(self) -> Iterator[None]:
        if fcntl is None:  # pragma: no cover - Windows
            yield
            return
        descriptor = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            yield
        finally:
            os.close(descriptor)  # closing releases the lock

    def _set_aside(self, problem: str) -> None:
        """Keep an unusable file instead of overwriting what a human wrote."""
        stamp = datetime.now(tz=timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
        aside = self.path.with_name(f"{ALLOWLIST_NAME}.corrupt-{stamp}")
        try:
            os.replace(self.path, aside)
        except OSError:
            return
        log.warning("%s %s; moved it to %s and started a new allowlist", self.path, problem, aside)

    def _write(self, document: dict[str, Any]) -> None:
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # a kept entry holds a lone surrogate (a \ud800 escape)
            data = (json.dumps(document, indent=2) + "\n").encode("ascii")
        descriptor, temporary = tempfile.mkstemp(
            prefix=f".{ALLOWLIST_NAME}.", suffix=".tmp", dir=self.home
        )
        try:
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(temporary, 0o600)
            os.replace(temporary, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise


def _same(approval: Approval | None, event: str, command: str) -> bool:
    return approval is not None and approval.matches(event, command)


# -- running processes: re-check before each firing (D-84) -----------------------------


class AllowlistWatch:
    """The allowlist as running hooks see it: re-read when its ``stat`` changes.

    :meth:`approved` costs one ``stat`` while the file is unchanged.  A missing file
    approves nothing; an unusable one keeps the last good copy (D-84).
    """

    __slots__ = ("_approved", "_lock", "_signature", "allowlist")

    def __init__(self, allowlist: Allowlist) -> None:
        self.allowlist = allowlist
        self._lock = threading.Lock()
        self._signature: tuple[int, int, int] | None = None
        self._approved: frozenset[tuple[str, str]] = frozenset()
        self.refresh(force=True)

    def refresh(self, force: bool = False) -> None:
        """Re-read the file if it changed since the last look (or when ``force``)."""
        try:
            stat = os.stat(self.allowlist.path)
            signature: tuple[int, int, int] | None = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
        except OSError:
            signature = None
        if signature == self._signature and not force:
            return
        with self._lock:
            if signature is None:
                self._approved = frozenset()
            else:
                approvals, problem = self.allowlist.read()
                if problem is not None:
                    log.warning(
                        "%s %s; keeping the approvals read before", self.allowlist.path, problem
                    )
                else:
                    self._approved = frozenset((a.event, a.command) for a in approvals)
            self._signature = signature

    def approved(self, event: str, command: str) -> bool:
        """Whether ``(event, command)`` is approved in the file as it is now."""
        self.refresh()
        return (event, command) in self._approved


# -- the TTY prompt (SH-21, D-71, D-72) ----------------------------------------------------


def prompt(
    event: str,
    command: str,
    *,
    allowlist_path: Path | None = None,
    stdin: IO[str] | None = None,
    stderr: IO[str] | None = None,
) -> bool | None:
    """Ask at the terminal whether ``command`` may run on ``event``.

    Returns True for ``y``/``yes``, False for any other answer, EOF or Ctrl-C (D-71),
    and None without asking when stdin is not a TTY: Hermes never reads a stdin that is
    not a terminal (D-72).
    """
    stdin = sys.stdin if stdin is None else stdin
    stderr = sys.stderr if stderr is None else stderr
    try:
        if stdin is None or not stdin.isatty():
            return None
    except (AttributeError, ValueError):  # a closed or odd stream
        return None
    script = baseline(command)
    lines = [
        "",
        "⚠ Hermes is about to register a shell hook that runs a command on your behalf.",
        "",
        f"    Event:   {event}",
        f"    Command: {command}",
    ]
    if script.path is not None:
        found = f"sha256 {script.sha256[:16]}…" if script.sha256 else "not found"
        lines.append(f"    Script:  {script.path} ({found})")
    lines += [
        "",
        "  It runs with your full user credentials. Approve only commands you wrote or",
        "  reviewed in full."
        + (f" Your answer is remembered in {allowlist_path}." if allowlist_path else ""),
        "Allow this hook to run? [y/N]: ",
    ]
    try:
        stderr.write("\n".join(lines))
        stderr.flush()
        answer = stdin.readline()
    except KeyboardInterrupt:  # D-71: Ctrl-C at the prompt is a "no" for this run
        stderr.write("\n")
        return False
    except (OSError, ValueError):
        return False
    return answer.strip().lower() in {"y", "yes"}
