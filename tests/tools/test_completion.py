"""``hermes-hooks completion``: the scripts shtab generates from the parser load in a
real bash and complete real words; zsh and fish are not on the test machine, so their
scripts are checked by their exact key lines."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def script(shell: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "hermes_hooks", "completion", shell],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    return done.stdout


def in_bash(tmp_path: Path, code: str) -> str:
    """Run ``code`` in a bash that sourced the bash script (no start-up files)."""
    path = tmp_path / "hermes-hooks.bash"
    path.write_text(script("bash"), encoding="utf-8")
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", f"source {path}\n{code}"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    return done.stdout


def test_the_bash_script_registers_itself(tmp_path: Path) -> None:
    assert in_bash(tmp_path, "complete -p hermes-hooks") == (
        "complete -o bashdefault -F _shtab_hermes_hooks hermes-hooks\n"
    )


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["rep"], ["replay"]),
        (["im"], ["import-claude", "import-session"]),
        (["replay", "--fail-on", ""], ["block", "error"]),
        (["completion", ""], ["bash", "zsh", "fish"]),
        (["outbox", ""], ["list", "show", "redeliver", "purge"]),
        (["import-session", "--from", ""], ["hermes", "claude-code"]),
    ],
)
def test_bash_completes_commands_options_and_choices(
    tmp_path: Path, words: list[str], expected: list[str]
) -> None:
    quoted = " ".join(f"'{w}'" for w in ["hermes-hooks", *words])
    code = (
        f"COMP_WORDS=({quoted}); COMP_CWORD={len(words)}; "
        '_shtab_hermes_hooks; printf "%s\\n" "${COMPREPLY[@]}"'
    )
    assert in_bash(tmp_path, code).splitlines() == expected


def test_bash_completes_a_directory_after_home(tmp_path: Path) -> None:
    (tmp_path / "homes" / "work").mkdir(parents=True)
    (tmp_path / "homes" / "notes.txt").write_text("x", encoding="utf-8")
    code = (
        f"cd {tmp_path}; COMP_WORDS=(hermes-hooks --home homes/); COMP_CWORD=2; "
        '_shtab_hermes_hooks; printf "%s\\n" "${COMPREPLY[@]}"'
    )
    assert in_bash(tmp_path, code).splitlines() == ["homes/work"]


def test_the_zsh_script_declares_the_command_and_every_subcommand() -> None:
    text = script("zsh")
    lines = text.splitlines()
    assert lines[0] == "#compdef hermes-hooks"
    assert (
        "    replay:'replay recorded sessions through the hooks and show what each hook decided'"
    ) in lines
    assert (
        "    completion:'print a bash, zsh or fish completion script generated from this "
        "tool'\"'\"'s options'"
    ) in lines
    assert (
        '  "--home[the Hermes home (default\\: \\$HERMES_HOME, else \\~\\/.hermes)]:home:_files -/"'
    ) in lines


def test_the_fish_script_declares_commands_options_and_choices() -> None:
    lines = script("fish").splitlines()
    assert "complete -c hermes-hooks -e" in lines
    assert (
        "complete -c hermes-hooks -n '_shtab_hermes_hooks_using; and test "
        "$_shtab_hermes_hooks_npos -eq 0' -a replay -d 'replay recorded sessions through the "
        "hooks and show what each hook decided'"
    ) in lines
    assert (
        "complete -c hermes-hooks -n _shtab_hermes_hooks_using -l home -xka "
        '"(__fish_complete_directories)" -d \'the Hermes home (default: $HERMES_HOME, else '
        "~/.hermes)'"
    ) in lines
    assert (
        "complete -c hermes-hooks -n '_shtab_hermes_hooks_using replay' -l fail-on -xka "
        '"block error" -d \'exit 1 if any call was blocked (block) or any callback failed: '
    ) in "\n".join(lines)
