"""The runnable examples of docs/hosts.md run, offline, and print what they promise.

Each runs as its own process on a copy of examples/integrations/ in tmp_path, so
nothing is written next to the repository's copy."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "integrations"
ROOT = EXAMPLES.parents[1]

BLOCK = '{"error": "guard: rm -rf is not allowed"}'
DENY = {
    "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "guard: rm -rf is not allowed",
    }
}

EXPECTED = {
    "openai_agents_example.py": [
        "model saw the user message: Tidy up, then say hello. |  | "
        "House rules: never delete files.",
        f"tool result call-1: {BLOCK}",
        "tool result call-2: hello",
        "final: I could not delete ./build; echo said hello.",
    ],
    "langgraph_example.py": [
        f"tool result call-1: {BLOCK}",
        "tool result call-2: hello",
        "final: I could not delete ./build; echo said hello.",
    ],
    "claude_agent_sdk_example.py": [
        f"Bash 'rm -rf ./build': {json.dumps(DENY, sort_keys=True)}",
        "Bash 'echo hello': {}",
    ],
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_example_runs_offline(name: str, tmp_path: Path) -> None:
    copy = tmp_path / "integrations"
    shutil.copytree(EXAMPLES, copy)
    (tmp_path / "build").mkdir()
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "PYTHONDONTWRITEBYTECODE": "1",
        "HOME": str(tmp_path / "user-home"),
        "OPENAI_AGENTS_DISABLE_TRACING": "1",
    }
    done = subprocess.run(
        [sys.executable, str(copy / name)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == EXPECTED[name]
    assert (tmp_path / "build").is_dir()  # the blocked rm -rf never ran


def test_every_example_is_tested() -> None:
    assert sorted(p.name for p in EXAMPLES.glob("*.py")) == sorted(EXPECTED)
