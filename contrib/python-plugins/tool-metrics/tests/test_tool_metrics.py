"""tool-metrics: EX-10's counters and latency, the summary line and the snapshot file."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import hermes_tool_metrics
import pytest

import hermes_hooks


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("HERMES_HOME", "HERMES_SAFE_MODE", "HERMES_AUDIT_LOG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "user-home"))


def post(
    tool: str, result: str = "{}", duration_ms: int = 10, status: str = "ok"
) -> dict[str, Any]:
    return {
        "tool_name": tool,
        "args": {},
        "result": result,
        "task_id": "t",
        "session_id": "s",
        "tool_call_id": "c",
        "turn_id": "u",
        "api_request_id": "r",
        "duration_ms": duration_ms,
        "status": status,
        "error_type": None,
        "error_message": None,
        "middleware_trace": [],
    }


def test_counts_errors_blocks_and_latency(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "config.yaml").write_text(
        "tool_metrics:\n  path: logs/metrics.json\n", encoding="utf-8"
    )
    hooks = hermes_hooks.load(tmp_path)
    hooks.post_tool_call(**post("terminal", duration_ms=10))
    hooks.post_tool_call(**post("terminal", result='{"error": "exit 1"}', duration_ms=30))
    hooks.post_tool_call(**post("terminal", result="not json", duration_ms=20))
    hooks.post_tool_call(
        **post("terminal", result='{"error": "no"}', duration_ms=0, status="blocked")
    )
    hooks.post_tool_call(**post("web_search", result="x", duration_ms=5, status="error"))
    caplog.set_level(logging.INFO, logger="hermes_tool_metrics")
    hooks.on_session_finalize(session_id="s", platform="cli", reason="shutdown")
    hooks.close()
    expected = {
        "terminal": {
            "calls": 4,
            "errors": 1,
            "blocked": 1,
            "mean_ms": 20.0,
            "median_ms": 20,
            "max_ms": 30,
        },
        "web_search": {
            "calls": 1,
            "errors": 1,
            "blocked": 0,
            "mean_ms": 5.0,
            "median_ms": 5,
            "max_ms": 5,
        },
    }
    metrics = hermes_tool_metrics.current()
    assert metrics is not None
    assert metrics.snapshot() == expected
    assert json.loads((tmp_path / "logs" / "metrics.json").read_text(encoding="utf-8")) == expected
    assert [r.getMessage() for r in caplog.records if r.name == "hermes_tool_metrics"] == [
        "TOOL_METRICS session=s terminal=4/1err/1blk web_search=1/1err/0blk"
    ]


def test_each_load_starts_fresh(tmp_path: Path) -> None:
    first = hermes_hooks.load(tmp_path)
    first.post_tool_call(**post("terminal"))
    first.close()
    second = hermes_hooks.load(tmp_path)
    second.close()
    metrics = hermes_tool_metrics.current()
    assert metrics is not None
    assert metrics.snapshot() == {}
