"""The top-level help: what the real parser prints at any terminal width, and cheap
(no command module, no logging, no hook machinery on that path)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_hooks.cli import build_parser, main

REPO = Path(__file__).resolve().parents[2]


def _main_output(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> tuple[int | str | None, str, str]:
    try:
        code: int | str | None = main(argv)
    except SystemExit as exc:
        code = f"exit {exc.code}"
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(("argv", "code"), [(["--help"], "exit 0"), (["-h"], "exit 0"), ([], 2)])
@pytest.mark.parametrize("columns", [80, 120, 60])
def test_help_is_what_the_parser_prints(
    argv: list[str],
    code: int | str,
    columns: int,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("COLUMNS", str(columns))
    expected = build_parser(None).format_help()
    assert expected.startswith("usage: hermes-hooks [-h] [--version] [--home HOME]")
    assert max(len(line) for line in expected.splitlines()) <= columns
    assert _main_output(capsys, argv) == (code, expected, "")


def test_the_help_lists_every_command_with_its_summary(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # one line per command
    _, out, _ = _main_output(capsys, ["--help"])
    listed = [line.split(None, 1) for line in out.splitlines() if line.startswith("    ")]
    assert listed == [
        ["replay", "replay recorded sessions through the hooks and show what each hook decided"],
        [
            "list",
            "show what a Hermes home loads: plugins, shell hooks, outbound targets, gateway hooks",
        ],
        ["doctor", "check every plugin, shell hook, outbound target and gateway hook of a home"],
        [
            "test",
            "fire every callback of one event on a synthetic payload and show what each returns",
        ],
        [
            "approve",
            "approve a shell hook (event + exact command) or MCP tools without the prompt",
        ],
        ["revoke", "remove every allowlist approval of a shell-hook command (all events)"],
        [
            "import-claude",
            "convert the hooks of Claude Code settings files into dialect: claude-code entries",
        ],
        [
            "import-session",
            "turn Hermes Agent sessions or Claude Code transcripts into replayable recordings",
        ],
        ["emit", "fire a gateway event at the gateway hooks of a home and show what each did"],
        ["outbox", "list, show, redeliver or purge events of durable outbound targets"],
        ["listen", "run a local webhook receiver that verifies and pretty-prints each delivery"],
        [
            "mcp-proxy",
            "guard an MCP server: relay a client to it and fire the hooks on every tool call",
        ],
        ["hooks", "print the hook catalogue: every hook, its kind and its payload fields"],
        [
            "schema",
            "print the JSON Schema of an event's shell stdin or webhook body, or a config file",
        ],
        [
            "completion",
            "print a bash, zsh or fish completion script generated from this tool's options",
        ],
    ]


def test_a_command_s_own_help_shows_its_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _main_output(capsys, ["revoke", "--help"])
    assert (code, err) == ("exit 0", "")
    assert out.startswith("usage: hermes-hooks revoke [-h] [--json] command [command ...]")


def test_help_imports_no_command_nor_logging_nor_the_hook_machinery() -> None:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "from hermes_hooks.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit as exc:\n    code = exc.code\n"
        "heavy = {'logging', 'json', 'pathlib', 'pluggy', 'hermes_hooks.cli._run',"
        " 'hermes_hooks.hooks', 'hermes_hooks._loader'}\n"
        "new = set(sys.modules) - before\n"
        "loaded = sorted(m for m in new if m in heavy or m.endswith('_cmd'))\n"
        "print(code, loaded, file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**env, "PYTHONPATH": str(REPO)},
        cwd=REPO,
        timeout=60,
        check=True,
    )
    assert result.stdout.startswith("usage: hermes-hooks [-h] [--version] [--home HOME]")
    assert result.stderr == "0 []\n"
