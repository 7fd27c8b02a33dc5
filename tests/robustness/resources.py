"""Resource counts for the leak tests and the soak: threads, descriptors, memory and
processes, read from the interpreter and from ``/proc`` (Linux).

Everything here only *counts*; nothing decides pass or fail, so the soak can print the
same figures the tests assert on.
"""

from __future__ import annotations

import gc
import os
import threading
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

__all__ = [
    "Snapshot",
    "descendants",
    "fd_count",
    "marked_processes",
    "rss_kib",
    "snapshot",
    "thread_count",
    "traced_memory",
    "zombie_children",
]


def thread_count() -> int:
    """Live Python threads of this process."""
    return threading.active_count()


def fd_count() -> int:
    """Open file descriptors of this process."""
    return len(os.listdir("/proc/self/fd"))


def rss_kib() -> int:
    """Resident set size of this process, in KiB."""
    with open("/proc/self/statm", encoding="ascii") as handle:
        pages = int(handle.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") // 1024


# /proc paths are built as plain strings: pathlib interns each part, and interning
# thousands of pid strings grows the interpreter's table, which reads as a leak.
def _read(pid: int, name: str) -> bytes | None:
    try:
        with open(f"/proc/{pid}/{name}", "rb") as handle:
            return handle.read()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None


def _stat_fields(pid: int) -> tuple[str, int] | None:
    """(state, parent pid) of ``pid``, or None if it is gone."""
    raw = _read(pid, "stat")
    if raw is None:
        return None
    text = raw.decode("utf-8", errors="replace")
    # The command name is in parentheses and may hold spaces: split after the last ')'.
    rest = text.rsplit(")", 1)[1].split()
    return rest[0], int(rest[1])


def _pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def _cmdline(pid: int) -> str:
    raw = _read(pid, "cmdline") or b""
    return raw.replace(b"\0", b" ").decode("utf-8", errors="replace")


def descendants(pid: int | None = None) -> list[int]:
    """Every live process below ``pid`` (default: this process), zombies included."""
    root = os.getpid() if pid is None else pid
    parents: dict[int, int] = {}
    for child in _pids():
        fields = _stat_fields(child)
        if fields is not None:
            parents[child] = fields[1]
    found: list[int] = []
    frontier = [root]
    while frontier:
        current = frontier.pop()
        for child, parent in parents.items():
            if parent == current:
                found.append(child)
                frontier.append(child)
    return found


def zombie_children(pid: int | None = None) -> list[int]:
    """Children of ``pid`` (default: this process) that exited and were never reaped."""
    root = os.getpid() if pid is None else pid
    zombies = []
    for child in _pids():
        fields = _stat_fields(child)
        if fields is not None and fields[1] == root and fields[0] == "Z":
            zombies.append(child)
    return zombies


def marked_processes(marker: str) -> list[tuple[int, int, str]]:
    """(pid, parent pid, command line) of every live process whose command line holds
    ``marker``, anywhere on the machine: a leftover hook process is found even after
    it was re-parented to init (an orphan)."""
    found = []
    me = os.getpid()
    for pid in _pids():
        if pid == me:
            continue
        line = _cmdline(pid)
        if marker in line:
            fields = _stat_fields(pid)
            if fields is not None and fields[0] != "Z":
                found.append((pid, fields[1], line))
    return found


@contextmanager
def traced_memory() -> Iterator[None]:
    """Trace Python allocations for the block (``tracemalloc``), if not already on."""
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    try:
        yield
    finally:
        if started:
            tracemalloc.stop()


@dataclass(frozen=True)
class Snapshot:
    """Resource counts at one moment."""

    threads: int
    fds: int
    rss_kib: int
    traced_kib: int  # Python heap in use while tracemalloc traces, else 0
    children: int
    zombies: int
    extra: dict[str, int] = field(default_factory=dict)

    def line(self) -> str:
        """``threads=.. fds=.. ...`` for reports."""
        parts = [
            f"threads={self.threads}",
            f"fds={self.fds}",
            f"rss={self.rss_kib}KiB",
            f"traced={self.traced_kib}KiB",
            f"children={self.children}",
            f"zombies={self.zombies}",
        ]
        parts += [f"{k}={v}" for k, v in self.extra.items()]
        return " ".join(parts)


def snapshot(**extra: int) -> Snapshot:
    """Collect garbage, then count (so freed cycles do not read as leaks); the traced
    heap is read first, before counting allocates anything."""
    gc.collect()
    traced = tracemalloc.get_traced_memory()[0] // 1024 if tracemalloc.is_tracing() else 0
    return Snapshot(
        threads=thread_count(),
        fds=fd_count(),
        rss_kib=rss_kib(),
        traced_kib=traced,
        children=len(descendants()),
        zombies=len(zombie_children()),
        extra=dict(extra),
    )
