"""The whole plugin context: every member, its registry, failures that never take the
host down, names read as hermes-agent reads them."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

import hermes_hooks
from hermes_hooks import HostCapabilities
from hermes_hooks.cli import main
from hermes_hooks.plugins.context import PluginToolOverrideError, profile_from_home
from tests.helpers import write_plugin

GUARD_WITH_TOOL = """
import json

def disk_usage(args, **kwargs):
    return json.dumps({"used": "1G", "path": args.get("path", ".")})

def guard(tool_name="", args=None, **kwargs):
    if tool_name == "terminal" and (args or {}).get("command", "").startswith("rm -rf /"):
        return {"action": "block", "message": "guard: no wiping the disk"}

def register(ctx):
    ctx.register_tool(
        name="disk_usage",
        toolset="disk",
        schema={"name": "disk_usage", "description": "Disk usage", "parameters": {}},
        handler=disk_usage,
        emoji="D",
    )
    ctx.register_hook("pre_tool_call", guard)
"""

TOOL_CALL = {"session_id": "s", "task_id": "t", "tool_call_id": "c", "turn_id": "u"}


def load(home: Path, **kwargs: Any) -> hermes_hooks.Hooks:
    kwargs.setdefault("entry_points", False)
    return hermes_hooks.load(home, **kwargs)


def run_cli(capsys: Any, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_a_tool_and_a_guard_registered_together_both_work(home: Path, capsys: Any) -> None:
    write_plugin(home / "plugins", "disk-guard", GUARD_WITH_TOOL)
    hooks = load(home)
    blocked = hooks.pre_tool_call(tool_name="terminal", args={"command": "rm -rf /"}, **TOOL_CALL)
    allowed = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}, **TOOL_CALL)
    tool = hooks.registry.tools["disk_usage"]
    hooks.close()
    assert (blocked.action, blocked.message) == ("block", "guard: no wiping the disk")
    assert allowed.action == "allow"
    assert (tool.plugin, tool.toolset, tool.description, tool.emoji) == (
        "disk-guard",
        "disk",
        "Disk usage",
        "D",
    )
    assert json.loads(tool.handler({"path": "/"})) == {"used": "1G", "path": "/"}

    code, out = run_cli(capsys, "--home", str(home), "--no-entry-points", "list", "--json")
    assert code == 0
    plugin = next(p for p in json.loads(out)["python"] if p["key"] == "disk-guard")
    assert plugin["hooks"] == ["pre_tool_call"]
    assert plugin["registrations"] == {"tools": ["disk_usage"]}
    code, out = run_cli(capsys, "--home", str(home), "--no-entry-points", "list")
    assert code == 0
    lines = out.splitlines()
    start = lines.index(f"  ✓ disk-guard  [directory]  0.1 ({home / 'plugins' / 'disk-guard'})")
    assert lines[start + 1 : start + 3] == ["      hooks: pre_tool_call", "      tools: disk_usage"]


def test_a_base_exception_in_register_never_escapes_load(home: Path, capsys: Any) -> None:
    write_plugin(
        home / "plugins",
        "panicky",
        "class Panic(BaseException):\n"
        "    pass\n"
        "\n"
        "def register(ctx):\n"
        "    ctx.register_tool('t', 'ts', {}, lambda args: '')\n"
        "    raise Panic('licence server unreachable')\n",
    )
    write_plugin(home / "plugins", "calm", GUARD_WITH_TOOL)
    hooks = load(home)  # returns: the host survives
    records = {r.key: r for r in hooks.sources["python"].records()}
    tools = dict(hooks.registry.tools)
    hooks.close()
    init = home / "plugins" / "panicky" / "__init__.py"
    assert records["panicky"].state == "failed"
    assert records["panicky"].location == f"{init}:6"
    assert records["calm"].state == "loaded"
    assert sorted(tools) == ["disk_usage"]  # the failed plugin's tool was removed

    code, out = run_cli(capsys, "--home", str(home), "--no-entry-points", "doctor")
    assert code == 1
    assert (
        f"✗ plugin panicky: failed to load: Panic: licence server unreachable (raised at {init}:6)"
    ) in out.splitlines()


def test_keyboard_interrupt_still_stops_the_load(home: Path) -> None:
    write_plugin(home / "plugins", "ctrl-c", "def register(ctx):\n    raise KeyboardInterrupt\n")
    with pytest.raises(KeyboardInterrupt):
        load(home)


def test_a_plugin_that_registers_nothing_is_a_doctor_warning(home: Path, capsys: Any) -> None:
    write_plugin(
        home / "plugins",
        "idle",
        "try:\n"
        "    from agent.not_installed_here import Guard\n"
        "except ImportError:\n"
        "    Guard = None\n"
        "\n"
        "def register(ctx):\n"
        "    if Guard is not None:\n"
        "        ctx.register_hook('pre_tool_call', Guard().check)\n",
    )
    code, out = run_cli(capsys, "--home", str(home), "--no-entry-points", "doctor")
    assert code == 0
    assert (
        "⚠ plugin idle: loaded but registered nothing (often an optional import inside "
        "it failed, or it found no configuration)"
    ) in out.splitlines()


def test_an_unknown_hook_name_is_kept_inert_and_is_a_doctor_warning(
    home: Path, capsys: Any
) -> None:
    write_plugin(
        home / "plugins",
        "typo",
        "def register(ctx):\n    ctx.register_hook('post_tool_cal', lambda **kw: None)\n",
    )
    hooks = load(home)
    inert = [(h.plugin, h.hook) for h in hooks.registry.inert_hooks]
    hooks.close()
    assert inert == [("typo", "post_tool_cal")]
    code, out = run_cli(capsys, "--home", str(home), "--no-entry-points", "doctor")
    assert code == 0
    assert (
        "⚠ plugin typo: Plugin 'typo' registered unknown hook 'post_tool_cal' — did you mean "
        "'post_tool_call'? Kept inert: it never fires."
    ) in out.splitlines()


def test_a_guard_registered_under_a_misspelt_gate_name_is_a_doctor_error(
    home: Path, capsys: Any, caplog: pytest.LogCaptureFixture
) -> None:
    write_plugin(
        home / "plugins",
        "typo",
        "def register(ctx):\n"
        "    ctx.register_hook('pre_tool_cal', lambda **kw: {'action': 'block', 'message': 'x'})\n",
    )
    hooks = load(home)
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}, **TOOL_CALL)
    inert = [(h.plugin, h.hook) for h in hooks.registry.inert_hooks]
    hooks.close()
    # The guard never runs: the call is allowed, and that must not pass quietly.
    assert decision.action == "allow"
    assert inert == [("typo", "pre_tool_cal")]
    message = (
        "Plugin 'typo' registered unknown hook 'pre_tool_cal' — did you mean "
        "'pre_tool_call'? Kept inert: it never fires."
    )
    assert [(r.levelname, r.getMessage()) for r in caplog.records if r.name.endswith("plugins")][
        :1
    ] == [("ERROR", message)]
    code, out = run_cli(capsys, "--home", str(home), "--no-entry-points", "doctor")
    assert code == 1
    assert f"✗ plugin typo: {message}" in out.splitlines()


def test_a_directory_plugin_is_keyed_by_its_manifest_name(home: Path) -> None:
    note = "def register(ctx):\n    ctx.register_hook('on_session_start', lambda **kw: None)\n"
    write_plugin(home / "plugins", "guard-dir", note, manifest="name: guard\n")
    write_plugin(home / "plugins", "image_gen/openai", note, manifest="name: openai-images\n")
    write_plugin(home / "plugins", "unnamed", note, manifest="version: '1'\n")
    hooks = load(home)
    keys = {r.key: r.name for r in hooks.sources["python"].records()}
    hooks.close()
    assert keys == {"guard": "guard", "image_gen/openai": "openai-images", "unnamed": "unnamed"}


@pytest.mark.parametrize(
    ("enabled", "disabled", "loaded"),
    [
        (["guard"], [], ["guard"]),
        (["openai-images"], [], ["image_gen/openai"]),  # the manifest name matches too
        (["image_gen/openai"], [], ["image_gen/openai"]),
        (["guard-dir"], [], []),  # the directory name is not the key
        (None, ["openai-images"], ["guard"]),
        (["guard", "image_gen/openai"], ["image_gen/openai"], ["guard"]),
    ],
)
def test_enabled_and_disabled_match_the_key_or_the_manifest_name(
    home: Path, enabled: list[str] | None, disabled: list[str], loaded: list[str]
) -> None:
    note = "def register(ctx):\n    ctx.register_hook('on_session_start', lambda **kw: None)\n"
    write_plugin(home / "plugins", "guard-dir", note, manifest="name: guard\n")
    write_plugin(home / "plugins", "image_gen/openai", note, manifest="name: openai-images\n")
    config = {"plugins": {"disabled": disabled, **({"enabled": enabled} if enabled else {})}}
    (home / "config.yaml").write_text(json.dumps(config), encoding="utf-8")
    hooks = load(home)
    states = sorted(r.key for r in hooks.sources["python"].records() if r.state == "loaded")
    hooks.close()
    assert states == loaded


EVERY_MEMBER = """
import json
from pathlib import Path

SKILL = Path(__file__).with_name("SKILL.md")
SKILL.write_text("---\\nname: s\\n---\\n")

class Engine:
    name = "engine-1"

def register(ctx):
    ctx.register_command("/My Command", lambda raw: raw, args_hint=" <x> ")
    ctx.register_command("help", lambda raw: raw)
    ctx.register_command("   ", lambda raw: raw)
    ctx.register_cli_command("mine", "My subcommand", lambda parser: None)
    ctx.register_skill("notes", SKILL, description="Notes")
    ctx.register_auxiliary_task("my_task", display_name="Mine", description="d",
                                defaults={"timeout": 5})
    ctx.register_middleware("tool_request", lambda **kw: None)
    ctx.register_middleware("tool_exec", lambda **kw: None)
    ctx.register_platform("chat", "Chat", lambda cfg: None, lambda: True, emoji="C")
    ctx.register_slack_action_handler("approve", lambda ack, body, action: None)
    ctx.register_context_engine(Engine())
    second = Engine()
    second.name = "engine-2"
    ctx.register_context_engine(second)
    for kind in ("image_gen", "video_gen", "web_search", "browser", "tts",
                 "transcription", "dashboard_auth"):
        provider = type("P", (), {"name": kind + "-1"})()
        getattr(ctx, f"register_{kind}_provider")(provider)
    ctx.register_secret_source(type("S", (), {"name": "vault"})())
    ctx.register_image_gen_provider(object())
    ctx.register_tool("echo", "mine", {"description": "Echo"}, lambda args, **kw: json.dumps(args))
    ctx.register_tool("echo", "other", {}, lambda args, **kw: "shadow")
    ctx.register_hook("on_session_start", lambda **kw: None)
"""


def test_every_registration_lands_in_the_registry_and_leaves_on_unload(
    home: Path, caplog: Any
) -> None:
    write_plugin(home / "plugins", "every", EVERY_MEMBER)
    hooks = load(home)
    reg = hooks.registry
    record = hooks.sources["python"].records()[0]
    assert record.state == "loaded", record.error
    assert [(c.name, c.args_hint, c.description) for c in reg.commands.values()] == [
        ("my-command", "<x>", "Plugin command")
    ]
    assert list(reg.cli_commands) == ["mine"]
    assert list(reg.skills) == ["every:notes"]
    assert dict(reg.auxiliary_tasks["my_task"].defaults) == {
        "provider": "auto",
        "model": "",
        "base_url": "",
        "api_key": "",
        "timeout": 5,
        "extra_body": {},
    }
    assert [m.kind for m in reg.middleware] == ["tool_request", "tool_exec"]
    assert reg.platforms["chat"].extra == {"emoji": "C", "plugin_name": "every"}
    assert [h.action_id for h in reg.slack_action_handlers] == ["approve"]
    assert [f"{p.kind}:{p.name}" for p in reg.providers] == [
        "context_engine:engine-1",
        "image_gen:image_gen-1",
        "video_gen:video_gen-1",
        "web_search:web_search-1",
        "browser:browser-1",
        "tts:tts-1",
        "transcription:transcription-1",
        "dashboard_auth:dashboard_auth-1",
        "secret_source:vault",
    ]
    assert reg.tools["echo"].toolset == "mine"  # the shadowing one was refused
    assert record.registrations == {
        "tools": ["echo"],
        "commands": ["my-command"],
        "cli_commands": ["mine"],
        "skills": ["every:notes"],
        "auxiliary_tasks": ["my_task"],
        "platforms": ["chat"],
        "middleware": ["tool_request", "tool_exec"],
        "providers": [
            "context_engine:engine-1",
            "image_gen:image_gen-1",
            "video_gen:video_gen-1",
            "web_search:web_search-1",
            "browser:browser-1",
            "tts:tts-1",
            "transcription:transcription-1",
            "dashboard_auth:dashboard_auth-1",
            "secret_source:vault",
        ],
        "slack_action_handlers": ["approve"],
    }
    messages = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert (
        "Plugin 'every' tried to register command '/help' which conflicts with a built-in "
        "command. Skipping." in messages
    )
    assert "Plugin 'every' tried to register a command with an empty name." in messages
    assert (
        "Plugin 'every' tried to register a context engine, but one is already registered. "
        "Only one context engine plugin is allowed."
    ) in messages
    assert (
        "Plugin 'every' tried to register an image_gen provider that does not inherit from "
        "ImageGenProvider. Ignoring."
    ) in messages
    hooks.unload()
    assert (dict(reg.tools), dict(reg.commands), reg.middleware, reg.providers) == ({}, {}, (), ())
    hooks.reload()
    assert list(hooks.registry.tools) == ["echo"]
    hooks.close()


RAISES = [
    ("ctx.register_skill('a:b', Path(__file__))", ValueError, "must not contain ':'"),
    ("ctx.register_skill('a b', Path(__file__))", ValueError, "Invalid skill name 'a b'"),
    ("ctx.register_skill('ok', Path('/nope/SKILL.md'))", FileNotFoundError, "SKILL.md not found"),
    (
        "ctx.register_auxiliary_task('vision', display_name='v', description='d')",
        ValueError,
        "reserved for a built-in task",
    ),
    (
        "ctx.register_auxiliary_task('a-b', display_name='v', description='d')",
        ValueError,
        "must contain only alphanumeric characters and underscores",
    ),
    ("ctx.register_slack_action_handler('', print)", ValueError, "empty action_id"),
    ("ctx.register_slack_action_handler('x', 'no')", ValueError, "non-callable callback"),
    (
        "ctx.register_platform('p', 'P', print, print, colour='red')",
        TypeError,
        "unexpected keyword argument 'colour'",
    ),
    (
        "ctx.register_tool('terminal', 't', {}, print, override=True)",
        PluginToolOverrideError,
        "Set plugins.entries.bad.allow_tool_override: true in config.yaml",
    ),
]


@pytest.mark.parametrize(("call", "error", "text"), RAISES)
def test_invalid_registrations_raise_as_in_hermes_agent(
    home: Path, call: str, error: type[Exception], text: str
) -> None:
    write_plugin(
        home / "plugins", "bad", f"from pathlib import Path\n\ndef register(ctx):\n    {call}\n"
    )
    hooks = load(home)
    record = hooks.sources["python"].records()[0]
    hooks.close()
    assert record.state == "failed"
    assert record.error is not None
    assert record.error.startswith(f"{error.__name__}: ")
    assert text in record.error


def test_tool_override_is_allowed_by_the_operator(home: Path) -> None:
    write_plugin(
        home / "plugins",
        "swap",
        "def register(ctx):\n    ctx.register_tool('terminal', 'mine', {}, print, override=True)\n",
    )
    (home / "config.yaml").write_text(
        "plugins:\n  entries:\n    swap:\n      allow_tool_override: true\n", encoding="utf-8"
    )
    hooks = load(home, host=HostCapabilities(builtin_tools={"terminal": "core"}))
    tool = hooks.registry.tools["terminal"]
    hooks.close()
    assert (tool.toolset, tool.override) == ("mine", True)


HOST_SIDE = """
import json, os
from pathlib import Path

def register(ctx):
    ctx.register_tool("echo", "t", {}, lambda args, **kw: json.dumps(args))
    answers = {
        "inject": ctx.inject_message("hi", role="system"),
        "dispatch": ctx.dispatch_tool("echo", {"a": 1}),
        "unknown": ctx.dispatch_tool("nope", {}),
        "profile": ctx.profile_name,
        "same_llm": ctx.llm is ctx.llm,
    }
    try:
        ctx.llm.complete(messages=[])
        answers["llm"] = "answered"
    except RuntimeError as exc:
        answers["llm"] = str(exc)
    Path(os.environ["HERMES_HOME"], "answers.json").write_text(json.dumps(answers))
    ctx.register_hook("on_session_start", lambda **kw: None)
"""


def test_host_capabilities_missing_behave_as_hermes_agent_without_them(
    home: Path, monkeypatch: pytest.MonkeyPatch, caplog: Any
) -> None:
    monkeypatch.setenv("HERMES_HOME", str(home))
    write_plugin(home / "plugins", "host-side", HOST_SIDE)
    load(home).close()
    answers = json.loads((home / "answers.json").read_text())
    assert answers == {
        "inject": False,
        "dispatch": '{"a": 1}',
        "unknown": '{"error": "Unknown tool: nope"}',
        "profile": profile_from_home(home),
        "same_llm": True,
        "llm": "plugin 'host-side' called ctx.llm, but this host lent no model: pass "
        "load(..., host=HostCapabilities(llm=...))",
    }
    assert "inject_message: no CLI reference (not available in gateway mode)" in [
        r.getMessage() for r in caplog.records
    ]


def test_host_capabilities_are_what_plugins_get(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HERMES_HOME", str(home))
    write_plugin(home / "plugins", "host-side", HOST_SIDE)
    injected: list[tuple[str, str]] = []

    class Model:
        def __init__(self, plugin_id: str) -> None:
            self.plugin_id = plugin_id

        def complete(self, **kwargs: Any) -> str:
            return f"model for {self.plugin_id}"

    host = HostCapabilities(
        llm=Model,
        inject_message=lambda content, role: injected.append((content, role)) is None,
        dispatch_tool=lambda name, args, **kw: f"host ran {name}",
        profile_name="work",
    )
    load(home, host=host).close()
    answers = json.loads((home / "answers.json").read_text())
    assert answers == {
        "inject": True,
        "dispatch": "host ran echo",
        "unknown": "host ran nope",
        "profile": "work",
        "same_llm": True,
        "llm": "answered",
    }
    assert injected == [("hi", "system")]


@pytest.mark.parametrize(
    ("relative", "expected"),
    [
        ("", "default"),
        ("profiles/coder", "coder"),
        ("profiles/Bad Name", "custom"),
        ("elsewhere", "custom"),
    ],
)
def test_profile_name_follows_hermes_agents_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, relative: str, expected: str
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    home = tmp_path / ".hermes" / relative
    home.mkdir(parents=True, exist_ok=True)
    assert profile_from_home(home) == expected


def test_a_home_outside_dot_hermes_is_its_own_root(tmp_path: Path) -> None:
    assert profile_from_home(tmp_path / "data") == "default"
    assert profile_from_home(tmp_path / "data" / "profiles" / "ops") == "ops"


def test_a_base_exception_while_importing_is_caught_with_its_line(home: Path) -> None:
    write_plugin(
        home / "plugins",
        "exits",
        "import os\n\nclass Abort(BaseException):\n    pass\n\nraise Abort('no config')\n",
    )
    hooks = load(home)
    record = hooks.sources["python"].records()[0]
    hooks.close()
    init = home / "plugins" / "exits" / "__init__.py"
    assert (record.state, record.error) == (
        "failed",
        f"Abort: no config (raised at {init}:6)",
    )


def test_a_misspelt_optional_parameter_is_an_error_on_a_gate_and_a_warning_elsewhere(
    home: Path, capsys: Any
) -> None:
    write_plugin(
        home / "plugins",
        "typos",
        "def guard(tool_nmae=None, args=None, strict=False, **kwargs):\n"
        "    if tool_nmae == 'terminal':\n"
        "        return {'action': 'block', 'message': 'never'}\n"
        "def observe(tool_name, resutl=None, **kwargs):\n"
        "    return None\n"
        "def register(ctx):\n"
        "    ctx.register_hook('pre_tool_call', guard)\n"
        "    ctx.register_hook('post_tool_call', observe)\n",
    )
    hooks = load(home)
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}, **TOOL_CALL)
    hooks.close()
    assert decision.action == "allow"  # the guard never saw the tool name
    code, out = run_cli(capsys, "--home", str(home), "--no-entry-points", "doctor")
    assert code == 1
    lines = out.splitlines()
    # strict=False resembles no payload field: the plugin's own setting, left alone.
    assert (
        "✗ plugin typos: Plugin 'typos': its pre_tool_call callback guard declares "
        "tool_nmae=… (did you mean 'tool_name'?), which no firing passes, so it always gets "
        "its default. Fix: use the payload field's name"
    ) in lines
    assert (
        "⚠ plugin typos: Plugin 'typos': its post_tool_call callback observe declares "
        "resutl=… (did you mean 'result'?), which no firing passes, so it always gets its "
        "default. Fix: use the payload field's name"
    ) in lines
    assert [line for line in lines if "strict" in line] == []
