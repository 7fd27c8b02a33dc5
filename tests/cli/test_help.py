"""The pre-rendered top-level help: byte for byte what the real parser prints, used
only where argparse would print exactly it, and cheap (no argparse, no command module,
no logging on that path)."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import shutil
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from hermes_hooks.cli import _help, _help_gen, _help_text, build_parser, main

REPO = Path(__file__).resolve().parents[2]


def _parser_help(monkeypatch: pytest.MonkeyPatch, columns: int) -> str:
    monkeypatch.setenv("COLUMNS", str(columns))
    return build_parser(None).format_help()


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
@pytest.mark.parametrize("columns", [_help_text.COLUMNS, 120, 60])
def test_help_is_what_the_parser_prints(
    argv: list[str],
    code: int | str,
    columns: int,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # At the rendered width the pre-rendered text answers; at any other the parser.
    expected = _parser_help(monkeypatch, columns)
    assert _main_output(capsys, argv) == (code, expected, "")
    on_fast_path = sys.version_info[:2] == _help_text.PYTHON and columns == _help_text.COLUMNS
    assert (_help.prerendered() == expected) is on_fast_path
    assert (_help.prerendered() is None) is not on_fast_path


def test_the_prerendered_help_has_not_drifted() -> None:
    if sys.version_info[:2] == _help_text.PYTHON:
        # Regenerate with `python -m hermes_hooks.cli._help_gen` after changing the parser.
        assert _help_gen.text_file().read_text(encoding="utf-8") == _help_gen.render_module()
    else:
        # Another Python's argparse may lay the help out differently: it is not used.
        assert _help.prerendered() is None


def test_the_rendered_module_keeps_the_text_and_its_conditions() -> None:
    namespace: dict[str, object] = {}
    exec(_help_gen.render_module(), namespace)
    assert namespace["PYTHON"] == tuple(sys.version_info[:2])
    assert namespace["COLUMNS"] == 80
    assert namespace["TEXT"] == _help_gen.render(80)
    assert str(namespace["TEXT"]).startswith("usage: hermes-hooks [-h] [--version] [--home HOME]")


@pytest.mark.parametrize("value", [None, "", "abc", "0", "-3", "80", "132", " 99 "])
def test_columns_is_what_shutil_says_off_a_terminal(
    value: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if value is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", value)
    assert _help.columns() == shutil.get_terminal_size().columns


def _on_terminal(code: str, columns: int, env: dict[str, str]) -> dict[str, object]:
    """Run ``code`` with stdout on a pseudo-terminal ``columns`` wide; it prints a JSON
    answer on stderr."""
    leader, follower = pty.openpty()
    try:
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
        result = subprocess.run(
            [sys.executable, "-c", code],
            stdout=follower,
            stderr=subprocess.PIPE,
            env=env,
            cwd=REPO,
            timeout=60,
            check=True,
        )
    finally:
        os.close(follower)
        os.close(leader)
    answer: dict[str, object] = json.loads(result.stderr)
    return answer


@pytest.mark.parametrize(("columns", "env_columns"), [(132, None), (80, None), (132, "80")])
def test_columns_is_what_shutil_says_on_a_terminal(columns: int, env_columns: str | None) -> None:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    if env_columns is not None:
        env["COLUMNS"] = env_columns
    code = (
        "import json, shutil, sys\n"
        "from hermes_hooks.cli import _help\n"
        "json.dump({'ours': _help.columns(), 'shutil': shutil.get_terminal_size().columns,"
        " 'fast': _help.prerendered() is not None}, sys.stderr)\n"
    )
    answer = _on_terminal(code, columns, env)
    expected = columns if env_columns is None else int(env_columns)
    on_version = sys.version_info[:2] == _help_text.PYTHON
    assert answer == {"ours": expected, "shutil": expected, "fast": on_version and expected == 80}


def test_help_imports_neither_argparse_nor_a_command_nor_logging() -> None:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "from hermes_hooks.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit as exc:\n    code = exc.code\n"
        "heavy = {'argparse', 'logging', 'typing', 'pathlib', 'json', 'shutil', 're'}\n"
        "new = set(sys.modules) - before\n"
        "loaded = sorted(m for m in new if m in heavy or m.endswith('_cmd'))\n"
        "print(code, loaded, file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=60,
        check=True,
    )
    assert result.stdout == _help_gen.render(80)
    if sys.version_info[:2] == _help_text.PYTHON:
        assert result.stderr == "0 []\n"
    else:  # the parser printed it
        assert result.stderr.startswith("0 [") and "argparse" in result.stderr
