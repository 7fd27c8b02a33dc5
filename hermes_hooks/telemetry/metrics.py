"""The metric instruments of :mod:`hermes_hooks.telemetry`, and the queue readings
its observable instruments report.

Instruments are made once per meter provider: the SDK hands back the first
registration of an observable instrument and ignores the callbacks of a second one, so
one set per provider observes every load that uses it.  ``opentelemetry`` is imported
only when a set is made (telemetry on).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Protocol

from hermes_hooks._contract import Thread
from hermes_hooks.hookspecs import CATALOGUE

if TYPE_CHECKING:
    from opentelemetry.metrics import CallbackOptions, Observation

    from hermes_hooks.telemetry.providers import Instrumented


class Observed(Protocol):
    """A load's telemetry as the queue gauges read it."""

    def dropped(self) -> dict[str, int]:
        """Events dropped so far, per queue."""

    def outbox_depth(self) -> dict[str, int]:
        """Durable deliveries waiting, per webhook target."""


__all__ = ["SCOPE", "Instruments", "instruments_for", "outbox_depths", "queue_drops"]

#: The instrumentation scope of every span and metric.
SCOPE = "hermes_hooks"
#: The streaming hooks, whose callbacks run on per-owner queues.
_QUEUED = tuple(name for name, c in CATALOGUE.items() if c.policy.thread is Thread.QUEUE)


class Instruments:
    """The metric instruments of one meter provider."""

    def __init__(self, meter_provider: Any) -> None:
        from opentelemetry import metrics

        meter = metrics.get_meter(SCOPE, meter_provider=meter_provider)
        self.firings = meter.create_counter(
            "hermes.hook.firings", unit="{firing}", description="Hook firings that ran callbacks"
        )
        self.blocks = meter.create_counter(
            "hermes.hook.blocks", unit="{firing}", description="Firings whose verdict was block"
        )
        self.duration = meter.create_histogram(
            "hermes.callback.duration", unit="s", description="Duration of one callback run"
        )
        #: The loads whose queues these instruments observe.
        self.live: weakref.WeakSet[Observed] = weakref.WeakSet()
        meter.create_observable_counter(
            "hermes.queue.dropped",
            callbacks=[self._observe_dropped],
            unit="{event}",
            description="Events dropped because a queue was full, per queue",
        )
        meter.create_observable_gauge(
            "hermes.outbox.depth",
            callbacks=[self._observe_outbox],
            unit="{delivery}",
            description="Durable webhook deliveries waiting in the outbox, per target",
        )

    def _observe_dropped(self, options: CallbackOptions) -> Iterator[Observation]:
        from opentelemetry.metrics import Observation

        for telemetry in list(self.live):
            for queue, dropped in telemetry.dropped().items():
                yield Observation(dropped, {"hermes.queue": queue})

    def _observe_outbox(self, options: CallbackOptions) -> Iterator[Observation]:
        from opentelemetry.metrics import Observation

        for telemetry in list(self.live):
            for target, depth in telemetry.outbox_depth().items():
                yield Observation(depth, {"hermes.webhook.target": target})


#: Instruments per explicit meter provider (dropped with it), and of the global one.
_instruments: weakref.WeakKeyDictionary[Any, Instruments] = weakref.WeakKeyDictionary()
_global: list[Instruments] = []
_lock = threading.Lock()


def instruments_for(meter_provider: Any) -> Instruments:
    """The instruments of ``meter_provider`` (None: the global provider), made once."""
    with _lock:
        if meter_provider is None:
            if not _global:
                _global.append(Instruments(None))
            return _global[0]
        found = _instruments.get(meter_provider)
        if found is None:
            found = _instruments[meter_provider] = Instruments(meter_provider)
        return found


def _outbound_lanes(hooks: Instrumented) -> list[tuple[str, Any]]:
    """(target label, lane) of every outbound target of ``hooks``."""
    source = hooks.sources.get("outbound")
    labels = {t.index: t.label for t in getattr(source, "targets", ())}
    lanes = getattr(source, "lanes", {})
    return [(labels.get(index, str(index)), lane) for index, lane in lanes.items()]


def queue_drops(hooks: Instrumented) -> dict[str, int]:
    """Events dropped so far by the streaming lanes (``stream:<owner>``) and the
    webhook lanes (``webhook:<target>``) of ``hooks``."""
    counts: dict[str, int] = {}
    dispatcher = hooks.dispatcher
    for name in _QUEUED:
        for callback in hooks.manager.callbacks(name):
            lane = dispatcher.lane(callback.owner)
            if lane is not None:
                counts[f"stream:{callback.owner}"] = lane.dropped
    for target, lane in _outbound_lanes(hooks):
        counts[f"webhook:{target}"] = lane.stats.dropped
    return counts


def outbox_depths(hooks: Instrumented) -> dict[str, int]:
    """Durable deliveries waiting in the outbox, per webhook target of ``hooks``."""
    return {
        target: lane.pending
        for target, lane in _outbound_lanes(hooks)
        if getattr(lane, "durable", False)
    }
