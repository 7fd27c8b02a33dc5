"""tool-metrics: per-tool call counts, error counts and latency (the spec's EX-10).

``post_tool_call`` counts every call per tool, records its ``duration_ms`` and counts
an error when the status is ``error`` or the result is JSON holding ``"error"``;
blocked calls are counted apart and add no latency.  At ``on_session_finalize`` a
one-line summary is logged at INFO and, when ``tool_metrics.path`` is set in
``<home>/config.yaml``, a JSON snapshot is written there.  :func:`current` returns the
metrics of the most recent load, for hosts and tests.
"""

from __future__ import annotations

import json
import logging
import statistics
import threading
from collections import Counter, deque
from pathlib import Path
from typing import Any

import yaml

__all__ = ["ToolMetrics", "current", "register"]

log = logging.getLogger("hermes_tool_metrics")

#: Latency samples kept per tool (the oldest are dropped).
MAX_SAMPLES = 1000

_current: ToolMetrics | None = None


def _is_error(result: Any) -> bool:
    """EX-10: a result that parses as a JSON object holding ``"error"``."""
    try:
        parsed = json.loads(result)
    except (json.JSONDecodeError, TypeError):
        return False
    return isinstance(parsed, dict) and "error" in parsed


class ToolMetrics:
    """Counters and latency samples, safe to update from several worker threads."""

    def __init__(self, snapshot_path: Path | None = None) -> None:
        self.calls: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()
        self.blocked: Counter[str] = Counter()
        self.latency: dict[str, deque[int]] = {}
        self.snapshot_path = snapshot_path
        self._lock = threading.Lock()

    def post_tool_call(
        self,
        tool_name: str = "",
        result: Any = None,
        duration_ms: int = 0,
        status: str = "ok",
        **kwargs: Any,
    ) -> None:
        """Count one finished (or blocked) call."""
        with self._lock:
            self.calls[tool_name] += 1
            if status == "blocked":
                self.blocked[tool_name] += 1
                return
            if status == "error" or _is_error(result):
                self.errors[tool_name] += 1
            samples = self.latency.setdefault(tool_name, deque(maxlen=MAX_SAMPLES))
            samples.append(int(duration_ms or 0))

    def snapshot(self) -> dict[str, dict[str, Any]]:
        """Per tool: calls, errors, blocked, and latency (mean, median, max in ms)."""
        with self._lock:
            report = {}
            for tool in sorted(self.calls):
                samples = list(self.latency.get(tool, ()))
                report[tool] = {
                    "calls": self.calls[tool],
                    "errors": self.errors[tool],
                    "blocked": self.blocked[tool],
                    "mean_ms": round(statistics.fmean(samples), 1) if samples else None,
                    "median_ms": statistics.median(samples) if samples else None,
                    "max_ms": max(samples) if samples else None,
                }
            return report

    def on_session_finalize(self, session_id: Any = None, **kwargs: Any) -> None:
        """Log the summary line and write the snapshot file, if configured."""
        report = self.snapshot()
        parts = " ".join(
            f"{tool}={row['calls']}/{row['errors']}err/{row['blocked']}blk"
            for tool, row in report.items()
        )
        log.info("TOOL_METRICS session=%s %s", session_id, parts or "(no tool calls)")
        if self.snapshot_path is None:
            return
        try:
            self.snapshot_path.parent.mkdir(parents=True, exist_ok=True)
            self.snapshot_path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        except OSError as exc:
            log.warning("tool-metrics: cannot write %s (%s)", self.snapshot_path, exc)


def _snapshot_path(home: Path) -> Path | None:
    try:
        data = yaml.safe_load((home / "config.yaml").read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        return None
    except (OSError, yaml.YAMLError) as exc:
        log.warning("tool-metrics: cannot read %s (%s)", home / "config.yaml", exc)
        return None
    section = data.get("tool_metrics") if isinstance(data, dict) else None
    value = section.get("path") if isinstance(section, dict) else None
    if not isinstance(value, str) or not value.strip():
        return None
    path = Path(value.strip()).expanduser()
    return path if path.is_absolute() else home / path


def current() -> ToolMetrics | None:
    """The metrics of the most recent ``register`` (None before any)."""
    return _current


def register(ctx: Any) -> None:
    """Register fresh metrics for this load."""
    global _current
    metrics = ToolMetrics(_snapshot_path(Path(ctx.home)))
    _current = metrics
    ctx.register_hook("post_tool_call", metrics.post_tool_call)
    ctx.register_hook("on_session_finalize", metrics.on_session_finalize)
