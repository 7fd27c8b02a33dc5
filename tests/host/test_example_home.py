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

import yaml

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
        {"matcher": "terminal", "command": "agent-hooks/block-rm-rf.sh", "timeout": 5}
    ]
    assert hooks["pre_llm_call"] == [{"command": "agent-hooks/inject-git-status.sh", "timeout": 10}]
    for entry in (*hooks["pre_tool_call"], *hooks["pre_llm_call"]):
        script = HOME / entry["command"]  # relative paths resolve against the home
        assert script.is_file() and os.access(script, os.X_OK)
    (target,) = hooks["outbound"]
    assert target["url"] == "https://ci.example.com/hermes-events"  # replay captures it
    assert target["secret"] == "example-signing-secret"
    assert target["events"] == ["on_session_end", "subagent_stop"]
    hook = yaml.safe_load(
        (HOME / "hooks" / "command-logger" / "HOOK.yaml").read_text(encoding="utf-8")
    )
    assert hook["events"] == ["command:*"]
    assert (HOME / "plugins" / "tool-counter" / "plugin.yaml").is_file()
    assert config["audit_log"] == {"path": "logs/audit.jsonl"}


def test_the_example_gateway_hook_is_the_contrib_one() -> None:
    example = HOME / "hooks" / "command-logger"
    contrib = REPO / "contrib" / "gateway-hooks" / "command-logger"
    assert sorted(p.name for p in example.iterdir() if p.is_file()) == sorted(
        p.name for p in contrib.iterdir() if p.is_file()
    )
    for path in contrib.iterdir():
        if path.is_file():
            assert (example / path.name).read_bytes() == path.read_bytes(), path.name


def test_the_example_shell_scripts_are_the_contrib_ones() -> None:
    for name in ("block-rm-rf.sh", "inject-git-status.sh"):
        example = HOME / "agent-hooks" / name
        contrib = REPO / "contrib" / "shell-hooks" / name
        assert example.read_bytes() == contrib.read_bytes(), name
        assert os.access(example, os.X_OK), name
