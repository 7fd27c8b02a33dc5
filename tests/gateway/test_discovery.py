"""Discovery of <home>/hooks/<name>/ (GW-03, GW-08, D-03, D-08, D-82) and the bridge."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.gateway.source import SAFE_MODE_MESSAGE, GatewayHookPlugin, GatewaySource
from tests.gateway import probe
from tests.gateway.helpers import RECORD_ASYNC, RECORD_SYNC, messages, run, write_hook

# A handler that proves whether it was imported: it leaves a file behind.
IMPORT_MARK = """
from pathlib import Path
with Path(__file__).with_name("imported").open("a") as mark:
    mark.write("x")

def handle(event_type, context):
    pass
"""


def test_a_string_events_value_is_refused_without_importing(
    hooks_dir: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture
) -> None:
    directory = write_hook(
        hooks_dir, "stringy", body=IMPORT_MARK, manifest="name: stringy\nevents: agent:start\n"
    )
    hooks = load_gateway()
    assert "[hooks] Skipping stringy: 'events' must be a list of event names" in messages(
        caplog, logging.ERROR
    )
    assert not (directory / "imported").exists()
    record = hooks.sources["gateway"].records()[0]
    assert (record.state, record.plugin) == ("skipped", None)
    assert hooks.gateway.hooks == ()


@pytest.mark.parametrize(
    "events_yaml",
    ["", "events: []\n", "events: [agent:start, 3]\n", "events: {agent:start: 1}\n", "events:\n"],
    ids=["missing", "empty", "non-string", "mapping", "null"],
)
def test_events_must_be_a_non_empty_list_of_strings(
    hooks_dir: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture, events_yaml: str
) -> None:
    directory = write_hook(hooks_dir, "bad", body=IMPORT_MARK, manifest=f"name: bad\n{events_yaml}")
    load_gateway()
    assert messages(caplog, logging.ERROR) == [
        "[hooks] Skipping bad: 'events' must be a list of event names"
    ]
    assert not (directory / "imported").exists()


def test_a_typo_warns_with_a_suggestion_and_the_hook_still_loads(
    hooks_dir: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture
) -> None:
    write_hook(hooks_dir, "typo", events=["agnet:start", "agent:end"])
    hooks = load_gateway()
    assert messages(caplog) == [
        "[hooks] typo: unknown event 'agnet:start' — did you mean 'agent:start'?"
    ]
    assert [h.name for h in hooks.gateway.hooks] == ["typo"]

    async def main() -> None:
        await hooks.gateway.emit("agent:start", {})
        await hooks.gateway.emit("agent:end", {})
        await hooks.gateway.emit("agnet:start", {})
        assert await hooks.gateway.drain(5)

    run(main())
    assert [event for event, _ in probe.seen("typo")] == ["agent:end", "agnet:start"]


@pytest.mark.parametrize(
    ("event", "tail"),
    [
        ("comand:deploy", "did you mean 'command:*'?"),
        ("Command:deploy", "did you mean 'command:*'?"),
        ("commands:*", "did you mean 'command:*'?"),
    ],
)
def test_an_event_meant_as_a_command_is_an_error_for_doctor(
    hooks_dir: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture, event: str, tail: str
) -> None:
    # A command hook can deny the command: one that never fires is a guard left off.
    write_hook(hooks_dir, "deny", events=[event, "agent:end"])
    hooks = load_gateway()
    message = f"[hooks] deny: unknown event '{event}' — {tail}"
    assert messages(caplog, logging.ERROR) == [message]
    assert messages(caplog) == []
    (record,) = hooks.sources["gateway"].records()
    assert record.state == "loaded"
    assert [(p.level, p.key, p.message) for p in record.problems] == [("error", "events", message)]


def test_a_command_event_not_in_canonical_form_is_an_error(
    hooks_dir: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture
) -> None:
    # Commands are emitted as command:<lower-case name without '/'>: these never fire.
    write_hook(hooks_dir, "deny", events=["command:/deploy", "command:Reset", "command:model"])
    hooks = load_gateway()
    messages_ = [
        f"[hooks] deny: event '{event}' never fires: command events carry the command's "
        "canonical name (lower case, without '/')"
        for event in ("command:/deploy", "command:Reset")
    ]
    assert messages(caplog, logging.ERROR) == messages_
    (record,) = hooks.sources["gateway"].records()
    assert [(p.level, p.message, p.fix) for p in record.problems] == [
        ("error", messages_[0], "write command:deploy"),
        ("error", messages_[1], "write command:reset"),
    ]


def test_an_unknown_event_without_close_match_lists_the_valid_ones(
    hooks_dir: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture
) -> None:
    write_hook(hooks_dir, "odd", events=["zzz"])
    load_gateway()
    assert messages(caplog) == [
        "[hooks] odd: unknown event 'zzz' — (valid: agent:*, agent:end, agent:start, "
        "agent:step, command:*, gateway:*, gateway:startup, reaction:*, reaction:added, "
        "reaction:removed, session:*, session:compress, session:end, session:reset, "
        "session:start)"
    ]


def test_command_names_and_family_wildcards_are_known(
    hooks_dir: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture
) -> None:
    write_hook(hooks_dir, "wide", events=["command:deploy", "session:*", "gateway:*"])
    load_gateway()
    assert messages(caplog) == []


def test_enabled_false_is_never_imported(
    hooks_dir: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture
) -> None:
    directory = write_hook(
        hooks_dir,
        "off",
        body=IMPORT_MARK,
        manifest="name: off\nenabled: false\nevents: [agent:start]\n",
    )
    hooks = load_gateway()
    assert not (directory / "imported").exists()
    assert "[hooks] Skipping off: enabled: false" in messages(caplog, logging.INFO)
    assert messages(caplog) == []
    assert hooks.sources["gateway"].records()[0].state == "disabled"


def test_an_ambiguous_enabled_value_keeps_the_hook_off(
    hooks_dir: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture
) -> None:
    directory = write_hook(
        hooks_dir,
        "maybe",
        body=IMPORT_MARK,
        manifest="name: maybe\nenabled: 'false'\nevents: [agent:start]\n",
    )
    load_gateway()
    assert messages(caplog, logging.ERROR) == [
        "[hooks] Skipping maybe: 'enabled' must be true or false, got 'false'"
    ]
    assert not (directory / "imported").exists()


def test_name_defaults_to_the_directory_and_modules_are_named_after_it(
    hooks_dir: Path, load_gateway: Any
) -> None:
    write_hook(hooks_dir, "dir-one", manifest="events: [agent:start]\n")
    write_hook(hooks_dir, "dir-two", manifest="name: Pretty Name\nevents: [agent:start]\n")
    hooks = load_gateway()
    assert [(h.key, h.name) for h in hooks.gateway.hooks] == [
        ("dir-one", "dir-one"),
        ("dir-two", "Pretty Name"),
    ]
    assert "hermes_hook_dir-one" in sys.modules
    assert "hermes_hook_dir-two" in sys.modules


def test_two_hooks_sharing_a_name_both_load(hooks_dir: Path, load_gateway: Any) -> None:
    write_hook(hooks_dir, "a", manifest="name: same\nevents: [agent:start]\n")
    write_hook(hooks_dir, "b", manifest="name: same\nevents: [agent:start]\n")
    hooks = load_gateway()

    async def main() -> None:
        await hooks.gateway.emit("agent:start", {})
        assert await hooks.gateway.drain(5)

    run(main())
    assert sorted(k for k, _, _ in probe.calls) == ["a", "b"]


def test_sync_and_async_handlers_both_work(hooks_dir: Path, load_gateway: Any) -> None:
    write_hook(hooks_dir, "async-one", body=RECORD_ASYNC)
    write_hook(hooks_dir, "sync-one", body=RECORD_SYNC)
    hooks = load_gateway()
    records = {r.key: r.handler for r in hooks.sources["gateway"].records()}
    assert records == {"async-one": "async", "sync-one": "sync"}

    async def main() -> None:
        await hooks.gateway.emit("agent:start", {"platform": "telegram"})
        assert await hooks.gateway.drain(5)

    run(main())
    assert probe.seen("async-one") == [("agent:start", {"platform": "telegram"})]
    assert probe.seen("sync-one") == [("agent:start", {"platform": "telegram"})]


def test_invalid_yaml_names_the_file(
    hooks_dir: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture
) -> None:
    write_hook(hooks_dir, "broken", manifest="events: [agent:start\n")
    load_gateway()
    (warning,) = messages(caplog, logging.ERROR)
    assert warning.startswith(
        f"[hooks] Skipping broken: {hooks_dir / 'broken' / 'HOOK.yaml'}:2:1: not valid YAML ("
    )


def test_a_missing_handler_is_reported_with_its_path(
    hooks_dir: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture
) -> None:
    directory = hooks_dir / "half"
    directory.mkdir()
    (directory / "HOOK.yaml").write_text("events: [agent:start]\n", encoding="utf-8")
    (hooks_dir / "data").mkdir()  # neither file: data kept beside the hooks, ignored
    (hooks_dir / ".git").mkdir()
    hooks = load_gateway()
    assert messages(caplog, logging.ERROR) == [
        f"[hooks] Skipping half: {directory / 'handler.py'} is missing "
        "(a hook directory needs HOOK.yaml and handler.py)"
    ]
    assert [r.key for r in hooks.sources["gateway"].records()] == ["half"]


def test_a_failing_import_is_logged_with_name_and_path_and_others_load(
    hooks_dir: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture
) -> None:
    write_hook(hooks_dir, "a-broken", body="raise RuntimeError('cannot start')\n")
    write_hook(hooks_dir, "b-exits", body="raise SystemExit(3)\n")
    write_hook(hooks_dir, "c-fine")
    hooks = load_gateway()
    path_a = hooks_dir / "a-broken" / "handler.py"
    path_b = hooks_dir / "b-exits" / "handler.py"
    # ERRORs: a hook that does not load never sees its events (a command it would deny
    # included), and nothing else is logged.
    assert messages(caplog) == []
    assert messages(caplog, logging.ERROR) == [
        f"[hooks] Error loading hook a-broken ({path_a}): RuntimeError: cannot start",
        f"[hooks] Error loading hook b-exits ({path_b}): SystemExit: 3",
    ]
    assert [h.key for h in hooks.gateway.hooks] == ["c-fine"]
    assert "hermes_hook_a-broken" not in sys.modules


def test_a_keyboard_interrupt_at_import_is_not_swallowed(
    hooks_dir: Path, load_gateway: Any
) -> None:
    write_hook(hooks_dir, "ctrl-c", body="raise KeyboardInterrupt\n")
    with pytest.raises(KeyboardInterrupt):
        load_gateway()


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("handle = 3\n", "no 'handle' function found in {path}"),
        ("def other(e, c):\n    pass\n", "no 'handle' function found in {path}"),
        (
            "def handle(event_type):\n    pass\n",
            "handle(event_type) cannot be called as handle(event_type, context): "
            "too many positional arguments",
        ),
    ],
    ids=["not-callable", "missing", "one-parameter"],
)
def test_handle_must_take_event_type_and_context(
    hooks_dir: Path,
    load_gateway: Any,
    caplog: pytest.LogCaptureFixture,
    body: str,
    reason: str,
) -> None:
    write_hook(hooks_dir, "h", body=body)
    hooks = load_gateway()
    path = hooks_dir / "h" / "handler.py"
    assert messages(caplog, logging.ERROR) == [
        f"[hooks] Error loading hook h ({path}): {reason.format(path=path)}"
    ]
    assert hooks.sources["gateway"].records()[0].state == "failed"
    assert hooks.gateway.hooks == ()


def test_each_hook_is_a_plugin_object_in_the_manager(hooks_dir: Path, load_gateway: Any) -> None:
    write_hook(hooks_dir, "boot-md", events=["gateway:startup"])
    write_hook(hooks_dir, "logger", events=["command:*"])
    hooks = load_gateway()
    plugin = hooks.manager.get_plugin("gateway:boot-md")
    assert isinstance(plugin, GatewayHookPlugin)
    assert plugin.record.path == str(hooks_dir / "boot-md")
    assert hooks.manager.get_plugin("gateway:logger") is not None
    # It implements no catalogue hook: gateway events are not catalogue hooks.
    assert hooks.manager.get_hookcallers(plugin) == []
    assert hooks.manager.all_callbacks() == []
    records = hooks.sources["gateway"].records()
    assert [(r.plugin, r.events) for r in records] == [
        ("gateway:boot-md", ["gateway:startup"]),
        ("gateway:logger", ["command:*"]),
    ]


def test_discovery_is_idempotent(hooks_dir: Path, load_gateway: Any) -> None:
    body = IMPORT_MARK.replace(
        "    pass",
        "    from tests.gateway import probe\n    probe.record(__name__, event_type, context)",
    )
    directory = write_hook(hooks_dir, "once", body=body)
    hooks = load_gateway()
    source = hooks.sources["gateway"]
    assert isinstance(source, GatewaySource)
    source.discover()
    source.discover()
    assert (directory / "imported").read_text() == "x"
    assert [name for name, _ in hooks.manager.list_name_plugin()] == ["gateway:once"]

    async def main() -> None:
        await hooks.gateway.emit("agent:start", {})
        assert await hooks.gateway.drain(5)

    run(main())
    assert len(probe.seen("once")) == 1


def test_discovery_picks_up_new_directories_and_reload_starts_afresh(
    hooks_dir: Path, load_gateway: Any
) -> None:
    first = write_hook(hooks_dir, "first", body=IMPORT_MARK)
    hooks = load_gateway()
    source = hooks.sources["gateway"]
    write_hook(hooks_dir, "second")
    source.discover()
    assert [h.key for h in hooks.gateway.hooks] == ["first", "second"]
    source.reload()
    assert (first / "imported").read_text() == "xx"
    assert [h.key for h in hooks.gateway.hooks] == ["first", "second"]
    assert sorted(n for n, _ in hooks.manager.list_name_plugin()) == [
        "gateway:first",
        "gateway:second",
    ]


def test_unload_removes_plugins_modules_and_lanes(hooks_dir: Path, load_gateway: Any) -> None:
    write_hook(hooks_dir, "gone")
    hooks = load_gateway()
    hooks.unload()
    assert hooks.manager.get_plugin("gateway:gone") is None
    assert "hermes_hook_gone" not in sys.modules
    assert hooks.gateway.hooks == ()


def test_safe_mode_loads_no_gateway_hook(
    hooks_dir: Path,
    make_hooks: Any,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    directory = write_hook(hooks_dir, "unsafe", body=IMPORT_MARK)
    monkeypatch.setenv("HERMES_SAFE_MODE", "Yes")
    source = GatewaySource(make_hooks().context)
    source.discover()
    assert messages(caplog, logging.INFO) == [SAFE_MODE_MESSAGE]
    assert SAFE_MODE_MESSAGE == "[hooks] HERMES_SAFE_MODE set — gateway hooks not loaded"
    assert source.records() == []
    assert not (directory / "imported").exists()


def test_the_cli_surface_never_loads_gateway_hooks(hooks_dir: Path, load_gateway: Any) -> None:
    directory = write_hook(hooks_dir, "gw-only", body=IMPORT_MARK)
    hooks = load_gateway(surface="cli")
    assert "gateway" not in hooks.sources
    assert not (directory / "imported").exists()
    assert hooks.gateway.hooks == ()

    async def main() -> Any:
        await hooks.gateway.emit("agent:start", {})
        return await hooks.gateway.emit_command("reset")

    assert run(main()).allowed
