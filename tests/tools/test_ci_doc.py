"""docs/ci.md: its GitHub Actions workflow and its pre-commit config parse, and the
hermes-hooks commands they run pass, as written, in a repository laid out as the page
says (the real commands, through bash, on a real home and recording).  Here under
``tox -e tools``, where, as in a CI job, no other plugin distribution is installed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "ci.md"
RECORDING = REPO / "examples" / "recordings" / "quickstart.jsonl"


def yaml_blocks() -> list[Any]:
    text = PAGE.read_text(encoding="utf-8")
    return [yaml.safe_load(b) for b in re.findall(r"```yaml\n(.*?)```", text, re.DOTALL)]


def checkout(tmp_path: Path) -> Path:
    """A repository as docs/ci.md lays it out: an approved gate and one recording."""
    folder = tmp_path / "workspace"
    home = folder / "hermes-home"
    home.mkdir(parents=True)
    (folder / "recordings").mkdir()
    shutil.copy(RECORDING, folder / "recordings" / "quickstart.jsonl")
    (home / "config.yaml").write_text(
        "hooks:\n  pre_tool_call:\n    - command: ./gate.sh\n", encoding="utf-8"
    )
    (home / "gate.sh").write_text("#!/bin/sh\ncat >/dev/null\nexit 0\n", encoding="utf-8")
    (home / "gate.sh").chmod(0o755)
    assert (
        bash(
            folder, tmp_path, "hermes-hooks --home hermes-home approve pre_tool_call ./gate.sh", {}
        ).returncode
        == 0
    )
    return folder


def bash(
    folder: Path, tmp_path: Path, line: str, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """Run ``line`` in bash in ``folder``, ``hermes-hooks`` being this checkout's."""
    shim = tmp_path / "bin" / "hermes-hooks"
    if not shim.exists():
        shim.parent.mkdir()
        shim.write_text(f'#!/bin/sh\nexec {sys.executable} -m hermes_hooks "$@"\n')
        shim.chmod(0o755)
    environment = {
        **os.environ,
        **env,
        "PATH": f"{shim.parent}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(REPO),
    }
    return subprocess.run(
        ["bash", "-c", line],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=environment,
    )


def test_the_workflow_parses_and_its_commands_pass(tmp_path: Path) -> None:
    workflow = yaml_blocks()[0]
    assert workflow[True] == {"push": None, "pull_request": None}  # YAML 1.1 reads on: as true
    job = workflow["jobs"]["hooks"]
    runs = [step["run"] for step in job["steps"] if "run" in step]
    assert runs == [
        "python -m pip install hermes-hooks",
        "hermes-hooks doctor",
        "hermes-hooks replay --fail-on error --junit-xml replay.xml recordings/",
    ]
    folder = checkout(tmp_path)
    env = {
        name: value.replace("${{ github.workspace }}", str(folder))
        for name, value in job["env"].items()
    }
    assert env == {"HERMES_HOME": f"{folder}/hermes-home"}
    for line in runs[1:]:  # the install needs the package index
        done = bash(folder, tmp_path, line, env)
        assert done.returncode == 0, line + "\n" + done.stdout + done.stderr
    report = ET.parse(folder / "replay.xml").getroot()
    assert (report.get("tests"), report.get("failures"), report.get("errors")) == ("1", "0", "0")
    cases = report.findall(".//testcase")
    assert [(c.get("name"), len(c)) for c in cases] == [("recordings/quickstart.jsonl", 0)]


def test_the_pre_commit_config_names_the_shipped_hooks_and_its_args_work(tmp_path: Path) -> None:
    config = yaml_blocks()[1]
    shipped = {
        hook["id"]: hook
        for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    }
    [repo] = config["repos"]
    assert [h["id"] for h in repo["hooks"]] == ["hermes-hooks-doctor", "hermes-hooks-replay"]
    folder = checkout(tmp_path)
    for hook in repo["hooks"]:
        # what pre-commit runs: the hook's entry, then the config's args (no file names)
        line = " ".join([shipped[hook["id"]]["entry"], *hook["args"]])
        done = bash(folder, tmp_path, line, {})
        assert done.returncode == 0, line + "\n" + done.stdout + done.stderr
