"""The pieces of ``import-claude``: the textual ``config.yaml`` edit, and how Claude
command lines become ours."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from hermes_hooks.claude.import_settings import SettingsFile, convert_command
from hermes_hooks.claude.shells import needs_shell
from hermes_hooks.cli.config_edit import ConfigEditError, add_entries

ENTRY = {"matcher": "Bash", "command": "/p/gate.sh", "dialect": "claude-code"}


def test_new_items_join_the_existing_list_and_comments_stay() -> None:
    text = (
        "# top\n"
        "hooks:\n"
        "  # gates\n"
        "  pre_tool_call:\n"
        "  - command: /a.sh   # first\n"
        "\n"
        "    # trailing comment of the list\n"
        "  post_tool_call:\n"
        "  - command: /b.sh\n"
        "\n"
        "# next section\n"
        "x: 1\n"
    )
    edit = add_entries(text, {"pre_tool_call": [ENTRY], "on_session_start": [{"command": "/s"}]})
    assert edit.comments_kept
    assert edit.text == (
        "# top\n"
        "hooks:\n"
        "  # gates\n"
        "  pre_tool_call:\n"
        "  - command: /a.sh   # first\n"
        "  - matcher: Bash\n"
        "    command: /p/gate.sh\n"
        "    dialect: claude-code\n"
        "\n"
        "    # trailing comment of the list\n"
        "  post_tool_call:\n"
        "  - command: /b.sh\n"
        "  on_session_start:\n"
        "  - command: /s\n"
        "\n"
        "# next section\n"
        "x: 1\n"
    )


def test_a_file_without_hooks_gets_a_block_at_the_end() -> None:
    edit = add_entries("plugins:\n  enabled: [a]", {"pre_tool_call": [ENTRY]})
    assert edit.text == (
        "plugins:\n  enabled: [a]\nhooks:\n  pre_tool_call:\n    - matcher: Bash\n"
        "      command: /p/gate.sh\n      dialect: claude-code\n"
    )
    assert add_entries("", {"pre_tool_call": [ENTRY]}).text.startswith("hooks:\n")


@pytest.mark.parametrize(
    "text",
    [
        "hooks: {pre_tool_call: [{command: /a.sh}]}  # flow\nx: 1\n",
        "hooks:\n  pre_tool_call: []\n",
        "'hooks':\n  pre_tool_call:\n  - command: /a.sh\n",
    ],
)
def test_layouts_the_edit_cannot_extend_are_rewritten_from_the_data(text: str) -> None:
    edit = add_entries(text, {"pre_tool_call": [ENTRY]})
    assert not edit.comments_kept
    assert sum(line.lstrip("'").startswith("hooks") for line in edit.text.splitlines()) == 1
    data = yaml.safe_load(edit.text)
    before = yaml.safe_load(text)
    assert data["hooks"]["pre_tool_call"] == [*before["hooks"]["pre_tool_call"], ENTRY]
    assert {k: v for k, v in data.items() if k != "hooks"} == {
        k: v for k, v in before.items() if k != "hooks"
    }


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("hooks: [\n", "not valid YAML"),
        ("- a\n- b\n", "the top level must be a mapping, got list"),
        ("hooks: [a]\n", "'hooks' must be a mapping of event names to lists, got list"),
        ("hooks:\n  pre_tool_call: /a.sh\n", "hooks.pre_tool_call must be a list, got str"),
    ],
)
def test_files_it_cannot_edit_safely_are_refused(text: str, message: str) -> None:
    with pytest.raises(ConfigEditError) as caught:
        add_entries(text, {"pre_tool_call": [ENTRY]})
    assert str(caught.value).startswith(message)


@pytest.mark.parametrize(
    ("command", "shell"),
    [
        ("/p/.claude/hooks/x.sh", False),
        ("python3 ~/.claude/hooks/x.py --flag 'a b'", False),
        ("~", False),
        ("jq -r .a >> log", True),
        ("a | b", True),
        ("echo $HOME", True),
        ('echo "$HOME"', True),
        ("echo '$HOME'", False),
        ("ls *.py", True),
        ("~bob/x.sh", True),
        ("cmd --out=~/x", True),
        ("FOO=1 cmd", True),
        ("cmd # comment", True),
        ("echo 'unbalanced", True),
        ("", True),
    ],
)
def test_what_needs_a_shell(command: str, shell: bool) -> None:
    assert needs_shell(command) is shell


def test_project_dir_becomes_the_directory_it_names(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    (project / ".claude" / "hooks").mkdir(parents=True)
    (project / ".claude" / "hooks" / "x.sh").touch()
    source = SettingsFile(project / ".claude" / "settings.json", True, project_dir=project)
    home = tmp_path / "home"
    notes: list[str] = []
    assert convert_command(
        '"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh', source, "pre_tool_call", home, notes
    ) == (f"{project}/.claude/hooks/x.sh", None)
    assert convert_command(
        "bash ${CLAUDE_PROJECT_DIR}/.claude/hooks/x.sh --strict", source, "k", home, notes
    ) == (f"bash {project}/.claude/hooks/x.sh --strict", None)
    assert convert_command(".claude/hooks/x.sh", source, "k", home, notes) == (
        f"{project}/.claude/hooks/x.sh",
        None,
    )
    assert convert_command(".claude/hooks/missing.sh", source, "k", home, notes) == (
        ".claude/hooks/missing.sh",
        None,
    )
    assert notes == []


def test_a_project_dir_with_spaces_goes_through_a_wrapper(tmp_path: Path) -> None:
    project = tmp_path / "my repo"
    source = SettingsFile(project / ".claude" / "settings.json", True, project_dir=project)
    notes: list[str] = []
    command, wrapper = convert_command(
        '"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh', source, "pre_tool_call", tmp_path, notes
    )
    assert wrapper is not None
    assert command == str(wrapper.path)
    assert wrapper.path.parent == tmp_path / "agent-hooks" / "claude-code"
    assert wrapper.path.name.startswith("pre_tool_call-")
    assert wrapper.content.splitlines()[-2:] == [
        f"export CLAUDE_PROJECT_DIR='{project}'",
        '"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh',
    ]
    assert notes == ["needs a shell (pipes, redirections, variables or globs): runs from a wrapper"]
