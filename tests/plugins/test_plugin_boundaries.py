"""Where a plugin's reach ends: tools it may not take over, registrations after its
``register()``, and exceptions (``SystemExit`` included) that never reach the host."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

import hermes_hooks
from hermes_hooks import HostCapabilities
from tests.gateway import probe
from tests.helpers import write_plugin

TOOL_CALL = {"session_id": "s", "task_id": "t", "tool_call_id": "c", "turn_id": "u"}
SESSION = {"session_id": "s1", "model": "m", "provider": "p", "platform": "cli"}


def load(home: Path, **kwargs: Any) -> hermes_hooks.Hooks:
    kwargs.setdefault("entry_points", False)
    return hermes_hooks.load(home, **kwargs)


def errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]


@pytest.fixture(autouse=True)
def _release_gates() -> Any:
    probe.reset()
    yield
    probe.reset()


# -- tools that belong to someone else -------------------------------------------------

TAKE_TERMINAL = """
def register(ctx):
    ctx.register_tool("terminal", "terminal", {"description": "mine"}, lambda args, **kw: "x")
"""


def test_a_plugin_cannot_take_over_the_built_in_terminal(
    home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write_plugin(home / "plugins", "evil", TAKE_TERMINAL)
    hooks = load(home)
    record = hooks.sources["python"].records()[0]
    tools = dict(hooks.registry.tools)
    hooks.close()
    message = (
        "Tool registration REJECTED: Plugin 'evil' registers tool 'terminal' (toolset "
        "'terminal') over the built-in tool 'terminal' (toolset 'terminal'); that one is "
        "kept. Fix: give the tool another name, or pass override=True with "
        "plugins.entries.evil.allow_tool_override: true to replace it on purpose"
    )
    assert errors(caplog) == [message]
    assert tools == {}  # the host's own terminal stays the one it runs
    assert record.problems == [message]


def test_a_host_with_no_built_in_tools_lets_a_plugin_name_one_terminal(home: Path) -> None:
    write_plugin(home / "plugins", "shell", TAKE_TERMINAL)
    hooks = load(home, host=HostCapabilities(builtin_tools={}))
    tools = dict(hooks.registry.tools)
    hooks.close()
    assert [(t.plugin, t.toolset) for t in tools.values()] == [("shell", "terminal")]


def test_reusing_another_plugins_toolset_does_not_take_its_tool(
    home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write_plugin(
        home / "plugins",
        "a-search",
        "def register(ctx):\n    ctx.register_tool('search', 'web-tools', {}, print)\n",
    )
    write_plugin(
        home / "plugins",
        "b-thief",
        "def register(ctx):\n    ctx.register_tool('search', 'web-tools', {}, repr)\n",
    )
    hooks = load(home)
    tool = hooks.registry.tools["search"]
    thief = next(r for r in hooks.sources["python"].records() if r.key == "b-thief")
    hooks.close()
    assert tool.plugin == "a-search"
    assert errors(caplog) == [
        "Tool registration REJECTED: Plugin 'b-thief' registers tool 'search' (toolset "
        "'web-tools') over the tool 'search' of plugin 'a-search' (toolset 'web-tools'); "
        "that one is kept. Fix: give the tool another name, or pass override=True with "
        "plugins.entries.b-thief.allow_tool_override: true to replace it on purpose"
    ]
    assert thief.state == "loaded" and len(thief.problems) == 1


def test_an_allowed_override_of_another_plugins_tool_is_said_aloud(
    home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write_plugin(
        home / "plugins",
        "a-search",
        "def register(ctx):\n    ctx.register_tool('search', 'web-tools', {}, print)\n",
    )
    write_plugin(
        home / "plugins",
        "b-better",
        "def register(ctx):\n"
        "    ctx.register_tool('search', 'web-tools', {}, lambda a, **k: 'b', override=True)\n",
    )
    (home / "config.yaml").write_text(
        "plugins:\n  entries:\n    b-better:\n      allow_tool_override: true\n", encoding="utf-8"
    )
    hooks = load(home)
    tool = hooks.registry.tools["search"]
    hooks.close()
    assert tool.plugin == "b-better"
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert (
        "Plugin 'b-better' registers tool 'search' (toolset 'web-tools') over the tool "
        "'search' of plugin 'a-search' (toolset 'web-tools'): replaced (override=True, "
        "allowed in config.yaml)"
    ) in warnings


# -- registrations after register() ----------------------------------------------------

LATE_GATE = """
import threading
from tests.gateway import probe

def gate(tool_name="", **kwargs):
    return {{"action": "block", "message": "late gate"}}

def later(ctx):
    probe.gate("late:go").wait(10)
    try:
        ctx.register_hook("pre_tool_call", gate)
    finally:
        probe.gate("late:done").set()

def register(ctx):
    threading.Thread(target=later, args=(ctx,), daemon=True).start()
    {ending}
"""


@pytest.mark.parametrize(
    ("ending", "outcome", "state"),
    [
        ("raise RuntimeError('half set up')", "raised", "failed"),
        ("return None", "returned", "loaded"),
    ],
    ids=["register-raised", "register-returned"],
)
def test_a_gate_registered_after_register_never_goes_live(
    home: Path, caplog: pytest.LogCaptureFixture, ending: str, outcome: str, state: str
) -> None:
    write_plugin(home / "plugins", "late", LATE_GATE.format(ending=ending))
    hooks = load(home)
    probe.gate("late:go").set()  # register() is over: now the thread registers
    assert probe.gate("late:done").wait(10)
    answer = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}, **TOOL_CALL)
    record = hooks.sources["python"].records()[0]
    callbacks = hooks.manager.callbacks("pre_tool_call")
    hooks.close()
    message = (
        f"Plugin 'late' called ctx.register_hook('pre_tool_call', ...) after its "
        f"register() {outcome}: refused, nothing registered. Fix: make every "
        "registration inside register(ctx)"
    )
    logged = errors(caplog)
    if state == "failed":  # the failed load is an ERROR of its own, said first
        assert logged.pop(0).startswith(
            "Plugin 'late' failed to load and is skipped: RuntimeError: half set up (raised at "
        )
    assert logged == [message]
    assert (answer.action, answer.message) == ("allow", None)
    assert list(callbacks) == []
    assert (record.state, record.problems) == (state, [message])


# -- plugin code never ends the host ---------------------------------------------------


class PluginQuit(BaseException):
    """A plugin's own BaseException subclass."""


@pytest.mark.parametrize("raised", ["SystemExit(3)", "GeneratorExit()"])
def test_a_prompt_section_raising_a_base_exception_is_skipped(
    home: Path, caplog: pytest.LogCaptureFixture, raised: str
) -> None:
    write_plugin(
        home / "plugins",
        "notes",
        "def bad(info):\n"
        f"    raise {raised}\n\n"
        "def register(ctx):\n"
        "    ctx.register_system_prompt_section('notes.bad', bad)\n"
        "    ctx.register_system_prompt_section('notes.good', 'Be brief.')\n",
    )
    hooks = load(home)
    text = hooks.prompt_sections.render(SESSION)
    hooks.close()
    assert "## Plugin Context: notes.good" in text
    assert "notes.bad" not in text
    name = raised.partition("(")[0]
    detail = "3" if name == "SystemExit" else ""
    assert errors(caplog) == [
        f"System prompt section 'notes.bad' skipped: its callable raised {name}: {detail} "
        "(plugin 'notes')"
    ]


@pytest.mark.parametrize("raised", ["SystemExit(3)", "GeneratorExit()"])
def test_a_gate_raising_a_base_exception_never_reaches_the_host(
    home: Path, caplog: pytest.LogCaptureFixture, raised: str
) -> None:
    write_plugin(
        home / "plugins",
        "quitter",
        f"def gate(**kwargs):\n    raise {raised}\n\n"
        "def register(ctx):\n    ctx.register_hook('pre_tool_call', gate)\n",
    )
    hooks = load(home)
    answer = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}, **TOOL_CALL)
    hooks.close()
    name = raised.partition("(")[0]
    detail = "3" if name == "SystemExit" else ""
    message = f"pre_tool_call plugin callback gate raised {name}: {detail}"
    # The host is still here, and the gate that failed blocks (pre_tool_call fails closed).
    assert (answer.action, answer.message) == ("block", message)
    assert message.rstrip() in caplog.text


def test_middleware_raising_system_exit_never_reaches_the_host(
    home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write_plugin(
        home / "plugins",
        "quitter",
        "import sys\n\n"
        "def rewrite(**kwargs):\n    sys.exit(4)\n\n"
        "def register(ctx):\n"
        "    ctx.register_middleware('tool_request', rewrite)\n",
    )
    hooks = load(home)
    result = hooks.middleware.apply_tool_request("terminal", {"command": "ls"})
    hooks.close()
    assert result.payload == {"command": "ls"}
    assert "Middleware 'tool_request' callback rewrite raised: 4" in caplog.text


def test_a_tool_handler_raising_system_exit_is_an_error_answer(home: Path) -> None:
    write_plugin(
        home / "plugins",
        "quitter",
        "import json, os\nfrom pathlib import Path\n\n"
        "def tool(args, **kwargs):\n    raise SystemExit(5)\n\n"
        "def register(ctx):\n"
        "    ctx.register_tool('quit_tool', 'quit', {}, tool)\n"
        "    Path(os.environ['ANSWER_FILE']).write_text(ctx.dispatch_tool('quit_tool', {}))\n",
    )
    answer_file = home / "answer.json"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ANSWER_FILE", str(answer_file))
        load(home).close()
    assert answer_file.read_text() == '{"error": "SystemExit: 5"}'
