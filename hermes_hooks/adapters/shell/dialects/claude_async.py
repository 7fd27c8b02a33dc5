"""Background runs of ``async: true`` and ``asyncRewake: true`` Claude Code hooks.

Claude Code starts such a hook and carries on at once: it never holds or decides the
call.  Here the run goes to a daemon thread (:data:`BACKGROUND`) and the firing
returns nothing straight away.  What the finished hook says reaches the session's
next turn, as in Claude Code: the ``systemMessage`` or ``additionalContext`` of an
async hook, and the stderr (stdout when stderr is empty) of an ``asyncRewake`` hook
that exits 2.  The run keeps the entry's timeout and process-group kill, so nothing
runs unbounded.  ``close()`` of the shell source waits for the runs still going.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from hermes_hooks._log import get_logger

__all__ = ["BACKGROUND", "BackgroundRuns"]

log = get_logger("hermes_hooks.shell")


class BackgroundRuns:
    """The background hook runs of this process."""

    __slots__ = ("_done", "_lock", "_running")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._done = threading.Condition(self._lock)
        self._running = 0

    def start(self, work: Callable[[], None], name: str) -> None:
        """Run ``work`` on a daemon thread; an exception it raises is logged."""

        def target() -> None:
            try:
                work()
            except Exception:  # a background hook must never take the agent down
                log.exception("background shell hook %s failed", name)
            finally:
                with self._lock:
                    self._running -= 1
                    self._done.notify_all()

        with self._lock:
            self._running += 1
        threading.Thread(target=target, name=f"claude-async {name}", daemon=True).start()

    @property
    def running(self) -> int:
        """How many runs have not finished."""
        with self._lock:
            return self._running

    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for every run; True when none is left."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while self._running:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._done.wait(remaining)
            return True


#: The one registry every shell source shares.
BACKGROUND = BackgroundRuns()
