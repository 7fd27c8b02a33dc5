"""The command-line skeleton: list, hooks, doctor, exit codes, --json."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.cli import main
from hermes_hooks.hookspecs import CATALOGUE, VALID_HOOKS
from tests.helpers import write_plugin

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_HOME = REPO / "examples" / "home"


def run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_list_shows_directory_plugins_and_failures(home: Path, capsys: Any) -> None:
    write_plugin(
        home / "plugins",
        "good",
        "def register(ctx):\n    ctx.register_hook('on_session_start', lambda **kw: None)\n",
    )
    write_plugin(home / "plugins", "bad", "def register(ctx):\n    raise ValueError('nope')\n")
    code, out, _ = run(capsys, "--home", str(home), "list")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"Hermes home: {home}"
    assert f"  ✗ bad  [directory]  0.1 ({home / 'plugins' / 'bad'})" in lines
    bad_init = home / "plugins" / "bad" / "__init__.py"
    assert f"      failed: ValueError: nope (raised at {bad_init}:2)" in lines
    assert f"  ✓ good  [directory]  0.1 ({home / 'plugins' / 'good'})" in lines
    assert "      hooks: on_session_start" in lines


def test_list_shows_entry_point_distribution_and_version(home: Path, capsys: Any) -> None:
    code, out, _ = run(capsys, "--home", str(home), "list")
    assert code == 0
    assert (
        "  ✓ ep-pluggy  [entry-point:hermes_hooks]  hermes-hooks-testplugins 1.2.3 "
        "(hermes_hooks_testplugins.pluggy_style)"
    ) in out.splitlines()


def test_list_json(home: Path, capsys: Any) -> None:
    write_plugin(
        home / "plugins",
        "good",
        "def register(ctx):\n    ctx.register_hook('on_session_start', lambda **kw: None)\n",
    )
    code, out, _ = run(capsys, "list", "--json", "--home", str(home))
    data = json.loads(out)
    assert code == 0
    good = next(p for p in data["python"] if p["key"] == "good")
    assert good == {
        "key": "good",
        "source": "directory",
        "path": str(home / "plugins" / "good"),
        "distribution": None,
        "version": "0.1",
        "description": None,
        "state": "loaded",
        "hooks": ["on_session_start"],
        "error": None,
        "problems": [],
        "name": "good",
        "location": None,
        "warnings": [],
        "registrations": {},
    }


def test_doctor_fails_on_a_broken_plugin(home: Path, capsys: Any) -> None:
    write_plugin(home / "plugins", "bad", "raise ImportError('missing dep')\n")
    code, out, _ = run(capsys, "--home", str(home), "doctor")
    assert code == 1
    bad_init = home / "plugins" / "bad" / "__init__.py"
    assert (
        f"✗ plugin bad: failed to load: ImportError: missing dep (raised at {bad_init}:1)"
        in out.splitlines()
    )
    assert out.splitlines()[-1].startswith("problems found (")


def test_hooks_prints_the_catalogue_and_one_hook(capsys: Any) -> None:
    code, out, _ = run(capsys, "hooks", "--json")
    rows = json.loads(out)
    assert code == 0 and len(rows) == 37
    assert rows[0]["name"] == "pre_tool_call" and rows[0]["on_error"] == "fail_closed"
    code, out, _ = run(capsys, "hooks", "subagent_stop")
    assert out.splitlines()[0] == (
        "subagent_stop  (observer; fail_open; thread: caller; shell: observe)"
    )
    assert out.splitlines()[1] == "shell hooks: yes; outbound webhooks: yes; tool matcher: no"


def test_hooks_shows_where_a_hook_may_not_go_and_why(capsys: Any) -> None:
    code, out, _ = run(capsys, "hooks", "on_stream_delta", "--json")
    row = json.loads(out)
    assert code == 0
    assert (row["shell"], row["webhooks"], row["matcher"], row["streaming"]) == (
        "refused",
        False,
        False,
        True,
    )
    assert row["webhook_refusal"] == CATALOGUE["on_stream_delta"].webhook_refusal
    assert "one POST per streamed token" in row["webhook_refusal"]
    code, out, _ = run(capsys, "hooks", "pre_tool_call")
    assert out.splitlines()[1] == "shell hooks: yes; outbound webhooks: yes; tool matcher: yes"


def test_unknown_hook_is_a_usage_error(capsys: Any) -> None:
    code, _, err = run(capsys, "hooks", "pre_tool")
    assert code == 2
    assert err == "hermes-hooks: unknown hook 'pre_tool' — did you mean 'pre_tool_call'?\n"


def test_unknown_hook_without_a_close_name_points_at_the_list(capsys: Any) -> None:
    code, _, err = run(capsys, "hooks", "zzzz")
    assert code == 2
    assert err == (
        "hermes-hooks: unknown hook 'zzzz' — no hook has a similar name; "
        f"`hermes-hooks hooks` lists the {len(VALID_HOOKS)} events.\n"
    )


def test_no_command_prints_help_and_exits_2(capsys: Any) -> None:
    code, out, _ = run(capsys)
    assert code == 2 and out.startswith("usage: hermes-hooks")


def test_python_dash_m_runs_the_readme_command() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "hermes_hooks", "--home", str(EXAMPLE_HOME), "list"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "  ✓ tool-counter  [directory]  " in result.stdout
    assert "      hooks: post_tool_call, pre_llm_call" in result.stdout


def test_home_from_environment(home: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HERMES_HOME", str(home))
    code, out, _ = run(capsys, "list")
    assert code == 0 and out.splitlines()[0] == f"Hermes home: {home}"


def test_safe_mode_list_and_doctor_keep_every_section(
    home: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No source loads, yet each adapter still answers for its place in the report.
    monkeypatch.setenv("HERMES_SAFE_MODE", "1")
    code, out, _ = run(capsys, "--home", str(home), "list")
    assert code == 0
    assert out.splitlines() == [
        f"Hermes home: {home}",
        "Python plugins (0):",
        "  (none)",
        "Shell hooks: not loaded (HERMES_SAFE_MODE, or not this surface)",
        "Outbound webhooks (0):",
        "  (none)",
        "Gateway hooks: not loaded (HERMES_SAFE_MODE set)",
        # doctor's error, which no entry shows, is listed at the end
        "Problems (1):",
        "  ✗ safe mode: HERMES_SAFE_MODE is set: no plugin, shell hook, outbound webhook or "
        "gateway hook is loaded, so no guard runs. Fix: unset HERMES_SAFE_MODE once "
        "troubleshooting is done",
    ]
    code, out, _ = run(capsys, "--home", str(home), "list", "--json")
    data = json.loads(out)
    assert [e["subject"] for e in data.pop("errors")] == ["safe mode"]
    assert data == {
        "home": str(home),
        "python": [],
        "shell": None,
        "outbound": [],
        "gateway": [],
    }
    # Every section answers, and doctor fails: with every guard off the home is not
    # healthy, however deliberate the switch.
    code, out, _ = run(capsys, "--home", str(home), "doctor")
    assert code == 1
    assert out.splitlines() == [
        "✗ safe mode: HERMES_SAFE_MODE is set: no plugin, shell hook, outbound webhook or "
        "gateway hook is loaded, so no guard runs. Fix: unset HERMES_SAFE_MODE once "
        "troubleshooting is done",
        "ℹ gateway hooks: HERMES_SAFE_MODE set: manifests checked, handlers not imported",
        f"ℹ gateway hooks: no gateway hooks in {home / 'hooks'}",
        "✓ telemetry: OpenTelemetry spans and metrics on",
        "",
        "problems found (4 checks)",
    ]
