"""Python plugins: directories, entry points, order, isolation, enable/disable, reload."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

import pytest

import hermes_hooks
from hermes_hooks.cli import main
from tests.helpers import tool_payload, write_plugin

SESSION = {"session_id": "s1", "model": "m", "platform": "cli"}

RECORDER = """
import os
LOG = os.environ["HERMES_TEST_LOG"]

def _note(text):
    with open(LOG, "a", encoding="utf-8") as fh:
        fh.write(text + "\\n")

def register(ctx):
{body}
"""


@pytest.fixture
def log_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "calls.log"
    monkeypatch.setenv("HERMES_TEST_LOG", str(path))
    return path


def recorder(body: str) -> str:
    return RECORDER.format(body="\n".join("    " + line for line in body.strip().splitlines()))


def calls(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def load(home: Path, **kwargs: Any) -> hermes_hooks.Hooks:
    kwargs.setdefault("entry_points", False)
    return hermes_hooks.load(home, **kwargs)


def test_plugins_run_in_key_order_then_registration_order(home: Path, log_file: Path) -> None:
    plugins = home / "plugins"
    write_plugin(
        plugins,
        "b",
        recorder("""
ctx.register_hook("on_session_start", lambda **kw: _note("b-x"))
ctx.register_hook("on_session_start", lambda **kw: _note("b-y"))
"""),
    )
    write_plugin(
        plugins,
        "a",
        recorder("""
ctx.register_hook("on_session_start", lambda **kw: _note("a-late"), trylast=True)
ctx.register_hook("on_session_start", lambda **kw: _note("a"))
"""),
    )
    write_plugin(
        plugins,
        "tools/z",
        recorder("""
ctx.register_hook("on_session_start", lambda **kw: _note("tools/z-first"), tryfirst=True)
"""),
    )
    write_plugin(
        plugins, "C", recorder('ctx.register_hook("on_session_start", lambda **kw: _note("C"))')
    )
    hooks = load(home)
    hooks.on_session_start(**SESSION)
    hooks.close()
    # Code-point order: "C" < "a" < "b" < "tools/z"; tryfirst/trylast move across plugins.
    assert calls(log_file) == ["tools/z-first", "C", "a", "b-x", "b-y", "a-late"]
    assert hooks.manager.plugin_order() == ["C", "a", "b", "tools/z"]


def test_requires_plugins_moves_a_plugin_only_as_far_as_needed(home: Path, log_file: Path) -> None:
    plugins = home / "plugins"
    for key in ("a", "c", "d"):
        write_plugin(
            plugins,
            key,
            recorder(f'ctx.register_hook("on_session_start", lambda **kw: _note("{key}"))'),
        )
    write_plugin(
        plugins,
        "b",
        recorder('ctx.register_hook("on_session_start", lambda **kw: _note("b"))'),
        manifest="name: b\nrequires_plugins: [c]\n",
    )
    hooks = load(home)
    hooks.on_session_start(**SESSION)
    hooks.close()
    assert calls(log_file) == ["a", "c", "b", "d"]


@pytest.mark.parametrize(
    ("files", "error"),
    [
        (
            {"plugin.yaml": "- a list\n", "__init__.py": "def register(ctx): pass\n"},
            "plugin.yaml must be a mapping of keys (name, version, description, "
            "requires_plugins), got list",
        ),
        ({"plugin.yaml": "name: [unclosed\n", "__init__.py": ""}, "not valid YAML"),
        (
            {"plugin.yaml": "name: broken\n"},
            "__init__.py is missing: a plugin directory needs __init__.py",
        ),
        (
            {"plugin.yaml": "name: broken\n", "__init__.py": "x = 1\n"},
            "defines no register(ctx) function",
        ),
        (
            {"plugin.yaml": "name: broken\n", "__init__.py": "import no_such_module_zz\n"},
            "ModuleNotFoundError: No module named 'no_such_module_zz'",
        ),
        (
            {
                "plugin.yaml": "name: broken\n",
                "__init__.py": "def register(ctx):\n    raise RuntimeError('kaput')\n",
            },
            "RuntimeError: kaput",
        ),
        (
            {"plugin.yaml": "name: broken\n", "__init__.py": "import sys\nsys.exit(4)\n"},
            "SystemExit: 4",
        ),
        (
            {"plugin.yaml": "requires_plugins: c\n", "__init__.py": "def register(ctx): pass\n"},
            "'requires_plugins' must be a list of plugin names",
        ),
    ],
    ids=[
        "not-mapping",
        "bad-yaml",
        "no-init",
        "no-register",
        "import-error",
        "register-raises",
        "sys-exit",
        "bad-requires",
    ],
)
def test_a_broken_plugin_is_skipped_and_the_others_still_fire(
    home: Path, log_file: Path, caplog: Any, files: dict[str, str], error: str
) -> None:
    broken = home / "plugins" / "broken"
    broken.mkdir(parents=True)
    for name, text in files.items():
        (broken / name).write_text(text, encoding="utf-8")
    write_plugin(
        home / "plugins",
        "good",
        recorder('ctx.register_hook("on_session_start", lambda **kw: _note("good"))'),
    )
    hooks = load(home)
    hooks.on_session_start(**SESSION)
    records = {r.key: r for r in hooks.sources["python"].records()}
    hooks.close()
    assert calls(log_file) == ["good"]
    assert records["broken"].state == "failed"
    assert error in (records["broken"].error or "")
    assert records["good"].state == "loaded"
    # An ERROR: what it would have registered, a gate included, does not run.
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 1
    assert errors[0].startswith("Plugin 'broken' failed to load and is skipped: ")
    assert errors[0].endswith(
        ". None of its hooks run; fix the error, or disable the plugin if it is not wanted"
    )
    assert [r for r in caplog.records if r.levelno == logging.WARNING] == []


def test_a_failed_register_removes_what_it_registered_before_raising(
    home: Path, log_file: Path
) -> None:
    write_plugin(
        home / "plugins",
        "half",
        recorder("""
ctx.register_hook("on_session_start", lambda **kw: _note("half"))
raise RuntimeError("after registering")
"""),
    )
    hooks = load(home)
    hooks.on_session_start(**SESSION)
    hooks.close()
    assert calls(log_file) == []
    assert hooks.manager.callbacks("on_session_start") == ()


def test_bad_callbacks_are_refused_one_by_one(home: Path, log_file: Path, caplog: Any) -> None:
    write_plugin(
        home / "plugins",
        "p",
        recorder("""
def needs_flavour(flavour):
    pass
ctx.register_hook("on_sesion_start", lambda **kw: _note("typo"))
ctx.register_hook("on_session_start", needs_flavour)
ctx.register_hook("on_session_start", lambda **kw: _note("fine"))
"""),
    )
    hooks = load(home)
    hooks.on_session_start(**SESSION)
    record = hooks.sources["python"].records()[0]
    hooks.close()
    assert calls(log_file) == ["fine"]
    assert record.state == "loaded"
    assert record.hooks == ["on_session_start"]
    # An unknown name is kept inert with a warning, as hermes-agent keeps it.
    assert record.warnings == [
        "Plugin 'p' registered unknown hook 'on_sesion_start' — did you mean "
        "'on_session_start'? Kept inert: it never fires."
    ]
    assert [h.hook for h in hooks.registry.inert_hooks] == ["on_sesion_start"]
    assert len(record.problems) == 1
    assert "required parameter(s) flavour are not payload fields" in record.problems[0]
    assert [
        r.getMessage() for r in caplog.records if r.levelno == logging.WARNING
    ] == record.warnings + record.problems


def test_a_gate_refused_as_uncallable_is_an_error_and_a_duplicate_is_a_warning(
    home: Path, caplog: Any
) -> None:
    # The first pre_tool_call guard can never be called: no guard runs, which must be
    # loud.  Registering the working one twice is harmless: the first copy runs.
    write_plugin(
        home / "plugins",
        "p",
        """
def needs_flavour(tool_name, flavour):
    return {"action": "block", "message": "never reached"}

def guard(tool_name, **kw):
    return {"action": "block", "message": "guarded"}

def register(ctx):
    ctx.register_hook("pre_tool_call", needs_flavour)
    ctx.register_hook("pre_tool_call", guard)
    ctx.register_hook("pre_tool_call", guard)
""",
    )
    hooks = load(home)
    decision = hooks.pre_tool_call(**tool_payload())
    record = hooks.sources["python"].records()[0]
    hooks.close()
    assert (decision.action, decision.message) == ("block", "guarded")
    refused, duplicate = record.problems
    assert refused.startswith("Plugin 'p' callback needs_flavour for hook 'pre_tool_call' cannot ")
    assert (
        duplicate
        == "Plugin 'p' registered guard for hook 'pre_tool_call' twice; the duplicate is ignored."
    )
    logged = [
        (r.levelno, r.getMessage()) for r in caplog.records if r.name == "hermes_hooks.plugins"
    ]
    assert logged == [(logging.ERROR, refused), (logging.WARNING, duplicate)]


def test_disabled_wins_and_enabled_limits(home: Path, log_file: Path) -> None:
    for key in ("a", "b", "c"):
        write_plugin(
            home / "plugins",
            key,
            recorder(f'ctx.register_hook("on_session_start", lambda **kw: _note("{key}"))'),
        )
    (home / "config.yaml").write_text(
        "plugins:\n  enabled: [a, b]\n  disabled: [b]\n", encoding="utf-8"
    )
    hooks = load(home)
    hooks.on_session_start(**SESSION)
    states = {r.key: (r.state, r.error) for r in hooks.sources["python"].records()}
    hooks.close()
    assert calls(log_file) == ["a"]
    assert states == {
        "a": ("loaded", None),
        "b": ("disabled", "disabled by plugins.disabled"),
        "c": ("disabled", "not listed in plugins.enabled"),
    }


GUARD = (
    "def register(ctx):\n"
    "    ctx.register_hook('pre_tool_call', lambda **kw: {'action': 'block', 'message': 'no'})\n"
)


def test_a_misspelt_enabled_name_is_an_error_naming_the_plugin_it_left_off(
    home: Path, capsys: Any, caplog: Any
) -> None:
    write_plugin(home / "plugins", "guard", GUARD)
    (home / "config.yaml").write_text("plugins:\n  enabled: [gaurd]\n", encoding="utf-8")
    hooks = hermes_hooks.load(home)  # entry points scanned: every plugin name is known
    decision = hooks.pre_tool_call(**tool_payload())
    states = {r.key: r.state for r in hooks.sources["python"].records() if r.key == "guard"}
    hooks.close()
    message = (
        f"{home / 'config.yaml'}: plugins.enabled lists 'gaurd', which matches no plugin "
        "found — did you mean 'guard'? Fix: use a plugin's key or manifest name, as "
        "`hermes-hooks list` shows it"
    )
    assert decision.action == "allow"  # the guard is off, so this must be loud
    assert states == {"guard": "disabled"}
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR] == [message]
    code = main(["--home", str(home), "doctor"])
    assert code == 1
    assert f"✗ plugin discovery: {message}" in capsys.readouterr().out.splitlines()


def test_an_enabled_name_is_not_judged_without_the_entry_points(home: Path, caplog: Any) -> None:
    # It may name an installed plugin that this load did not look for.
    write_plugin(home / "plugins", "guard", GUARD)
    (home / "config.yaml").write_text("plugins:\n  enabled: [guard, ep-pluggy]\n", encoding="utf-8")
    hooks = load(home)  # entry_points=False
    selection = hooks.sources["python"].findings
    hooks.close()
    assert selection == []
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_a_disabled_name_that_matches_nothing_warns(home: Path, caplog: Any) -> None:
    write_plugin(home / "plugins", "noisy", GUARD)
    (home / "config.yaml").write_text("plugins:\n  disabled: [noisey]\n", encoding="utf-8")
    hooks = load(home)
    states = {r.key: r.state for r in hooks.sources["python"].records()}
    selection = hooks.sources["python"].findings
    hooks.close()
    message = (
        f"{home / 'config.yaml'}: plugins.disabled lists 'noisey', which matches no plugin "
        "found — did you mean 'noisy'? Fix: use a plugin's key or manifest name, as "
        "`hermes-hooks list` shows it"
    )
    assert states == {"noisy": "loaded"}  # the plugin meant to be off still runs
    assert selection == [("warn", message)]
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING] == [message]


def test_safe_mode_loads_nothing_and_says_so_as_a_warning(
    home: Path, log_file: Path, monkeypatch: pytest.MonkeyPatch, caplog: Any
) -> None:
    write_plugin(
        home / "plugins",
        "a",
        recorder('ctx.register_hook("on_session_start", lambda **kw: _note("a"))'),
    )
    monkeypatch.setenv("HERMES_SAFE_MODE", "Yes")
    hooks = load(home, entry_points=True)
    hooks.on_session_start(**SESSION)
    assert calls(log_file) == []
    assert hooks.sources == {}
    # Every guard is off: a WARNING at each load, not an INFO line nobody sees.
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING] == [
        "HERMES_SAFE_MODE is set: no plugin, shell hook, outbound webhook or gateway hook is "
        "loaded, so no guard runs. Fix: unset HERMES_SAFE_MODE once troubleshooting is done"
    ]


def test_project_plugins_need_the_flag(
    home: Path, log_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    write_plugin(
        project / ".hermes" / "plugins",
        "proj",
        recorder('ctx.register_hook("on_session_start", lambda **kw: _note("proj"))'),
    )
    monkeypatch.chdir(project)
    load(home).on_session_start(**SESSION)
    assert calls(log_file) == []
    monkeypatch.setenv("HERMES_ENABLE_PROJECT_PLUGINS", "1")
    hooks = load(home)
    hooks.on_session_start(**SESSION)
    assert calls(log_file) == ["proj"]
    assert hooks.sources["python"].records()[0].source == "project"


def test_discovery_is_idempotent_and_unload_removes_exactly_its_callbacks(
    home: Path, log_file: Path
) -> None:
    write_plugin(
        home / "plugins",
        "a",
        recorder('ctx.register_hook("on_session_start", lambda **kw: _note("a"))'),
    )
    hooks = load(home)
    hooks.manager.register_callback("on_session_start", lambda **kw: None, owner="host")
    source = hooks.sources["python"]
    source.discover(entry_points=False)  # a second discovery adds nothing (D-08)
    hooks.on_session_start(**SESSION)
    assert calls(log_file) == ["a"]
    hooks.unload()
    assert [cb.owner for cb in hooks.manager.callbacks("on_session_start")] == ["host"]
    assert not any(
        n == "hermes_plugins.a" or n.startswith("hermes_plugins.a.") for n in sys.modules
    )


def test_reload_picks_up_edits_and_registers_each_once(home: Path, log_file: Path) -> None:
    plugin = write_plugin(
        home / "plugins",
        "a",
        recorder('ctx.register_hook("on_session_start", lambda **kw: _note("v1"))'),
    )
    hooks = load(home)
    (plugin / "__init__.py").write_text(
        recorder('ctx.register_hook("on_session_start", lambda **kw: _note("v2"))'),
        encoding="utf-8",
    )
    hooks.reload()
    hooks.on_session_start(**SESSION)
    hooks.close()
    assert calls(log_file) == ["v2"]


def test_entry_points_of_a_real_installed_distribution(home: Path, caplog: Any) -> None:
    hooks = hermes_hooks.load(home)
    records = {
        r.key: r
        for r in hooks.sources["python"].records()
        if r.distribution == "hermes-hooks-testplugins"  # other installed plugins aside
    }
    assert {k: (r.source, r.distribution, r.version, r.state) for k, r in records.items()} == {
        "ep-pluggy": ("entry-point:hermes_hooks", "hermes-hooks-testplugins", "1.2.3", "loaded"),
        "ep-register": (
            "entry-point:hermes_agent.plugins",
            "hermes-hooks-testplugins",
            "1.2.3",
            "loaded",
        ),
        "ep-function": (
            "entry-point:hermes_agent.plugins",
            "hermes-hooks-testplugins",
            "1.2.3",
            "loaded",
        ),
        "ep-object": (
            "entry-point:hermes_agent.plugins",
            "hermes-hooks-testplugins",
            "1.2.3",
            "loaded",
        ),
        "ep-broken": (
            "entry-point:hermes_agent.plugins",
            "hermes-hooks-testplugins",
            "1.2.3",
            "failed",
        ),
    }
    assert records["ep-broken"].error == (
        "ModuleNotFoundError: No module named 'hermes_hooks_testplugins.does_not_exist'"
    )
    assert records["ep-pluggy"].hooks == ["pre_tool_call"]
    # module:function form registered tryfirst, so its modify runs before the block.
    decision = hooks.pre_tool_call(**tool_payload(tool_name="ep_probe_tool", args={}))
    assert (decision.action, decision.message, decision.args) == (
        "block",
        "blocked by the ep-pluggy entry point",
        {"from_ep_function": True},
    )
    context = hooks.pre_llm_call(
        session_id="s",
        task_id="",
        turn_id="",
        user_message="ep-probe",
        conversation_history=[],
        is_first_turn=True,
        model="m",
        platform="cli",
        parent_session_id=None,
        sender_id=None,
    )
    # ep-object (module:object) and ep-register (module) both answer, in key order.
    assert context == "context from ep-object\n\ncontext from ep-register"
    hooks.close()


def test_a_firing_during_a_reload_still_meets_the_old_gate(
    home: Path, log_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hermes_hooks._loader as loader

    gate = (
        "def gate(**kw):\n"
        "    return {'action': 'block', 'message': 'gate v1'}\n\n"
        "def register(ctx):\n"
        "    ctx.register_hook('pre_tool_call', gate)\n"
    )
    plugin = write_plugin(home / "plugins", "gate", gate)
    hooks = load(home)
    (plugin / "__init__.py").write_text(gate.replace("v1", "v2"), encoding="utf-8")
    seen: list[Any] = []
    real_attach = loader.attach_sources

    def attach_while_another_thread_fires(target: Any) -> None:
        # Everything was unloaded and nothing is loaded yet: the riskiest moment.
        seen.append(hooks.pre_tool_call(**tool_payload()).message)
        real_attach(target)
        seen.append(hooks.pre_tool_call(**tool_payload()).message)

    monkeypatch.setattr(loader, "attach_sources", attach_while_another_thread_fires)
    hooks.reload()
    seen.append(hooks.pre_tool_call(**tool_payload()).message)
    hooks.close()
    assert seen == ["gate v1", "gate v1", "gate v2"]


def _installed_pluggy_plugin(
    monkeypatch: pytest.MonkeyPatch, root: Path, name: str, body: str
) -> None:
    """A real distribution put on ``sys.path`` for the test (its dist-info and module),
    whose ``hermes_hooks`` entry point is the pluggy-style module ``body``."""
    module = name.replace("-", "_")
    info = root / f"{module}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(f"[hermes_hooks]\n{name} = {module}\n", encoding="utf-8")
    (root / f"{module}.py").write_text(body, encoding="utf-8")
    monkeypatch.syspath_prepend(str(root))  # after the files: import caches see them
    monkeypatch.delitem(sys.modules, module, raising=False)


def test_a_pluggy_hookimpl_under_a_misspelt_gate_name_is_a_doctor_error(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: Any
) -> None:
    _installed_pluggy_plugin(
        monkeypatch,
        tmp_path / "site",
        "typo-guard",
        "import hermes_hooks\n\n"
        "@hermes_hooks.hookimpl\n"
        "def pre_tool_cal(tool_name, args, **kwargs):\n"
        "    return {'action': 'block', 'message': 'never'}\n\n"
        "@hermes_hooks.hookimpl\n"
        "def post_tool_cal(tool_name, **kwargs):\n"
        "    return None\n",
    )
    hooks = hermes_hooks.load(home)
    try:
        (record,) = [r for r in hooks.sources["python"].records() if r.key == "typo-guard"]
        decision = hooks.pre_tool_call(**tool_payload())
    finally:
        hooks.close()
    assert decision.action == "allow"  # the guard never ran: that must not pass quietly
    gate = (
        "Plugin 'typo-guard' tried to register unknown hook 'pre_tool_cal' — did you mean "
        "'pre_tool_call'? Ignored."
    )
    observer = (
        "Plugin 'typo-guard' tried to register unknown hook 'post_tool_cal' — did you mean "
        "'post_tool_call'? Ignored."
    )
    assert record.state == "loaded"
    assert record.problems == [gate]  # doctor: an error
    assert record.warnings == [observer]  # doctor: a warning
    logged = [(r.levelno, r.getMessage()) for r in caplog.records if "typo-guard" in r.getMessage()]
    assert sorted(logged) == sorted([(logging.ERROR, gate), (logging.WARNING, observer)])


def test_a_pluggy_hookimpl_with_a_misspelt_parameter_is_reported(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _installed_pluggy_plugin(
        monkeypatch,
        tmp_path / "site",
        "arg-typo",
        "import hermes_hooks\n\n"
        "@hermes_hooks.hookimpl\n"
        "def pre_tool_call(tool_name, arguments=None, **kwargs):\n"
        "    return None\n",
    )
    hooks = hermes_hooks.load(home)
    try:
        (record,) = [r for r in hooks.sources["python"].records() if r.key == "arg-typo"]
    finally:
        hooks.close()
    assert record.problems == [
        "Plugin 'arg-typo': its pre_tool_call callback pre_tool_call declares arguments=… "
        "(did you mean 'args'?), which no firing passes, so it always gets its default. "
        "Fix: use the payload field's name"
    ]


def test_a_plugin_key_found_twice_is_an_error_naming_both(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, caplog: Any
) -> None:
    # An old directory plugin and an installed package under one name: one never runs.
    write_plugin(home / "plugins", "guard", "def register(ctx):\n    pass\n")
    _installed_pluggy_plugin(
        monkeypatch,
        tmp_path / "site",
        "guard",
        "import hermes_hooks\n\n"
        "@hermes_hooks.hookimpl\n"
        "def pre_tool_call(tool_name, args, **kwargs):\n"
        "    return {'action': 'block', 'message': 'installed guard'}\n",
    )
    hooks = hermes_hooks.load(home)
    try:
        decision = hooks.pre_tool_call(**tool_payload())
        records = {r.key: r for r in hooks.sources["python"].records()}
    finally:
        hooks.close()
    assert decision.action == "allow"  # the installed guard is the one skipped
    message = (
        f"Plugin 'guard' found twice (directory at {home / 'plugins' / 'guard'}, and "
        "entry-point:hermes_hooks at guard); the second is skipped and never runs. Fix: "
        "remove one, or rename one (its plugin.yaml name or its entry point)"
    )
    # A problem of the plugin that runs under the key, so list marks it as doctor does.
    assert records["guard"].problems == [message]
    assert message in [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert main(["--home", str(home), "doctor"]) == 1
    assert f"✗ plugin guard: {message}" in capsys.readouterr().out.splitlines()
