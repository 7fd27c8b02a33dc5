"""The CLI for gateway hooks: ``emit``, and the gateway parts of ``list`` and ``doctor``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import hermes_hooks.boot
from hermes_hooks.cli import main
from tests.gateway.helpers import RECORD_ASYNC, write_hook
from tests.gateway.test_contrib import CONTRIB, ScriptedAgent, install

RAISES = "def handle(event_type, context):\n    raise ValueError('boom')\n"


def cli(capsys: pytest.CaptureFixture[str], home: Path, *argv: str) -> tuple[int, str, str]:
    code = main(["--home", str(home), *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_emit_shows_what_each_handler_did(
    hooks_dir: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_hook(hooks_dir, "a-raises", body=RAISES)
    write_hook(hooks_dir, "b-returns", body="async def handle(e, c):\n    return {'seen': e}\n")
    write_hook(hooks_dir, "c-quiet", events=["agent:*"])
    context = '{"platform": "telegram", "user_id": "u1"}'
    code, out, _ = cli(capsys, home, "emit", "agent:start", "--context", context)
    assert code == 1  # a handler failed
    lines = out.splitlines()
    assert lines[0] == "agent:start → 3 gateway hook(s)"
    assert lines[1] == (
        "  note: the context lacks keys documented for this event: chat_id, thread_id, chat_type, "
        "session_id, message"
    )
    assert lines[2] == (
        f"  ✗ a-raises  error: ValueError: boom  {hooks_dir / 'a-raises' / 'handler.py'}"
    )
    assert re.fullmatch(
        r"  ✓ b-returns  ok \(\d+\.\d ms\), returned \{'seen': 'agent:start'\}  .*handler\.py",
        lines[3],
    )
    assert re.fullmatch(r"  ✓ c-quiet  ok \(\d+\.\d ms\)  .*c-quiet/handler\.py", lines[4])


def test_emit_json(hooks_dir: Path, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_hook(hooks_dir, "only", body="def handle(e, c):\n    return 7\n")
    code, out, _ = cli(capsys, home, "emit", "session:reset", "--json", "--context", "{}")
    data = json.loads(out)
    assert code == 0
    assert data["event"] == "session:reset"
    assert data["subscribers"] == []
    assert data["missing_keys"] == ["platform", "user_id", "session_key"]
    write_hook(hooks_dir, "sess", events=["session:*"], body="def handle(e, c):\n    return 7\n")
    code, out, _ = cli(capsys, home, "emit", "session:reset", "--json")
    data = json.loads(out)
    assert data["subscribers"] == ["sess"]
    ((record,),) = [data["hooks"]]
    assert (record["hook"], record["outcome"], record["result"]) == ("sess", "ok", 7)
    assert (data["decision"], data["drained"]) == (None, True)


def test_emit_a_command_shows_the_decision(
    hooks_dir: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_hook(
        hooks_dir,
        "gate",
        events=["command:reset"],
        body="def handle(e, c):\n    return {'decision': 'deny'}\n",
    )
    code, out, _ = cli(capsys, home, "emit", "command:reset", "--context", '{"args": " now "}')
    assert code == 1  # a hook blocked the command
    assert out.splitlines()[-1] == "decision: deny by gate: Command `/reset` was blocked by a hook."


def test_emit_waits_for_threads_the_handlers_start(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HERMES_HOME", str(home))
    install(home, "boot-md")
    (home / "BOOT.md").write_text("Check the backups.", encoding="utf-8")
    hermes_hooks.boot.set_agent_factory(lambda: ScriptedAgent("backups ok"))
    try:
        code, out, _ = cli(
            capsys, home, "emit", "gateway:startup", "--context", '{"platforms": []}'
        )
    finally:
        hermes_hooks.boot.set_agent_factory(None)
    assert code == 0
    assert out.splitlines()[-3:] == [
        "log:",
        "  INFO hooks.boot-md: Running BOOT.md (18 chars)",
        "  INFO hooks.boot-md: boot-md completed: backups ok",
    ]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["agnet:start"], "unknown gateway event 'agnet:start' — did you mean 'agent:start'?"),
        (
            ["command:*"],
            "'command:*' is a subscription, not an event: emit one event, e.g. command:model",
        ),
        (["agent:start", "--context", "{nope"], "--context is not valid JSON: Expecting "),
        (["agent:start", "--context", "[1]"], "--context must be a JSON object, got list"),
    ],
)
def test_emit_refuses_bad_input(
    home: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = cli(capsys, home, "emit", *argv)
    assert code == 2
    assert err.startswith(f"hermes-hooks: {message}")
    assert out == ""


def test_list_shows_gateway_hooks_with_events_and_path(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install(home, "boot-md", "command-logger")
    write_hook(home / "hooks", "typo", events=["agnet:start"])
    code, out, _ = cli(capsys, home, "list")
    assert code == 0
    section = out[out.index("Gateway hooks") :].splitlines()
    assert section == [
        f"Gateway hooks (3) in {home / 'hooks'}:",
        f"  ✓ boot-md  {home / 'hooks' / 'boot-md'}  [gateway:boot-md, async handler]",
        "      events: gateway:startup",
        f"  ✓ command-logger  {home / 'hooks' / 'command-logger'}  "
        "[gateway:command-logger, sync handler]",
        "      events: command:*",
        f"  ✓ typo  {home / 'hooks' / 'typo'}  [gateway:typo, async handler]",
        "      events: agnet:start",
        "      problem: typo: unknown event 'agnet:start' — did you mean 'agent:start'?",
    ]
    code, out, _ = cli(capsys, home, "list", "--json")
    records = json.loads(out)["gateway"]
    assert [(r["key"], r["events"], r["plugin"]) for r in records] == [
        ("boot-md", ["gateway:startup"], "gateway:boot-md"),
        ("command-logger", ["command:*"], "gateway:command-logger"),
        ("typo", ["agnet:start"], "gateway:typo"),
    ]


def test_list_in_safe_mode(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    install(home, "boot-md")
    monkeypatch.setenv("HERMES_SAFE_MODE", "1")
    _, out, _ = cli(capsys, home, "list")
    assert "Gateway hooks: not loaded (HERMES_SAFE_MODE set)" in out.splitlines()


def test_doctor_reports_problems_with_the_file_and_the_key(
    hooks_dir: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_hook(hooks_dir, "fine", events=["agent:end"], body=RECORD_ASYNC)
    write_hook(hooks_dir, "stringy", manifest="events: agent:start\n")
    write_hook(hooks_dir, "typo", events=["agnet:start"])
    write_hook(hooks_dir, "nohandle", body="x = 1\n")
    (hooks_dir / "half").mkdir()
    (hooks_dir / "half" / "handler.py").write_text(
        "def handle(e, c):\n    pass\n", encoding="utf-8"
    )
    _, out, _ = cli(capsys, home, "doctor")
    lines = [line for line in out.splitlines() if "gateway hook" in line]
    assert lines == [
        "✓ gateway hook fine: loaded as gateway:fine (async handler) for agent:end",
        f"✗ gateway hook half: {hooks_dir / 'half' / 'HOOK.yaml'}: Skipping half: "
        f"{hooks_dir / 'half' / 'HOOK.yaml'} is missing (a hook directory needs HOOK.yaml and "
        f"handler.py); fix: add HOOK.yaml, or move the directory out of {hooks_dir}",
        f"✗ gateway hook nohandle: {hooks_dir / 'nohandle' / 'handler.py'} (key 'handle'): "
        f"Error loading hook nohandle ({hooks_dir / 'nohandle' / 'handler.py'}): no 'handle' "
        f"function found in {hooks_dir / 'nohandle' / 'handler.py'}; fix: define "
        "handle(event_type, context) (def or async def)",
        f"✗ gateway hook stringy: {hooks_dir / 'stringy' / 'HOOK.yaml'}:1:1 (key 'events'): "
        "Skipping stringy: 'events' must be a list of event names; fix: write events as a "
        "YAML list of event names, e.g. events: [agent:start, agent:end]",
        f"⚠ gateway hook typo: {hooks_dir / 'typo' / 'HOOK.yaml'}:2:1 (key 'events'): typo: "
        "unknown event 'agnet:start' — did you mean 'agent:start'?; fix: use a gateway "
        "event (docs/gateway-hooks.md), a command:<name>, or a <prefix>:* wildcard",
        "✓ gateway hook typo: loaded as gateway:typo (async handler) for agnet:start",
    ]


def test_doctor_in_safe_mode_reads_manifests_only(
    hooks_dir: Path, home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    directory = write_hook(hooks_dir, "stringy", manifest="events: agent:start\n")
    write_hook(hooks_dir, "fine", body="raise SystemExit('imported!')\n")
    monkeypatch.setenv("HERMES_SAFE_MODE", "true")
    code, out, _ = cli(capsys, home, "doctor", "--json")
    findings = [f for f in json.loads(out)["findings"] if f["subject"].startswith("gateway")]
    assert code == 1
    assert findings == [
        {
            "level": "info",
            "subject": "gateway hooks",
            "message": "HERMES_SAFE_MODE set: manifests checked, handlers not imported",
            "entry": None,
        },
        {
            "level": "info",
            "subject": "gateway hook fine",
            "message": "manifest ok (agent:start); not imported",
            "entry": "gateway hook fine",
        },
        {
            "level": "error",
            "subject": "gateway hook stringy",
            "message": f"{directory / 'HOOK.yaml'}:1:1 (key 'events'): Skipping stringy: 'events' "
            "must be a list of event names; fix: write events as a YAML list of event names, "
            "e.g. events: [agent:start, agent:end]",
            "entry": "gateway hook stringy",
        },
    ]


def test_doctor_with_no_hooks(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = cli(capsys, home, "doctor")
    assert f"ℹ gateway hooks: no gateway hooks in {home / 'hooks'}" in out.splitlines()


def test_the_contrib_hooks_pass_doctor(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    names = sorted(p.name for p in CONTRIB.iterdir())
    assert names == ["boot-md", "command-logger", "long-task-alert", "session-webhook"]
    install(home, *names)
    _, out, _ = cli(capsys, home, "doctor", "--json")
    findings = [f for f in json.loads(out)["findings"] if f["subject"].startswith("gateway")]
    assert [(f["level"], f["subject"]) for f in findings] == [
        ("ok", f"gateway hook {name}") for name in names
    ]
