"""Persistent shell hooks (``persistent: true``): one long-running process per entry.

A hook that loads a model or a policy cannot afford an interpreter start per firing, so
such an entry's command is started once and kept running.  The protocol is line based:

* each firing writes **one line**: the same JSON document a per-firing hook reads on
  stdin, with an ``"id"`` key added in front;
* the hook answers with **one line**: a JSON object carrying the same ``"id"`` and the
  answer a per-firing hook would print (``{"id": 7, "action": "block", "message": ...}``;
  ``{"id": 7}`` is "no opinion").  ``{"action": "block"}`` is what exit code 2 is to a
  per-firing hook.

Everything else is the per-firing hook's: consent (checked by the callback before each
firing), the per-firing ``timeout``, the failure table and the fail-closed rule (the
result is handed to the same interpretation core as a :class:`~.run.RunResult`).

A crash, a timeout or a garbled answer line kills the hook's process group (the hook
leads its own session, as a per-firing hook does) and the next firing starts it again.
While it keeps failing, each restart waits longer (:func:`backoff`); a firing that
arrives during the wait fails at once (and so blocks when the entry fails closed).
The first restart is warned about once per hook; each failure is reported like a
per-firing hook's.  A script changed on disk (seen by one ``stat`` per firing,
:func:`_stamp`), or a command that now resolves to other files, is restarted on the
next firing; every start first asks the caller's ``admit`` check (consent, on the file
about to be loaded), so the code that runs is the code consent just checked.  The
process's environment is fixed when it starts (a per-firing hook gets
the trace context of its firing in ``TRACEPARENT``; a persistent one gets none).

One process serves one firing at a time: firings on other threads queue for it, each
within its own timeout.  :meth:`PersistentProcess.close` ends it (stdin is closed so a
well-behaved hook exits on its own, then the group is killed); a firing after that
starts it again.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

from hermes_hooks._log import get_logger, warn_once
from hermes_hooks.errors import HermesHooksError
from hermes_hooks.shell.config import script_for_argv
from hermes_hooks.shell.entry import ShellEntry
from hermes_hooks.shell.run import (
    DRAIN_SECONDS,
    STREAM_CAP,
    RunResult,
    kill_group,
    released,
    spawn,
    spawn_error,
)

__all__ = ["BACKOFF_FIRST", "BACKOFF_MAX", "PersistentProcess", "StartRefused", "backoff"]

log = get_logger("hermes_hooks.shell")

#: Seconds before the second restart in a row; each further one doubles it.
BACKOFF_FIRST = 0.5
#: The longest wait between restarts.
BACKOFF_MAX = 30.0
# How long close() lets a hook exit on its own after its stdin is closed.
_CLOSE_GRACE = 1.0
_CHUNK = 65536
_POLL_IN = select.POLLIN | select.POLLHUP | select.POLLERR if hasattr(select, "poll") else 0
_POLL_OUT = select.POLLOUT | select.POLLERR if hasattr(select, "poll") else 0


def backoff(failures: int) -> float:
    """Seconds to wait before restarting after ``failures`` failures in a row: none
    after the first (a one-off crash costs one firing), then doubling up to the cap."""
    if failures <= 1:
        return 0.0
    return min(BACKOFF_FIRST * 2 ** (failures - 2), BACKOFF_MAX)


Stamp = tuple[int, int, int, int, int]


def _stamp(path: Path | None) -> Stamp | None:
    """What identifies one version of the script on disk (None when it cannot be seen).

    One ``stat`` per firing, no read: the file (device and inode, so a file renamed
    over it), its size, its mtime, and its ctime, which every write and every
    ``utime`` moves and which no user can set back, so an edit in place that keeps
    the size and restores the mtime is seen too.
    """
    if path is None:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class StartRefused(HermesHooksError):
    """Consent refuses to (re)start the process on the script as it is now; the
    message says why (the firing is refused like any refused hook, never raised into
    the host)."""


def _exit_text(returncode: int | None) -> str:
    if returncode is not None and returncode < 0:
        return f"killed by signal {-returncode}"
    return f"exit code {returncode}"


class _Firing:
    """The in-flight state of one request: the answer line so far and stderr."""

    __slots__ = ("line", "stderr", "stderr_truncated")

    def __init__(self) -> None:
        self.line = bytearray()
        self.stderr = bytearray()
        self.stderr_truncated = False

    def add_stderr(self, data: bytes) -> None:
        room = STREAM_CAP - len(self.stderr)
        if len(data) > room:
            data = data[: max(room, 0)]
            self.stderr_truncated = True
        self.stderr += data


class PersistentProcess:
    """The long-running process of one ``persistent: true`` entry."""

    def __init__(self, entry: ShellEntry) -> None:
        self.entry = entry
        # Watched for changes (None: nothing to watch): the script of the argv run,
        # looked up again only when that argv changes.
        self.script: Path | None = script_for_argv(entry.argv)
        self._script_of: tuple[str, ...] = entry.argv
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._argv: tuple[str, ...] = entry.argv  # what the running process executes
        self._stamp: Stamp | None = None
        self._buffer = b""  # stdout read past the last answer line (a protocol error)
        self._next_id = 1
        self._failures = 0  # failures in a row
        self._retry_at = 0.0
        self.starts = 0  # processes started so far (for list, doctor and tests)

    @property
    def pid(self) -> int | None:
        """The running process's id, or None."""
        process = self._process
        return process.pid if process is not None and process.poll() is None else None

    # -- one firing --------------------------------------------------------------------

    def request(
        self,
        document: bytes,
        argv: tuple[str, ...] | None = None,
        admit: Callable[[], None] | None = None,
    ) -> RunResult:
        """Send one firing's stdin ``document`` (a JSON object on one line) to the
        process running ``argv`` (the command as consent resolved it; the entry's own by
        default), and wait for the answer line within the entry's timeout.

        ``admit`` is called each time the process is about to be started (the first
        time, and again after a change on disk or a failure), on the script as it is
        then: it raises :class:`StartRefused` when consent refuses it, and nothing is
        started (a process running the old code is already stopped).  Never raises for
        anything the hook does; ``KeyboardInterrupt`` kills the group and propagates."""
        started = time.monotonic()
        deadline = started + self.entry.timeout
        if not self._lock.acquire(timeout=self.entry.timeout):
            return RunResult(
                error=f"still busy with another firing after {self.entry.timeout}s",
                elapsed=time.monotonic() - started,
            )
        try:
            result = self._request(document, argv or self.entry.argv, deadline, admit)
        except BaseException:
            self._stop()
            raise
        finally:
            self._lock.release()
        result.elapsed = time.monotonic() - started
        return result

    def _request(
        self,
        document: bytes,
        argv: tuple[str, ...],
        deadline: float,
        admit: Callable[[], None] | None,
    ) -> RunResult:
        # Taken before anything is checked or started: an edit made after this is seen
        # by the next firing.
        if argv != self._script_of:
            self.script, self._script_of = script_for_argv(argv), argv
        stamp = _stamp(self.script)
        process = self._process
        if process is not None and process.poll() is not None:
            # It ended between firings (a hook may exit after answering): start anew.
            warn_once(
                log,
                ("persistent-idle-exit", self.entry.where, self.entry.command),
                "persistent shell hook %s (%s) exited between firings (%s); it is "
                "started again for each firing that finds it gone",
                self.entry.where,
                self.entry.command,
                _exit_text(process.returncode),
            )
            self._stop()
            process = None
        if process is not None and (argv != self._argv or stamp != self._stamp):
            log.info(
                "persistent shell hook %s (%s): the script or what the command resolves "
                "to changed; restarting it on the new code",
                self.entry.where,
                self.entry.command,
            )
            self._stop()
            process = None
        if process is None:
            wait = self._retry_at - time.monotonic()
            if wait > 0:
                return RunResult(
                    error=f"not restarted yet after {self._failures} failures in a row "
                    f"(next try in {wait:.1f}s)"
                )
            if admit is not None:
                admit()  # consent, on the script the process is about to load
            failure = self._start(argv, stamp)
            if failure is not None:
                return self._failed(RunResult(error=failure))
        return self._exchange(document, deadline)

    def _start(self, argv: tuple[str, ...], stamp: Stamp | None) -> str | None:
        """Start ``argv`` on the script version ``stamp``; the reason it could not
        start, or None."""
        entry = self.entry
        if self._failures:
            warn_once(
                log,
                ("persistent-restart", entry.where, entry.command),
                "persistent shell hook %s (%s) is restarted after a failure; while it "
                "keeps failing each restart waits longer (up to %ss)",
                entry.where,
                entry.command,
                int(BACKOFF_MAX),
            )
        self._stamp = stamp
        self._argv = argv
        try:
            self._process = spawn(argv)
        except OSError as exc:
            return spawn_error(exc, argv)
        self.starts += 1
        self._buffer = b""
        for stream in (self._process.stdin, self._process.stdout, self._process.stderr):
            assert stream is not None
            os.set_blocking(stream.fileno(), False)
        return None

    def _exchange(self, document: bytes, deadline: float) -> RunResult:
        """Write the request line, read the answer line (draining stderr meanwhile)."""
        process = self._process
        assert process is not None
        assert process.stdin is not None and process.stdout is not None
        assert process.stderr is not None
        ident = self._next_id
        self._next_id += 1
        body = document.strip()
        if body in (b"{}", b""):
            line = b'{"id": %d}\n' % ident
        else:
            line = b'{"id": %d, ' % ident + body[1:] + b"\n"
        firing = _Firing()
        view, offset = memoryview(line), 0
        in_fd, out_fd, err_fd = (
            process.stdin.fileno(),
            process.stdout.fileno(),
            process.stderr.fileno(),
        )
        poller = select.poll()
        poller.register(out_fd, _POLL_IN)
        poller.register(err_fd, _POLL_IN)
        poller.register(in_fd, _POLL_OUT)
        writing = True
        answer: bytes | None = self._take_line(firing)
        ended = False
        while answer is None and not ended:
            now = time.monotonic()
            if now >= deadline:
                self._drain_stderr(err_fd, firing)
                self._stop()
                return self._failed(self._result(firing, timed_out=True))
            for fd, mask in poller.poll((deadline - now) * 1000.0):
                if fd == in_fd:
                    try:
                        offset += os.write(fd, view[offset : offset + _CHUNK])
                    except BlockingIOError:
                        continue
                    except OSError:  # EPIPE: it is gone; stdout's EOF says how
                        offset = len(view)
                    if offset >= len(view) and writing:
                        poller.unregister(fd)
                        writing = False
                    continue
                data = self._read(fd) if mask & (select.POLLIN | select.POLLHUP) else b""
                if data is None:
                    continue
                if fd == err_fd:
                    if data:
                        firing.add_stderr(data)
                    else:
                        poller.unregister(fd)
                    continue
                if not data:
                    ended = True
                    break
                self._buffer += data
                answer = self._take_line(firing)
                if answer is None and len(self._buffer) > STREAM_CAP:
                    return self._garbled(firing, f"an answer line over {STREAM_CAP} bytes")
        if answer is None:  # stdout closed before a whole line: it crashed or quit
            self._drain_stderr(err_fd, firing)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(max(0.0, min(DRAIN_SECONDS, deadline - time.monotonic())))
            reason = _exit_text(process.returncode) if process.returncode is not None else None
            self._stop()
            problem = "exited before answering"
            if reason is not None:
                problem += f" ({reason})"
            return self._failed(self._result(firing, error=problem))
        self._drain_stderr(err_fd, firing)
        return self._check(firing, answer, ident)

    def _check(self, firing: _Firing, answer: bytes, ident: int) -> RunResult:
        """The answer line with the right id, or the garbled-line failure."""
        try:
            doc = json.loads(answer)
        except (ValueError, RecursionError):
            return self._garbled(firing, "an answer line that is not JSON")
        if not isinstance(doc, dict):
            return self._garbled(firing, "an answer line that is not a JSON object")
        if doc.get("id") != ident or isinstance(doc.get("id"), bool):
            got = json.dumps(doc.get("id"))
            return self._garbled(firing, f"an answer with id {got}, expected {ident}")
        if self._buffer.strip():
            return self._garbled(firing, "more than one answer line")
        self._failures = 0
        self._retry_at = 0.0
        # The dialect reads the answer as a per-firing hook's stdout ("id" is ignored).
        return self._result(firing, stdout=answer)

    def _take_line(self, firing: _Firing) -> bytes | None:
        """The first complete line in the stdout buffer, removed from it, or None."""
        newline = self._buffer.find(b"\n")
        if newline < 0:
            return None
        line, self._buffer = self._buffer[:newline], self._buffer[newline + 1 :]
        return line

    @staticmethod
    def _read(fd: int) -> bytes | None:
        """The next chunk; ``b""`` at the end of the stream; None when nothing is ready."""
        try:
            return os.read(fd, _CHUNK)
        except BlockingIOError:
            return None
        except OSError:
            return b""

    def _drain_stderr(self, fd: int, firing: _Firing) -> None:
        """Whatever stderr holds right now (it is not waited for)."""
        while True:
            try:
                data = os.read(fd, _CHUNK)
            except OSError:  # BlockingIOError: nothing more for now
                return
            if not data:
                return
            firing.add_stderr(data)

    # -- outcomes ----------------------------------------------------------------------

    def _result(
        self,
        firing: _Firing,
        *,
        stdout: bytes = b"",
        error: str | None = None,
        timed_out: bool = False,
    ) -> RunResult:
        return RunResult(
            returncode=0 if error is None and not timed_out else None,
            stdout=stdout,
            stderr=bytes(firing.stderr),
            stderr_truncated=firing.stderr_truncated,
            timed_out=timed_out,
            error=error,
        )

    def _garbled(self, firing: _Firing, what: str) -> RunResult:
        self._stop()
        return self._failed(
            self._result(firing, error=f"garbled answer: {what} (process group killed)")
        )

    def _failed(self, result: RunResult) -> RunResult:
        """Count a failure: the next start waits per :func:`backoff`."""
        self._failures += 1
        self._retry_at = time.monotonic() + backoff(self._failures)
        return result

    # -- stopping ----------------------------------------------------------------------

    def _stop(self) -> None:
        """Kill the process group and reap the process (no-op when none runs)."""
        process, self._process = self._process, None
        self._buffer = b""
        if process is None:
            return
        kill_group(process)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(DRAIN_SECONDS)
        released(process)
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def close(self, timeout: float = _CLOSE_GRACE) -> None:
        """End the process: close its stdin, give it up to ``timeout`` seconds (at most
        one) to exit on its own, then kill its group.  A later firing starts it again."""
        process = self._process
        if process is None:
            return
        if process.stdin is not None:
            with contextlib.suppress(OSError):
                process.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(max(0.0, min(timeout, _CLOSE_GRACE)))
        if not self._lock.acquire(timeout=max(0.0, min(timeout, _CLOSE_GRACE))):
            # A firing holds it and the hook ignores the end of its input: kill the
            # group; that firing sees the end of stdout and cleans up after itself.
            kill_group(process)
            return
        try:
            if self._process is process:
                self._stop()
                self._failures = 0
                self._retry_at = 0.0
        finally:
            self._lock.release()
