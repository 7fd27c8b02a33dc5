"""What one proxy session has in flight: the requests waiting on the upstream, and the
``tools/call`` requests from their hooks to their answer.

A ``tools/call`` is first *in its hooks* (not yet sent on), then *at the upstream*.
The client may cancel it at either point.  In its hooks, it is marked and never sent
on: the tool does not run for a client that gave up on it.  At the upstream, the
proxy stops waiting and tells the upstream to stop.  An answer nobody waits for any
more (the call was cancelled, or ``--call-timeout`` ran out) is dropped should it come
anyway: handing it to the client would pass a tool result around the hooks that guard
results.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

__all__ = ["Cancelled", "InFlight"]

#: How many unanswered ids are remembered, to drop their answers should they come.
DROPPED_LIMIT = 1024
#: The phases of a client tools/call: in its hooks, cancelled there (never sent on),
#: and sent to the upstream.
_IN_HOOKS, _CANCELLED, _SENT = "in hooks", "cancelled in hooks", "sent"


class Cancelled(Exception):
    """The client cancelled a call while the upstream ran it: stop waiting."""


class InFlight:
    """The waiters for the upstream's answers, by request id, and the phase of each
    client ``tools/call``.  Used from the session's event loop only."""

    def __init__(self) -> None:
        self._waiters: dict[Any, asyncio.Future[Any]] = {}
        self._calls: dict[Any, str] = {}  # the client's tools/call requests: their phase
        self._dropped: dict[Any, None] = {}  # oldest first, at most DROPPED_LIMIT

    # -- a client tools/call -----------------------------------------------------------

    def call_started(self, request_id: Any) -> None:
        """A ``tools/call`` enters its hooks."""
        self._calls[request_id] = _IN_HOOKS

    def sent_on(self, request_id: Any) -> None:
        """The call leaves its hooks for the upstream: a cancellation now goes there."""
        if request_id in self._calls:
            self._calls[request_id] = _SENT

    def cancelled_in_hooks(self, request_id: Any) -> bool:
        """Whether the client cancelled the call while its hooks ran."""
        return self._calls.get(request_id) == _CANCELLED

    def call_ended(self, request_id: Any) -> None:
        """The call is over, whatever its outcome."""
        self._calls.pop(request_id, None)

    def cancel(self, request_id: Any) -> bool:
        """The client cancelled ``request_id``.  True when it was a call still in its
        hooks (the upstream never saw it: the cancellation goes no further); False
        otherwise, after giving up on a call the upstream runs (its waiter raises
        :class:`Cancelled`, its answer is dropped should it come)."""
        try:
            phase = self._calls.get(request_id)
        except TypeError:  # an id no request can have
            return False
        if phase in (_IN_HOOKS, _CANCELLED):
            self._calls[request_id] = _CANCELLED
            return True
        waiter = self._waiters.get(request_id) if phase == _SENT else None
        if waiter is not None and not waiter.done():  # not answered yet
            waiter.set_exception(Cancelled())
            self.give_up(request_id)
        return False

    # -- answers from the upstream -----------------------------------------------------

    def wait(self, request_id: Any) -> asyncio.Future[Any]:
        """A future for the answer to ``request_id``, resolved by :meth:`answered`."""
        waiter: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiters[request_id] = waiter
        return waiter

    def give_up(self, request_id: Any) -> None:
        """Stop waiting for ``request_id``: its answer is dropped should it come."""
        self._waiters.pop(request_id, None)
        self._dropped[request_id] = None
        if len(self._dropped) > DROPPED_LIMIT:  # ids the upstream never answered
            del self._dropped[next(iter(self._dropped))]

    def answered(self, request_id: Any, outcome: Any) -> bool:
        """An answer to ``request_id`` came: True when it was waited for (the waiter
        gets ``outcome``) or given up on (dropped); False when it is the client's to
        have as it is."""
        waiter = self._waiters.pop(request_id, None)
        if waiter is not None:
            if not waiter.done():
                waiter.set_result(outcome)
            return True
        if request_id in self._dropped:
            del self._dropped[request_id]
            return True
        return False

    def reused(self, request_id: Any) -> None:
        """The client sent a new request with ``request_id``: answers to that id are
        the new request's, not late ones to drop."""
        self._dropped.pop(request_id, None)

    def fail_all(self, error: Callable[[], Exception]) -> None:
        """Every waiter raises an ``error()`` of its own (the upstream can no longer
        answer them)."""
        waiting, self._waiters = self._waiters, {}
        for waiter in waiting.values():
            if not waiter.done():
                waiter.set_exception(error())
