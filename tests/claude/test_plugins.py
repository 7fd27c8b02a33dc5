"""Claude Code plugins: ``import-claude`` on a plugin directory and on a marketplace
checkout, and the imported hooks running as Claude Code runs a plugin's hooks
(``CLAUDE_PLUGIN_ROOT`` and ``CLAUDE_PLUGIN_DATA`` in the environment, exec form,
``if:``, ``async``, ``type: prompt``).

The plugins are in ``tests/claude/corpus/market/``, written here: ``guard-plugin``
(a rule engine its hook imports through ``$CLAUDE_PLUGIN_ROOT``, hookify style) and
``web-policy`` (an allow list next to its script, an ``if:`` rule, an async audit log,
a prompt handler in a second hooks file named by ``plugin.json``).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.hooks import Hooks
from hermes_hooks.shell.background import BACKGROUND
from tests.claude.helpers import CORPUS, payload
from tests.claude.test_import import cli
from tests.shell.helpers import warnings_of

MARKET = CORPUS / "market"


@pytest.fixture
def market(tmp_path: Path) -> Path:
    """A checkout of the in-house marketplace (a copy: imports write nothing there)."""
    target = tmp_path / "checkout"
    shutil.copytree(MARKET, target)
    return target


def imported(home: Path, capsys: pytest.CaptureFixture[str], *paths: Path) -> dict[str, Any]:
    """Run ``import-claude --write`` on ``paths`` and approve every new entry."""
    code, out, err = cli(home, capsys, "import-claude", "--json", "--write", *map(str, paths))
    report = json.loads(out)
    for entry in report["entries"]:
        command = entry["approve"].split(" ", 3)[3]
        code, _out, err_ = cli(home, capsys, "approve", entry["event"], *_unquote(command))
        assert code == 0, err_
    report["code"], report["err"] = code, err
    return report


def _unquote(text: str) -> list[str]:
    import shlex

    return [shlex.split(text)[0]] if text.startswith("'") else [text]


def test_a_plugin_hook_that_imports_its_helper_through_the_plugin_root_blocks(
    home: Path, market: Path, capsys: pytest.CaptureFixture[str], load: Callable[..., Hooks]
) -> None:
    plugin = market / "plugins" / "guard-plugin"
    report = imported(home, capsys, plugin)
    assert report["code"] == 0
    assert [(e["key"], e["entry"]["command"]) for e in report["entries"]] == [
        ("pre_tool_call", f"python3 {plugin}/hooks/pretooluse.py"),
        ("on_session_start", f"{plugin}/hooks/session-start.sh"),
    ]
    assert report["entries"][0]["entry"]["plugin_root"] == str(plugin)
    hooks = load()
    dangerous = payload("pre_tool_call", "terminal", args={"command": "rm -rf build/"})
    decision = hooks.pre_tool_call(**dangerous)
    assert (decision.action, decision.message) == ("block", "rm -rf is blocked by guard-plugin")
    safe = payload("pre_tool_call", "terminal", args={"command": "ls build/"})
    assert hooks.pre_tool_call(**safe).action == "allow"


def test_without_the_plugin_root_in_its_environment_the_same_hook_fails_open(
    home: Path, market: Path, capsys: pytest.CaptureFixture[str], load: Callable[..., Hooks]
) -> None:
    # The failure the issue reports: substituting the root in the command text only is
    # not enough, the script reads it from its environment.
    plugin = market / "plugins" / "guard-plugin"
    imported(home, capsys, plugin)
    config = home / "config.yaml"
    config.write_text(
        "\n".join(line for line in config.read_text().splitlines() if "plugin_root:" not in line)
        + "\n"
    )
    hooks = load()
    dangerous = payload("pre_tool_call", "terminal", args={"command": "rm -rf build/"})
    assert hooks.pre_tool_call(**dangerous).action == "allow"


def test_a_marketplace_imports_every_local_plugin_and_names_the_remote_one(
    home: Path, market: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = cli(home, capsys, "import-claude", "--json", str(market))
    report = json.loads(out)
    guard, web = market / "plugins" / "guard-plugin", market / "plugins" / "web-policy"
    data = f"{home}/agent-hooks/claude-code/plugin-data"
    assert [(e["key"], e["entry"]) for e in report["entries"]] == [
        (
            "pre_tool_call",
            {
                "matcher": "Bash",
                "command": f"python3 {guard}/hooks/pretooluse.py",
                "dialect": "claude-code",
                "timeout": 10,
                "plugin_root": str(guard),
                "plugin_data": f"{data}/guard-plugin",
            },
        ),
        (
            "on_session_start",
            {
                "matcher": "startup|resume",
                "command": f"{guard}/hooks/session-start.sh",
                "dialect": "claude-code",
                "plugin_root": str(guard),
                "plugin_data": f"{data}/guard-plugin",
            },
        ),
        (
            "pre_tool_call",
            {
                "matcher": "WebFetch",
                "command": f"python3 {web}/scripts/hosts.py",
                "dialect": "claude-code",
                "plugin_root": str(web),
                "plugin_data": f"{data}/web-policy",
            },
        ),
        (
            "pre_tool_call",
            {
                "matcher": "Bash",
                "command": f"{web}/scripts/push-check.sh",
                "dialect": "claude-code",
                "if": "Bash(git push *)",
                "plugin_root": str(web),
                "plugin_data": f"{data}/web-policy",
            },
        ),
        (
            "post_tool_call",
            {
                "matcher": "Write|Edit",
                "command": f"{web}/scripts/audit.sh",
                "dialect": "claude-code",
                "async": True,
                "plugin_root": str(web),
                "plugin_data": f"{data}/web-policy",
            },
        ),
        (
            "pre_verify",
            {
                "type": "prompt",
                "prompt": "Did the assistant finish every task it was given? $ARGUMENTS",
                "dialect": "claude-code",
                "timeout": 30,
                "plugin_root": str(web),
                "plugin_data": f"{data}/web-policy",
            },
        ),
    ]
    assert report["entries"][-1]["notes"] == [
        "answered by the host's model: refused at load when the host supplies none"
    ]
    assert report["entries"][-1]["approve"] == (
        "hermes-hooks approve pre_verify 'prompt: Did the assistant finish every task it was "
        "given? $ARGUMENTS'"
    )
    assert [f["status"] for f in report["files"]] == ["read"] * 3 + [
        "has a remote source: clone it and name its directory to import its hooks"
    ]
    assert code == 1  # the remote plugin could not be read, and says so


def test_imported_plugin_hooks_run_as_claude_code_runs_them(
    home: Path,
    market: Path,
    capsys: pytest.CaptureFixture[str],
    load: Callable[..., Hooks],
    caplog: pytest.LogCaptureFixture,
) -> None:
    web = market / "plugins" / "web-policy"
    report = imported(home, capsys, web)
    assert report["code"] == 0
    data = home / "agent-hooks" / "claude-code" / "plugin-data" / "web-policy"
    assert data.is_dir()  # created by --write, as Claude Code creates it
    hooks = load()
    # The prompt handler is refused, loudly, naming the entry: no host model here.
    assert any(
        "hooks.pre_verify[0] (prompt: Did the assistant finish" in w
        and "this host supplies none" in w
        for w in warnings_of(caplog)
    )
    # Exec form: args became one command line, the plugin root its script's directory.
    fetch = payload(
        "pre_tool_call",
        "web_extract",
        args={"urls": ["https://docs.example.com/a", "https://evil.example.net/x"]},
    )
    decision = hooks.pre_tool_call(**fetch)
    assert (decision.action, decision.message) == (
        "block",
        "web-policy: evil.example.net is not on the allow list",
    )
    # if: Bash(git push *): the script runs for pushes only (it records each run).
    for command in ("git status", "npm test && git push origin main", "git push origin fix"):
        hooks.pre_tool_call(**payload("pre_tool_call", "terminal", args={"command": command}))
    pushes = [
        json.loads(line)["tool_input"]["command"]
        for line in (data / "pushes.jsonl").read_text().splitlines()
    ]
    assert pushes == ["npm test && git push origin main", "git push origin fix"]
    # The async audit log runs in the background and writes to the plugin's data.
    write = payload("post_tool_call", "write_file", args={"path": "notes.md", "content": "x"})
    assert hooks.post_tool_call(**write) is None
    assert BACKGROUND.wait(30.0)
    [audit] = [json.loads(line) for line in (data / "audit.jsonl").read_text().split("\n") if line]
    assert (audit["hook_event_name"], audit["tool_name"]) == ("PostToolUse", "Write")


def test_a_plugin_session_start_exports_through_the_env_file(
    home: Path, market: Path, capsys: pytest.CaptureFixture[str], load: Callable[..., Hooks]
) -> None:
    plugin = market / "plugins" / "guard-plugin"
    imported(home, capsys, plugin)
    hooks = load()
    answer = hooks.invoke("on_session_start", **payload("on_session_start", session_id="s"))
    assert answer == [{"env": {"GUARD_RULES": f"{plugin}/core/rules.py"}}]
    assert hooks.pre_llm_call(**payload("pre_llm_call", session_id="s")) == (
        "guard-plugin active: rm -rf and chmod -R 777 are blocked."
    )


def test_every_corpus_script_is_run_by_the_suite() -> None:
    tests = "".join(p.read_text(encoding="utf-8") for p in Path(__file__).parent.glob("test_*.py"))
    scripts = sorted(p.name for p in CORPUS.iterdir() if p.is_file())
    assert len(scripts) >= 37
    assert [name for name in scripts if f'"{name}"' not in tests] == []


def _two_plugins(tmp_path: Path, command: Callable[[Path], str]) -> list[dict[str, Any]]:
    """Two plugins shipping ``guard.sh``: the first allows, the second blocks."""
    entries = []
    for name, body in (("allows", "exit 0"), ("blocks", 'echo "no, says blocks" >&2; exit 2')):
        root = tmp_path / name
        root.mkdir()
        script = root / "guard.sh"
        script.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
        script.chmod(0o755)
        entry = {"command": command(root), "matcher": "Bash", "shell": "bash"}
        entries.append({**entry, "plugin_root": str(root), "fail_closed": True})
    return entries


def test_two_plugins_writing_one_command_both_guard_and_the_clash_is_an_error(
    home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    load: Callable[..., Hooks],
) -> None:
    # Both write '"${CLAUDE_PLUGIN_ROOT}/guard.sh"': the second was once taken for a
    # repeat of the first and never ran, so its gate was off.
    entries = _two_plugins(tmp_path, lambda root: '"${CLAUDE_PLUGIN_ROOT}/guard.sh"')
    (home / "config.yaml").write_text(json.dumps({"hooks": {"PreToolUse": entries}}))
    code, _, err = cli(home, capsys, "approve", "pre_tool_call", entries[0]["command"])
    assert code == 0, err
    hooks = load()
    clash = (
        'hooks.PreToolUse[1]: writes the command of hooks.PreToolUse[0] ("${CLAUDE_PLUGIN_ROOT}'
        f'/guard.sh") but runs \'"{tmp_path}/blocks/guard.sh"\', not '
        f"'\"{tmp_path}/allows/guard.sh\"': an approval is keyed by the command as written, "
        "so only one of the two can be approved and the other refuses every call. Fix: "
        "write each plugin's path out in its command (import-claude does)"
    )
    errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert len(errors) == 2 and errors[0].endswith(clash), errors
    refused = (
        f"refused: it resolved to {tmp_path}/allows/guard.sh when approved and resolves to "
        f"{tmp_path}/blocks/guard.sh now"
    )
    assert refused in errors[1]
    # The second plugin's gate runs: its files are not the approved ones, so it refuses
    # the call, and being fail_closed it blocks.
    call = payload("pre_tool_call", "terminal", args={"command": "ls"})
    assert hooks.pre_tool_call(**call).action == "block"
    code, out, _ = cli(home, capsys, "doctor")
    assert code == 1
    assert clash in out


def test_two_plugins_with_their_paths_written_out_are_approved_and_run_apart(
    home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    load: Callable[..., Hooks],
) -> None:
    entries = _two_plugins(tmp_path, lambda root: f"{root}/guard.sh")
    (home / "config.yaml").write_text(json.dumps({"hooks": {"PreToolUse": entries}}))
    for entry in entries:
        code, _, err = cli(home, capsys, "approve", "pre_tool_call", entry["command"])
        assert code == 0, err
    hooks = load()
    assert [r.getMessage() for r in caplog.records if r.levelname == "ERROR"] == []
    call = payload("pre_tool_call", "terminal", args={"command": "ls"})
    decision = hooks.pre_tool_call(**call)
    assert (decision.action, decision.message) == ("block", "no, says blocks")
