"""``replay --otlp-endpoint``: export the replay's spans over OTLP/HTTP.

A replay is an application of its own, so unlike the library (which only uses the
OpenTelemetry API) it sets up an SDK tracer provider with a batching OTLP/HTTP span
exporter.  Both come from the ``hermes-hooks[otel-export]`` extra; without them the
command stops with a message naming the extra.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from hermes_hooks.errors import ConfigError
from hermes_hooks.telemetry import set_providers

__all__ = ["EXTRA", "exporting", "traces_url"]

#: The extra that brings the SDK and the OTLP/HTTP exporter.
EXTRA = "hermes-hooks[otel-export]"
_TRACES_PATH = "/v1/traces"


def traces_url(endpoint: str) -> str:
    """The traces URL of ``endpoint``: a bare collector address (``http://host:4318``)
    gets OTLP/HTTP's ``/v1/traces`` path, a URL with a path is used as given."""
    parts = urlsplit(endpoint.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(
            f"--otlp-endpoint {endpoint!r} is not an http(s) URL. "
            "Fix: give the collector's OTLP/HTTP address, such as http://127.0.0.1:4318"
        )
    if parts.path in ("", "/"):
        parts = parts._replace(path=_TRACES_PATH)
    return urlunsplit(parts)


@contextmanager
def exporting(endpoint: str, service: str = "hermes-hooks replay") -> Iterator[Any]:
    """Send every span of the block to ``endpoint`` over OTLP/HTTP; yields the
    tracer provider.  Spans are flushed (and the exporter shut down) on exit."""
    url = traces_url(endpoint)
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError as exc:
        raise ConfigError(
            f"--otlp-endpoint needs the OpenTelemetry SDK and OTLP/HTTP exporter "
            f"({exc.name or exc} is missing). Fix: pip install '{EXTRA}'"
        ) from None

    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=url)))
    set_providers(tracer_provider=provider)
    try:
        yield provider
    finally:
        set_providers()
        provider.force_flush()
        provider.shutdown()
