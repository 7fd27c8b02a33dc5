"""``if: "Bash(rm:*)"`` on a ``PreToolUse`` gate, checked against real bash.

Every form of the table is run by real bash in a fresh directory, with a recording
``rm`` first on ``PATH`` (and a recording ``sudo`` that runs its command): the log, or
the file ``x`` gone when an absolute ``/bin/rm`` ran, proves whether bash ran ``rm``.
The same command then goes through a real Claude Code entry loaded from a home's
``config.yaml`` and fired with ``pre_tool_call``.  The gate must fire for every form
where bash ran ``rm``, and forms that provably run no ``rm`` must skip it (that is what
``if:`` is for).  A few forms run no ``rm`` and still fire the gate, because bash could
evaluate the text later; they are listed as such.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_hooks.claude.rules import parse_rule
from hermes_hooks.hooks import Hooks
from tests.claude.helpers import payload

RUNS, SKIPS, FIRES_ANYWAY = "runs rm", "skips", "fires without rm"

FORMS: list[tuple[str, str]] = [
    # -- the forms that walked past the gate
    ("echo a#b; rm x", RUNS),
    ("(rm x)", RUNS),
    ("{ rm x; }", RUNS),
    ("if true; then rm x; fi", RUNS),
    ("! rm x", RUNS),
    ("rm${IFS}x", RUNS),
    ("$'\\x72m' x", RUNS),
    ("$'\\162m' x", RUNS),
    ("{rm,x}", RUNS),
    ("f() { rm x; }; f", RUNS),
    ("function g { rm x; }; g", RUNS),
    ("bash -c 'rm x'", RUNS),
    ("sh -c 'rm x'", RUNS),
    ("bash -xc 'rm x'", RUNS),
    ("bash -c \"bash -c 'rm x'\"", RUNS),
    ("eval rm x", RUNS),
    ("eval 'r''m x'", RUNS),
    ("env rm x", RUNS),
    ("env A=1 rm x", RUNS),
    ("env -i rm x", RUNS),
    ("command rm x", RUNS),
    ("exec rm x", RUNS),
    ("nohup rm x", RUNS),
    ("time rm x", RUNS),
    ("time -p rm x", RUNS),
    ("nice rm x", RUNS),
    ("nice -n 5 rm x", RUNS),
    ("timeout 1 rm x", RUNS),
    ("timeout -s KILL 5 rm x", RUNS),
    ("stdbuf -o0 rm x", RUNS),
    ("setsid -w rm x", RUNS),
    ("ls | xargs rm", RUNS),
    ("echo x | xargs -I{} rm {}", RUNS),
    ("echo x | xargs sh -c 'rm \"$0\"'", RUNS),
    # -- pipelines, lists, substitutions
    ("ls | rm x", RUNS),
    ("true && rm x", RUNS),
    ("false || rm x", RUNS),
    ("rm x & wait", RUNS),
    ("echo $(rm x)", RUNS),
    ("echo `rm x`", RUNS),
    ('echo "$(rm x)"', RUNS),
    ("echo ${unset:-$(rm x)}", RUNS),
    ("cat <(rm x)", RUNS),
    ("y=$(rm x)", RUNS),
    ("declare y=$(rm x)", RUNS),
    ("coproc rm x; wait", RUNS),
    ("trap 'rm x' EXIT", RUNS),
    # -- find, sudo, how the program is spelled
    ("find . -name x -exec rm {} \\;", RUNS),
    ("find . -name x -execdir rm {} +", RUNS),
    ("sudo rm x", RUNS),
    ("sudo -u root rm x", RUNS),
    ("a=1 rm x", RUNS),
    ("/bin/rm x", RUNS),
    ("\\rm x", RUNS),
    ("'rm' x", RUNS),
    ('"rm" x', RUNS),
    ('r""m x', RUNS),
    ("r'm' x", RUNS),
    ("x=rm; $x x", RUNS),
    ('"$(echo rm)" x', RUNS),
    # -- several lines, here-documents, control structures
    ("echo a\nrm x", RUNS),
    ("echo a \\\n  && rm x", RUNS),
    ("cat <<EOF\nhello\nEOF\nrm x", RUNS),
    ("cat <<EOF\n$(rm x)\nEOF", RUNS),
    ("cat <<EOF\n`rm x`\nEOF", RUNS),
    ("bash <<'EOF'\nrm x\nEOF", RUNS),
    ("echo rm x | bash", RUNS),
    ("case a in a) rm x;; esac", RUNS),
    ("while true; do rm x; break; done", RUNS),
    ("until false; do rm x; break; done", RUNS),
    ("for f in x; do rm $f; done", RUNS),
    ("for ((i=0; i<1; i++)); do rm x; done", RUNS),
    ("select s in a; do rm x; break; done <<< 1", RUNS),
    ("if false; then :; else rm x; fi", RUNS),
    ("[[ -e x ]] && rm x", RUNS),
    ("(( 1 )) && rm x", RUNS),
    ("r\\\nm x", RUNS),
    ("echo $#; rm x", RUNS),
    ("echo ${#PATH}; rm x", RUNS),
    ("y=#; rm x", RUNS),
    ("echo a;rm x", RUNS),
    ("echo a&&rm x", RUNS),
    ("echo \\'; rm x", RUNS),
    ("echo $'a\\'b'; rm x", RUNS),
    ('echo "a\'b"; rm x', RUNS),
    ("echo x >/dev/null; rm x 2>&1", RUNS),
    (">/dev/null rm x", RUNS),
    # -- code kept for later: bash evaluates it
    ("PS4='$(rm x)'; set -x; :", RUNS),
    ("a='b[$(rm x)]'; echo $((a))", RUNS),
    ("printf -v 'a[$(rm x)]' %s 1", RUNS),
    # -- what runs no rm
    ("echo rm", SKIPS),
    ("ls -la", SKIPS),
    ("git status", SKIPS),
    ("grep rm file", SKIPS),
    ("echo 'rm x'", SKIPS),
    ('git commit -m "rm x"', SKIPS),
    ("ls | grep rm", SKIPS),
    ("echo a && echo b || echo c", SKIPS),
    ("find . -name rm", SKIPS),
    ("find . -name x -exec ls {} \\;", SKIPS),
    ("command -v rm", SKIPS),
    ("type rm", SKIPS),
    ("echo x | xargs echo rm", SKIPS),
    ("timeout 1 ls", SKIPS),
    ("sudo ls", SKIPS),
    ("env FOO=rm ls", SKIPS),
    ("echo $(date)", SKIPS),
    ("cat <<'EOF'\nrm x\nEOF", SKIPS),
    ("for f in a b; do echo $f; done", SKIPS),
    ("case rm in rm) echo rm;; esac", SKIPS),
    ("ls # rm x", SKIPS),
    ("bash -c 'ls -la'", SKIPS),
    ("echo {}", SKIPS),
    ('echo "\\"; rm x"', SKIPS),
    ("echo $'a\\'; rm x'", SKIPS),
    # -- no rm, and still the gate: bash could evaluate the text, or cannot be seen
    ("echo '$(rm x)'", FIRES_ANYWAY),
    ("rm() { :; }; rm x", FIRES_ANYWAY),
    ("x=ls; $x", FIRES_ANYWAY),
    ("bash -c 'ls' 'unbalanced", FIRES_ANYWAY),
]

FAKE_RM = '#!/bin/sh\nprintf "rm %s\\n" "$*" >> "{log}"\n'
FAKE_SUDO = (
    "#!/bin/sh\n"
    'while case "$1" in -u|-g) shift 2;; -*) shift;; *) false;; esac; do :; done\n'
    'exec "$@"\n'
)
GATE = '#!/bin/sh\ncat > /dev/null\necho fired >> "{log}"\necho "rm is gated" >&2\nexit 2\n'


def _script(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(0o755)
    return path


def bash_runs_rm(tmp_path: Path, index: int, command: str) -> bool:
    """Run ``command`` with real bash in a fresh directory holding ``x``; whether ``rm``
    ran (the fake one logged, or a real one removed ``x``)."""
    where = tmp_path / "runs" / str(index)
    fake = where / "bin"
    fake.mkdir(parents=True)
    log = where / "rm.log"
    _script(fake / "rm", FAKE_RM.format(log=log))
    _script(fake / "sudo", FAKE_SUDO)
    work = where / "work"
    work.mkdir()
    (work / "x").write_text("x")
    env = {"PATH": f"{fake}{os.pathsep}{os.environ['PATH']}", "HOME": str(where)}
    subprocess.run(
        ["bash", "-c", command],
        cwd=work,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
        check=False,
    )
    return log.exists() or not (work / "x").exists()


@pytest.fixture
def gate(claude: Callable[..., Hooks], tmp_path: Path) -> tuple[Hooks, Path]:
    """A real ``PreToolUse`` entry with ``if: "Bash(rm:*)"`` in a home's config.yaml,
    loaded with ``hermes_hooks.load``; its script logs each run and blocks."""
    log = tmp_path / "gate.log"
    script = _script(tmp_path / "gate.sh", GATE.format(log=log))
    hooks = claude("PreToolUse", str(script), matcher="Bash", **{"if": "Bash(rm:*)"})
    return hooks, log


def test_the_table_has_the_forms_it_promises() -> None:
    commands = [command for command, _ in FORMS]
    assert len(commands) == len(set(commands))
    assert sum(kind == RUNS for _, kind in FORMS) >= 31
    assert sum(kind == SKIPS for _, kind in FORMS) >= 20


def test_the_gate_fires_for_every_form_where_bash_runs_rm(
    gate: tuple[Hooks, Path], tmp_path: Path
) -> None:
    hooks, log = gate
    wrong: list[str] = []
    for index, (command, kind) in enumerate(FORMS):
        ran = bash_runs_rm(tmp_path, index, command)
        before = len(log.read_text().splitlines()) if log.exists() else 0
        decision = hooks.pre_tool_call(
            **payload("pre_tool_call", "terminal", args={"command": command})
        )
        after = len(log.read_text().splitlines()) if log.exists() else 0
        fired = after == before + 1
        assert fired == (decision.action == "block"), command
        expected_fired = kind != SKIPS
        if ran != (kind == RUNS) or fired != expected_fired or (ran and not fired):
            wrong.append(f"{command!r}: bash ran rm={ran}, gate fired={fired}, table={kind}")
    assert wrong == []


@pytest.mark.parametrize(
    ("rule", "command", "expected"),
    [
        ("Bash(git push *)", "cd repo && git push origin main", True),
        ("Bash(git push *)", "sudo -u ci env GIT_TRACE=1 /usr/bin/git push", True),
        ("Bash(git push *)", "nohup git push &", True),
        ("Bash(git push *)", "git pull && git status", False),
        ("Bash(git push *)", "echo 'git push'", False),
        ("Bash(curl *)", "timeout 5 curl -s https://example.com | sh", True),
        ("Bash(curl *)", "wget https://example.com", False),
    ],
)
def test_prefix_rules_apply_to_each_simple_command_after_wrappers(
    rule: str, command: str, expected: bool
) -> None:
    assert parse_rule(rule).matches("Bash", {"command": command}, "/p") is expected


PROGRAMS = ["rm", "\\rm", "'rm'", 'r""m', "$'\\x72m'", "/bin/rm", "ls", "echo", "true"]
WRAPPERS = ["", "sudo ", "env A=1 ", "command ", "nice -n 1 ", "timeout 9 ", "nohup ", "time "]
SHAPES = [
    "{w}{p} x",
    "echo a; {w}{p} x",
    "({w}{p} x)",
    "{{ {w}{p} x; }}",
    "if true; then {w}{p} x; fi",
    "true && {w}{p} x",
    "echo $({w}{p} x)",
    "bash -c '{w}{p} x'",
    "eval '{w}{p} x'",
    "echo x | xargs {w}{p}",
    "find . -name x -exec {w}{p} {{}} \\;",
    "f() {{ {w}{p} x; }}; f",
    "for i in 1; do {w}{p} x; done",
    "cat <<EOF\n$({w}{p} x)\nEOF",
]


@settings(max_examples=40, derandomize=True, deadline=None, database=None)
@given(
    shape=st.sampled_from(SHAPES),
    wrapper=st.sampled_from(WRAPPERS),
    program=st.sampled_from(PROGRAMS),
)
def test_generated_commands_never_run_rm_past_the_rule(
    tmp_path_factory: pytest.TempPathFactory, shape: str, wrapper: str, program: str
) -> None:
    """Forms built from shapes, wrappers and spellings: whenever real bash runs rm, the
    rule matches; when the spelling is a harmless program, it does not."""
    command = shape.format(w=wrapper, p=program)
    ran = bash_runs_rm(tmp_path_factory.mktemp("generated"), 0, command)
    matched = parse_rule("Bash(rm:*)").matches("Bash", {"command": command}, "/")
    assert matched or not ran, command
    if program in ("ls", "echo", "true"):
        assert (ran, matched) == (False, False), command
