"""Telemetry tests: the real OpenTelemetry SDK, recording into memory."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hermes_hooks import telemetry
from tests.telemetry.helpers import Recorded


@pytest.fixture
def otel() -> Iterator[Recorded]:
    """Loads made during the test send spans and metrics to in-memory SDK providers."""
    recorded = Recorded()
    telemetry.set_providers(recorded.tracer_provider, recorded.meter_provider)
    yield recorded
    telemetry.set_providers()
    recorded.tracer_provider.shutdown()
    recorded.meter_provider.shutdown()
