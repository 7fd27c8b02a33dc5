"""Telemetry test helpers: recording spans and metrics with the real SDK, and reading ids."""

from __future__ import annotations

from typing import Any

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter


class Recorded:
    """The spans and metrics of one test."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])

    def spans(self) -> list[ReadableSpan]:
        """Every finished span, in the order they ended."""
        return list(self.exporter.get_finished_spans())

    def span(self, name: str) -> ReadableSpan:
        """The one finished span called ``name``."""
        found = [s for s in self.spans() if s.name == name]
        assert len(found) == 1, [s.name for s in self.spans()]
        return found[0]

    def children(self, parent: ReadableSpan) -> list[ReadableSpan]:
        """The finished spans whose parent is ``parent``, in the order they ended."""
        return [
            s
            for s in self.spans()
            if s.parent is not None and s.parent.span_id == parent.context.span_id
        ]

    def metric(self, name: str) -> list[tuple[dict[str, Any], Any]]:
        """(attributes, value) of every point of metric ``name`` (sum for counters,
        count for histograms)."""
        data = self.reader.get_metrics_data()
        points: list[tuple[dict[str, Any], Any]] = []
        for resource in data.resource_metrics if data else ():
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    if metric.name != name:
                        continue
                    for point in metric.data.data_points:
                        value = getattr(point, "value", None)
                        if value is None:
                            value = point.count  # a histogram point
                        points.append((dict(point.attributes), value))
        return points


def trace_id(span: ReadableSpan) -> str:
    """The span's trace id as the 32 hex digits of a traceparent."""
    return format(span.context.trace_id, "032x")


def span_id(span: ReadableSpan) -> str:
    """The span's id as the 16 hex digits of a traceparent."""
    return format(span.context.span_id, "016x")


def traceparent(span: ReadableSpan) -> str:
    """The W3C traceparent that names ``span`` as the parent."""
    context = span.context
    return f"00-{context.trace_id:032x}-{context.span_id:016x}-{context.trace_flags:02x}"
