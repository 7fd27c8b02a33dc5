"""Gateway hooks under the bridge: hermes-agent 0.19.0's real ``gateway.hooks``
``HookRegistry``, called as its gateway calls it (``discover_and_load()`` after plugin
discovery, ``await emit(...)``, ``await emit_collect("command:<name>", ...)``,
``loaded_hooks``), with real ``HOOK.yaml`` folders in the home: each handler fires once,
on hermes-hooks' lanes, and the agent's registry loads and calls none of them."""

from __future__ import annotations

import asyncio
import importlib
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.gateway.emitter import CallRecord
from hermes_hooks.integrations.hermes_agent import register
from hermes_hooks.integrations.hermes_agent.gateway_hooks import release

plugins = pytest.importorskip("hermes_cli.plugins", reason="needs hermes-agent installed")

LOGGER = """
import threading
from pathlib import Path

OUT = Path(__file__).parent / "fired.log"


def handle(event_type, context):
    with OUT.open("a") as out:
        out.write(f"{event_type} {context.get('session_id', '-')} "
                  f"{threading.current_thread() is threading.main_thread()}\\n")
"""

WATCHER = """
import asyncio
from pathlib import Path

OUT = Path(__file__).parent / "fired.log"


async def handle(event_type, context):
    await asyncio.sleep(0)
    with OUT.open("a") as out:
        out.write(f"{event_type}\\n")
"""

POLICY = """
import time
from pathlib import Path

OUT = Path(__file__).parent / "fired.log"


def handle(event_type, context):
    with OUT.open("a") as out:
        if event_type == "gateway:startup":
            out.write(f"{event_type}\\n")
            return None
        out.write(f"{event_type} {context['raw_command']} {context['args']}\\n")
    if event_type == "command:new":
        return {"decision": "deny", "message": "no /new in this chat"}
    if event_type == "command:retry":
        return {"decision": "rewrite", "command_name": "undo", "raw_args": "twice"}
    if event_type == "command:stop":
        time.sleep(3)  # past the 1 s bound: its late deny must not count
        return {"decision": "deny", "message": "too late"}
    return None
"""


def _hook(home: Path, name: str, events: list[str], handler: str) -> Path:
    folder = home / "hooks" / name
    folder.mkdir(parents=True)
    (folder / "HOOK.yaml").write_text(f"name: {name}\nevents: {events}\n")
    (folder / "handler.py").write_text(handler)
    return folder / "fired.log"


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(
        "plugins:\n  enabled: [hermes-hooks]\n  hook_callback_timeout: 1\n"
    )
    monkeypatch.setenv("HERMES_HOME", str(home))
    return home


@pytest.fixture
def gateway_hooks(home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """hermes-agent's gateway hook module, its hooks folder the test home's: were the
    agent's own discovery to run, it would load (and fire) the very same handlers."""
    module = importlib.import_module("gateway.hooks")
    monkeypatch.setattr(module, "HOOKS_DIR", home / "hooks")
    yield module
    release()


def _bridge(home: Path) -> Any:
    """The bridge, registered on a real plugin manager as hermes-agent registers it."""
    manager = plugins.PluginManager()
    manifest = plugins.PluginManifest(name="hermes-hooks", source="entrypoint", key="hermes-hooks")
    register(plugins.PluginContext(manifest, manager))
    return manager._hermes_hooks_bridge


def test_each_gateway_hook_fires_once_on_hermes_hooks_lanes(
    home: Path, gateway_hooks: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    logger = _hook(home, "logger", ["gateway:startup", "agent:start", "agent:end"], LOGGER)
    watcher = _hook(home, "watcher", ["agent:*"], WATCHER)
    policy = _hook(home, "policy", ["command:*"], POLICY)
    bridge = _bridge(home)
    records: list[CallRecord] = []
    try:
        # As the gateway runner does: the registry exists before plugins load, and
        # discovers after them.
        registry = gateway_hooks.HookRegistry()
        registry.discover_and_load()
        assert registry._handlers == {}  # the agent's registry loaded nothing itself
        assert registry.loaded_hooks == [
            {"name": n, "description": "", "events": e, "path": str(home / "hooks" / n)}
            for n, e in [
                ("logger", ["gateway:startup", "agent:start", "agent:end"]),
                ("policy", ["command:*"]),
                ("watcher", ["agent:*"]),
            ]
        ]
        emitter = bridge.hooks.gateway
        assert [h.key for h in emitter.hooks] == ["logger", "policy", "watcher"]
        emitter.subscribe(records.append)

        async def gateway() -> list[list[Any]]:
            await registry.emit("gateway:startup", {"platforms": ["telegram"]})
            await registry.emit("agent:start", {"session_id": "s1", "message": "hi"})
            await registry.emit("agent:step", {"session_id": "s1", "iteration": 1})
            await registry.emit("agent:end", {"session_id": "s1", "response": "done"})
            answers = []
            for command, args in [("new", ""), ("help", "me"), ("retry", "x"), ("stop", "")]:
                answers.append(
                    await registry.emit_collect(
                        f"command:{command}",
                        {
                            "platform": "telegram",
                            "user_id": "u1",
                            "command": command,
                            "raw_command": command,
                            "args": args,
                            "raw_args": args,
                        },
                    )
                )
            assert await emitter.drain(10) is True
            return answers

        answers = asyncio.run(gateway())
    finally:
        bridge.close()
    # What the gateway's slash-command dispatch reads: a deny with its reply, nothing
    # for an allow, a rewrite, and nothing for the handler past its bound.
    assert answers == [
        [{"decision": "deny", "message": "no /new in this chat"}],
        [],
        [{"decision": "rewrite", "command_name": "undo", "raw_args": "twice"}],
        [],
    ]
    # Each handler once per event; the sync ones on worker threads, never the loop's.
    assert _lines(logger) == [
        "gateway:startup - False",
        "agent:start s1 False",
        "agent:end s1 False",
    ]
    assert _lines(watcher) == ["agent:start", "agent:step", "agent:end"]
    assert _lines(policy) == [
        "command:new new ",
        "command:help help me",
        "command:retry retry x",
        "command:stop stop ",
    ]
    assert sorted((r.hook, r.event, r.outcome) for r in records) == sorted(
        [
            ("logger", "gateway:startup", "ok"),
            ("logger", "agent:start", "ok"),
            ("logger", "agent:end", "ok"),
            ("watcher", "agent:start", "ok"),
            ("watcher", "agent:step", "ok"),
            ("watcher", "agent:end", "ok"),
            ("policy", "command:new", "ok"),
            ("policy", "command:help", "ok"),
            ("policy", "command:retry", "ok"),
            ("policy", "command:stop", "timeout"),
        ]
    )
    # hermes-agent's registry prints each hook it loads: it loaded none.
    assert "[hooks]" not in capsys.readouterr().out


def test_the_takeover_waits_for_the_gateway_module_to_be_imported(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    logger = _hook(home, "logger", ["agent:start"], LOGGER)
    # A process whose plugins load before the gateway module is imported.
    monkeypatch.delitem(sys.modules, "gateway.hooks", raising=False)
    monkeypatch.delattr(importlib.import_module("gateway"), "hooks", raising=False)
    bridge = _bridge(home)
    try:
        module = importlib.import_module("gateway.hooks")  # reads HERMES_HOME: the test home
        assert Path(module.HOOKS_DIR) == home / "hooks"
        registry = module.HookRegistry()
        registry.discover_and_load()
        assert registry._handlers == {}

        async def gateway() -> bool:
            await registry.emit("agent:start", {"session_id": "s2"})
            drained: bool = await bridge.hooks.gateway.drain(10)
            return drained

        assert asyncio.run(gateway()) is True
    finally:
        bridge.close()
        release()
    assert _lines(logger) == ["agent:start s2 False"]
    # Released: the class has hermes-agent's own methods back.
    assert module.HookRegistry.emit.__module__ == "gateway.hooks"
    assert module.HookRegistry.loaded_hooks.fget.__module__ == "gateway.hooks"


def test_without_the_bridges_hooks_the_agents_registry_fires_them_once(
    home: Path, gateway_hooks: Any, caplog: pytest.LogCaptureFixture
) -> None:
    logger = _hook(home, "logger", ["agent:start"], LOGGER)
    (home / "config.yaml").write_text("hooks: [unclosed\n")  # the bridge cannot load it
    bridge = _bridge(home)
    assert bridge.hooks is None
    registry = gateway_hooks.HookRegistry()
    with caplog.at_level(logging.ERROR, logger="hermes_hooks.integrations"):
        registry.discover_and_load()
    assert [r.getMessage() for r in caplog.records if r.name == "hermes_hooks.integrations"][
        -1
    ] == (
        "hermes-hooks bridge: its hooks could not be loaded: ConfigError: "
        f"{home}/config.yaml:2:1: not valid YAML (while parsing a flow sequence expected ',' "
        "or ']', but got '<stream end>'); no hook or setting of this file applies until it "
        "is fixed. Fix: correct the YAML syntax at that line; hermes-agent's own registry "
        "runs the gateway hooks instead (once, without hermes-hooks' lanes and timeouts)"
    )
    assert list(registry._handlers) == ["agent:start"]
    assert [h["name"] for h in registry.loaded_hooks] == ["logger"]
    asyncio.run(registry.emit("agent:start", {"session_id": "s3"}))
    # hermes-agent runs a sync handler inline, on the loop's (main) thread.
    assert _lines(logger) == ["agent:start s3 True"]


def test_a_registry_that_discovered_before_the_bridge_keeps_its_own_handlers(
    home: Path, gateway_hooks: Any
) -> None:
    logger = _hook(home, "logger", ["agent:start"], LOGGER)
    registry = gateway_hooks.HookRegistry()
    registry.discover_and_load()  # natively: the bridge is not installed yet
    bridge = _bridge(home)
    try:
        asyncio.run(registry.emit("agent:start", {"session_id": "s4"}))
        assert "gateway" not in bridge.hooks.sources  # hermes-hooks loaded none
    finally:
        bridge.close()
    assert _lines(logger) == ["agent:start s4 True"]


def test_the_gateway_runner_starts_and_dispatches_slash_commands_through_the_bridge(
    home: Path, gateway_hooks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gateway.config import GatewayConfig, Platform
    from gateway.platforms.base import MessageEvent
    from gateway.run import GatewayRunner
    from gateway.session import SessionSource

    # The runner opens the agent's state.db at a path hermes_state fixed when it was
    # first imported (perhaps by another test, under another HERMES_HOME): this home's.
    monkeypatch.setattr(
        importlib.import_module("hermes_state"), "DEFAULT_DB_PATH", home / "state.db"
    )
    policy = _hook(home, "policy", ["command:*", "gateway:startup"], POLICY)
    monkeypatch.setenv("GATEWAY_ALLOW_ALL_USERS", "true")
    monkeypatch.setattr(plugins, "_plugin_manager", None)  # a fresh agent process
    # The gateway's own start-up order: the runner (and its hook registry) first, then
    # plugin discovery (the bridge loads from its entry point), then hook discovery.
    runner = GatewayRunner(GatewayConfig())
    plugins.discover_plugins()
    bridge = plugins.get_plugin_manager()._hermes_hooks_bridge
    try:
        runner.hooks.discover_and_load()
        assert runner.hooks._handlers == {}
        assert [h["name"] for h in runner.hooks.loaded_hooks] == ["policy"]

        async def gateway() -> list[str | None]:
            await runner.hooks.emit("gateway:startup", {"platforms": ["telegram"]})
            source = SessionSource(
                platform=Platform.TELEGRAM, chat_id="c1", user_id="u1", chat_type="dm"
            )
            replies = [
                await runner._handle_message(MessageEvent(text=text, source=source))
                for text in ["/new", "/stop"]
            ]
            assert await bridge.hooks.gateway.drain(10) is True
            return replies

        replies = asyncio.run(gateway())
    finally:
        bridge.close()
    # /new denied by the hook; /stop's deny came after the 1 s bound, so the gateway
    # ran its own /stop (nothing to stop: its own reply).
    assert replies == ["no /new in this chat", "No active task to stop."]
    # (gateway:startup waits on the hook's lane; a command is served at once)
    assert sorted(_lines(policy)) == ["command:new new ", "command:stop stop ", "gateway:startup"]
