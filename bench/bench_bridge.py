"""The Hermes Agent bridge's cost per tool call (issue "Hermes Agent runs hermes-hooks").

The same Python plugin (one ``pre_tool_call`` callback that answers nothing) checked for
one tool call at hermes-agent 0.19.0's own call site (``resolve_pre_tool_block``):

* natively, as hermes-agent dispatches it (the baseline);
* through the bridge with ``hook_callback_timeout: 0`` (target 2.5);
* through the bridge bounded (``hook_callback_timeout: 30``), against its floor: the
  unbounded bridged firing plus one bare hand-off to the worker thread the bounded
  firing borrows and back (target 1.2), with that floor against the unbounded bridged
  firing printed beside it.

Needs hermes-agent: ``tox -e bench-bridge``.  Without it the module prints that it was
skipped and gives no figures.
"""

from __future__ import annotations

import importlib.util
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench._timing import ratios, with_bare_handoff
from bench.bench_dispatch import PAYLOAD

PLUGIN = """
def watch(tool_name, args, **kwargs):
    return None


def register(ctx):
    ctx.register_hook("pre_tool_call", watch)
"""

CALLS = 4_000


@contextmanager
def _home(timeout: float) -> Iterator[Path]:
    """A home with the plugin, enabled for both systems, and ``timeout``."""
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        plugin = home / "plugins" / "watch"
        plugin.mkdir(parents=True)
        (plugin / "plugin.yaml").write_text("name: watch\nversion: '1'\n")
        (plugin / "__init__.py").write_text(PLUGIN)
        (home / "config.yaml").write_text(
            "plugins:\n  enabled: [hermes-hooks, watch]\n"
            f"  hook_callback_timeout: {timeout}\n"
            "telemetry:\n  otel: false\n"
        )
        yield home


def _native(home: Path) -> Any:
    """hermes-agent's manager with the plugin loaded its own way."""
    from hermes_cli import plugins

    manager = plugins.PluginManager()
    manifest = plugins.PluginManifest(
        name="watch", source="user", path=str(home / "plugins" / "watch"), key="watch"
    )
    module = manager._load_directory_module(manifest)
    module.register(plugins.PluginContext(manifest, manager))
    return manager


def _bridged(home: Path) -> Any:
    """hermes-agent's manager with the bridge installed on the same home."""
    from hermes_cli import plugins

    from hermes_hooks.integrations.hermes_agent import register

    saved = os.environ.get("HERMES_HOME")
    os.environ["HERMES_HOME"] = str(home)
    try:
        manager = plugins.PluginManager()
        manifest = plugins.PluginManifest(
            name="hermes-hooks", source="entrypoint", key="hermes-hooks"
        )
        register(plugins.PluginContext(manifest, manager))
    finally:
        if saved is None:
            os.environ.pop("HERMES_HOME", None)
        else:
            os.environ["HERMES_HOME"] = saved
    bridge = manager._hermes_hooks_bridge
    assert bridge.hooks is not None, bridge.reason
    assert bridge.hooks.has_callbacks("pre_tool_call"), "the plugin did not load"
    return manager


def _fire(manager: Any) -> Callable[[], object]:
    """One tool call's check at hermes-agent's own call site (``resolve_pre_tool_block``,
    which every dispatch path calls), with ``manager`` as the agent's manager."""
    from hermes_cli import plugins

    resolve = plugins.resolve_pre_tool_block

    def check() -> object:
        plugins._plugin_manager = manager
        return resolve(
            "terminal",
            PAYLOAD["args"],
            task_id="task",
            session_id="sess",
            tool_call_id="call",
            turn_id="turn",
            api_request_id="req",
            middleware_trace=[],
        )

    return check


def run() -> list[tuple[str, float | list[float]]]:
    """The bridge's figures, or none (with a line saying why) without hermes-agent."""
    if importlib.util.find_spec("hermes_cli") is None:
        print("  skipped: hermes-agent is not installed here (run: tox -e bench-bridge)")
        return []
    results: list[tuple[str, float | list[float]]] = []
    with _home(0) as home:
        native = _native(home)
        unbounded = _bridged(home)
        assert _fire(native)() is None and _fire(unbounded)() is None
        results.append(
            (
                "bridge (hook_callback_timeout 0) / hermes-agent's own dispatch, 1 plugin "
                "(target 2.5)",
                ratios(_fire(unbounded), _fire(native), calls=CALLS),
            )
        )
        with _home(30) as bounded_home:
            bounded = _bridged(bounded_home)
            handoff = with_bare_handoff(
                _fire(unbounded), bounded._hermes_hooks_bridge.hooks.dispatcher.pool
            )
            results.append(
                (
                    "floor: bridge unbounded + one bare hand-off to its worker / bridge unbounded",
                    ratios(handoff.floor, _fire(unbounded), calls=CALLS),
                )
            )
            results.append(
                (
                    "bridge bounded (hook_callback_timeout 30) / (bridge unbounded + one "
                    "bare hand-off to its worker) (target 1.2)",
                    ratios(_fire(bounded), handoff.floor, calls=CALLS),
                )
            )
            results.append(
                (
                    "bridge bounded / hermes-agent's own dispatch, 1 plugin",
                    ratios(_fire(bounded), _fire(native), calls=CALLS, repetitions=3),
                )
            )
            handoff.check()
            bounded._hermes_hooks_bridge.close()
        unbounded._hermes_hooks_bridge.close()
    return results


if __name__ == "__main__":
    from bench.__main__ import format_figure

    for label, value in run():
        print(format_figure(label, value))
