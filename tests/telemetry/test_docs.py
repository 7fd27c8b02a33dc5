"""docs/observability.md's example runs as printed; without the API nothing changes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "observability.md"


def _run(code: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HERMES_HOME": str(home), "PYTHONPATH": str(REPO)}
    env.pop("TRACEPARENT", None)
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )


def test_the_console_exporter_example_prints_the_documented_spans(tmp_path: Path) -> None:
    text = DOC.read_text(encoding="utf-8")
    match = re.search(r"<!-- example: console -->\n```python\n(.*?)```", text, re.DOTALL)
    assert match is not None
    result = _run(match[1], tmp_path)
    assert result.returncode == 0, result.stderr
    *documents, last = re.split(r"(?<=\n})\n", result.stdout.strip())
    assert last == "block"
    spans = [json.loads(d) for d in documents]
    assert [s["name"] for s in spans] == ["python policy:deny_rm", "pre_tool_call", "agent turn"]
    assert spans[0]["attributes"]["hermes.callback.verdict"] == "block"
    assert spans[1]["attributes"] == {
        "hermes.hook.name": "pre_tool_call",
        "hermes.hook.callbacks": 1,
        "gen_ai.tool.name": "terminal",
        "gen_ai.tool.call.id": "call-1",
        "hermes.hook.verdict": "block",
    }
    assert spans[0]["parent_id"] == spans[1]["context"]["span_id"]
    assert spans[1]["parent_id"] == spans[2]["context"]["span_id"]


def test_importing_the_package_does_not_import_opentelemetry(tmp_path: Path) -> None:
    result = _run(
        "import sys, hermes_hooks\n"
        "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))",
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "[]\n"


ABSENT = """
import sys
sys.modules["opentelemetry"] = None  # as if opentelemetry-api were not installed
import hermes_hooks
from hermes_hooks.telemetry import trace_environment, trace_headers

hooks = hermes_hooks.load()
hooks.manager.register_callback(
    "pre_tool_call", lambda **kw: {"action": "block", "message": "no"}, owner="gate"
)
print(hooks.telemetry, hooks._fire == hooks.dispatcher.fire)
print(hooks.pre_tool_call(tool_name="terminal", args={}).action)
print(trace_environment({"A": "1"}), trace_headers({}))
hooks.close()
"""


def test_without_the_api_hooks_fire_through_the_dispatcher(tmp_path: Path) -> None:
    result = _run(ABSENT, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["None True", "block", "{'A': '1'} {}"]
