"""An event loop of its own, on a thread of its own, for one async gateway hook.

An ``async def`` handler that blocks instead of awaiting (``time.sleep``, a blocking
HTTP call) cannot be cancelled: it holds whatever loop runs it until it returns.  Run on
the gateway's loop, it would stall every message the gateway handles.  So each async
hook gets a :class:`HandlerLoop`: a daemon thread running an asyncio loop, started on
the hook's first event.  A handler that blocks there stalls only its own hook, as a
slow hook delays only itself; the gateway's loop never waits for it.

One loop per hook rather than one shared by all: a shared loop would let one blocking
hook hold back every other async hook.  The cost is one idle thread per async hook
(gateways run a handful of hooks), asleep in its selector while there is nothing to do.

A hook whose ``HOOK.yaml`` says ``host_loop: true`` (a handler awaiting objects bound
to the gateway's loop) gets no :class:`HandlerLoop` and runs where the host emits.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable

from hermes_hooks._log import get_logger

__all__ = ["HandlerLoop"]

log = get_logger("gateway.hooks")


class HandlerLoop:
    """One hook's private event loop and the thread that runs it.

    :meth:`loop` starts them on first use; :meth:`close` stops them.  ``origin`` is the
    host loop that last sent work here: a ``KeyboardInterrupt`` raised by a handler is
    re-raised there, so it is never swallowed by this thread.
    """

    __slots__ = ("_lock", "_loop", "_name", "_thread", "abandoned", "origin")

    def __init__(self, name: str) -> None:
        self._name = name
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        #: The host loop that last handed work here (where a KeyboardInterrupt goes).
        self.origin: asyncio.AbstractEventLoop | None = None
        #: Set when the command call the host stopped waiting for (this loop was
        #: blocked) has ended; until then later calls are skipped, not queued.
        self.abandoned: threading.Event | None = None

    def loop(self) -> asyncio.AbstractEventLoop:
        """The running private loop, started (with its thread) if need be."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            return loop
        with self._lock:
            if self._loop is None or self._loop.is_closed():
                ready = threading.Event()
                self._loop = asyncio.new_event_loop()
                self._thread = threading.Thread(
                    target=self._run,
                    args=(self._loop, ready),
                    name=f"hermes-hooks:gateway:{self._name}",
                    daemon=True,
                )
                self._thread.start()
                ready.wait()
            return self._loop

    def call_soon(self, callback: Callable[[], object]) -> None:
        """Run ``callback`` on the private loop (from any thread)."""
        self.loop().call_soon_threadsafe(callback)

    def _run(self, loop: asyncio.AbstractEventLoop, ready: threading.Event) -> None:
        asyncio.set_event_loop(loop)
        loop.call_soon(ready.set)
        try:
            while True:
                try:
                    loop.run_forever()
                    break  # stopped by close()
                except KeyboardInterrupt as exc:
                    # A handler raised it: the host must see it, as it would had the
                    # handler run on the host's loop; this loop serves on.
                    self._forward(exc)
                except BaseException:  # never leave the hook without its loop
                    log.exception("[hooks] the event loop of %s failed; restarted", self._name)
            _finish(loop)
        finally:
            loop.close()

    def _forward(self, exc: KeyboardInterrupt) -> None:
        origin = self.origin
        if origin is None or origin.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # closed in between
            origin.call_soon_threadsafe(_reraise, exc)

    def close(self, deadline: float) -> bool:
        """Stop the loop and wait for its thread until ``deadline`` (``time.monotonic``);
        True if it ended.  A thread held by a blocking handler is left to end on its own
        (a daemon: it never keeps the process alive)."""
        with self._lock:
            loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return True
        with contextlib.suppress(RuntimeError):  # already closed
            loop.call_soon_threadsafe(loop.stop)
        if thread is not threading.current_thread():
            thread.join(max(0.0, deadline - time.monotonic()))
        return not thread.is_alive()


def _reraise(exc: BaseException) -> None:
    raise exc


def _finish(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what is still running on ``loop`` and let it end (as ``asyncio.run`` does)."""
    tasks = [t for t in asyncio.all_tasks(loop) if not t.done()]
    for task in tasks:
        task.cancel()
    if tasks:
        with contextlib.suppress(BaseException):
            loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
    with contextlib.suppress(BaseException):
        loop.run_until_complete(loop.shutdown_asyncgens())
