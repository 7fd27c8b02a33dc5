"""Permission rules as a handler's ``if:`` reads them (Claude Code's rule syntax)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_hooks.claude.rules import parse_rule


@pytest.mark.parametrize(
    ("rule", "command", "expected"),
    [
        ("Bash(git *)", "git status", True),
        ("Bash(git *)", "git", True),
        ("Bash(git *)", "gitk --all", False),
        ("Bash(git push *)", "npm test && git push origin main", True),
        ("Bash(git push *)", "FOO=bar BAZ=1 git push", True),
        ("Bash(git push *)", "echo 'git push x'", False),
        ("Bash(npm:*)", "npm install", True),
        ("Bash(npm:*)", "npx jest", False),
        ("Bash(rm *)", "ls | xargs rm -f", True),  # xargs runs rm
        ("Bash(rm *)", "ls; rm -rf build", True),
        ("Bash(rm *)", "echo `rm -rf /`", True),  # a command substitution runs rm
        ("Bash(rm *)", "echo `whoami`", False),
        ("Bash(rm *)", "echo 'unbalanced", True),  # a parse error: the rule matches
        ("Bash(git push *)", "sudo -u ci /usr/bin/git push origin", True),
        ("Bash(git push *)", "git $verb origin", True),  # $verb may be push
        ("Bash(git push *)", "git status $x", False),
        ("Bash(git push origin main)", "echo main | xargs git push origin", True),
        ("Bash(git push origin main)", "echo main | xargs git pull", False),
        ("Bash(npm:*)", "timeout 60 npm test", True),
        ("Bash(npm:*)", "bash -c 'cd web && npm ci'", True),
        ("Bash(npm:*)", 'bash -c "$script"', True),  # code known only at run time
        ("Bash(npm:*)", "make build", False),
        # the parser crashed the process on "{" and an astral character: never parsed
        ("Bash(rm *)", "{\U00031860", True),
        ("Bash(rm *)", "echo \U0001f389 > notes", True),
        ("Bash(rm *)", "sudo ''", True),  # an empty program name is no proof
        ("Bash", "anything at all", True),
    ],
)
def test_bash_rules_match_subcommands(rule: str, command: str, expected: bool) -> None:
    assert parse_rule(rule).matches("Bash", {"command": command}, "/p") is expected


@pytest.mark.parametrize(
    ("rule", "path", "expected"),
    [
        ("Edit(*.ts)", "src/deep/app.ts", True),
        ("Edit(*.ts)", "src/app.tsx", False),
        ("Edit(/src/**)", "src/a/b.py", True),
        ("Edit(/src/**)", "lib/src/b.py", False),
        ("Edit(./docs/*.md)", "docs/a.md", True),
        ("Edit(./docs/*.md)", "docs/sub/a.md", False),
        ("Read(//etc/passwd)", "/etc/passwd", True),
        ("Read(~/.ssh/*)", "~/.ssh/id_rsa", True),
    ],
)
def test_path_rules_are_gitignore_style(rule: str, path: str, expected: bool) -> None:
    tool = rule.split("(")[0]
    absolute = path if path.startswith(("/", "~")) else f"/p/{path}"
    assert parse_rule(rule).matches(tool, {"file_path": absolute}, "/p") is expected


def test_other_rules(tmp_path: Path) -> None:
    fetch = parse_rule("WebFetch(domain:*.example.com)")
    assert fetch.matches("WebFetch", {"url": "https://docs.example.com/x"}, "/")
    assert not fetch.matches("WebFetch", {"url": "https://example.org/"}, "/")
    assert parse_rule("Task(Explore)").matches("Task", {"subagent_type": "Explore"}, "/")
    assert parse_rule("mcp__memory").matches("mcp__memory__create", {}, "/")
    assert parse_rule("mcp__memory__*").matches("mcp__memory__create", {}, "/")
    assert not parse_rule("mcp__memory").matches("mcp__github__create", {}, "/")
    assert not parse_rule("Bash(git *)").matches("Write", {"command": "git"}, "/")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "if: must be one permission rule such as 'Bash(git *)'"),
        ("Bash(git *) && Edit", "if: 'Bash(git *) && Edit' is not a permission rule"),
        ("WebFetch(example.com)", "if: 'WebFetch(example.com)': a specifier on WebFetch"),
    ],
)
def test_rules_this_dialect_cannot_evaluate_are_refused(text: str, message: str) -> None:
    with pytest.raises(ValueError) as raised:
        parse_rule(text)
    assert str(raised.value).startswith(message)
