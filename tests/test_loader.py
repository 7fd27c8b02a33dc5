"""The loader: the frozen LoadContext adapters receive, reload keeping the load's
options, and ``with load() as hooks:`` closing on exit."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from pathlib import Path

import pytest

import hermes_hooks
from hermes_hooks._context import LoadContext
from hermes_hooks.hooks import Hooks
from hermes_hooks.shell.consent import ALLOWLIST_NAME
from tests.shell.helpers import sh, write_config, write_script


def test_reload_keeps_inspect_mode_for_shell_consent(
    home: Path, load: Callable[..., Hooks], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A consent bypass is active, but an inspecting load must neither approve nor write.
    monkeypatch.setenv("HERMES_ACCEPT_HOOKS", "1")
    script = write_script(home / "agent-hooks" / "x.sh", sh("echo '{}'"))
    write_config(home, {"post_tool_call": [{"command": str(script)}]})
    hooks = load(inspect=True)
    assert [r.state for r in hooks.sources["shell"].records()] == ["not allowlisted"]
    hooks.reload()
    assert hooks.context.inspect is True
    assert [r.state for r in hooks.sources["shell"].records()] == ["not allowlisted"]
    assert hooks.manager.callbacks("post_tool_call") == ()
    assert not (home / ALLOWLIST_NAME).exists()


def test_reload_reads_the_config_again_into_a_new_context(
    home: Path, load: Callable[..., Hooks]
) -> None:
    (home / "config.yaml").write_text("plugins:\n  hook_callback_timeout: 7\n", encoding="utf-8")
    hooks = load(surface="gateway", entry_points=False)
    first = hooks.context
    (home / "config.yaml").write_text("plugins:\n  hook_callback_timeout: 9\n", encoding="utf-8")
    hooks.reload()
    assert first.settings.hook_callback_timeout == 7  # the old context is never changed
    assert hooks.settings.hook_callback_timeout == 9
    assert hooks.dispatcher.timeout == 9
    assert (hooks.context.surface, hooks.context.entry_points) == ("gateway", False)
    assert hooks.context.manager is first.manager


def test_load_context_is_frozen_and_checks_the_surface(home: Path) -> None:
    context = LoadContext(home=home)
    with pytest.raises(dataclasses.FrozenInstanceError):
        context.inspect = True  # type: ignore[misc]
    with pytest.raises(ValueError, match=r"surface must be one of \['cli', 'gateway'\], not 'tui'"):
        LoadContext(home=home, surface="tui")
    assert context.config_path == home / "config.yaml"
    assert context.profile == "default"


def test_with_load_closes_the_hooks_on_exit(home: Path) -> None:
    closed: list[float] = []
    with hermes_hooks.load(home, entry_points=False) as hooks:
        assert isinstance(hooks, Hooks)
        hooks.sources["probe"] = _Probe(closed)  # type: ignore[assignment]
        assert closed == []
    assert len(closed) == 1  # closed exactly once, on leaving the block


def test_empty_hooks_cannot_reload(home: Path) -> None:
    with pytest.raises(RuntimeError, match=r"not built by hermes_hooks\.load\(\)"):
        Hooks.empty(home).reload()


class _Probe:
    name = "probe"

    def __init__(self, closed: list[float]) -> None:
        self._closed = closed

    def close(self, timeout: float) -> None:
        self._closed.append(timeout)


def test_each_manager_warns_once_on_its_own(
    make_hooks: Callable[..., Hooks], caplog: pytest.LogCaptureFixture
) -> None:
    # Per-manager state: a second load in the same process is not silenced by the first.
    def broken(tool_name: str) -> None:
        raise RuntimeError("boom")

    first, second = make_hooks(), make_hooks()
    for hooks in (first, second):
        hooks.manager.register_callback("post_tool_call", broken, owner="p")
    with caplog.at_level(logging.DEBUG, logger="hermes_hooks"):
        for hooks in (first, second, first):
            hooks.post_tool_call(tool_name="terminal")
    levels = [r.levelname for r in caplog.records if "raised RuntimeError: boom" in r.getMessage()]
    assert levels == ["WARNING", "WARNING", "DEBUG"]
    assert first.manager.warnings is not second.manager.warnings
