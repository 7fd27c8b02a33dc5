"""pytest fixtures for plugin authors, shipped as a pytest plugin (``pytest11``).

Installed with hermes-hooks, so a plugin's own test suite gets them without imports::

    def test_my_guard_blocks_rm(hermes_home, hermes_plugin, fire_hook):
        hermes_plugin("my-guard", MY_PLUGIN_SOURCE)          # or install the package
        decision = fire_hook("pre_tool_call", tool_name="terminal",
                             args={"command": "rm -rf /"})
        assert decision.blocked

* ``hermes_home`` — a fresh, empty Hermes home in ``tmp_path``; ``HERMES_HOME`` points
  at it and the consent/safe-mode variables are cleared for the test.
* ``hermes_plugin(key, source, manifest=None)`` — write a directory plugin into it.
* ``hermes_hooks`` — the :class:`~hermes_hooks.hooks.Hooks` of that home, loaded when
  the fixture is set up (installed entry-point plugins included) and closed after the
  test; write plugins in an earlier fixture when you request it directly.
* ``fire_hook(event, **fields)`` — fire any hook with a valid synthetic payload
  (:func:`hermes_hooks.synthetic.synthetic_payload`), fields overriding it; returns the
  facade's typed answer.  It loads the home at its first call, so plugins written in
  the test body before that call take part.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks._loader import load
from hermes_hooks.hooks import Hooks
from hermes_hooks.synthetic import synthetic_payload

__all__ = ["fire", "fire_hook", "hermes_home", "hermes_hooks", "hermes_plugin"]

_ENV = ("HERMES_SAFE_MODE", "HERMES_ACCEPT_HOOKS", "HERMES_ENABLE_PROJECT_PLUGINS")


def fire(hooks: Hooks, event: str, **fields: Any) -> Any:
    """Fire ``event`` on ``hooks`` with a synthetic payload overridden by ``fields``."""
    payload = synthetic_payload(event, tool_name=fields.get("tool_name"))
    payload.update(fields)
    return getattr(hooks, event)(**payload)


@pytest.fixture
def hermes_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh Hermes home; ``HERMES_HOME`` points at it for the test."""
    home = tmp_path / "hermes-home"
    home.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(home))
    for name in _ENV:
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture
def hermes_plugin(hermes_home: Path) -> Callable[..., Path]:
    """Write ``<home>/plugins/<key>/`` with ``__init__.py`` = ``source``."""

    def write(key: str, source: str, manifest: str | None = None) -> Path:
        path = hermes_home / "plugins" / key
        path.mkdir(parents=True)
        (path / "plugin.yaml").write_text(manifest or f"name: {key}\n", encoding="utf-8")
        (path / "__init__.py").write_text(source, encoding="utf-8")
        return path

    return write


@pytest.fixture
def hermes_hooks(hermes_home: Path) -> Iterator[Hooks]:
    """The loaded hooks of ``hermes_home`` (write plugins before first use)."""
    hooks = load(hermes_home)
    yield hooks
    hooks.close()


@pytest.fixture
def fire_hook(hermes_home: Path) -> Iterator[Callable[..., Any]]:
    """``fire_hook(event, **fields)`` on the home, loaded at the first call."""
    loaded: list[Hooks] = []

    def fire_on_home(event: str, **fields: Any) -> Any:
        if not loaded:
            loaded.append(load(hermes_home))
        return fire(loaded[0], event, **fields)

    yield fire_on_home
    for hooks in loaded:
        hooks.close()
