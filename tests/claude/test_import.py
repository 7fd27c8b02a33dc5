"""``hermes-hooks import-claude``: realistic Claude Code settings become a config that
``doctor`` accepts and whose ``test`` runs give Claude Code's decisions."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from hermes_hooks.cli import main
from hermes_hooks.schemas import all_schemas
from tests.claude.helpers import CORPUS

#: The user's Claude Code settings (~/.claude/settings.json).
USER_SETTINGS = {
    "model": "sonnet",
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {
                        "type": "command",
                        "command": "jq -r '.tool_input.command' >> ~/.claude/bash-commands.log",
                    }
                ],
            }
        ],
        "UserPromptSubmit": [
            {
                "hooks": [
                    {"type": "command", "command": "~/.claude/hooks/prompt-context.sh"},
                    {"type": "http", "url": "http://127.0.0.1:9/hook", "timeout": 5},
                ]
            }
        ],
        "Notification": [
            {"matcher": "", "hooks": [{"type": "command", "command": "notify-send Claude done"}]}
        ],
    },
}

#: The project's .claude/settings.json, as a team would commit it.
PROJECT_SETTINGS = {
    "permissions": {"allow": ["Bash(npm test)"]},
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {
                        "type": "command",
                        "command": '"$CLAUDE_PROJECT_DIR"/.claude/hooks/block-rm-rf.sh',
                        "timeout": 10,
                    },
                    {
                        "type": "command",
                        "command": 'python3 "$CLAUDE_PROJECT_DIR/.claude/hooks/rewrite-npm.py"',
                    },
                ],
            },
            {
                "matcher": "Edit|MultiEdit|Write",
                "hooks": [
                    {"type": "command", "command": ".claude/hooks/protect-files.sh"},
                    {"type": "mcp_tool", "server": "memory", "tool": "check_edit"},
                ],
            },
        ],
        "PostToolUse": [
            {
                "matcher": "Write|Edit",
                "hooks": [
                    {
                        "type": "command",
                        "command": '"$CLAUDE_PROJECT_DIR"/.claude/hooks/log-post-tool.sh',
                    },
                    {"type": "command", "command": "npx prettier --write .", "shell": "powershell"},
                ],
            }
        ],
        "Stop": [
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": '"$CLAUDE_PROJECT_DIR"/.claude/hooks/stop-until-tests.sh',
                        "timeout": 900,
                    },
                    {"type": "command", "command": "say done", "retries": 3},
                ]
            }
        ],
        "SessionStart": [
            {
                "matcher": "startup",
                "hooks": [
                    {
                        "type": "command",
                        "command": '"$CLAUDE_PROJECT_DIR"/.claude/hooks/session-start-context.sh',
                    }
                ],
            }
        ],
        "PermissionRequest": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "/bin/true"}]}
        ],
    },
}

#: The Hermes config.yaml the import is written into.
CONFIG = """\
# Hermes configuration — hand-written, keep the comments.
plugins:
  hook_callback_timeout: 10   # seconds

hooks:
  # Our own gate comes first.
  pre_tool_call:
    - matcher: terminal
      command: /bin/true   # placeholder gate

# Gateway settings follow.
gateway:
  platform: cli
"""

PROMPT_SCRIPT = """#!/usr/bin/env bash
# UserPromptSubmit — plain text context.
PROMPT=$(jq -r '.prompt')
echo "You are in $(basename "$CLAUDE_PROJECT_DIR"). The prompt has ${#PROMPT} characters."
"""


@pytest.fixture
def settings(project: Path) -> dict[str, Path]:
    """A project with .claude/hooks (corpus scripts) and settings; the user's settings."""
    hooks = project / ".claude" / "hooks"
    hooks.mkdir(parents=True)
    for script in CORPUS.iterdir():
        if script.is_file():  # the scripts; the plugin marketplace is a directory
            shutil.copy2(script, hooks / script.name)
    project_file = project / ".claude" / "settings.json"
    project_file.write_text(json.dumps(PROJECT_SETTINGS, indent=2), encoding="utf-8")
    user = Path.home() / ".claude"
    (user / "hooks").mkdir(parents=True)
    prompt = user / "hooks" / "prompt-context.sh"
    prompt.write_text(PROMPT_SCRIPT, encoding="utf-8")
    prompt.chmod(0o755)
    user_file = user / "settings.json"
    user_file.write_text(json.dumps(USER_SETTINGS, indent=2), encoding="utf-8")
    return {"project": project_file, "user": user_file}


def cli(home: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["--home", str(home), "--no-entry-points", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def expected_hooks(project: Path, home: Path, wrapper: str) -> dict[str, Any]:
    hooks = f"{project}/.claude/hooks"
    return {
        "pre_tool_call": [
            {"matcher": "Bash", "command": wrapper, "dialect": "claude-code"},
            {
                "matcher": "Bash",
                "command": f"{hooks}/block-rm-rf.sh",
                "dialect": "claude-code",
                "timeout": 10,
            },
            {
                "matcher": "Bash",
                "command": f"python3 {hooks}/rewrite-npm.py",
                "dialect": "claude-code",
            },
            {
                "matcher": "Edit|MultiEdit|Write",
                "command": f"{hooks}/protect-files.sh",
                "dialect": "claude-code",
            },
        ],
        "pre_llm_call": [
            {"command": "~/.claude/hooks/prompt-context.sh", "dialect": "claude-code"}
        ],
        "post_tool_call": [
            {
                "matcher": "Write|Edit",
                "command": f"{hooks}/log-post-tool.sh",
                "dialect": "claude-code",
            }
        ],
        "pre_verify": [
            {"command": f"{hooks}/stop-until-tests.sh", "dialect": "claude-code", "timeout": 300}
        ],
        "on_session_start": [
            {
                "matcher": "startup",
                "command": f"{hooks}/session-start-context.sh",
                "dialect": "claude-code",
            }
        ],
    }


def wrapper_path(home: Path, out: str) -> str:
    [line] = [
        w for w in out.split() if w.startswith(f"{home}/agent-hooks/claude-code/pre_tool_call-")
    ][:1]
    return line


def test_import_prints_the_entries_and_what_it_cannot_convert(
    home: Path, project: Path, settings: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = cli(home, capsys, "import-claude")
    assert (code, err) == (0, "")
    wrapper = wrapper_path(home, out)
    document = yaml.safe_load(out)
    assert document == {"hooks": expected_hooks(project, home, wrapper)}
    lines = out.splitlines()
    user, proj = settings["user"], settings["project"]
    assert lines[:3] == [
        "# Claude Code hooks converted by hermes-hooks import-claude.",
        f"# From {user}",
        f"# From {proj}",
    ]
    start = lines.index("# Not converted (6):")
    assert lines[start + 1 : start + 7] == [
        f"#   ✗ {user}: hooks.UserPromptSubmit[0].hooks[1]: http handler: it POSTs the event "
        "to a URL and reads a decision back; Hermes' outbound webhooks deliver events but "
        "never decide",
        f"#   ✗ {user}: hooks.Notification: no Hermes event: Hermes has no notification event",
        f"#   ✗ {proj}: hooks.PreToolUse[1].hooks[1]: mcp_tool handler: it calls an MCP tool; "
        "Hermes hooks cannot call MCP tools",
        f"#   ✗ {proj}: hooks.PostToolUse[0].hooks[1]: shell 'powershell': only bash runs hooks "
        "on this host",
        f"#   ✗ {proj}: hooks.Stop[0].hooks[1]: field(s) 'retries' are not honoured here",
        f"#   ✗ {proj}: hooks.PermissionRequest: no Hermes event: it fires when Claude Code "
        "shows a permission dialog; Hermes' approval gate has no such hook — decide in "
        "PreToolUse (pre_tool_call) with permissionDecision instead",
    ]
    assert "#     - timeout 900s capped at 300s (our maximum)" in lines
    assert (
        "#     - needs a shell (pipes, redirections, variables or globs): runs from a wrapper"
        in lines
    )
    assert f"#   {wrapper} (written with --write)" in lines
    approve = lines[lines.index("# Nothing runs until approved. Review each script, then:") + 1 :]
    assert approve == [
        f"#   hermes-hooks approve pre_tool_call {wrapper}",
        "#   hermes-hooks approve pre_llm_call '~/.claude/hooks/prompt-context.sh'",
        f"#   hermes-hooks approve pre_tool_call {project}/.claude/hooks/block-rm-rf.sh",
        f"#   hermes-hooks approve pre_tool_call 'python3 {project}/.claude/hooks/rewrite-npm.py'",
        f"#   hermes-hooks approve pre_tool_call {project}/.claude/hooks/protect-files.sh",
        f"#   hermes-hooks approve post_tool_call {project}/.claude/hooks/log-post-tool.sh",
        f"#   hermes-hooks approve pre_verify {project}/.claude/hooks/stop-until-tests.sh",
        f"#   hermes-hooks approve on_session_start "
        f"{project}/.claude/hooks/session-start-context.sh",
    ]
    assert not Path(wrapper).exists()  # printing writes nothing
    assert not (home / "config.yaml").exists()
    schema = all_schemas()["config-hooks.schema.json"]
    jsonschema.validate(document["hooks"], schema)


def test_write_keeps_the_config_and_its_comments_and_is_idempotent(
    home: Path, project: Path, settings: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    (home / "config.yaml").write_text(CONFIG, encoding="utf-8")
    code, out, err = cli(home, capsys, "import-claude", "--write")
    assert (code, err) == (0, "")
    text = (home / "config.yaml").read_text(encoding="utf-8")
    # Every original line is still there, in order.
    remaining = iter(text.splitlines())
    assert all(any(line == seen for seen in remaining) for line in CONFIG.splitlines())
    wrapper = wrapper_path(home, out)
    expected = expected_hooks(project, home, wrapper)
    expected["pre_tool_call"].insert(0, {"matcher": "terminal", "command": "/bin/true"})
    data = yaml.safe_load(text)
    assert data["hooks"] == expected
    assert data["gateway"] == {"platform": "cli"}
    [backup] = home.glob("config.yaml.bak-*")
    assert backup.read_text(encoding="utf-8") == CONFIG
    assert out.splitlines()[:2] == [
        f"Added 8 claude-code entries to {home / 'config.yaml'}.",
        f"  The previous file is kept as {backup}.",
    ]
    body = Path(wrapper).read_text(encoding="utf-8")
    assert body == (
        "#!/usr/bin/env bash\n"
        f"# Written by hermes-hooks import-claude from {settings['user']}.\n"
        "# Claude Code ran this command line through a shell; Hermes runs this script.\n"
        "jq -r '.tool_input.command' >> ~/.claude/bash-commands.log\n"
    )
    assert stat.S_IMODE(os.stat(wrapper).st_mode) == 0o755
    code, out, _ = cli(home, capsys, "import-claude", "--write")
    assert code == 0
    assert out.splitlines()[:2] == [
        f"Nothing to add to {home / 'config.yaml'}.",
        "Already in config.yaml (8):",
    ]
    assert (home / "config.yaml").read_text(encoding="utf-8") == text


def test_the_imported_config_passes_doctor_and_decides_like_claude_code(
    home: Path,
    project: Path,
    settings: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    (home / "config.yaml").write_text(CONFIG, encoding="utf-8")
    assert cli(home, capsys, "import-claude", "--write")[0] == 0
    code, out, _ = cli(home, capsys, "doctor", "--json")
    report = json.loads(out)
    # Imported, not yet approved: the gates among them do not run, and doctor says so.
    errors = [f["subject"] for f in report["findings"] if f["level"] == "error"]
    assert (code, report["ok"]) == (1, False)
    assert errors and all(s.startswith("shell hooks.pre_tool_call[") for s in errors), errors
    approvals = [
        (entry["event"], entry["entry"]["command"])
        for entry in json.loads(cli(home, capsys, "import-claude", "--json")[1])["entries"]
    ]
    assert len(approvals) == 8
    for event, command in [*approvals, ("pre_tool_call", "/bin/true")]:
        assert cli(home, capsys, "approve", event, command)[0] == 0
    code, out, _ = cli(home, capsys, "doctor", "--json")
    report = json.loads(out)
    assert (code, report["ok"]) == (0, True), [
        f for f in report["findings"] if f["level"] == "error"
    ]
    smoke = [f for f in report["findings"] if f["message"].startswith("smoke test:")]
    assert len(smoke) == 9

    def test(event: str, tool: str | None = None, **overrides: Any) -> dict[str, Any]:
        payload_file = tmp_path / "payload.json"
        payload_file.write_text(json.dumps(overrides), encoding="utf-8")
        argv = ["test", event, "--payload-file", str(payload_file), "--json"]
        if tool:
            argv += ["--for-tool", tool]
        code, out, _ = cli(home, capsys, *argv)
        assert code == 0
        return {h["where"]: h.get("parsed") for h in json.loads(out)["hooks"]}

    # exit 2 on PreToolUse blocks with stderr; the logging wrapper decides nothing.
    assert test("pre_tool_call", "terminal", args={"command": "rm -rf build"}) == {
        "hooks.pre_tool_call[0]": None,
        "hooks.pre_tool_call[1]": None,
        "hooks.pre_tool_call[2]": {
            "action": "block",
            "message": "Blocked: destructive command (rm -rf build)",
        },
        "hooks.pre_tool_call[3]": None,
    }
    # The wrapper logged doctor's synthetic call, then this one.
    assert (Path.home() / ".claude" / "bash-commands.log").read_text() == (
        "rm -rf /tmp/hermes-hooks-synthetic\nrm -rf build\n"
    )
    # updatedInput replaces the input (our field names).
    assert test("pre_tool_call", "terminal", args={"command": "npm test"})[
        "hooks.pre_tool_call[3]"
    ] == {"action": "modify", "args": {"command": "pnpm test"}, "replace": True}
    # Edit|MultiEdit|Write: our patch is Claude's Edit; file_path is absolute.
    assert test("pre_tool_call", "patch", args={"path": ".env", "old_string": "a"}) == {
        "hooks.pre_tool_call[4]": {
            "action": "block",
            "message": f"Blocked: {project}/.env matches protected pattern '.env'",
        }
    }
    # UserPromptSubmit plain text is context.
    assert test("pre_llm_call", user_message="hello") == {
        "hooks.pre_llm_call[0]": {"context": "You are in project. The prompt has 5 characters."}
    }
    # Stop: decision block keeps going, until a stop hook already did.
    assert test("pre_verify", attempt=0) == {
        "hooks.pre_verify[0]": {
            "action": "continue",
            "message": "Run the test suite and report the result before finishing.",
        }
    }
    assert test("pre_verify", attempt=1) == {"hooks.pre_verify[0]": None}


def test_json_output_lists_everything(
    home: Path, project: Path, settings: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = cli(home, capsys, "import-claude", "--json", str(settings["project"]))
    assert code == 0
    report = json.loads(out)
    assert report["files"] == [
        {"path": str(settings["project"]), "status": "read", "project_dir": str(project)}
    ]
    assert [(e["key"], e["claude_event"]) for e in report["entries"]] == [
        ("pre_tool_call", "PreToolUse"),
        ("pre_tool_call", "PreToolUse"),
        ("pre_tool_call", "PreToolUse"),
        ("post_tool_call", "PostToolUse"),
        ("pre_verify", "Stop"),
        ("on_session_start", "SessionStart"),
    ]
    assert report["entries"][0]["approve"] == (
        f"hermes-hooks approve pre_tool_call {project}/.claude/hooks/block-rm-rf.sh"
    )
    assert report["entries"][3]["notes"] == [
        "its feedback (exit 2, decision: block) reaches the model below the tool's result; "
        "its additionalContext is not honoured: post_tool_call only observes"
    ]
    assert len(report["skipped"]) == 4
    assert report["wrappers"] == []
    assert (report["written"], report["backup"]) == (None, None)


def test_missing_and_broken_settings(
    home: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = cli(home, capsys, "import-claude")
    assert code == 1
    assert out == ""
    assert err == (
        f"No Claude Code settings found (looked at {Path.home()}/.claude/settings.json, "
        f"{project}/.claude/settings.json, {project}/.claude/settings.local.json).\n"
    )
    broken = project / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    code, out, _ = cli(home, capsys, "import-claude", str(broken), str(project / "nope.json"))
    assert code == 1
    assert f"# ✗ {broken} is not valid JSON (Expecting property name enclosed in double " in out
    assert f"# ✗ {project / 'nope.json'} not found" in out.splitlines()


def test_disable_all_hooks_and_plugin_roots(
    home: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    off = project / "off.json"
    off.write_text(json.dumps({"disableAllHooks": True, "hooks": PROJECT_SETTINGS["hooks"]}))
    plugin = project / "plugin" / "hooks"
    (plugin.parent / "scripts").mkdir(parents=True)
    (plugin.parent / "scripts" / "fmt.sh").write_text("#!/bin/sh\n")
    plugin.mkdir()
    (plugin / "hooks.json").write_text(
        json.dumps(
            {
                "description": "formatting",
                "hooks": {
                    "PostToolUse": [
                        {
                            "matcher": "Write",
                            "hooks": [
                                {
                                    "type": "command",
                                    "command": "${CLAUDE_PLUGIN_ROOT}/scripts/fmt.sh",
                                    "timeout": 30,
                                    "statusMessage": "Formatting…",
                                    "once": True,
                                    "shell": "bash",
                                }
                            ],
                        }
                    ]
                },
            }
        )
    )
    code, out, _ = cli(
        home, capsys, "import-claude", "--json", str(off), str(plugin / "hooks.json")
    )
    assert code == 0
    report = json.loads(out)
    assert report["skipped"] == [
        {
            "origin": str(off),
            "reason": "disableAllHooks is true: Claude Code runs none of its hooks",
        }
    ]
    [entry] = report["entries"]
    assert entry["entry"] == {
        "matcher": "Write",
        "command": f"{plugin.parent}/scripts/fmt.sh",
        "dialect": "claude-code",
        "timeout": 30,
        "shell": "bash",
        "plugin_root": str(plugin.parent),
        "plugin_data": f"{home}/agent-hooks/claude-code/plugin-data/plugin",
    }
    assert entry["notes"] == [
        "once: true ignored, as Claude Code ignores it outside skill frontmatter",
        "its feedback (exit 2, decision: block) reaches the model below the tool's result; "
        "its additionalContext is not honoured: post_tool_call only observes",
    ]


def test_approve_and_test_accept_claude_code_event_names(home: Path, capsys: Any) -> None:
    from hermes_hooks.cli import main

    script = home / "gate.sh"
    script.write_text('#!/bin/sh\necho \'{"decision": "block", "reason": "no"}\'\n')
    script.chmod(0o755)
    (home / "config.yaml").write_text(
        f"hooks:\n  PreToolUse:\n    - matcher: Bash\n      command: {script}\n",
        encoding="utf-8",
    )
    assert main(["--home", str(home), "approve", "PreToolUse", str(script)]) == 0
    capsys.readouterr()
    assert (
        main(["--home", str(home), "test", "PreToolUse", "--for-tool", "terminal", "--json"]) == 0
    )
    printed = json.loads(capsys.readouterr().out)
    assert printed["event"] == "pre_tool_call"
