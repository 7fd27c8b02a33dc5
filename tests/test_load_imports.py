"""What ``load()`` imports: only what the home has.

Every agent pays for ``load()`` at start-up, so a home without shell hooks, webhooks or
plugins must not import their machinery, and OpenTelemetry waits for the first traced
firing.  Each check runs in a fresh interpreter, where ``sys.modules`` says exactly
what was imported.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from hermes_hooks.hooks import Hooks
from hermes_hooks.shell.consent import ALLOWLIST_NAME

REPO = Path(__file__).resolve().parents[1]

#: Modules an empty home has no use for.
HEAVY = [
    "hermes_hooks.shell.consent",
    "hermes_hooks.shell.config",
    "hermes_hooks.shell.hook",
    "hermes_hooks.shell.run",
    "hermes_hooks.shell.report",
    "hermes_hooks.webhooks.targets",
    "hermes_hooks.webhooks.wire",
    "hermes_hooks.plugins.context",
    "hermes_hooks.plugins.registry_entries",
    "hermes_hooks.shell.dialect",
    "hermes_hooks.report",
    "hermes_hooks.plugins.middleware",
    "difflib",
    "opentelemetry.trace",
    "opentelemetry.metrics",
]

EMPTY_HOME = """
import json, sys
import hermes_hooks

HEAVY = json.loads(sys.argv[1])
hooks = hermes_hooks.load(sys.argv[2], entry_points=False)
print(json.dumps({
    "telemetry": hooks.telemetry is not None,
    "imported": [name for name in HEAVY if name in sys.modules],
}))


def gate(tool_name, **kwargs):
    return {"action": "block", "message": "no"}


hooks.manager.register_callback("pre_tool_call", gate, owner="policy")
# The API is installed but no provider is configured: a firing makes no span, records
# no metric, and does not even import the API.
print(hooks.pre_tool_call(tool_name="terminal", args={}).action)
print(json.dumps([name for name in HEAVY if name in sys.modules]))

# An application sets its providers after load(): the next firing uses them.
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

exporter = InMemorySpanExporter()
tracer_provider = TracerProvider()
tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(tracer_provider)
reader = InMemoryMetricReader()
metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))
print(hooks.pre_tool_call(tool_name="terminal", args={}).action)
print(json.dumps([span.name for span in exporter.get_finished_spans()]))
firings = [
    (dict(point.attributes), point.value)
    for resource in reader.get_metrics_data().resource_metrics
    for scope in resource.scope_metrics
    for metric in scope.metrics
    if metric.name == "hermes.hook.firings"
    for point in metric.data.data_points
]
print(json.dumps(firings))
hooks.close()
"""


def test_an_empty_home_loads_without_the_machinery_it_has_no_use_for(home: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for name in ("HERMES_HOME", "TRACEPARENT", "HERMES_ACCEPT_HOOKS"):
        env.pop(name, None)
    result = subprocess.run(
        [sys.executable, "-c", EMPTY_HOME, json.dumps(HEAVY), str(home)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    loaded, unconfigured, imported, action, spans, firings = result.stdout.splitlines()
    assert json.loads(loaded) == {"telemetry": True, "imported": []}
    assert unconfigured == "block"
    assert json.loads(imported) == []
    # The next firing traced into the providers set after load(), and only it.
    assert action == "block"
    assert json.loads(spans) == ["python policy:gate", "pre_tool_call"]
    assert json.loads(firings) == [
        [{"hermes.hook.name": "pre_tool_call", "hermes.hook.verdict": "block"}, 1]
    ]


def test_an_unusable_allowlist_is_still_reported_at_load_without_a_hooks_block(
    home: Path, load: Callable[..., Hooks], caplog: pytest.LogCaptureFixture
) -> None:
    # No hooks: block, but an allowlist: the shell adapter reads it at load, as it
    # does for a home with hooks, so a broken file is said at once.
    path = home / ALLOWLIST_NAME
    path.write_text("{not json", encoding="utf-8")
    caplog.set_level(logging.WARNING, logger="hermes_hooks.consent")
    hooks = load()
    warnings = [r.getMessage() for r in caplog.records if r.name == "hermes_hooks.consent"]
    assert len(warnings) == 1
    assert warnings[0].startswith(f"{path} is not valid JSON (")
    assert warnings[0].endswith("; keeping the approvals read before")
    assert hooks.sources["shell"].records() == []


def test_only_importlib_metadata_s_own_finder_is_trusted_by_the_pre_scan(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The pre-scan may skip importing importlib_metadata only when every metadata
    # finder reads sys.path as it does: the backport's finder is the class itself, not
    # anything that merely carries its name.
    import importlib_metadata

    from hermes_hooks.plugins.entry_points import may_declare

    groups = ["hermes_hooks.test-no-such-group"]
    assert any(isinstance(f, importlib_metadata.MetadataPathFinder) for f in sys.meta_path)
    assert may_declare(groups) is False

    impostor = type(
        "MetadataPathFinder",
        (),
        {"__module__": "importlib_metadata", "find_distributions": staticmethod(lambda *a: [])},
    )
    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, impostor()])
    assert may_declare(groups) is True
