"""``replay --otlp-endpoint``: the replay's spans arrive over OTLP/HTTP and decode."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from hermes_hooks.cli import main
from hermes_hooks.errors import ConfigError
from hermes_hooks.telemetry.otlp import traces_url
from tests.outbound.endpoint import Endpoint

REPO = Path(__file__).resolve().parents[2]
QUICKSTART = REPO / "examples" / "recordings" / "quickstart.jsonl"
EXAMPLE_HOME = REPO / "examples" / "home"


def _attributes(span: Any) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for item in span.attributes:
        kind = item.value.WhichOneof("value")
        values[item.key] = getattr(item.value, kind) if kind else None
    return values


def test_replay_exports_its_spans_to_an_otlp_http_receiver(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "example-home"
    shutil.copytree(
        EXAMPLE_HOME,
        home,
        ignore=shutil.ignore_patterns(
            "logs", "__pycache__", "shell-hooks-allowlist.json*", "outbound-outbox.sqlite3*"
        ),
    )
    receiver = Endpoint()
    try:
        base = receiver.url.removesuffix("/hook")
        code = main(
            [
                "--home",
                str(home),
                "replay",
                "--flush-timeout",
                "0.5",
                "--otlp-endpoint",
                base,
                str(QUICKSTART),
            ]
        )
        requests = receiver.wait_requests(1)
    finally:
        receiver.close()
    assert code == 0
    capsys.readouterr()
    assert {(r.method, r.path) for r in requests} == {("POST", "/v1/traces")}
    assert {r.header("Content-Type") for r in requests} == {"application/x-protobuf"}

    spans = []
    for request in requests:
        message = ExportTraceServiceRequest()
        message.ParseFromString(request.body)
        for resource in message.resource_spans:
            service = {a.key: a.value.string_value for a in resource.resource.attributes}
            assert service["service.name"] == "hermes-hooks replay"
            for scope in resource.scope_spans:
                assert scope.scope.name == "hermes_hooks"
                spans.extend(scope.spans)
    by_name: dict[str, list[Any]] = {}
    for span in spans:
        by_name.setdefault(span.name, []).append(span)

    [root] = by_name["replay quickstart.jsonl"]
    assert _attributes(root) == {"hermes.replay.file": str(QUICKSTART)}
    firings = by_name["pre_tool_call"]
    assert [_attributes(s)["gen_ai.tool.call.id"] for s in firings] == ["qs-call-1", "qs-call-2"]
    assert {_attributes(s)["hermes.hook.verdict"] for s in firings} == {"allow"}
    assert all(s.trace_id == root.trace_id for s in spans)  # one trace per recording
    assert all(s.parent_span_id == root.span_id for s in firings)
    children = [s for s in spans if s.parent_span_id == firings[0].span_id]
    assert children  # each callback of the firing, as a child span
    assert all(_attributes(c)["hermes.hook.name"] == "pre_tool_call" for c in children)


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("http://127.0.0.1:4318", "http://127.0.0.1:4318/v1/traces"),
        ("http://127.0.0.1:4318/", "http://127.0.0.1:4318/v1/traces"),
        ("https://collector:4318/custom/traces", "https://collector:4318/custom/traces"),
    ],
)
def test_a_bare_collector_address_gets_the_traces_path(given: str, expected: str) -> None:
    assert traces_url(given) == expected


def test_an_endpoint_that_is_not_http_is_refused_with_the_fix() -> None:
    with pytest.raises(ConfigError) as caught:
        traces_url("collector:4318")
    assert str(caught.value) == (
        "--otlp-endpoint 'collector:4318' is not an http(s) URL. Fix: give the "
        "collector's OTLP/HTTP address, such as http://127.0.0.1:4318"
    )


def test_without_the_export_extra_replay_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    module = "opentelemetry.exporter.otlp.proto.http.trace_exporter"
    monkeypatch.setitem(sys.modules, module, None)  # as if the exporter were not installed
    code = main(
        [
            "--home",
            str(tmp_path),
            "replay",
            "--otlp-endpoint",
            "http://127.0.0.1:4318",
            str(QUICKSTART),
        ]
    )
    assert code == 2
    assert (
        "--otlp-endpoint needs the OpenTelemetry SDK and OTLP/HTTP exporter "
        f"({module} is missing). Fix: pip install 'hermes-hooks[otel-export]'"
    ) in capsys.readouterr().err
