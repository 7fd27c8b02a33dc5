"""The example home's own pieces, run for real: its shell scripts (with the core's shell
envelope on stdin), its gateway handler, and the wiring in its config.yaml."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from hermes_hooks.envelope import build_envelope, dumps
from tests.conftest import tool_payload

REPO = Path(__file__).resolve().parents[2]
HOME = REPO / "examples" / "home"
BLOCK = {"decision": "block", "reason": "bloqueado: rm -rf / não é permitido"}


def tools_dir(tmp_path: Path, *names: str) -> str:
    """A PATH holding only ``names`` (to run the scripts without jq)."""
    path = tmp_path / "bin"
    path.mkdir(exist_ok=True)
    for name in names:
        found = shutil.which(name)
        assert found is not None, name
        (path / name).symlink_to(found)
    return str(path)


def run_script(name: str, stdin: bytes, cwd: Path, path: str | None = None) -> Any:
    env = {**os.environ, "PATH": path} if path else None
    done = subprocess.run(
        [str(HOME / "agent-hooks" / name)],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        env=env,
        timeout=30,
        check=True,
    )
    return json.loads(done.stdout.decode("utf-8"))


# "path": the machine's PATH (jq if installed); "no-jq": the scripts' sed/awk fallback.
@pytest.mark.parametrize("jq", [True, False], ids=["path", "no-jq"])
@pytest.mark.parametrize(
    ("command", "blocked"),
    [
        ("rm -rf /", True),
        ("sudo rm -rf / --no-preserve-root", True),
        ("cd / && rm -rf /*", True),
        ("rm -r /var/tmp", True),
        ("rm -rf ./build", False),
        ("ls -la", False),
    ],
)
def test_block_rm_rf_reads_the_envelope(
    tmp_path: Path, command: str, blocked: bool, jq: bool
) -> None:
    envelope = dumps(build_envelope("pre_tool_call", tool_payload(args={"command": command})))
    path = None if jq else tools_dir(tmp_path, "sh", "cat", "sed", "grep")
    assert run_script("block-rm-rf.sh", envelope, tmp_path, path) == (BLOCK if blocked else {})


# "path": the machine's PATH (jq if installed); "no-jq": the scripts' sed/awk fallback.
@pytest.mark.parametrize("jq", [True, False], ids=["path", "no-jq"])
def test_inject_git_status_reports_uncommitted_changes(tmp_path: Path, jq: bool) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=30, capture_output=True)
    path = None if jq else tools_dir(tmp_path, "sh", "cat", "git", "sed", "awk")
    assert run_script("inject-git-status.sh", b"{}", repo, path) == {}
    (repo / 'say "hi".txt').write_text("x", encoding="utf-8")
    (repo / "b.txt").write_text("y", encoding="utf-8")
    assert run_script("inject-git-status.sh", b"{}", repo, path) == {
        "context": 'Mudanças não commitadas no cwd:\n?? b.txt\n?? "say \\"hi\\".txt"'
    }


def test_the_command_logger_handler_writes_ex03_lines(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(HOME / "hooks", home / "hooks")
    spec = importlib.util.spec_from_file_location(
        "example_command_logger", home / "hooks" / "command-logger" / "handler.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.handle(
        "command:model",
        {"platform": "telegram", "user_id": "1001", "command": "model", "args": "gpt-5"},
    )
    (line,) = (home / "logs" / "command_usage.jsonl").read_text(encoding="utf-8").splitlines()
    entry = json.loads(line)
    assert entry.pop("ts")
    assert entry == {"command": "model", "args": "gpt-5", "platform": "telegram", "user": "1001"}


def test_the_config_wires_all_four_systems() -> None:
    config = yaml.safe_load((HOME / "config.yaml").read_text(encoding="utf-8"))
    hooks = config["hooks"]
    assert hooks["pre_tool_call"] == [
        {"matcher": "terminal", "command": "examples/home/agent-hooks/block-rm-rf.sh", "timeout": 5}
    ]
    assert hooks["pre_llm_call"] == [
        {"command": "examples/home/agent-hooks/inject-git-status.sh", "timeout": 10}
    ]
    for entry in (*hooks["pre_tool_call"], *hooks["pre_llm_call"]):
        script = REPO / entry["command"]
        assert script.is_file() and os.access(script, os.X_OK)
    (target,) = hooks["outbound"]
    assert target["url"].startswith("http://127.0.0.1:")
    assert target["events"] == ["on_session_end", "subagent_stop"]
    hook = yaml.safe_load(
        (HOME / "hooks" / "command-logger" / "HOOK.yaml").read_text(encoding="utf-8")
    )
    assert hook["events"] == ["command:*"]
    assert (HOME / "plugins" / "tool-counter" / "plugin.yaml").is_file()
    assert config["audit_log"] == {"path": "logs/audit.jsonl"}
