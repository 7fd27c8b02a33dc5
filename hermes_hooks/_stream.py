"""Streaming observers: a bounded queue and a worker thread per plugin.

The token path only appends to a deque and, if the worker sleeps, sets an event; it
never waits.  A deque with ``maxlen`` drops its oldest entry when full, which is
exactly the rule that a stuck observer loses only its own oldest events.

The streaming rules ask for a lane per callback; we key the lane by the callback's *owner* (the
plugin, or one shell entry) because one observer must also see start before the
deltas and the deltas before end, and a plugin usually registers a separate
function per stream hook.  Separate plugins still never wait for each other.  Events
are checked once per firing (size and value types) before any lane sees them.
"""

from __future__ import annotations

import inspect
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hermes_hooks._log import WarnOnce, exception_text, excerpt, get_logger

if TYPE_CHECKING:  # asyncio loads with the first async observer
    import asyncio

__all__ = ["MAX_EVENT_BYTES", "QUEUE_SIZE", "StreamLane", "event_problem"]

log = get_logger("hermes_hooks.stream")

#: Pending events per callback, and the largest event delivered.
QUEUE_SIZE = 1024
MAX_EVENT_BYTES = 16 * 1024
_ALLOWED = (dict, list, tuple, set, str, bytes, int, float, bool, type(None))


def event_problem(payload: dict[str, Any]) -> str | None:
    """Why a stream event must be dropped whole, or None when it may go.

    The size is the UTF-8 length of strings and bytes, 8 bytes per other scalar and 2
    per container (its brackets), keys included: close to the serialised size without
    serialising on the token path.  Counting containers also ends the walk of a
    self-referencing event, which is then over the limit.
    """
    size = 0
    stack: list[Any] = [payload]
    while stack:
        value = stack.pop()
        if not isinstance(value, _ALLOWED):
            return f"holds a {type(value).__name__} value"
        if isinstance(value, str):
            size += len(value.encode("utf-8", "surrogatepass"))
        elif isinstance(value, bytes):
            size += len(value)
        elif isinstance(value, dict):
            size += 2
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, (list, tuple, set)):
            size += 2
            stack.extend(value)
        else:
            size += 8
        if size > MAX_EVENT_BYTES:
            return f"is over {MAX_EVENT_BYTES} bytes"
    return None


class StreamLane:
    """The queue and worker of one owner's streaming callbacks."""

    __slots__ = ("_closing", "_name", "_pending", "_wake", "_warnings", "_worker", "dropped")

    def __init__(self, name: str, warnings: WarnOnce | None = None) -> None:
        self._name = name
        # The owning manager's warn-once record, so lanes of two loads warn separately.
        self._warnings = warnings or WarnOnce()
        self._pending: deque[tuple[Callable[..., Any], dict[str, Any]]] = deque(maxlen=QUEUE_SIZE)
        self._wake = threading.Event()
        self._closing = False
        self.dropped = 0
        self._worker = threading.Thread(target=self._run, name=f"hermes-stream:{name}", daemon=True)
        self._worker.start()

    def put(self, function: Callable[..., Any], kwargs: dict[str, Any]) -> None:
        """Queue one event; when full the oldest pending one is dropped.  Never blocks."""
        if len(self._pending) == QUEUE_SIZE:
            self.dropped += 1
            self._warnings.warn(
                log, ("stream-full", self._name),
                "stream observer %s is falling behind; dropping its oldest events "
                "(queue of %d)", self._name, QUEUE_SIZE,
            )  # fmt: skip
        self._pending.append((function, kwargs))
        if not self._wake.is_set():
            self._wake.set()

    def _run(self) -> None:
        loop: asyncio.AbstractEventLoop | None = None
        try:
            while True:
                self._wake.wait()
                self._wake.clear()
                while self._pending:
                    function, kwargs = self._pending.popleft()
                    try:
                        result = function(**kwargs)
                        if inspect.iscoroutine(result):
                            if loop is None:
                                import asyncio

                                loop = asyncio.new_event_loop()
                            loop.run_until_complete(result)
                    except KeyboardInterrupt:  # Ctrl-C belongs to the host, never swallowed
                        raise
                    except BaseException as exc:  # an error never stops the stream or the lane
                        text = excerpt(exception_text(exc), 200)
                        self._warnings.warn(
                            log, ("stream-error", self._name, type(exc), text),
                            "stream observer %s raised %s: %s",
                            self._name, type(exc).__name__, text,
                        )  # fmt: skip
                if self._closing:
                    return
        finally:
            if loop is not None:
                loop.close()

    def close(self, deadline: float) -> bool:
        """Deliver what is pending, then stop, waiting until ``deadline`` (monotonic).

        Returns True when the worker finished in time; a stuck callback keeps its
        daemon thread and loses what it had not taken yet.
        """
        self._closing = True
        self._wake.set()
        self._worker.join(max(0.0, deadline - time.monotonic()))
        return not self._worker.is_alive()

    @property
    def pending(self) -> int:
        """Events waiting for the callback."""
        return len(self._pending)
