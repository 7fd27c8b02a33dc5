"""Middleware registered with ``ctx.register_middleware``: request rewriting with a
trace, execution wrapping in registration order, isolation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import hermes_hooks
from tests.helpers import write_plugin

PLUGIN = """
calls = []

def expand_home(args=None, original_args=None, tool_name="", **kw):
    calls.append(("request", tool_name, dict(original_args)))
    if str(args.get("path", "")).startswith("~"):
        return {"args": {**args, "path": "/home/u" + args["path"][1:]},
                "source": "paths", "reason": "expand ~"}

def ignored(**kw):
    return {"args": "not a dict"}

def anonymous(args=None, **kw):
    return {"args": {**args, "tagged": True}}

def outer(next_call=None, args=None, **kw):
    return "outer(" + next_call({**args, "outer": True}) + ")"

def broken_before(next_call=None, **kw):
    raise RuntimeError("before")

def inner(next_call=None, args=None, **kw):
    return "inner(" + next_call() + ")"

def model(request=None, **kw):
    return {"request": {**request, "temperature": 0}, "name": "cool"}

def register(ctx):
    ctx.register_middleware("tool_request", expand_home)
    ctx.register_middleware("tool_request", ignored)
    ctx.register_middleware("tool_request", anonymous)
    ctx.register_middleware("tool_execution", outer)
    ctx.register_middleware("tool_execution", broken_before)
    ctx.register_middleware("tool_execution", inner)
    ctx.register_middleware("llm_request", model)
"""


@pytest.fixture
def hooks(home: Path) -> Any:
    write_plugin(home / "plugins", "mw", PLUGIN)
    loaded = hermes_hooks.load(home, entry_points=False)
    yield loaded
    loaded.close()


def test_request_middleware_rewrites_in_order_and_traces_each_rewrite(hooks: Any) -> None:
    result = hooks.middleware.apply_tool_request("read_file", {"path": "~/notes"})
    assert result.original_payload == {"path": "~/notes"}
    # Every callback sees the request as it came; the last rewrite wins.
    assert result.payload == {"path": "~/notes", "tagged": True}
    assert result.changed is True
    assert result.trace == [{"source": "paths", "reason": "expand ~"}, {"source": "plugin"}]


def test_llm_request_middleware(hooks: Any) -> None:
    result = hooks.middleware.apply_llm_request({"model": "m"})
    assert (result.payload, result.trace) == ({"model": "m", "temperature": 0}, [{"name": "cool"}])


def test_execution_middleware_wraps_in_registration_order(hooks: Any) -> None:
    seen: list[dict[str, Any]] = []

    def tool(args: dict[str, Any]) -> str:
        seen.append(args)
        return "ran"

    result = hooks.middleware.run_tool_execution("terminal", {"command": "ls"}, tool)
    assert result == "outer(inner(ran))"  # the broken middle one is skipped
    assert seen == [{"command": "ls", "outer": True}]


def test_no_middleware_means_the_call_itself(home: Path) -> None:
    hooks = hermes_hooks.load(home, entry_points=False)
    assert hooks.middleware.has("tool_execution") is False
    assert hooks.middleware.run_tool_execution("t", {"a": 1}, lambda a: a) == {"a": 1}
    assert hooks.middleware.apply_tool_request("t", {"a": 1}).trace == []
    hooks.close()


def test_next_call_is_single_use_and_downstream_errors_reach_the_caller(home: Path) -> None:
    write_plugin(
        home / "plugins",
        "twice",
        "def twice(next_call=None, **kw):\n"
        "    next_call()\n"
        "    return next_call()\n"
        "\n"
        "def register(ctx):\n"
        "    ctx.register_middleware('tool_execution', twice)\n",
    )
    hooks = hermes_hooks.load(home, entry_points=False)
    runs: list[int] = []
    # A second next_call raises inside the callback after a good first call: the
    # first result stands and the tool ran once.
    assert hooks.middleware.run_tool_execution("t", {}, lambda a: runs.append(1) or "ok") == "ok"
    assert runs == [1]

    def failing(args: dict[str, Any]) -> str:
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        hooks.middleware.run_tool_execution("t", {}, failing)
    hooks.close()


def test_unloading_removes_middleware(hooks: Any) -> None:
    assert hooks.middleware.has("tool_request")
    hooks.unload()
    assert not hooks.middleware.has("tool_request")
