"""A ``config.yaml`` that cannot be used turns every hook of it off: that is an ERROR
naming ``config.yaml:line:col``, ``doctor`` exits 1, and ``load(strict=True)`` raises."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.cli import main
from hermes_hooks.errors import ConfigError
from hermes_hooks.hooks import Hooks

BROKEN = "hooks:\n  pre_tool_call:\n    - command: ./gate.sh\n      matcher: [terminal\n"
SYNTAX = (
    "config.yaml:5:1: not valid YAML (while parsing a flow sequence expected ',' or ']', "
    "but got '<stream end>'); no hook or setting of this file applies until it is fixed. "
    "Fix: correct the YAML syntax at that line"
)
NOT_A_MAPPING = (
    "config.yaml:1:1: the top level must be a mapping, got list; no hook or setting of "
    "this file applies until it is fixed. Fix: write keys such as 'hooks:' and 'plugins:' "
    "at the start of their lines"
)


def doctor(capsys: Any, home: Path, *extra: str) -> tuple[int, str]:
    code = main(["--home", str(home), "--no-entry-points", "doctor", *extra])
    return code, capsys.readouterr().out


@pytest.mark.parametrize(
    ("text", "expected"),
    [(BROKEN, SYNTAX), ("- hooks\n- plugins\n", NOT_A_MAPPING), ("just text\n", None)],
)
def test_doctor_reports_an_unusable_config_and_exits_1(
    home: Path, capsys: Any, text: str, expected: str | None
) -> None:
    (home / "config.yaml").write_text(text, encoding="utf-8")
    code, out = doctor(capsys, home)
    assert code == 1
    first = out.splitlines()[0]
    if expected is None:  # a bare string is a document, but not a mapping
        expected = NOT_A_MAPPING.replace("got list", "got str")
    subject, _, message = expected.partition(": ")
    assert first == f"✗ {home}/{subject}: {message}"
    assert out.endswith(
        "\n✓ telemetry: OpenTelemetry spans and metrics on\n\nproblems found (3 checks)\n"
    )


def test_doctor_json_marks_the_config_error(home: Path, capsys: Any) -> None:
    (home / "config.yaml").write_text(BROKEN, encoding="utf-8")
    code, out = doctor(capsys, home, "--json")
    data = json.loads(out)
    assert (code, data["ok"]) == (1, False)
    assert data["findings"][0] == {
        "level": "error",
        "subject": f"{home}/config.yaml:5:1",
        "message": SYNTAX.partition(": ")[2],
        "entry": None,
    }


def test_load_logs_an_error_and_runs_without_the_file(
    home: Path, load: Callable[..., Hooks], caplog: pytest.LogCaptureFixture
) -> None:
    (home / "config.yaml").write_text(BROKEN, encoding="utf-8")
    hooks = load()
    assert hooks.config == {} and not hooks.has_callbacks("pre_tool_call")
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert errors == [f"{home}/{SYNTAX}"]


@pytest.mark.parametrize("text", [BROKEN, "- hooks\n"])
def test_strict_load_raises_instead_of_running_unguarded(
    home: Path, load: Callable[..., Hooks], text: str
) -> None:
    (home / "config.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        load(strict=True)
    expected = SYNTAX if text == BROKEN else NOT_A_MAPPING
    assert str(raised.value) == f"{home}/{expected}"


def test_strict_load_of_a_good_or_missing_config_loads(
    home: Path, load: Callable[..., Hooks]
) -> None:
    assert load(strict=True).config == {}
    (home / "config.yaml").write_text("plugins:\n  hook_callback_timeout: 5\n", encoding="utf-8")
    assert load(strict=True).settings.hook_callback_timeout == 5.0
