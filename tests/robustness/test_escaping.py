"""Untrusted text reaches log lines and the terminal with visible escapes.

A newline, a carriage return or an ``ESC [2K`` in a plugin's name or exception, a tool
name, a hook's stderr or a configured command could forge a whole log line, or erase
what a reviewer reads in ``list``, ``doctor`` or the consent prompt and write another
command in its place.  Every such character is shown as ``\\n``, ``\\r``, ``\\x1b``.
The logs are checked as a real ``logging`` handler with a real ``Formatter`` writes
them; the CLI in a child process; the consent prompt on a real pseudo-terminal.
"""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path

import pytest

from hermes_hooks._escape import UNSAFE, escape, escape_json
from hermes_hooks._log import get_logger
from hermes_hooks.cli import main
from hermes_hooks.hooks import Hooks
from hermes_hooks.shell.consent import Allowlist
from tests.helpers import write_plugin
from tests.shell.helpers import sh, write_config, write_script

REPO = Path(__file__).resolve().parents[2]
QUICKSTART = str(REPO / "examples" / "recordings" / "quickstart.jsonl")
FORMAT = "%(levelname)s %(name)s: %(message)s"

#: A hostile plugin name: it erases the line it is shown on and starts a new one.
NAME = "bad\x1b[2K\rgood\nERROR forged"
NAME_SHOWN = "bad\\x1b[2K\\rgood\\nERROR forged"
#: A hostile message: a forged log line, then an erase of the real one.
FORGED = "no\nERROR hermes_hooks.plugins: forged\x1b[2K\r"
FORGED_SHOWN = "no\\nERROR hermes_hooks.plugins: forged\\x1b[2K\\r"
#: A configured command that shows "true" where "echo hi" runs.
COMMAND = "echo hi\x1b[2K\rtrue"
COMMAND_SHOWN = "echo hi\\x1b[2K\\rtrue"


def raw_controls(text: str) -> list[str]:
    """The unsafe characters in ``text``, newlines aside (they end the lines)."""
    return sorted({c for c in text if c in UNSAFE} - {"\n"})


@pytest.fixture
def log_text() -> Iterator[io.StringIO]:
    """What a real root handler with a real Formatter writes, as our users log."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter(FORMAT))
    root = logging.getLogger()
    root.addHandler(handler)
    yield stream
    root.removeHandler(handler)


def cli(home: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """The real command in a child process, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "hermes_hooks", "--home", str(home), "--no-entry-points", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=False,
    )


def hostile_home(home: Path) -> Path:
    """A home with a plugin named :data:`NAME` and a hook running :data:`COMMAND`."""
    plugin = write_plugin(
        home / "plugins",
        "bad",
        "def register(ctx):\n    pass\n",
        manifest='name: "bad\\e[2K\\rgood\\nERROR forged"\n',
    )
    write_config(home, {"post_tool_call": [{"command": COMMAND}]})
    return plugin


# -- the escaping rule ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain text, 'quoted' and \\ kept", "plain text, 'quoted' and \\ kept"),
        ("a\nb\rc\x1b[2Kd", "a\\nb\\rc\\x1b[2Kd"),
        ("tab\tkept", "tab\tkept"),
        ("\x00\x07\x08\x0b\x0c\x1f\x7f", "\\x00\\x07\\x08\\x0b\\x0c\\x1f\\x7f"),
        ("c1 \x85\x9b31m", "c1 \\x85\\x9b31m"),
        ("rm -rf ~/\u202eexe.txt", "rm -rf ~/\\u202eexe.txt"),
        (
            "\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069",
            "\\u202a\\u202b\\u202c\\u202d\\u2066\\u2067\\u2068\\u2069",
        ),
        ("\u200e\u200f\u061c\u2028\u2029", "\\u200e\\u200f\\u061c\\u2028\\u2029"),
        ("ünïcödé ✓ 日本", "ünïcödé ✓ 日本"),
    ],
)
def test_escape_shows_every_control_and_bidi_override_visibly(text: str, shown: str) -> None:
    assert escape(text) == shown
    assert raw_controls(escape(text)) == []


def test_keep_newlines_keeps_only_the_line_feed() -> None:
    assert escape("one\ntwo\r\x1b[2K", keep_newlines=True) == "one\ntwo\\r\\x1b[2K"


def test_escape_json_is_the_same_json_and_safe_on_a_terminal() -> None:
    data = {"command": "a\x7f\x9b\u202e\x1b\n", "name": "ok ✓"}
    text = escape_json(json.dumps(data, ensure_ascii=False))
    assert text == '{"command": "a\\u007f\\u009b\\u202e\\u001b\\n", "name": "ok ✓"}'
    assert json.loads(text) == data


# -- log lines -----------------------------------------------------------------------------


def test_a_plugins_name_and_exception_cannot_forge_a_log_line(
    home: Path, load: Callable[..., Hooks], log_text: io.StringIO
) -> None:
    plugin = write_plugin(
        home / "plugins",
        "bad",
        f"def register(ctx):\n    raise RuntimeError({FORGED!r})\n",
        manifest='name: "bad\\e[2K\\rgood\\nERROR forged"\n',
    )
    write_config(home, {}, plugins={"enabled": [NAME]})
    load()
    text = log_text.getvalue()
    assert raw_controls(text) == []
    assert text.splitlines() == [
        f"ERROR hermes_hooks.plugins: Plugin '{NAME_SHOWN}' failed to load and is "
        f"skipped: RuntimeError: {FORGED_SHOWN} (raised at {plugin / '__init__.py'}:2). "
        "None of its hooks run; fix the error, or disable the plugin if it is not wanted"
    ]


def test_a_tool_name_with_a_newline_cannot_forge_a_log_line(
    home: Path, load: Callable[..., Hooks], log_text: io.StringIO
) -> None:
    write_plugin(
        home / "plugins",
        "guard",
        "def guard(tool_name, **kwargs):\n    raise ValueError(f'refusing {tool_name}')\n\n"
        "def register(ctx):\n    ctx.register_hook('pre_tool_call', guard)\n",
    )
    write_config(home, {}, plugins={"enabled": ["guard"]})
    hooks = load()
    decision = hooks.pre_tool_call(
        tool_name="terminal\nERROR hermes_hooks: forged\x1b[2K\r",
        args={"command": "ls"},
        task_id="t1",
        session_id="s1",
        tool_call_id="c1",
    )
    assert decision.action == "block"  # a guard that raised fails closed, as before
    text = log_text.getvalue()
    assert raw_controls(text) == []
    assert text.splitlines() == [
        "WARNING hermes_hooks.dispatch: pre_tool_call plugin callback guard raised "
        "ValueError: refusing terminal\\nERROR hermes_hooks: forged\\x1b[2K\\r"
    ]


def test_a_shell_hooks_stderr_cannot_forge_a_log_line(
    home: Path, load: Callable[..., Hooks], log_text: io.StringIO
) -> None:
    script = write_script(
        home / "agent-hooks" / "noisy.sh",
        sh("cat >/dev/null\nprintf 'bad\\nERROR forged\\033[2K\\rX' >&2\nexit 3"),
    )
    write_config(home, {"post_tool_call": [{"command": str(script)}]})
    Allowlist(home).approve("post_tool_call", str(script))
    hooks = load()
    hooks.post_tool_call(
        tool_name="terminal",
        args={"command": "ls"},
        result="ok",
        task_id="t1",
        session_id="s1",
        tool_call_id="c1",
    )
    text = log_text.getvalue()
    assert raw_controls(text) == []
    assert (
        f"WARNING hermes_hooks.shell: shell hook hooks.post_tool_call[0] ({script}): "
        "exit code 3; stderr: bad\\nERROR forged\\x1b[2K\\rX"
    ) in text.splitlines()


def test_a_traceback_keeps_its_lines_and_escapes_each_exception_message(
    log_text: io.StringIO,
) -> None:
    log = get_logger("hermes_hooks.plugins")
    try:
        try:
            raise ValueError(FORGED)
        except ValueError as inner:
            raise RuntimeError("outer\x1b[31m\nINFO forged") from inner
    except RuntimeError:
        log.exception("plugin %s raised", NAME)
    lines = log_text.getvalue().splitlines()
    assert raw_controls(log_text.getvalue()) == []
    assert lines[0] == f"ERROR hermes_hooks.plugins: plugin {NAME_SHOWN} raised"
    assert [line for line in lines if not line.startswith(" ")] == [
        f"ERROR hermes_hooks.plugins: plugin {NAME_SHOWN} raised",
        "Traceback (most recent call last):",
        f"ValueError: {FORGED_SHOWN}",
        "",
        "The above exception was the direct cause of the following exception:",
        "",
        "Traceback (most recent call last):",
        "RuntimeError: outer\\x1b[31m\\nINFO forged",
    ]


def test_the_format_string_keeps_its_newlines_and_numbers_their_format(
    log_text: io.StringIO,
) -> None:
    log = get_logger("hermes_hooks")
    log.warning("%d problems in %.1fs:\n  %s\n  %r", 2, Decimal("1.25"), "a\nb", "c\x1b")
    log.warning("%c%s", "x", "\ny")  # an argument formatting cannot wrap: the line, escaped
    assert log_text.getvalue() == (
        "WARNING hermes_hooks: 2 problems in 1.2s:\n  a\\nb\n  'c\\x1b'\n"
        "WARNING hermes_hooks: x\\ny\n"
    )


# -- the terminal --------------------------------------------------------------------------


def test_list_shows_a_hostile_command_and_plugin_name_escaped(home: Path) -> None:
    plugin = hostile_home(home)
    done = cli(home, "list")
    assert done.returncode == 0, done.stderr
    assert raw_controls(done.stdout + done.stderr) == []
    lines = done.stdout.splitlines()
    assert f"  ✓ {NAME_SHOWN}  [directory]  {plugin}" in lines
    assert f"    ✗ {COMMAND_SHOWN}  timeout=60s  (not allowlisted)" in lines
    assert (
        f"        approve it with: hermes-hooks approve post_tool_call $'{COMMAND_SHOWN}'"
    ) in lines


def test_doctor_shows_a_hostile_command_and_plugin_name_escaped(home: Path) -> None:
    hostile_home(home)
    done = cli(home, "doctor")
    assert raw_controls(done.stdout + done.stderr) == []
    lines = done.stdout.splitlines()
    assert f"✓ plugin {NAME_SHOWN}: loaded (no hooks)" in lines
    assert (
        f"⚠ shell hooks.post_tool_call[0] {COMMAND_SHOWN}: not allowlisted — it will NOT "
        f"run; review the script, then: hermes-hooks approve post_tool_call $'{COMMAND_SHOWN}'"
    ) in lines


def test_json_output_keeps_the_raw_strings_and_no_raw_escape(home: Path) -> None:
    hostile_home(home)
    done = cli(home, "list", "--json")
    assert done.returncode == 0, done.stderr
    assert raw_controls(done.stdout) == []
    data = json.loads(done.stdout)
    assert [hook["command"] for hook in data["shell"]["hooks"]] == [COMMAND]


def test_test_shows_a_hooks_stderr_escaped(home: Path) -> None:
    script = write_script(
        home / "agent-hooks" / "noisy.sh",
        sh("cat >/dev/null\nprintf 'bad\\033[2K\\rX\\033]0;title\\007' >&2"),
    )
    write_config(home, {"post_tool_call": [{"command": str(script)}]})
    Allowlist(home).approve("post_tool_call", str(script))
    done = cli(home, "test", "post_tool_call")
    assert done.returncode == 0, done.stderr
    assert raw_controls(done.stdout) == []
    assert "      stderr: bad\\x1b[2K X\\x1b]0;title\\x07" in done.stdout.splitlines()


def test_replay_shows_a_callbacks_exception_escaped(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_plugin(
        home / "plugins",
        "broken",
        f"def boom(**kw):\n    raise ValueError({FORGED!r})\n\n"
        "def register(ctx):\n    ctx.register_hook('post_llm_call', boom)\n",
    )
    code = main(
        [
            "--no-entry-points",
            "replay",
            "--flush-timeout",
            "0.5",
            "--home",
            str(home),
            "--fail-on",
            "error",
            QUICKSTART,
        ]
    )
    out = capsys.readouterr().out
    assert code == 1
    assert raw_controls(out) == []
    boom = f"post_llm_call plugin callback boom raised ValueError: {FORGED_SHOWN}"
    assert out.splitlines()[-3:] == [
        "replay failed: --fail-on error",
        f"  {QUICKSTART}: turn 1 (line 2): post_llm_call python broken:boom: {boom}",
        f"  {QUICKSTART}: turn 3 (line 7): post_llm_call python broken:boom: {boom}",
    ]


def test_the_consent_prompt_shows_the_command_escaped(
    home: Path,
    load: Callable[..., Hooks],
    tty_stdin: Callable[[bytes], None],
    capsys: pytest.CaptureFixture[str],
) -> None:
    write_config(home, {"post_tool_call": [{"command": COMMAND}]})
    tty_stdin(b"n\n")
    load()
    err = capsys.readouterr().err
    assert raw_controls(err) == []
    assert f"    Command: {COMMAND_SHOWN}" in err.splitlines()
    assert err.endswith("Allow this hook to run? [y/N]: ")
