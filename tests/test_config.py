"""config.yaml reading and the plugins: settings (D-13), never raising on bad input."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.config import Settings, parse_callback_timeout, read_config, resolve_home

KEY = "config.yaml: plugins.hook_callback_timeout"
NOT_A_NUMBER = "not a number of seconds; using 30. Fix: a number such as 30 (0 disables the limit)."


@pytest.mark.parametrize(
    ("value", "expected", "warning"),
    [
        (None, 30.0, None),
        (0, 0.0, None),
        (0.12, 0.12, None),
        (45, 45.0, None),
        (600, 600.0, None),
        (601, 600.0, f"{KEY} is 601, above the maximum; clamped to 600"),
        (-1, 30.0, f"{KEY} is negative (-1); using 30. Fix: 0 disables the limit."),
        (
            True,
            30.0,
            f"{KEY} is True, {NOT_A_NUMBER}",
        ),
        (
            "30",
            30.0,
            f"{KEY} is '30', {NOT_A_NUMBER}",
        ),
    ],
)
def test_hook_callback_timeout_follows_d13(
    value: Any, expected: float, warning: str | None, caplog: Any
) -> None:
    assert parse_callback_timeout(value) == expected
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == ([warning] if warning else [])


def test_home_resolution(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert resolve_home() == tmp_path / "user-home" / ".hermes"
    monkeypatch.setenv("HERMES_HOME", str(tmp_path / "env-home"))
    assert resolve_home() == tmp_path / "env-home"
    assert resolve_home(tmp_path / "arg") == tmp_path / "arg"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "plugins: [unclosed\n",
            "config.yaml:2:1: not valid YAML (while parsing a flow sequence expected ',' or "
            "']', but got '<stream end>'); no hook or setting of this file applies until it "
            "is fixed. Fix: correct the YAML syntax at that line",
        ),
        (
            "- a\n- b\n",
            "config.yaml:1:1: the top level must be a mapping, got list; no hook or setting "
            "of this file applies until it is fixed. Fix: write keys such as 'hooks:' and "
            "'plugins:' at the start of their lines",
        ),
    ],
)
def test_a_broken_config_is_an_error_and_falls_back(
    home: Path, text: str, message: str, caplog: Any
) -> None:
    (home / "config.yaml").write_text(text, encoding="utf-8")
    assert read_config(home) == {}
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert errors == [f"{home}/{message}"]


def test_a_bom_prefixed_config_is_read(home: Path) -> None:
    (home / "config.yaml").write_bytes(b"\xef\xbb\xbfplugins:\n  hook_callback_timeout: 5\n")
    assert Settings.from_config(read_config(home)).hook_callback_timeout == 5.0


def test_plugin_lists_must_be_lists_of_names(caplog: Any) -> None:
    settings = Settings.from_config({"plugins": {"enabled": [1, 2], "disabled": "x"}})
    assert settings.enabled is None
    assert settings.disabled == ["x"]
    assert "config.yaml: plugins.enabled must be a list of plugin names; ignored" in caplog.text
