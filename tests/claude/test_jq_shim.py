"""The jq stand-in (``jqshim/jq``) the corpus falls back on where jq is not installed:
it must give jq's answers for every filter the corpus uses, and refuse anything else."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from tests.claude.helpers import CORPUS, JQ_SHIM

DOCUMENT = {
    "tool_name": "Write",
    "tool_input": {"command": "rm -rf /", "file_path": "/p/.env"},
    "tool_response": {"success": True},
    "stop_hook_active": False,
    "prompt": "deploy it",
    "source": "startup",
}
#: jq's own output for each filter on DOCUMENT (with -r).
EXPECTED = {
    ".tool_input.command": "rm -rf /\n",
    ".tool_input.command // empty": "rm -rf /\n",
    ".tool_input.file_path // empty": "/p/.env\n",
    ".tool_input.url // empty": "",
    '.tool_input.url // "none"': "none\n",
    ".tool_name": "Write\n",
    ".tool_input.file_path": "/p/.env\n",
    ".tool_response.success": "true\n",
    ".stop_hook_active": "false\n",
    ".prompt": "deploy it\n",
    ".source": "startup\n",
    ".missing": "null\n",
}
_JQ_CALL = re.compile(r"\bjq\s+(?:-r\s+)?'([^']*)'")


def shim(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(JQ_SHIM / "jq"), *args], input=stdin, capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize("jq_filter", sorted(EXPECTED))
def test_the_shim_answers_like_jq(jq_filter: str) -> None:
    result = shim("-r", jq_filter, stdin=json.dumps(DOCUMENT))
    assert (result.returncode, result.stdout) == (0, EXPECTED[jq_filter])


def test_without_r_strings_stay_json() -> None:
    result = shim(".tool_input.command", stdin=json.dumps(DOCUMENT))
    assert result.stdout == '"rm -rf /"\n'


def test_every_filter_the_corpus_uses_is_covered() -> None:
    used = {
        found
        for script in sorted(CORPUS.rglob("*"))
        if script.is_file()
        for found in _JQ_CALL.findall(script.read_text(encoding="utf-8"))
    }
    assert used, "the corpus should use jq"
    assert used <= set(EXPECTED), sorted(used - set(EXPECTED))


@pytest.mark.parametrize("args", [("-n", "{}"), ("-r", ".a | length"), ("-r", ".[0]")])
def test_anything_else_fails_loudly(args: tuple[str, ...]) -> None:
    result = shim(*args, stdin="{}")
    assert result.returncode == 3
    assert result.stderr.startswith("jq shim: ")
