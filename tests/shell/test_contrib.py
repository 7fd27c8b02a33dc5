"""The contrib shell hooks (EX-32, EX-33, EX-34), each fired through the adapter."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from hermes_hooks.hooks import Hooks
from tests.helpers import tool_payload
from tests.shell.helpers import CONTRIB, approve, sh, write_config, write_script

RM_RF_MESSAGE = "bloqueado: rm -rf / não é permitido"


def configure(home: Path, event: str, name: str, matcher: str | None = None) -> str:
    command = str(CONTRIB / name)
    entry = {"command": command, **({"matcher": matcher} if matcher else {})}
    write_config(home, {event: [entry]})
    approve(home, event, command)
    return command


@pytest.fixture
def bin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PATH holding only this Python as python3, sh's tools, and what a test adds."""
    path = tmp_path / "bin"
    path.mkdir()
    (path / "python3").symlink_to(sys.executable)
    monkeypatch.setenv("PATH", f"{path}{os.pathsep}/usr/bin{os.pathsep}/bin")
    return path


def test_the_contrib_scripts_are_executable() -> None:
    for name in ("block-rm-rf.sh", "auto-format.sh", "inject-git-status.sh"):
        assert os.access(CONTRIB / name, os.X_OK), name


# -- block-rm-rf --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "blocked"),
    [
        ("rm -rf /", True),
        ("rm -rf /home/user", True),
        ("rm  -r\t/var/tmp", True),
        ("rm -fr /", True),
        ("cd /tmp && rm -rf /opt/x", True),
        ("rm -rf ./build", False),
        ("rm -f /tmp/x", False),
        ("ls -la /", False),
        ("", False),
    ],
)
def test_block_rm_rf(
    home: Path, load: Callable[..., Hooks], bin_dir: Path, command: str, blocked: bool
) -> None:
    configure(home, "pre_tool_call", "block-rm-rf.sh", matcher="terminal")
    decision = load().pre_tool_call(**tool_payload(args={"command": command}))
    if blocked:
        assert (decision.action, decision.message) == ("block", RM_RF_MESSAGE)
    else:
        assert (decision.action, decision.message) == ("allow", None)


def test_block_rm_rf_ignores_other_tools_and_odd_input(
    home: Path, load: Callable[..., Hooks], bin_dir: Path
) -> None:
    configure(home, "pre_tool_call", "block-rm-rf.sh", matcher="terminal")
    hooks = load()
    other = hooks.pre_tool_call(
        **tool_payload(tool_name="write_file", args={"command": "rm -rf /"})
    )
    assert other.action == "allow"
    odd = hooks.pre_tool_call(**tool_payload(args={"command": ["rm", "-rf", "/"]}))
    assert odd.action == "allow"
    result = subprocess.run(
        [str(CONTRIB / "block-rm-rf.sh")], input=b"not json", capture_output=True, check=False
    )
    assert (result.returncode, result.stdout) == (0, b"{}\n")


# -- auto-format -----------------------------------------------------------------------------


def test_auto_format_runs_black_on_python_files_only(
    home: Path, load: Callable[..., Hooks], bin_dir: Path
) -> None:
    calls = home / "black-calls"
    write_script(bin_dir / "black", sh(f'printf "%s\\n" "$*" >> {calls}'))
    configure(home, "post_tool_call", "auto-format.sh", matcher="write_file|patch")
    hooks = load()
    for tool, path in (
        ("write_file", "src/app.py"),
        ("patch", "my file.py"),
        ("write_file", "notes.md"),
        ("read_file", "src/other.py"),
    ):
        hooks.post_tool_call(**tool_payload(tool_name=tool, args={"path": path}, result="{}"))
    assert calls.read_text().splitlines() == ["--quiet -- src/app.py", "--quiet -- my file.py"]


def test_auto_format_without_black_still_answers_empty(bin_dir: Path) -> None:
    result = subprocess.run(
        [str(CONTRIB / "auto-format.sh")],
        input=b'{"tool_input": {"path": "x.py"}}',
        capture_output=True,
        check=False,
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, b"{}\n", b"")


# -- inject-git-status -----------------------------------------------------------------------


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def test_inject_git_status_reports_uncommitted_changes(
    home: Path,
    load: Callable[..., Hooks],
    bin_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    configure(home, "pre_llm_call", "inject-git-status.sh")
    hooks = load()
    monkeypatch.chdir(repo)
    assert hooks.pre_llm_call(session_id="s", user_message="hi") is None  # clean
    (repo / "new.txt").write_text("x")
    (repo / "ação.txt").write_text("y")
    context = hooks.pre_llm_call(session_id="s", user_message="hi")
    assert context is not None
    lines = context.splitlines()
    assert lines[0] == "Mudanças não commitadas no cwd:"
    assert "?? new.txt" in lines
    assert len(lines) == 3


def test_inject_git_status_outside_a_repository_says_nothing(
    home: Path,
    load: Callable[..., Hooks],
    bin_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    configure(home, "pre_llm_call", "inject-git-status.sh")
    hooks = load()
    monkeypatch.chdir(plain)
    assert hooks.pre_llm_call(session_id="s", user_message="hi") is None
