"""The bridge installed on hermes-agent 0.19.0's real ``PluginManager`` through its
real ``PluginContext``, in this process: what each call site gets back, the middleware
it reads, the bridge's own failure, and the recursion trap."""

from __future__ import annotations

import importlib.metadata
import logging
from pathlib import Path
from typing import Any

import pytest

import hermes_hooks
from hermes_hooks.cli import main
from hermes_hooks.integrations.hermes_agent import MODULE, register
from tests.helpers import write_plugin

plugins = pytest.importorskip("hermes_cli.plugins", reason="needs hermes-agent installed")

POLICY = """
def gate(tool_name, args, **kwargs):
    if "rm -rf" in args.get("command", ""):
        return {"action": "block", "message": "no rm -rf"}
    if args.get("command") == "ls":
        return {"action": "modify", "args": {"command": "ls -la"}}
    return None


def context(**kwargs):
    return {"context": "policy: be careful"}


def tidy(result, **kwargs):
    return result.upper()


def rewrite(args, **kwargs):
    return {"args": {**args, "tagged": True}, "reason": "tag"}


def register(ctx):
    ctx.register_hook("pre_tool_call", gate)
    ctx.register_hook("pre_llm_call", context)
    ctx.register_hook("transform_tool_result", tidy)
    ctx.register_middleware("tool_request", rewrite)
"""

IDS = {"task_id": "", "session_id": "s1", "tool_call_id": "c1", "turn_id": "t1"}


def _bridged(home: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """hermes-agent's plugin manager with the bridge registered as the agent registers it."""
    monkeypatch.setenv("HERMES_HOME", str(home))
    manager = plugins.PluginManager()
    manifest = plugins.PluginManifest(name="hermes-hooks", source="entrypoint", key="hermes-hooks")
    register(plugins.PluginContext(manifest, manager))
    return manager


@pytest.fixture
def policy_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    write_plugin(home / "plugins", "policy", POLICY)
    (home / "config.yaml").write_text("plugins:\n  enabled: [hermes-hooks, policy]\n")
    return home


def test_each_call_site_gets_the_shape_hermes_agent_reads(
    policy_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manager = _bridged(policy_home, monkeypatch)
    try:
        rm = {"command": "rm -rf /tmp/x"}
        assert manager.invoke_hook(
            "pre_tool_call",
            tool_name="terminal",
            args=rm,
            api_request_id="",
            middleware_trace=[],
            **IDS,
        ) == [{"action": "block", "message": "no rm -rf"}]
        ls = {"command": "ls"}
        assert (
            manager.invoke_hook(
                "pre_tool_call",
                tool_name="terminal",
                args=ls,
                api_request_id="",
                middleware_trace=[],
                **IDS,
            )
            == []
        )
        assert ls == {"command": "ls -la"}  # the dict hermes-agent goes on to dispatch
        assert manager.invoke_hook(
            "pre_llm_call",
            user_message="hi",
            conversation_history=[],
            is_first_turn=True,
            model="m",
            platform="cli",
            parent_session_id=None,
            sender_id=None,
            session_id="s1",
            task_id="",
            turn_id="t1",
        ) == [{"context": "policy: be careful"}]
        assert manager.has_hook("transform_tool_result") is True
        assert manager.has_hook("post_tool_call") is False
        assert manager.invoke_hook(
            "transform_tool_result", tool_name="terminal", args={}, result='{"output": "ok"}', **IDS
        ) == ['{"OUTPUT": "OK"}']
        # A hook a newer agent may fire: nothing runs, nothing raises.
        assert manager.invoke_hook("on_future_event", detail="x") == []
        # Middleware: hermes-agent's own request pass, reading the routed lists.
        from hermes_cli import middleware

        monkeypatch.setattr(plugins, "get_plugin_manager", lambda: manager)
        result = middleware.apply_tool_request_middleware("terminal", {"command": "ls"}, **IDS)
        assert result.payload == {"command": "ls", "tagged": True}
        assert result.trace == [{"reason": "tag"}]
    finally:
        manager._hermes_hooks_bridge.close()


def test_natively_registered_callbacks_never_fire_under_the_bridge(
    policy_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manager = _bridged(policy_home, monkeypatch)
    fired: list[str] = []
    manifest = plugins.PluginManifest(name="late", source="entrypoint", key="late")
    # A plugin hermes-agent loads after the bridge, and a hooks: entry registered late.
    plugins.PluginContext(manifest, manager).register_hook(
        "post_tool_call", lambda **kw: fired.append("native")
    )
    try:
        assert manager.invoke_hook("post_tool_call", tool_name="terminal", args={}, result="") == []
        assert fired == []
        assert manager._hooks["post_tool_call"] != []  # still listed by hermes-agent
    finally:
        manager._hermes_hooks_bridge.close()


def test_a_plugin_only_hermes_agent_loaded_is_an_error_at_the_first_firing(
    policy_home: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    manager = _bridged(policy_home, monkeypatch)
    bundled = plugins.PluginManifest(name="disk-guard", source="bundled", key="disk-guard")
    manager._plugins["disk-guard"] = plugins.LoadedPlugin(
        manifest=bundled, enabled=True, hooks_registered=["pre_tool_call"]
    )
    try:
        with caplog.at_level(logging.ERROR, logger="hermes_hooks.integrations"):
            manager.invoke_hook("post_tool_call", tool_name="terminal", args={}, result="")
            manager.invoke_hook("post_tool_call", tool_name="terminal", args={}, result="")
        assert [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR] == [
            "hermes-agent plugin 'disk-guard' registered hooks or middleware that hermes-hooks "
            "did not load, so under the bridge they never fire. Fix: put the plugin where "
            "hermes-hooks finds it (the home's plugins/ or a pip entry point), or disable the "
            "bridge"
        ]
    finally:
        manager._hermes_hooks_bridge.close()


def test_a_home_the_bridge_cannot_load_blocks_every_tool_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text("hooks: [unclosed\n")
    manager = _bridged(home, monkeypatch)
    (answer,) = manager.invoke_hook(
        "pre_tool_call", tool_name="terminal", args={"command": "ls"}, **IDS
    )
    assert answer["action"] == "block"
    assert answer["message"] == (
        "hermes-hooks could not check the terminal call (its hooks could not be loaded: "
        f"ConfigError: {home}/config.yaml:2:1: not valid YAML (while parsing a flow sequence "
        "expected ',' or ']', but got '<stream end>'); no hook or setting of this file applies "
        "until it is fixed. Fix: correct the YAML syntax at that line); blocked (fail closed). "
        "Run `hermes-hooks doctor`"
    )
    assert manager.has_hook("pre_tool_call") is True
    assert manager.invoke_hook("post_tool_call", tool_name="terminal") == []


def test_after_the_agent_exits_nothing_runs_and_tool_calls_are_blocked(
    policy_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manager = _bridged(policy_home, monkeypatch)
    manager._hermes_hooks_bridge.close()  # what the exit handler does
    manager._hermes_hooks_bridge.close()  # (twice is harmless)
    assert manager.invoke_hook(
        "pre_tool_call", tool_name="terminal", args={"command": "ls"}, **IDS
    ) == [
        {
            "action": "block",
            "message": "hermes-hooks could not check the terminal call (its hooks were "
            "closed as the agent exits); blocked (fail closed). Run `hermes-hooks doctor`",
        }
    ]
    assert manager.invoke_hook("pre_llm_call", user_message="hi") == []


def test_hermes_hooks_never_loads_the_bridge_it_ships(
    policy_home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The home enables the bridge (the agent needs it), and hermes-hooks scans the same
    # entry-point group: the bridge is skipped, and its name is no unknown plugin.
    declared = importlib.metadata.entry_points(group="hermes_agent.plugins")
    assert [(ep.name, ep.value) for ep in declared if ep.value == MODULE] == [
        ("hermes-hooks", MODULE)
    ]
    with hermes_hooks.load(policy_home) as hooks:
        records = hooks.sources["python"].records()
        # (other installed plugins are found too, and left off by plugins.enabled)
        assert [(r.key, r.state) for r in records if r.state == "loaded"] == [("policy", "loaded")]
        assert [r.key for r in records if r.key == "hermes-hooks" or r.path == MODULE] == []
        assert hooks.sources["python"].findings == []
    monkeypatch.setenv("HERMES_HOME", str(policy_home))
    assert main(["list", "--json"]) == 0
    assert "hermes_hooks.integrations" not in capsys.readouterr().out
