"""``shell: bash``: a claude-code entry runs through bash as Claude Code runs it, and
keeps what every shell hook has (consent pinning, the group kill at the timeout, ``if:``).

The plugin here is built like one of the most used Claude Code plugins: its
``hooks.json`` runs ``"${CLAUDE_PLUGIN_ROOT}/hooks/run-hook.cmd" session-start`` with
``"shell": "bash"``, and ``run-hook.cmd`` (a Windows/bash polyglot) has no ``#!`` line,
so only a shell can run it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from hermes_hooks.cli import main
from hermes_hooks.hooks import Hooks
from tests.claude.helpers import configure, payload
from tests.shell.helpers import approve, problems_of, write_config, write_script

BASH = shutil.which("bash")
COMMAND = '"${CLAUDE_PLUGIN_ROOT}/hooks/run-hook.cmd" session-start'
# No #! line: cmd.exe runs the part in the heredoc, bash skips it and runs the rest.
RUN_HOOK = """: << 'CMDBLOCK'
@echo off
"C:\\Program Files\\Git\\bin\\bash.exe" "%~dp0%~1"
exit /b
CMDBLOCK
SCRIPT_DIR="$(cd "$(dirname "$0")" && pwd)"
exec bash "${SCRIPT_DIR}/$1"
"""
SESSION_START = """#!/usr/bin/env bash
cat > /dev/null
printf '{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "%s"}}\\n' \\
    "You have superpowers from $(basename "$CLAUDE_PLUGIN_ROOT")."
"""


def superpowers(folder: Path) -> Path:
    """A Claude Code plugin in ``folder`` whose SessionStart hook needs a shell."""
    (folder / ".claude-plugin").mkdir(parents=True)
    (folder / ".claude-plugin" / "plugin.json").write_text(
        json.dumps({"name": "superpowers", "version": "1.0.0"}), encoding="utf-8"
    )
    hooks = {
        "hooks": {
            "SessionStart": [
                {
                    "matcher": "startup|resume|clear|compact",
                    "hooks": [{"type": "command", "command": COMMAND, "shell": "bash"}],
                }
            ]
        }
    }
    (folder / "hooks").mkdir()
    (folder / "hooks" / "hooks.json").write_text(json.dumps(hooks), encoding="utf-8")
    write_script(folder / "hooks" / "run-hook.cmd", RUN_HOOK)
    write_script(folder / "hooks" / "session-start", SESSION_START)
    return folder


def cli(home: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["--home", str(home), "--no-entry-points", *argv])
    return code, capsys.readouterr().out


def test_a_superpowers_style_plugin_gives_its_context_on_session_start(
    home: Path,
    tmp_path: Path,
    load: Callable[..., Hooks],
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    plugin = superpowers(tmp_path / "superpowers")
    code, _ = cli(home, capsys, "import-claude", "--write", str(plugin))
    assert code == 0
    command = f"{plugin}/hooks/run-hook.cmd session-start"
    config = (home / "config.yaml").read_text(encoding="utf-8")
    assert f"command: {command}\n" in config
    assert "shell: bash\n" in config
    code, _ = cli(home, capsys, "approve", "on_session_start", command)
    assert code == 0
    caplog.set_level(logging.INFO)
    hooks = load()
    hooks.on_session_start(**payload("on_session_start", session_id="s-1"))
    context = hooks.pre_llm_call(**payload("pre_llm_call", session_id="s-1"))
    assert context == "You have superpowers from superpowers."
    assert problems_of(caplog) == []


def test_list_shows_the_shell_and_doctor_flags_an_edit_of_the_script_bash_runs(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plugin = superpowers(tmp_path / "superpowers")
    assert cli(home, capsys, "import-claude", "--write", str(plugin))[0] == 0
    command = f"{plugin}/hooks/run-hook.cmd session-start"
    assert cli(home, capsys, "approve", "on_session_start", command)[0] == 0
    code, out = cli(home, capsys, "list")
    assert code == 0
    assert f"shell={BASH}" in out
    script = plugin / "hooks" / "run-hook.cmd"
    before = hashlib.sha256(RUN_HOOK.encode()).hexdigest()[:12]
    script.write_text(RUN_HOOK + "echo changed >&2\n", encoding="utf-8")
    after = hashlib.sha256((RUN_HOOK + "echo changed >&2\n").encode()).hexdigest()[:12]
    code, out = cli(home, capsys, "doctor")
    assert (
        f"⚠ shell hooks.on_session_start[0] {command}: script content changed since approval "
        f"(sha256 {before}… → {after}…) — review it, then re-approve: hermes-hooks approve "
        f"on_session_start '{command}'"
    ) in out.splitlines()


def test_without_shell_the_script_cannot_start_and_with_it_the_variable_is_bashs(
    home: Path, tmp_path: Path, load: Callable[..., Hooks], caplog: pytest.LogCaptureFixture
) -> None:
    plugin = superpowers(tmp_path / "superpowers")
    direct = f"{plugin}/hooks/run-hook.cmd session-start"
    # As written in hooks.json: bash expands ${CLAUDE_PLUGIN_ROOT} from the environment
    # the dialect gives a plugin's hooks.
    block = {
        "SessionStart": [
            {"command": direct, "plugin_root": str(plugin)},
            {"command": COMMAND, "plugin_root": str(plugin), "shell": "bash"},
        ]
    }
    write_config(home, block)
    approve(home, "on_session_start", direct)
    # A bypass approves it as a user of --accept-hooks would (approving it pins the
    # plugin's script: test_a_plugin_root_command_is_pinned_to_the_file_bash_runs).
    hooks = load(accept_hooks=True)
    hooks.on_session_start(**payload("on_session_start", session_id="s-2"))
    context = hooks.pre_llm_call(**payload("pre_llm_call", session_id="s-2"))
    assert context == "You have superpowers from superpowers."
    assert problems_of(caplog) == [
        (
            "WARNING",
            f"shell hook hooks.SessionStart[0] ({direct}): {plugin}/hooks/run-hook.cmd is not "
            "an executable format (add a #! line)",
        )
    ]


def alive(pid: int) -> bool:
    """Whether ``pid`` is a running process (a zombie waiting for its reaper is not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_a_timeout_kills_bash_and_what_it_started(
    home: Path, tmp_path: Path, claude: Callable[..., Hooks]
) -> None:
    pid_file = tmp_path / "sleeper.pid"
    command = f"sleep 60 & echo $! > {pid_file}; wait"
    hooks = claude("PreToolUse", command, shell="bash", timeout=1, fail_closed=True)
    answer = hooks.pre_tool_call(**payload("pre_tool_call", "terminal", args={"command": "ls"}))
    assert (answer.action, answer.message) == (
        "block",
        f"hook {command} failed closed: timed out after 1s",
    )
    sleeper = int(pid_file.read_text(encoding="utf-8"))
    deadline = time.monotonic() + 5  # SIGKILL is delivered at once; this bounds a slow /proc
    while alive(sleeper) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert alive(sleeper) is False


def test_if_still_decides_whether_a_shell_hook_runs(
    home: Path, tmp_path: Path, claude: Callable[..., Hooks]
) -> None:
    ran = tmp_path / "ran"
    # No #! line: only bash can run it.
    gate = write_script(tmp_path / "no-rm", f"echo x >> {ran}\necho 'no rm here' >&2\nexit 2\n")
    hooks = claude("PreToolUse", str(gate), matcher="Bash", shell="bash", **{"if": "Bash(rm *)"})
    rm = payload("pre_tool_call", "terminal", args={"command": "rm -rf build"})
    ls = payload("pre_tool_call", "terminal", args={"command": "ls -la"})
    assert hooks.pre_tool_call(**ls).action == "allow"
    assert not ran.exists()
    blocked = hooks.pre_tool_call(**rm)
    assert (blocked.action, blocked.message) == ("block", "no rm here")
    assert ran.read_text(encoding="utf-8") == "x\n"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("sh", "shell must be 'bash' (as in Claude Code), got 'sh'; skipped"),
        (True, "shell must be 'bash' (as in Claude Code), got True; skipped"),
    ],
)
def test_a_shell_other_than_bash_refuses_the_entry(
    home: Path,
    load: Callable[..., Hooks],
    caplog: pytest.LogCaptureFixture,
    value: object,
    message: str,
) -> None:
    configure(home, {"PostToolUse": [{"command": "/bin/true", "shell": value}]})
    load()
    assert problems_of(caplog) == [
        ("WARNING", f"{home}/config.yaml:3:5: hooks.PostToolUse[0]: {message}")
    ]


def test_import_runs_a_script_without_a_shebang_through_bash_even_unasked(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plugin = superpowers(tmp_path / "superpowers")
    hooks = json.loads((plugin / "hooks" / "hooks.json").read_text(encoding="utf-8"))
    del hooks["hooks"]["SessionStart"][0]["hooks"][0]["shell"]  # Claude Code's default
    (plugin / "hooks" / "hooks.json").write_text(json.dumps(hooks), encoding="utf-8")
    code, out = cli(home, capsys, "import-claude", "--json", str(plugin))
    assert code == 0
    [entry] = json.loads(out)["entries"]
    assert entry["entry"]["shell"] == "bash"
    assert entry["notes"] == ["its script has no #! line: it runs through bash, as in Claude Code"]


def test_capture_stays_bounded_through_bash(claude: Callable[..., Hooks]) -> None:
    command = "cat >/dev/null; head -c 3000000 /dev/zero | tr '\\0' x"
    hooks = claude("PreToolUse", command, shell="bash", fail_closed=True)
    answer = hooks.pre_tool_call(**payload("pre_tool_call", "terminal", args={"command": "ls"}))
    assert (answer.action, answer.message) == (
        "block",
        f"hook {command} failed closed: stdout exceeded 1048576 bytes",
    )


def test_a_plugin_root_command_is_pinned_to_the_file_bash_runs(
    home: Path,
    tmp_path: Path,
    load: Callable[..., Hooks],
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    plugin = superpowers(tmp_path / "superpowers")
    script = plugin / "hooks" / "run-hook.cmd"
    entry = {"command": COMMAND, "plugin_root": str(plugin), "shell": "bash"}
    write_config(home, {"SessionStart": [entry]})
    # Consent writes out ${CLAUDE_PLUGIN_ROOT} as bash will: the plugin's script is pinned.
    code, out = cli(home, capsys, "approve", "on_session_start", COMMAND)
    assert code == 0
    lines = out.splitlines()
    assert lines[1] == f"  script: {script}"
    assert lines[3] == f"  sha256: {hashlib.sha256(RUN_HOOK.encode()).hexdigest()}"
    code, out = cli(home, capsys, "doctor")
    assert code == 0
    subject = f"shell hooks.SessionStart[0] {COMMAND}"
    assert f"✓ {subject}: program found and executable" in out.splitlines()
    assert "not found" not in out
    hooks = load()  # approved: no bypass needed
    hooks.on_session_start(**payload("on_session_start", session_id="s-3"))
    assert hooks.pre_llm_call(**payload("pre_llm_call", session_id="s-3")) == (
        "You have superpowers from superpowers."
    )
    hooks.close(5)
    # An edit of the file bash runs is the approved file's: doctor names its new sha256.
    edited = RUN_HOOK + "echo changed >&2\n"
    script.write_text(edited, encoding="utf-8")
    before = hashlib.sha256(RUN_HOOK.encode()).hexdigest()[:12]
    after = hashlib.sha256(edited.encode()).hexdigest()[:12]
    code, out = cli(home, capsys, "doctor")
    assert (
        f"⚠ {subject}: script content changed since approval (sha256 {before}… → {after}…) — "
        "review it, then re-approve: hermes-hooks approve on_session_start "
        f"'{COMMAND}'"
    ) in out.splitlines()
    # The plugin root now names another copy: the command leads to a file that was
    # not approved, so it does not run.
    other = tmp_path / "other"
    shutil.copytree(plugin, other)
    write_config(home, {"SessionStart": [{**entry, "plugin_root": str(other)}]})
    caplog.clear()
    hooks = load()
    hooks.on_session_start(**payload("on_session_start", session_id="s-4"))
    assert hooks.pre_llm_call(**payload("pre_llm_call", session_id="s-4")) is None
    assert [m for level, m in problems_of(caplog) if level == "ERROR"] == [
        f"{home}/config.yaml: shell hook hooks.SessionStart[0] ({COMMAND}) refused: it "
        f"resolved to {script} when approved and resolves to {other}/hooks/run-hook.cmd now. "
        "Not run until approved again: review that file; if it is the one you mean, "
        f"approve it: hermes-hooks approve on_session_start '{COMMAND}'"
    ]
