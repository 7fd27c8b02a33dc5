"""What a hostile ``config.yaml``, ``HOOK.yaml`` or ``plugin.yaml`` can cost is bounded:
alias bombs are refused, an over-long value is a bad value naming file, key and line."""

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
from tests.helpers import write_plugin

HUGE = "9" * 5000
HANDLER = "async def handle(event_type, context):\n    pass\n"
REGISTER = "def register(ctx):\n    pass\n"


def bomb(key: str) -> str:
    """A 'billion laughs' document whose last alias is the value of ``key``: nine
    levels of nine-fold aliases expand to 9**10 strings."""
    lines = ["l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, 10)]
    return "\n".join([*lines, f"{key}: *l9", ""])


BOMB_REFUSED = (
    ":6:5: aliases expand to more than 100000 values or 4194304 characters (a 'billion "
    "laughs' document)"
)


def cli(home: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """The real command in a child process: a document that never ends would hang it,
    and the timeout turns that hang into a failure instead of a stuck test run."""
    return subprocess.run(
        [sys.executable, "-m", "hermes_hooks", "--home", str(home), "--no-entry-points", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        check=False,
    )


def write_hook_dir(home: Path, manifest: str) -> Path:
    directory = home / "hooks" / "greedy"
    directory.mkdir(parents=True)
    (directory / "HOOK.yaml").write_text(manifest, encoding="utf-8")
    (directory / "handler.py").write_text(HANDLER, encoding="utf-8")
    return directory / "HOOK.yaml"


# -- alias bombs: list and doctor finish and name the file and line ----------------------


def test_a_config_bomb_is_refused_by_doctor_and_list(home: Path) -> None:
    (home / "config.yaml").write_text(
        bomb("plugins:\n  hook_callback_timeout").replace(
            "plugins:\n  hook_callback_timeout: *l9", "plugins: {hook_callback_timeout: *l9}"
        ),
        encoding="utf-8",
    )
    doctor = cli(home, "doctor")
    assert doctor.returncode == 1
    assert f"✗ {home / 'config.yaml'}{BOMB_REFUSED}" in doctor.stdout
    listed = cli(home, "list", "--json")
    data = json.loads(listed.stdout)
    assert listed.returncode == 0 and data["home"] == str(home)
    # Printed once: in list's errors, so not again on stderr.
    where, _, message = BOMB_REFUSED[1:].partition(": ")
    assert [(e["subject"], e["message"]) for e in data["errors"]] == [
        (
            f"{home / 'config.yaml'}:{where}",
            f"{message}; no hook or setting of this file applies until it is fixed. Fix: "
            "write the values out, or use fewer aliases",
        )
    ]
    assert BOMB_REFUSED not in listed.stderr


def test_a_hook_yaml_bomb_skips_that_hook(home: Path) -> None:
    manifest = write_hook_dir(home, bomb("events"))
    doctor = cli(home, "doctor")
    assert doctor.returncode == 1
    assert f"{manifest}{BOMB_REFUSED}" in doctor.stdout
    assert cli(home, "list").returncode == 0


def test_a_plugin_yaml_bomb_fails_that_plugin(home: Path) -> None:
    path = write_plugin(home / "plugins", "greedy", REGISTER, manifest=bomb("version"))
    doctor = cli(home, "doctor")
    assert doctor.returncode == 1
    assert (
        f"✗ plugin greedy: failed to load: PluginLoadError: {path / 'plugin.yaml'}"
        f"{BOMB_REFUSED}. Fix: write the values out, or use fewer aliases\n"
    ) in doctor.stdout


def test_an_alias_inside_itself_is_refused(home: Path) -> None:
    (home / "config.yaml").write_text("hooks: &h {outbound: [*h]}\n", encoding="utf-8")
    doctor = cli(home, "doctor")
    assert doctor.returncode == 1
    assert (
        f"✗ {home / 'config.yaml'}:1:8: an alias refers to the value that contains it"
    ) in doctor.stdout


# -- a 5,000-digit integer is a bad value with its key and line ---------------------------


def test_a_huge_integer_in_config_yaml_is_a_bad_value(
    home: Path, load: Callable[..., Hooks], caplog: pytest.LogCaptureFixture
) -> None:
    (home / "config.yaml").write_text(
        f"plugins:\n  stream_reasoning_deltas: true\n  hook_callback_timeout: {HUGE}\n",
        encoding="utf-8",
    )
    hooks = load()
    assert hooks.settings.hook_callback_timeout == 30.0  # the default applies
    assert hooks.settings.stream_reasoning_deltas is True  # the rest of the file works
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert errors == [
        f"{home / 'config.yaml'}:3:26: plugins.hook_callback_timeout: an integer of 5000 "
        "digits is too long (at most 64); the value is ignored. Fix: write a number of "
        "sensible size"
    ]


def test_a_huge_integer_in_hook_yaml_skips_the_hook(home: Path) -> None:
    manifest = write_hook_dir(home, f"events: [agent:start]\nname: {HUGE}\n")
    doctor = cli(home, "doctor")
    assert doctor.returncode == 1
    assert (
        f"✗ gateway hook greedy: {manifest} (key 'name'): Skipping greedy: {manifest}:2:7: "
        "name: an integer of 5000 digits is too long (at most 64); fix: write a number of "
        "sensible size\n"
    ) in doctor.stdout
    listed = cli(home, "list", "--json")
    (hook,) = json.loads(listed.stdout)["gateway"]
    assert hook["state"] == "skipped"


def test_a_huge_integer_in_plugin_yaml_fails_the_plugin(home: Path) -> None:
    path = write_plugin(home / "plugins", "big", REGISTER, manifest=f"version: {HUGE}\n")
    doctor = cli(home, "doctor")
    assert doctor.returncode == 1
    assert (
        f"✗ plugin big: failed to load: PluginLoadError: {path / 'plugin.yaml'}:1:10: "
        "version: an integer of 5000 digits is too long (at most 64). Fix: write a number "
        "of sensible size\n"
    ) in doctor.stdout


def test_an_over_long_string_is_a_bad_value(
    home: Path, load: Callable[..., Hooks], caplog: pytest.LogCaptureFixture
) -> None:
    (home / "config.yaml").write_text(
        f"hooks:\n  pre_tool_call:\n    - command: {'x' * 70_000}\n", encoding="utf-8"
    )
    load()
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert errors == [
        f"{home / 'config.yaml'}:3:16: hooks.pre_tool_call[0].command: a value of 70000 "
        "characters is too long (at most 65536); the value is ignored. Fix: write a "
        "shorter value",
        # the ignored command leaves that gate entry without one: dropped, loudly
        f"{home / 'config.yaml'}:3:7: hooks.pre_tool_call[0]: has no non-empty 'command' "
        "string; skipped (set command to the program to run)",
    ]
