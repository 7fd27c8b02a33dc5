"""The "approve it with" hint reads back, in a real bash, as the exact command: one with
control characters is ANSI-C quoted, since the printed report escapes them."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hermes_hooks._escape import UNSAFE
from hermes_hooks.cli import main
from hermes_hooks.shell.consent import bash_word
from tests.shell.helpers import write_config

#: bash as a user's terminal runs it: a UTF-8 locale, nothing from this environment.
BASH_ENV = {"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"}


def read_back(words: str) -> list[str]:
    """The arguments bash makes of ``words``, each as the text it holds."""
    script = f'for word in {words}; do printf "%s\\0" "$word"; done'
    done = subprocess.run(
        ["bash", "-c", script], capture_output=True, env=BASH_ENV, timeout=30, check=True
    )
    return done.stdout.decode("utf-8").split("\0")[:-1]


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("./gate.sh --strict", "'./gate.sh --strict'"),
        ("it's", "'it'\"'\"'s'"),
        ("gate.sh\x1b[2K", "$'gate.sh\\x1b[2K'"),
        ("a\\b\nc", "$'a\\\\b\\nc'"),
        ("\u202egate.sh", "$'\\u202egate.sh'"),
        ("c1\x85'", "$'c1\\u0085\\''"),
    ],
)
def test_each_word_is_quoted_as_written(text: str, word: str) -> None:
    assert bash_word(text) == word
    assert read_back(word) == [text]


@given(
    st.text(
        alphabet=st.sampled_from(sorted(UNSAFE - {"\x00"}) + list("ab '\"\\$`*!\té")),
        min_size=1,
        max_size=12,
    )
)
def test_any_command_reads_back_unchanged_in_bash(text: str) -> None:
    # NUL is left out: no command line, and so no bash word, can hold it.
    assert read_back(bash_word(text)) == [text]


def test_the_hint_list_prints_for_a_command_with_an_escape_approves_that_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    command = "/bin/true \x1b[2Kquiet"
    write_config(home, {"pre_tool_call": [{"command": command}]})
    assert main(["--home", str(home), "--no-entry-points", "list"]) == 0
    (hint,) = [
        line.split("approve it with: ", 1)[1]
        for line in capsys.readouterr().out.splitlines()
        if "approve it with: " in line
    ]
    assert hint == "hermes-hooks approve pre_tool_call $'/bin/true \\x1b[2Kquiet'"
    assert read_back(hint) == ["hermes-hooks", "approve", "pre_tool_call", command]
