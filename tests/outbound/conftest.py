"""Fixtures for outbound-webhook tests: real endpoints and homes loaded from YAML."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.outbound.helpers import OutboundEnv


@pytest.fixture
def env(home: Path) -> Iterator[OutboundEnv]:
    """Endpoints plus homes; held requests are released before the hooks close."""
    environment = OutboundEnv(home)
    yield environment
    environment.close()
