"""Run one shell hook: spawn, feed stdin, capture stdout/stderr, bound it in time.

The rules (one process per matching entry, bounded only by the hook's own ``timeout``,
and cheap next to the spawn itself):

* no shell: ``argv`` goes straight to ``execve``;
* the hook leads its own session and process group, so at the timeout the whole group
  (the hook and anything it started) is killed with SIGKILL, and nothing the hook
  forked outlives a timed-out firing; the terminal's Ctrl-C never reaches the hook
  either, so an interrupted firing kills the group itself before re-raising;
* stdin is written and both outputs are read by one ``poll`` loop on the calling
  thread, so a hook that answers before reading a multi-megabyte payload cannot
  deadlock against us, and no thread is started per call;
* capture is bounded: at most :data:`STREAM_CAP` bytes are kept per stream; the rest is
  read and discarded so the hook never blocks on a full pipe;
* the hook's exit is watched through a pidfd (Linux), else by polling every 50 ms, so
  a quick hook is reaped the moment it exits and one that exits while something it
  forked still holds its pipes does not keep the caller waiting: output is drained for
  at most :data:`DRAIN_SECONDS` (as after a kill) and the helper is left alone;
* the direct child is always reaped, so no zombie is left;
* every hook started here is recorded until it is reaped (:class:`ProcessSet`), so the
  groups still running can be killed together: those of one background run when
  ``close()`` ends it, and all of them when the host's interpreter exits (an ``atexit``
  hook, registered at the first spawn), so nothing a hook runs outlives its host.

On platforms without ``poll`` (Windows) a simpler ``communicate()`` path is used.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from hermes_hooks.telemetry.context import trace_environment

__all__ = [
    "DRAIN_SECONDS",
    "STREAM_CAP",
    "ProcessSet",
    "RunResult",
    "collecting",
    "kill_group",
    "released",
    "run_command",
    "spawn",
    "spawn_error",
    "stopped",
]

#: Bytes kept per output stream (stdout and stderr each); the rest is discarded.
STREAM_CAP = 1024 * 1024
#: How long output is drained after a kill, or after exit while the pipes stay open.
DRAIN_SECONDS = 1.0
_CHUNK = 65536
# Without a pidfd: how often the loop checks whether the hook exited.
_EXIT_CHECK = 0.05
_pidfd_open = getattr(os, "pidfd_open", None)
_READ_EVENTS = select.POLLIN | select.POLLHUP | select.POLLERR if hasattr(select, "poll") else 0
_WRITE_EVENTS = select.POLLOUT | select.POLLERR if hasattr(select, "poll") else 0


@dataclass
class RunResult:
    """What one run of a hook produced."""

    returncode: int | None = None  # negative: killed by that signal (Popen convention)
    stdout: bytes = b""
    stderr: bytes = b""
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    timed_out: bool = False
    error: str | None = None  # the spawn failed: "command not found", ...
    elapsed: float = 0.0

    @property
    def signal(self) -> int | None:
        """The signal that killed the hook, if one did."""
        if self.returncode is not None and self.returncode < 0:
            return -self.returncode
        return None


class _Capture:
    """One output stream, kept up to the cap."""

    __slots__ = ("chunks", "size", "truncated")

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.size = 0
        self.truncated = False

    def add(self, data: bytes) -> None:
        room = STREAM_CAP - self.size
        if room <= 0:
            self.truncated = True
            return
        if len(data) > room:
            data = data[:room]
            self.truncated = True
        self.chunks.append(data)
        self.size += len(data)

    def value(self) -> bytes:
        return b"".join(self.chunks)


class ProcessSet:
    """Hook processes not reaped yet, whose groups can be killed together.

    Once :meth:`stop` ran, the set kills every process added to it at once, and
    :func:`spawn` refuses to start one for it: a stopped run cannot start again.
    """

    __slots__ = ("_lock", "_processes", "stopped")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._processes: set[subprocess.Popen[bytes]] = set()
        self.stopped = False

    def add(self, process: subprocess.Popen[bytes]) -> bool:
        """Record ``process``; False (and its group killed) when the set is stopped."""
        with self._lock:
            if not self.stopped:
                # Forget the ones reaped meanwhile (a kill never needs them again).
                self._processes = {p for p in self._processes if p.returncode is None}
                self._processes.add(process)
                return True
        kill_group(process)
        return False

    def discard(self, process: subprocess.Popen[bytes]) -> None:
        """Forget ``process`` (it was reaped)."""
        with self._lock:
            self._processes.discard(process)

    def stop(self, reap: float = DRAIN_SECONDS) -> int:
        """Kill the group of every process not reaped yet, then reap them within
        ``reap`` seconds in total (so none is left a zombie for init); return how many
        were killed."""
        with self._lock:
            self.stopped = True
            processes, self._processes = self._processes, set()
        # Only a process we have not reaped: until then its pid, and so its group id,
        # cannot be given to another process.
        killed = [p for p in processes if p.returncode is None]
        for process in killed:
            kill_group(process)
        deadline = time.monotonic() + reap
        for process in killed:
            # SIGKILL is delivered at once; the bound only guards a process stuck in the
            # kernel.  The thread running it may reap it first: wait() copes.
            with contextlib.suppress(subprocess.TimeoutExpired, ChildProcessError):
                process.wait(max(0.0, deadline - time.monotonic()))
        return len(killed)


#: Every hook of this process not reaped yet (killed when the interpreter exits).
_ALL = ProcessSet()
_local = threading.local()
_exit_lock = threading.Lock()
_exit_registered = False


@contextlib.contextmanager
def collecting(processes: ProcessSet) -> Iterator[None]:
    """Within this block, the hooks this thread starts are recorded in ``processes``
    too (a background run's own set, which ``close()`` stops)."""
    previous = getattr(_local, "collector", None)
    _local.collector = processes
    try:
        yield
    finally:
        _local.collector = previous


def stopped() -> bool:
    """Whether this thread's hooks were stopped: its background run was ended by
    ``close()``, or the interpreter is exiting."""
    collector: ProcessSet | None = getattr(_local, "collector", None)
    return _ALL.stopped or (collector is not None and collector.stopped)


def released(process: subprocess.Popen[bytes]) -> None:
    """Forget a hook process that was reaped (or is being let go after a kill)."""
    _ALL.discard(process)
    collector: ProcessSet | None = getattr(_local, "collector", None)
    if collector is not None:
        collector.discard(process)


def _kill_all_at_exit() -> None:
    """The interpreter exits: kill the group of every hook still running (a host that
    never called ``close()`` leaves nothing behind either)."""
    _ALL.stop()


def _watch_exit() -> None:
    global _exit_registered
    with _exit_lock:
        if not _exit_registered:
            atexit.register(_kill_all_at_exit)
            _exit_registered = True


def spawn(
    argv: Sequence[str], env: dict[str, str] | None = None, cwd: str | None = None
) -> subprocess.Popen[bytes]:
    """Start a hook: no shell, all three streams piped and unbuffered, in a session (and
    so a process group) of its own, so a kill reaches everything it started.  It is
    recorded until :func:`released` (see :class:`ProcessSet`); raises ``OSError``
    (``ECANCELED``) when this thread's hooks were stopped."""
    collector: ProcessSet | None = getattr(_local, "collector", None)
    if stopped():
        raise OSError(errno.ECANCELED, "the hooks were closed")
    _watch_exit()
    process = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        bufsize=0,
        start_new_session=True,
        env=env,
        cwd=cwd,
    )
    # A set stopped meanwhile kills it at once; the run then sees it die.
    if _ALL.add(process) and collector is not None:
        collector.add(process)
    return process


def spawn_error(exc: OSError, argv: tuple[str, ...]) -> str:
    """A short reason for a failed spawn, as the fail-closed message shows it."""
    program = argv[0]
    if isinstance(exc, FileNotFoundError):
        if os.sep in program and os.path.isfile(program):
            return f"bad interpreter in {program} (check its #! line)"
        return "command not found"
    if isinstance(exc, PermissionError):
        return "command not executable"
    if exc.errno == errno.ENOEXEC:
        return f"{program} is not an executable format (add a #! line)"
    return f"cannot start: {exc.strerror or exc}"


def kill_group(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL the hook's process group (the hook leads it, so its pgid is its pid)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        # The group is gone already; make sure at least the child is.
        with contextlib.suppress(ProcessLookupError):
            process.kill()


def run_command(
    argv: tuple[str, ...],
    stdin: bytes,
    timeout: float,
    *,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
) -> RunResult:
    """Run ``argv`` with ``stdin`` on its standard input, within ``timeout`` seconds.

    Never raises for anything the hook does (a missing program, a crash, a hang);
    ``KeyboardInterrupt`` and other ``BaseException`` s kill the hook's group and
    propagate.
    """
    started = time.monotonic()
    try:
        # TRACEPARENT: the hook joins the firing's trace
        process = spawn(argv, env=trace_environment(env), cwd=cwd)
    except OSError as exc:
        return RunResult(error=spawn_error(exc, argv), elapsed=time.monotonic() - started)
    if not hasattr(select, "poll"):  # pragma: no cover - Windows
        return _communicate(process, stdin, timeout, started)
    try:
        return _supervise(process, stdin, timeout, started)
    except BaseException:
        kill_group(process)
        process.wait()
        raise
    finally:
        released(process)
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None and not stream.closed:
                stream.close()


def _open_pidfd(process: subprocess.Popen[bytes]) -> int | None:
    """A descriptor that becomes readable when the hook exits (Linux 5.3+), or None."""
    if _pidfd_open is None:
        return None
    try:
        return _pidfd_open(process.pid)
    except OSError:
        return None


def _supervise(
    process: subprocess.Popen[bytes], stdin: bytes, timeout: float, started: float
) -> RunResult:
    """Run the poll loop with the hook's pidfd (when there is one), then close it."""
    pidfd = _open_pidfd(process)
    try:
        return _loop(process, stdin, started + timeout, started, pidfd)
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _loop(
    process: subprocess.Popen[bytes],
    stdin: bytes,
    deadline: float,
    started: float,
    pidfd: int | None,
) -> RunResult:
    """Feed stdin, read both outputs, notice the exit, enforce the deadline."""
    assert process.stdin is not None and process.stdout is not None
    assert process.stderr is not None
    result = RunResult()
    captures = {process.stdout.fileno(): _Capture(), process.stderr.fileno(): _Capture()}
    poller = select.poll()
    for fd in captures:
        poller.register(fd, _READ_EVENTS)
    if pidfd is not None:
        poller.register(pidfd, select.POLLIN)
    view = memoryview(stdin)
    # A fresh pipe holds 64 KiB: most payloads go in one write, before any poll.
    first_fd = process.stdin.fileno()
    os.set_blocking(first_fd, False)
    offset = _write(first_fd, view, 0)
    in_fd: int | None = None
    if offset >= len(view):
        process.stdin.close()
    else:
        in_fd = first_fd
        poller.register(in_fd, _WRITE_EVENTS)
    # Set once killed, or once the hook exited while something it forked still holds
    # its pipes: from then on output is drained for DRAIN_SECONDS at most.
    drain_until: float | None = None
    next_exit_check = time.monotonic() + _EXIT_CHECK  # without a pidfd: poll for the exit
    open_outputs = len(captures)

    while open_outputs:
        now = time.monotonic()
        if drain_until is None:
            if now >= deadline:
                result.timed_out = True
                kill_group(process)
                drain_until = now + DRAIN_SECONDS
            elif pidfd is None and now >= next_exit_check:
                next_exit_check = now + _EXIT_CHECK
                if process.poll() is not None:
                    drain_until = now + DRAIN_SECONDS
        if drain_until is not None and now >= drain_until:
            break
        limit = drain_until if drain_until is not None else deadline
        if pidfd is None and drain_until is None:
            limit = min(limit, next_exit_check)
        for fd, mask in poller.poll(max(0.0, limit - now) * 1000.0):
            if fd == pidfd:
                poller.unregister(fd)
                process.poll()  # reap it now; its status is ready
                if drain_until is None:
                    drain_until = time.monotonic() + DRAIN_SECONDS
                continue
            if fd == in_fd:
                offset = len(view) if mask & select.POLLERR else _write(fd, view, offset)
                if offset >= len(view):
                    poller.unregister(fd)
                    process.stdin.close()
                    in_fd = None
                continue
            data = os.read(fd, _CHUNK) if mask & (select.POLLIN | select.POLLHUP) else b""
            if data:
                captures[fd].add(data)
            else:
                poller.unregister(fd)
                open_outputs -= 1

    if in_fd is not None:
        process.stdin.close()
    if not result.timed_out and not _wait_exit(process, pidfd, deadline):
        # It closed its outputs but kept running until the deadline.
        result.timed_out = True
        kill_group(process)
    if result.timed_out:
        # SIGKILL is delivered at once; the bound only guards a process stuck in the kernel.
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(DRAIN_SECONDS)
    out, err = captures[process.stdout.fileno()], captures[process.stderr.fileno()]
    result.returncode = process.returncode
    result.stdout, result.stdout_truncated = out.value(), out.truncated
    result.stderr, result.stderr_truncated = err.value(), err.truncated
    result.elapsed = time.monotonic() - started
    return result


def _wait_exit(process: subprocess.Popen[bytes], pidfd: int | None, deadline: float) -> bool:
    """Reap the hook if it exits before ``deadline``; False if it is still running.

    With a pidfd the wait wakes exactly at the exit; ``Popen.wait(timeout)`` would
    sleep in growing steps, adding up to milliseconds to a quick hook.
    """
    if process.poll() is not None:
        return True
    remaining = max(deadline - time.monotonic(), 0.0)
    if pidfd is not None:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        if not poller.poll(remaining * 1000.0):
            return False
        process.wait()
        return True
    try:
        process.wait(remaining)
    except subprocess.TimeoutExpired:
        return False
    return True


def _write(fd: int, view: memoryview, offset: int) -> int:
    """Write the next chunk of stdin; return the new offset (the end if the hook stopped
    reading, which is fine: many hooks ignore their input)."""
    if offset >= len(view):
        return offset
    try:
        return offset + os.write(fd, view[offset : offset + _CHUNK])
    except BlockingIOError:
        return offset
    except OSError:  # EPIPE: the hook exited or closed its stdin
        return len(view)


def _communicate(
    process: subprocess.Popen[bytes], stdin: bytes, timeout: float, started: float
) -> RunResult:  # pragma: no cover - Windows only
    """Fallback without ``poll``: ``communicate`` with a timeout, capture cut afterwards."""
    result = RunResult()
    try:
        out, err = process.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        result.timed_out = True
        process.kill()
        try:
            out, err = process.communicate(timeout=DRAIN_SECONDS)
        except subprocess.TimeoutExpired:
            out, err = b"", b""
    result.returncode = process.returncode
    result.stdout, result.stdout_truncated = out[:STREAM_CAP], len(out) > STREAM_CAP
    result.stderr, result.stderr_truncated = err[:STREAM_CAP], len(err) > STREAM_CAP
    result.elapsed = time.monotonic() - started
    return result
