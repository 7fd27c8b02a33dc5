"""secret-redaction: EX-27's pattern, configured patterns, and no-ops."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from hermes_secret_redaction import Redactor

import hermes_hooks

KEY = "sk-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("HERMES_HOME", "HERMES_SAFE_MODE", "HERMES_AUDIT_LOG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "user-home"))


def result_payload(result: str) -> dict[str, Any]:
    return {
        "tool_name": "read_file",
        "args": {"path": ".env"},
        "result": result,
        "task_id": "t",
        "session_id": "s",
        "tool_call_id": "c",
        "turn_id": "u",
        "api_request_id": "r",
        "duration_ms": 1,
        "status": "ok",
        "error_type": None,
        "error_message": None,
    }


def test_the_entry_point_redacts_ex27_keys(tmp_path: Path) -> None:
    hooks = hermes_hooks.load(tmp_path)
    replaced = hooks.transform_tool_result(**result_payload(f"KEY={KEY}\nOTHER={KEY}x\n"))
    unchanged = hooks.transform_tool_result(**result_payload("sk-short and nothing else"))
    hooks.close()
    assert replaced == "KEY=[REDACTED]\nOTHER=[REDACTED]\n"
    assert unchanged is None


def test_configured_patterns_add_to_the_default(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "config.yaml").write_text(
        "secret_redaction:\n  patterns:\n    - 'ghp_[A-Za-z0-9]{8}'\n    - '(unclosed'\n",
        encoding="utf-8",
    )
    caplog.set_level(logging.WARNING, logger="hermes_secret_redaction")
    hooks = hermes_hooks.load(tmp_path)
    replaced = hooks.transform_tool_result(**result_payload(f"a ghp_abcdEFGH b {KEY}"))
    hooks.close()
    assert replaced == "a [REDACTED] b [REDACTED]"
    assert [r.getMessage() for r in caplog.records if r.name == "hermes_secret_redaction"] == [
        "secret-redaction: pattern '(unclosed' is not a valid regex "
        "(missing ), unterminated subpattern at position 0); skipped"
    ]


def test_a_non_string_result_is_left_alone() -> None:
    redactor = Redactor()
    assert redactor.transform_tool_result(result=None) is None
    assert redactor.redact("nothing here") is None
    assert Redactor([]).redact(KEY) is None
