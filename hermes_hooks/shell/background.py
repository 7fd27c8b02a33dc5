"""Background runs of shell hooks: a hook a dialect starts and does not wait for.

A dialect whose hooks may run without holding the call (Claude Code's ``async: true``
and ``asyncRewake: true``) hands the run to a daemon thread (:data:`BACKGROUND`) and
the firing returns nothing straight away; what the finished run says is the
dialect's business.

Nothing runs unbounded and nothing outlives its host: a run keeps the entry's timeout
and process-group kill; the shell source's ``close()`` (and ``unload()``) waits for
the runs its hooks started, then kills the process group of each one still going
(:meth:`BackgroundRuns.stop`; the run ends without delivering anything and starts no
further process); and the interpreter's exit kills every hook still running
(:mod:`.run`), for a host that never closes.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from hermes_hooks._log import get_logger
from hermes_hooks.shell.run import ProcessSet, collecting

__all__ = ["BACKGROUND", "BackgroundRuns", "owned_by"]

log = get_logger("hermes_hooks.shell")

# Who the runs started on this thread belong to (a shell source), set around a firing.
_owner: contextvars.ContextVar[object | None] = contextvars.ContextVar(
    "hermes_hooks_background_owner", default=None
)


@contextlib.contextmanager
def owned_by(owner: object) -> Iterator[None]:
    """Within this block, background runs started belong to ``owner`` (what
    :meth:`BackgroundRuns.stop` is given)."""
    token = _owner.set(owner)
    try:
        yield
    finally:
        _owner.reset(token)


@dataclass(eq=False)
class _Run:
    name: str
    owner: object | None
    processes: ProcessSet = field(default_factory=ProcessSet)


class BackgroundRuns:
    """The background hook runs of this process."""

    __slots__ = ("_done", "_lock", "_runs")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._done = threading.Condition(self._lock)
        self._runs: set[_Run] = set()

    def start(self, work: Callable[[], None], name: str) -> None:
        """Run ``work`` on a daemon thread; an exception it raises is logged.  The run
        belongs to the owner :func:`owned_by` set on the calling thread."""
        run = _Run(name, _owner.get())

        def target() -> None:
            try:
                with collecting(run.processes):
                    work()
            except Exception:  # a background hook must never take the agent down
                log.exception("background shell hook %s failed", name)
            finally:
                with self._lock:
                    self._runs.discard(run)
                    self._done.notify_all()

        with self._lock:
            self._runs.add(run)
        threading.Thread(target=target, name=f"hermes-async {name}", daemon=True).start()

    @property
    def running(self) -> int:
        """How many runs have not finished."""
        with self._lock:
            return len(self._runs)

    def wait(self, timeout: float, owner: object | None = None) -> bool:
        """Wait up to ``timeout`` seconds for every run (of ``owner`` only, when given);
        True when none is left."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while self._pending(owner):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._done.wait(remaining)
            return True

    def stop(self, owner: object, timeout: float) -> list[str]:
        """Wait up to ``timeout`` seconds for the runs of ``owner``, then kill the
        process group of each one still going; return the names of those."""
        if self.wait(timeout, owner):
            return []
        with self._lock:
            late = self._pending(owner)
        for run in late:
            run.processes.stop()
        return sorted(run.name for run in late)

    def _pending(self, owner: object | None) -> list[_Run]:
        return [run for run in self._runs if owner is None or run.owner == owner]


#: The one registry every shell source shares.
BACKGROUND = BackgroundRuns()
