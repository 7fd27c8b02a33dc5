"""Consent for shell hooks: ``<home>/shell-hooks-allowlist.json``.

The file is the spec's document, one approval per ``(event, command)`` pair::

    {"approvals": [{"event": "post_llm_call",
                    "command": "python3 my-hook.py",
                    "approved_at": "2026-07-22T14:00:00Z",
                    "program_path": "/usr/bin/python3",
                    "script_path": "/home/hermes/.hermes/hooks/my-hook.py",
                    "script_mtime_at_approval": "2026-07-20T09:12:44.120000Z",
                    "script_sha256": "9f86d0..."}]}

Commands compare trimmed and unexpanded.  ``program_path`` and ``script_path``
pin where the command led when it was approved (:mod:`.pin`): a command that resolves
elsewhere at firing time (a bare name or interpreter found elsewhere on ``PATH``) is
refused until it is approved again (:func:`.pin_check.refusal`).  Relative paths resolve against
the home, so they name the same file from any working directory.

A file the command names relative to the home is pinned relative to it, with
``home_path`` (the home, absolute, where it was approved) beside it::

    {"event": "pre_tool_call", "command": "agent-hooks/guard.sh",
     "program_path": "agent-hooks/guard.sh", "script_path": "agent-hooks/guard.sh",
     "home_path": "/home/hermes/.hermes", "script_sha256": "a26d2f...", ...}

so the approval travels with the home: a copy made for a replay, a home moved
elsewhere, or one cloned from git with its allowlist.  In the home it was approved in
it works as an absolute pin does; in any other home it holds only while the script has
the recorded sha256 (the bytes are what was reviewed).  Files outside the home, and
every path of an entry without ``home_path`` (the format before), stay absolute.

An entry without the pin (hand-written, or from before pinning) approves only a
command whose files its text and home alone fix (absolute or home-relative paths); one
that goes through ``PATH`` needs re-approval.  The mtime and hash are the baseline
``list`` and ``doctor`` compare against to flag edits, the hash catching edits
that preserved the mtime; in the home the approval was made in, edits never stop a
hook.

Writes are atomic (a temporary file renamed over the old one, mode 0600) and serialised
across processes by ``flock`` on a sibling ``.lock`` file, so concurrent approvals never
lose each other; the file exists only while a write holds it.  Reading never raises: a
missing file approves nothing, a BOM is skipped, a corrupt file approves nothing (and is
kept aside, not overwritten, at the next write).  Running processes re-check the file
before every firing with one ``stat`` (:class:`AllowlistWatch`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shlex
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

from hermes_hooks._escape import UNSAFE, escape, escape_lines
from hermes_hooks._log import get_logger, warn_once
from hermes_hooks.shell.home import ALLOWLIST_NAME, bypass_reason
from hermes_hooks.shell.pin import CWD, Resolution, inside, resolve

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
    "approve_hint",
    "baseline",
    "bypass_reason",
    "prompt",
]

log = get_logger("hermes_hooks.consent")

#: Byte-exact: logged once per unapproved hook that is skipped.
NOT_ALLOWLISTED_WARNING = (
    "shell hook for %s (%s) not allowlisted — skipped. Use --accept-hooks / "
    "HERMES_ACCEPT_HOOKS=1 / hooks_auto_accept: true, or approve at the TTY prompt next run."
)
_ENTRY_KEYS = (
    "event",
    "command",
    "approved_at",
    "program_path",
    "script_path",
    "home_path",
    "script_mtime_at_approval",
    "script_sha256",
)
_PIN_KEYS = ("program_path", "script_path")
_process_lock = threading.Lock()  # in-process companion of the flock (and Windows' only lock)


def utc_iso(timestamp: float, *, seconds: bool = False) -> str:
    """``timestamp`` as UTC ISO 8601 with ``Z``."""
    moment = datetime.fromtimestamp(timestamp, tz=timezone.utc)
    text = moment.isoformat(timespec="seconds") if seconds else moment.isoformat()
    return text.replace("+00:00", "Z")


def approve_hint(event: str, command: str) -> str:
    """The command line that approves ``command`` on ``event`` without a prompt."""
    return f"hermes-hooks approve {event} {bash_word(command)}"


def bash_word(text: str) -> str:
    """``text`` as one bash word that reads back as exactly ``text``.

    Plain quoting when ``text`` holds nothing the terminal output escapes; else ANSI-C
    quoting (``$'...'``) with each such character written as its escape.  The hints are
    printed through :func:`~hermes_hooks._escape.escape`, which would turn a raw
    control character into four visible characters: pasted back, a plainly quoted hint
    would then approve a different string from the one in ``config.yaml``.
    """
    if not any(char in UNSAFE for char in text):
        return shlex.quote(text)
    return "$'" + "".join(_ansi_c(char) for char in text) + "'"


#: Written as the report's own escapes write them, so the hint reads like the command.
_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r"}


def _ansi_c(char: str) -> str:
    if char in ("\\", "'"):
        return "\\" + char
    if char not in UNSAFE:
        return char
    if char in _NAMED_ESCAPES:
        return _NAMED_ESCAPES[char]
    code = ord(char)
    # \xHH is a raw byte in bash: above ASCII the character goes as \uHHHH, which bash
    # writes in the locale's encoding (UTF-8 where the agent runs).
    return f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}"


def reapprove_hint(event: str, command: str, now: Resolution | None) -> str:
    """How to re-approve a refused command.  ``approve`` resolves relative paths
    against the home, so only a command resolved without a home (one that depends on
    the current directory) must be approved from the agent's directory."""
    where = ""
    if now is not None and CWD in now.depends_on:
        where = " from the directory the agent runs in"
    hint = approve_hint(event, command)
    return f"review that file; if it is the one you mean, approve it{where}: {hint}"


# -- approvals and baselines ------------------------------------------------------------


@dataclass(frozen=True)
class Approval:
    """One approval entry of the allowlist."""

    event: str
    command: str
    approved_at: str | None = None
    script_mtime_at_approval: str | None = None
    script_sha256: str | None = None
    program_path: str | None = None
    script_path: str | None = None
    pinned: bool = False  # whether the entry records where the command led (the pin keys)
    #: The home (absolute) the relative paths above are relative to; None when the
    #: entry has none (its paths are all absolute: the format before).
    home_path: str | None = None

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
            text("program_path"),
            text("script_path"),
            # A pin is both keys, each a path or null; anything else pins nothing.
            all(k in value and (value[k] is None or text(k)) for k in _PIN_KEYS),
            text("home_path") or None,
        )

    @classmethod
    def of(
        cls,
        event: str,
        command: str,
        shown: Baseline,
        home: str | os.PathLike[str] | None = None,
    ) -> Approval:
        """A new approval of ``(event, command)`` pinning ``shown`` (what the user saw).

        With ``home`` (the home the approval is for), the files the command names
        relative to it are pinned relative to it, so the approval holds in a copy.
        """
        resolution = shown.resolution
        paths: list[str | None] = [None, None]
        home_path = None
        if resolution is not None:
            paths = [resolution.program, resolution.script]
            if home is not None and any(resolution.in_home):
                # Inside the home, relative: the approval follows the home around.
                paths = [rel or path for rel, path in zip(resolution.in_home, paths, strict=True)]
                home_path = os.path.abspath(os.fspath(home))
        return cls(
            event,
            command.strip(),
            utc_iso(datetime.now(tz=timezone.utc).timestamp(), seconds=True),
            shown.mtime,
            shown.sha256,
            paths[0],
            paths[1],
            True,
            home_path,
        )

    def as_json(self) -> dict[str, Any]:
        """The entry as written: event, command, then the pin and the baseline (an
        unpinned entry stays unpinned; an entry with absolute paths has no home)."""
        keys = _ENTRY_KEYS if self.pinned else [k for k in _ENTRY_KEYS if k not in _PIN_KEYS]
        if self.home_path is None:
            keys = [k for k in keys if k != "home_path"]
        return {key: getattr(self, key) for key in keys}

    def _absolute(self, path: str | None) -> str | None:
        """A pinned path as the absolute path it named when approved."""
        if path is None or self.home_path is None or os.path.isabs(path):
            return path
        return os.path.join(self.home_path, path)

    @property
    def resolution(self) -> Resolution | None:
        """What the command resolved to at approval (absolute paths, relative ones
        joined to the home they were approved in); None for an unpinned entry."""
        if not self.pinned:
            return None
        return Resolution(self._absolute(self.program_path), self._absolute(self.script_path))

    def in_home(self, identity: str | os.PathLike[str] | None) -> tuple[str | None, str | None]:
        """(program, script) relative to the home, as pinned: relative paths of an
        entry with a home, or an older entry's absolute paths inside ``identity`` (the
        home being loaded, so a replay's copy keeps the approvals of the format before)."""
        pinned = (self.program_path, self.script_path)
        if self.home_path is not None:
            return tuple(  # type: ignore[return-value]
                p if p is not None and not os.path.isabs(p) else None for p in pinned
            )
        return tuple(inside(p, identity) for p in pinned)  # type: ignore[return-value]

    def moved(self, identity: str | os.PathLike[str] | None) -> bool:
        """Whether the approval's relative paths were approved in another home than
        ``identity`` (so only the script's bytes can vouch for it)."""
        if self.home_path is None or identity is None or not any(self.in_home(identity)):
            return False
        return os.path.abspath(os.fspath(identity)) != os.path.abspath(self.home_path)

    def matches(self, event: str | None, command: str) -> bool:
        """Whether this approves ``command`` (trimmed) for ``event`` (any when None)."""
        return (event is None or self.event == event) and self.command == command.strip()


@dataclass(frozen=True)
class Baseline:
    """The state of a command's script: where it is, its mtime, its hash, and
    where the command leads (:mod:`.pin`)."""

    path: Path | None
    mtime: str | None  # UTC ISO 8601 with Z, None if no script was found
    sha256: str | None
    resolution: Resolution | None = None


def file_state(path: Path) -> tuple[str | None, str | None]:
    """(mtime, sha256) of the file at ``path``, both read through one open handle so
    they describe the same file; (None, None) when it cannot be read."""
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            mtime = os.fstat(handle.fileno()).st_mtime
            for block in iter(lambda: handle.read(1 << 16), b""):
                digest.update(block)
    except (OSError, ValueError):  # ValueError: a path with a NUL byte
        return None, None
    return utc_iso(mtime), digest.hexdigest()


def baseline(
    command: str,
    base: str | os.PathLike[str] | None = None,
    variables: tuple[tuple[str, str], ...] = (),
) -> Baseline:
    """The current :class:`Baseline` of the script ``command`` runs, relative paths
    taken from ``base`` (the home; the current directory when None), ``variables``
    written out as its runner's shell does (:func:`~.pin.resolve`)."""
    resolution = resolve(command, base, variables)
    if resolution is None or resolution.script is None:
        return Baseline(None, None, None, resolution)
    path = Path(resolution.script)
    return Baseline(path, *file_state(path), resolution)


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
    """The shell-hooks allowlist of one Hermes home.

    ``identity`` is the home this one stands for when it is a replay's copy (the
    approvals of the real home hold in it as they do there); by default the home.
    """

    #: What the file is called in messages.
    kind = "allowlist"

    def __init__(self, home: Path, identity: str | os.PathLike[str] | None = None) -> None:
        self.home = Path(home)
        self.identity = Path(identity) if identity is not None else self.home
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

    def approve(self, event: str, command: str, shown: Baseline | None = None) -> Approval:
        """Record (or refresh) the approval of ``(event, command)``, pinning ``shown``
        (what the user was shown) or, by default, where the command leads now, relative
        paths taken from the home.

        Raises ``OSError`` when the file cannot be written.
        """
        shown = shown or baseline(command, self.home)
        approval = Approval.of(event, command, shown, self.home)
        self.add(approval)
        return approval

    def add(self, *approvals: Approval) -> None:
        """Write ``approvals`` in one locked read-modify-write, each replacing any entry
        of the same ``(event, command)``: a load approving many hooks writes once.

        Raises ``OSError`` when the file cannot be written.
        """
        replaced = {(a.event, a.command) for a in approvals}
        with self._update() as entries:
            kept = [e for e in entries if _key(Approval.from_json(e)) not in replaced]
            entries[:] = kept + [a.as_json() for a in approvals]

    def revoke(self, command: str) -> list[Approval]:
        """Remove every approval of ``command`` (trimmed, any event); return them.

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
        """Hold the sibling ``.lock`` file exclusively, and remove it before letting go.

        An empty lock file left in the home after every ``approve`` looks like debris a
        user deletes by hand, so the holder unlinks it while still holding it.  Whoever
        was waiting on that file then holds a lock on a name that is gone: after each
        ``flock`` the path is checked to still be the descriptor's file, else the lock is
        taken again on the file now at that path.
        """
        if fcntl is None:  # pragma: no cover - Windows
            yield
            return
        while True:
            descriptor = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX)
                held = os.fstat(descriptor)
                try:
                    now = os.stat(self.lock_path)
                except FileNotFoundError:
                    now = None
            except BaseException:
                os.close(descriptor)
                raise
            if now is not None and (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino):
                break
            os.close(descriptor)  # its holder removed it meanwhile: take the current one
        try:
            yield
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.lock_path)  # still held: no one can take it in between
            os.close(descriptor)  # closing releases the lock

    def _set_aside(self, problem: str) -> None:
        """Keep an unusable file instead of overwriting what a human wrote."""
        stamp = datetime.now(tz=timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
        aside = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        try:
            os.replace(self.path, aside)
        except OSError:
            return
        log.warning(
            "%s %s; moved it to %s and started a new %s", self.path, problem, aside, self.kind
        )

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


def _key(approval: Approval | None) -> tuple[str, str] | None:
    return None if approval is None else (approval.event, approval.command)


# -- running processes: re-check before each firing -----------------------------


class AllowlistWatch:
    """The allowlist as running hooks see it: re-read when its ``stat`` changes.

    :meth:`approved` costs one ``stat`` while the file is unchanged.  A missing file
    approves nothing; an unusable one keeps the last good copy.
    """

    __slots__ = ("_approved", "_lock", "_signature", "allowlist")

    def __init__(self, allowlist: Allowlist) -> None:
        self.allowlist = allowlist
        self._lock = threading.Lock()
        self._signature: tuple[int, int, int] | None = None
        self._approved: dict[tuple[str, str], Approval] = {}
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
                self._approved = {}
            else:
                approvals, problem = self.allowlist.read()
                if problem is not None:
                    log.warning(
                        "%s %s; keeping the approvals read before", self.allowlist.path, problem
                    )
                else:
                    self._approved = {(a.event, a.command): a for a in approvals}
            self._signature = signature

    def approved(self, event: str, command: str) -> bool:
        """Whether ``(event, command)`` is approved in the file as it is now."""
        return self.approval(event, command) is not None

    def approval(self, event: str, command: str) -> Approval | None:
        """The approval of ``(event, command)`` in the file as it is now, if any."""
        self.refresh()
        return self._approved.get((event, command))


# -- the TTY prompt ----------------------------------------------------


def prompt(
    event: str,
    command: str,
    *,
    allowlist_path: Path | None = None,
    stdin: IO[str] | None = None,
    stderr: IO[str] | None = None,
    shown: Baseline | None = None,
    why: str | None = None,
    base: str | os.PathLike[str] | None = None,
    variables: tuple[tuple[str, str], ...] = (),
) -> bool | None:
    """Ask at the terminal whether ``command`` may run on ``event``.

    Returns True for ``y``/``yes``, False for any other answer, EOF or Ctrl-C,
    and None without asking when stdin is not a TTY: Hermes never reads a stdin that is
    not a terminal.  ``shown`` is what the prompt shows (by default the command's
    :func:`baseline` now): the caller records exactly that.  After a yes the files are
    checked again, and a command whose script or resolution changed while the user read
    the prompt is refused (False), saying so.  ``why`` adds a line saying why the
    command is asked about again.  ``base`` is the home relative paths resolve against.
    """
    stdin = sys.stdin if stdin is None else stdin
    stderr = sys.stderr if stderr is None else stderr
    try:
        if stdin is None or not stdin.isatty():
            return None
    except (AttributeError, ValueError):  # a closed or odd stream
        return None
    shown = baseline(command, base, variables) if shown is None else shown
    lines = [
        "",
        "⚠ Hermes is about to register a shell hook that runs a command on your behalf.",
        "",
        f"    Event:   {event}",
        f"    Command: {command}",
    ]
    if why:
        lines.append(f"    Again:   {why}")
    resolution = shown.resolution
    if resolution is not None and resolution.script != resolution.program:
        lines.append(f"    Program: {resolution.program or 'not found'}")
    if shown.path is not None:
        found = f"sha256 {shown.sha256}" if shown.sha256 else "not found"
        lines.append(f"    Script:  {shown.path} ({found})")
    lines += [
        "",
        "  It runs with your full user credentials. Approve only commands you wrote or",
        "  reviewed in full."
        + (f" Your answer is remembered in {allowlist_path}." if allowlist_path else ""),
        "Allow this hook to run? [y/N]: ",
    ]
    try:
        stderr.write(escape_lines(lines))  # a command's ESC or newline cannot redraw this
        stderr.flush()
        answer = stdin.readline()
    except KeyboardInterrupt:  # Ctrl-C at the prompt is a "no" for this run
        stderr.write("\n")
        return False
    except (OSError, ValueError):
        return False
    if answer.strip().lower() not in {"y", "yes"}:
        return False
    return _unchanged_since_shown(event, command, shown, stderr, base, variables)


def _unchanged_since_shown(
    event: str,
    command: str,
    shown: Baseline,
    stderr: IO[str],
    base: str | os.PathLike[str] | None = None,
    variables: tuple[tuple[str, str], ...] = (),
) -> bool:
    """Whether the files are still the ones the prompt showed; says so when not."""
    now = baseline(command, base, variables)
    if (now.resolution, now.sha256) == (shown.resolution, shown.sha256):
        return True
    if now.resolution != shown.resolution:
        was = shown.resolution.describe() if shown.resolution else "nothing"
        found = now.resolution.describe() if now.resolution else "nothing"
        what = f"the command now resolves to {found}, not {was}"
    else:
        what = (
            f"{shown.path} changed (sha256 {shown.sha256 or 'unreadable'} shown, "
            f"{now.sha256 or 'unreadable'} now)"
        )
    stderr.write(
        f"✗ Not approved: {escape(what)} while you were reading. Review it again; you will be "
        "asked at the next start.\n"
    )
    stderr.flush()
    log.warning("shell hook for %s (%s) not approved: %s while it was shown", event, command, what)
    return False
