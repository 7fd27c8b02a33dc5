"""audit-log: loaded through its entry point, it writes two lines per tool call."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from hermes_audit_log import ENV_VAR, audit_log_path

import hermes_hooks


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("HERMES_HOME", "HERMES_SAFE_MODE", ENV_VAR):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "user-home"))


def payload(**overrides: Any) -> dict[str, Any]:
    base = {
        "tool_name": "terminal",
        "args": {"command": "ls"},
        "task_id": "t",
        "session_id": "s1",
        "tool_call_id": "c1",
        "turn_id": "s1:turn-1",
        "api_request_id": "r",
        "middleware_trace": [],
    }
    return {**base, **overrides}


def post(**overrides: Any) -> dict[str, Any]:
    return {
        **payload(),
        "result": '{"output": "x"}',
        "duration_ms": 12,
        "status": "ok",
        "error_type": None,
        "error_message": None,
        **overrides,
    }


def lines(path: Path) -> list[dict[str, Any]]:
    found = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for line in found:
        assert line.pop("ts").endswith("+00:00")
    return found


def test_the_entry_point_loads_and_logs_both_sides(tmp_path: Path) -> None:
    hooks = hermes_hooks.load(tmp_path)
    record = next(r for r in hooks.sources["python"].records() if r.key == "audit-log")
    assert (record.state, record.distribution, record.hooks) == (
        "loaded",
        "hermes-hooks-audit-log",
        ["pre_tool_call", "post_tool_call"],
    )
    decision = hooks.pre_tool_call(**payload())
    hooks.post_tool_call(**post())
    hooks.close()
    assert decision.action == "allow"
    assert lines(tmp_path / "logs" / "audit.jsonl") == [
        {
            "event": "pre_tool_call",
            "session_id": "s1",
            "tool_call_id": "c1",
            "tool": "terminal",
            "args": {"command": "ls"},
        },
        {
            "event": "post_tool_call",
            "session_id": "s1",
            "tool_call_id": "c1",
            "tool": "terminal",
            "status": "ok",
            "duration_ms": 12,
            "error_type": None,
            "error_message": None,
            "result_chars": 15,
        },
    ]


def test_it_logs_the_args_after_modifications(tmp_path: Path) -> None:
    plugin = tmp_path / "plugins" / "rewriter"
    plugin.mkdir(parents=True)
    (plugin / "plugin.yaml").write_text("name: rewriter\n", encoding="utf-8")
    (plugin / "__init__.py").write_text(
        "def rewrite(**kw):\n    return {'action': 'modify', 'args': {'command': 'ls -la'}}\n\n"
        "def register(ctx):\n    ctx.register_hook('pre_tool_call', rewrite)\n",
        encoding="utf-8",
    )
    hooks = hermes_hooks.load(tmp_path)
    hooks.pre_tool_call(**payload())
    hooks.close()
    assert lines(tmp_path / "logs" / "audit.jsonl")[0]["args"] == {"command": "ls -la"}


def test_the_path_comes_from_the_env_then_the_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert audit_log_path(tmp_path) == tmp_path / "logs" / "audit.jsonl"
    (tmp_path / "config.yaml").write_text(
        "audit_log:\n  path: audit/calls.jsonl\n", encoding="utf-8"
    )
    assert audit_log_path(tmp_path) == tmp_path / "audit" / "calls.jsonl"
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "elsewhere.jsonl"))
    assert audit_log_path(tmp_path) == tmp_path / "elsewhere.jsonl"


def test_a_failing_write_never_blocks_the_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    monkeypatch.setenv(ENV_VAR, str(blocker / "audit.jsonl"))  # a file is not a directory
    hooks = hermes_hooks.load(tmp_path)
    caplog.set_level(logging.WARNING, logger="hermes_audit_log")
    first = hooks.pre_tool_call(**payload())
    second = hooks.pre_tool_call(**payload(tool_call_id="c2"))
    hooks.close()
    assert (first.action, second.action) == ("allow", "allow")
    warnings = [r.getMessage() for r in caplog.records if r.name == "hermes_audit_log"]
    assert len(warnings) == 1
    assert warnings[0].startswith(f"audit-log: cannot write {blocker / 'audit.jsonl'} (")


def test_huge_args_are_truncated(tmp_path: Path) -> None:
    hooks = hermes_hooks.load(tmp_path)
    hooks.pre_tool_call(**payload(tool_name="write_file", args={"content": "x" * 5000}))
    hooks.close()
    (line,) = lines(tmp_path / "logs" / "audit.jsonl")
    assert line["args_truncated"] is True
    assert line["args"] == ('{"content": "' + "x" * 5000)[:2000]
