"""Capturing outbound webhook deliveries instead of sending them (``hermes-hooks
replay``'s default).

A replay of last week's sessions must not post last week's events to today's
endpoints.  While :func:`capturing` is active, the outbound adapter gives every
target a :class:`CaptureLane`: the callback still builds, serialises and signs each
delivery exactly as it would (so a broken envelope or secret still shows), and the
lane hands it to the sink instead of the network.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from hermes_hooks.webhooks.delivery import Delivery, LaneStats

if TYPE_CHECKING:
    from hermes_hooks.webhooks.targets import Target

__all__ = ["CaptureLane", "Sink", "active_sink", "capturing"]

#: Receives each captured delivery with the target it was built for.
Sink = Callable[["Target", Delivery], None]

_state = threading.local()


@contextmanager
def capturing(sink: Sink) -> Iterator[None]:
    """Within the block, outbound targets loaded on this thread capture to ``sink``."""
    previous = getattr(_state, "sink", None)
    _state.sink = sink
    try:
        yield
    finally:
        _state.sink = previous


def active_sink() -> Sink | None:
    """The sink of the innermost :func:`capturing` block on this thread, if any."""
    sink: Sink | None = getattr(_state, "sink", None)
    return sink


class CaptureLane:
    """A lane that keeps deliveries (hands them to a sink) and never sends."""

    durable = False
    worker_alive = False

    def __init__(self, target: Target, sink: Sink) -> None:
        self.target = target
        self.stats = LaneStats()
        self._sink = sink

    def submit(self, delivery: Delivery) -> bool:
        """Hand ``delivery`` to the sink; always accepted."""
        self._sink(self.target, delivery)
        return True

    def begin_close(self, deadline: float | None) -> None:
        """Nothing is pending: a captured delivery is finished when submitted."""

    def join(self, deadline: float) -> int:
        """Nothing is left undelivered in memory."""
        return 0

    def close(self, timeout: float) -> int:
        """Nothing to flush."""
        return 0
