"""Shell hooks as ordinary callbacks: the stdin envelope, matcher, order after Python
plugins (D-19), idempotence (D-08), safe mode, and their own time bound (D-15)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import hermes_hooks
from hermes_hooks.hooks import Hooks
from hermes_hooks.shell import source as shell
from tests.helpers import tool_payload, write_plugin
from tests.shell.helpers import approve, py, sh, warnings_of, write_config, write_script

RECORDER = py(
    "import sys, pathlib\n"
    "pathlib.Path(sys.argv[1]).write_bytes(sys.stdin.buffer.read())\n"
    "print('{}')"
)


def recorded(home: Path, load: Callable[..., Hooks], event: str, payload: dict[str, Any]) -> Any:
    """Fire ``event`` through a recording hook; return (raw stdin bytes, parsed)."""
    script = write_script(home / "agent-hooks" / "record.py", RECORDER)
    out = home / "stdin.json"
    command = f"{script} {out}"
    write_config(home, {event: [{"command": command}]})
    approve(home, event, command)
    load().invoke(event, **payload)
    raw = out.read_bytes()
    return raw, json.loads(raw)


def test_stdin_carries_the_sh13_envelope(home: Path, load: Callable[..., Hooks]) -> None:
    payload = tool_payload(args={"command": "echo 'olá'"}, tool_name="terminal")
    raw, doc = recorded(home, load, "pre_tool_call", payload)
    assert list(doc) == [
        "hook_event_name",
        "profile",
        "tool_name",
        "tool_input",
        "session_id",
        "cwd",
        "extra",
    ]
    assert doc["hook_event_name"] == "pre_tool_call"
    assert doc["profile"] == "default"
    assert doc["tool_name"] == "terminal"
    assert doc["tool_input"] == {"command": "echo 'olá'"}
    assert doc["session_id"] == "sess-1"
    assert doc["cwd"] == os.getcwd()
    assert doc["extra"] == {
        "task_id": "task-1",
        "tool_call_id": "call-1",
        "turn_id": "turn-1",
        "api_request_id": "req-1",
        "middleware_trace": [],
        "telemetry_schema_version": "hermes.observer.v1",
    }
    assert "olá".encode() in raw  # UTF-8, non-ASCII kept (D-69)


def test_pre_verify_scripts_find_coding_and_attempt_in_extra(
    home: Path, load: Callable[..., Hooks]
) -> None:
    _, doc = recorded(home, load, "pre_verify", {"session_id": "s", "coding": True, "attempt": 2})
    assert (doc["tool_name"], doc["tool_input"]) == (None, None)
    assert doc["extra"]["coding"] is True
    assert doc["extra"]["attempt"] == 2


def test_subagent_stop_session_id_is_the_parent(home: Path, load: Callable[..., Hooks]) -> None:
    _, doc = recorded(
        home,
        load,
        "subagent_stop",
        {"parent_session_id": "parent-1", "child_role": None, "duration_ms": 5},
    )
    assert doc["session_id"] == "parent-1"
    assert "parent_session_id" not in doc["extra"]
    assert doc["extra"]["child_role"] is None


def test_a_non_matching_entry_is_never_spawned(home: Path, load: Callable[..., Hooks]) -> None:
    marker = home / "spawned"
    script = write_script(home / "agent-hooks" / "m.sh", sh(f"touch {marker}\necho '{{}}'"))
    write_config(home, {"pre_tool_call": [{"matcher": "write_file", "command": str(script)}]})
    approve(home, "pre_tool_call", str(script))
    hooks = load()
    hooks.pre_tool_call(**tool_payload(tool_name="terminal"))
    hooks.pre_tool_call(**tool_payload(tool_name="write_file_x"))
    assert not marker.exists()
    hooks.pre_tool_call(**tool_payload(tool_name="write_file"))
    assert marker.exists()


CONTEXT_PLUGIN = """
def register(ctx):
    ctx.register_hook("pre_llm_call", lambda **kw: {"context": "from python"})
    ctx.register_hook(
        "pre_tool_call", lambda **kw: {"action": "block", "message": "python block"}
    )
"""


def test_shell_hooks_run_after_python_plugins_in_list_order(
    home: Path, load: Callable[..., Hooks]
) -> None:
    write_plugin(home / "plugins", "ctx", CONTEXT_PLUGIN)
    a = write_script(home / "agent-hooks" / "a.sh", sh('echo \'{"context": "shell A"}\''))
    b = write_script(
        home / "agent-hooks" / "b.sh",
        sh('echo \'{"context": "shell B", "decision": "block", "reason": "shell block"}\''),
    )
    write_config(
        home,
        {
            "pre_llm_call": [{"command": str(a)}, {"command": str(b)}],
            "pre_tool_call": [{"command": str(b)}],
        },
    )
    for event, script in (("pre_llm_call", a), ("pre_llm_call", b), ("pre_tool_call", b)):
        approve(home, event, str(script))
    hooks = load()
    assert [cb.source for cb in hooks.manager.callbacks("pre_llm_call")] == [
        "python",
        "shell",
        "shell",
    ]
    assert hooks.pre_llm_call(session_id="s") == "from python\n\nshell A\n\nshell B"
    assert hooks.pre_tool_call(**tool_payload()).message == "python block"


def test_loading_twice_registers_once_and_unload_then_reload_restores(
    home: Path, load: Callable[..., Hooks], caplog: pytest.LogCaptureFixture
) -> None:
    script = write_script(home / "agent-hooks" / "x.sh", sh("echo '{}'"))
    write_config(home, {"post_tool_call": [{"command": str(script)}, {"command": str(script)}]})
    approve(home, "post_tool_call", str(script))
    hooks = load()
    assert len(hooks.manager.callbacks("post_tool_call")) == 1
    assert any(
        "hooks.post_tool_call[1] repeats hooks.post_tool_call[0]" in m for m in warnings_of(caplog)
    )
    again = shell.load(hooks.context)
    assert len(hooks.manager.callbacks("post_tool_call")) == 1
    assert again.records()[0].note == "already registered"
    again.unload()  # it registered nothing, so it removes nothing
    assert len(hooks.manager.callbacks("post_tool_call")) == 1
    hooks.sources["shell"].unload()
    assert hooks.manager.callbacks("post_tool_call") == ()
    hooks.sources["shell"] = shell.load(hooks.context)
    assert len(hooks.manager.callbacks("post_tool_call")) == 1


def test_safe_mode_registers_and_runs_nothing(
    home: Path, load: Callable[..., Hooks], monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = home / "spawned"
    script = write_script(home / "agent-hooks" / "m.sh", sh(f"touch {marker}"))
    write_config(home, {"pre_tool_call": [{"command": str(script)}]})
    monkeypatch.setenv("HERMES_SAFE_MODE", "1")
    hooks = load(accept_hooks=True)
    assert hooks.pre_tool_call(**tool_payload()).action == "allow"
    assert "shell" not in hooks.sources
    assert not marker.exists()


def test_the_gateway_surface_loads_shell_hooks_too(home: Path) -> None:
    script = write_script(home / "agent-hooks" / "g.sh", sh('echo \'{"action": "block"}\''))
    write_config(home, {"pre_tool_call": [{"command": str(script)}]})
    approve(home, "pre_tool_call", str(script))
    hooks = hermes_hooks.load(home, surface="gateway", entry_points=False)
    try:
        assert hooks.pre_tool_call(**tool_payload()).message == "Blocked by shell hook."
    finally:
        hooks.close()


def test_a_shell_hook_is_bounded_only_by_its_own_timeout(
    home: Path, load: Callable[..., Hooks]
) -> None:
    # hook_callback_timeout (0.2 s) bounds Python callbacks; the 0.6 s gate still counts.
    script = write_script(
        home / "agent-hooks" / "slow.sh",
        sh('sleep 0.6\necho \'{"decision": "block", "reason": "slow but counted"}\''),
    )
    write_config(
        home,
        {"pre_tool_call": [{"command": str(script), "timeout": 5}]},
        plugins={"hook_callback_timeout": 0.2},
    )
    approve(home, "pre_tool_call", str(script))
    decision = load().pre_tool_call(**tool_payload())
    assert (decision.action, decision.message) == ("block", "slow but counted")


def test_shell_decisions_are_reported_to_subscribers(gate: Callable[..., Hooks]) -> None:
    hooks = gate(sh('echo \'{"decision": "block", "reason": "no"}\''))
    records = []
    hooks.subscribe(records.append)
    hooks.pre_tool_call(**tool_payload())
    (record,) = records
    assert (record.source, record.verdict, record.reason) == ("shell", "block", "no")
    assert record.callback.startswith("shell hooks.pre_tool_call[0] ")
