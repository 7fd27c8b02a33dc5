"""The SDK tests run offline: the OpenAI Agents SDK's trace export is switched off."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _no_trace_export(monkeypatch: pytest.MonkeyPatch) -> None:
    """The SDK would otherwise try to send traces (and warn that no key is set)."""
    monkeypatch.setenv("OPENAI_AGENTS_DISABLE_TRACING", "1")
