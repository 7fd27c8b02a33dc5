"""The reference host fires every hook through its typed facade method, so mypy checks
our own host's payloads as it checks a user's: no module of ``hermes_hooks/host`` looks a
hook up by a computed name, and each timeline step is named after the method it calls.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from hermes_hooks.hookspecs import CATALOGUE

HOST = Path(__file__).resolve().parents[2] / "hermes_hooks" / "host"

#: The host's firing helpers: ``self._fire("<hook>", lambda: self.hooks.<hook>(...))``.
FIRING_HELPERS = frozenset({"_fire", "_fire_if_heard"})
#: Entry points that take the hook's name as a value instead of calling its method.
BY_NAME = frozenset({"invoke", "ainvoke", "fire", "afire", "fire_all", "fire_one"})


def _mentions_hooks(node: ast.AST) -> bool:
    """Whether ``node`` is (or reaches through) something called ``hooks``."""
    return any(
        (isinstance(n, ast.Name) and n.id == "hooks")
        or (isinstance(n, ast.Attribute) and n.attr in ("hooks", "dispatcher"))
        for n in ast.walk(node)
    )


def _facade_call(node: ast.AST) -> str | None:
    """The method name when ``node`` is ``<...hooks>.<method>(...)``."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and _mentions_hooks(node.func.value)
    ):
        return node.func.attr
    return None


def offences(source: str, where: str = "<source>") -> list[str]:
    """Every way ``source`` fires a hook other than by a typed facade call, in source
    order."""
    found: list[str] = []
    calls = [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call)]
    for node in sorted(calls, key=lambda n: (n.lineno, n.col_offset)):
        line = f"{where}:{node.lineno}"
        func = node.func
        if isinstance(func, ast.Name) and func.id == "getattr" and node.args:
            if _mentions_hooks(node.args[0]):
                found.append(f"{line}: getattr on the hooks: {ast.unparse(node)}")
            continue
        if not isinstance(func, ast.Attribute):
            continue
        if func.attr in BY_NAME and _mentions_hooks(func.value):
            named = node.args[0] if node.args else None
            if not (isinstance(named, ast.Constant) and isinstance(named.value, str)):
                found.append(f"{line}: hook fired by a computed name: {ast.unparse(node)}")
        if func.attr in FIRING_HELPERS:
            found.extend(_helper_offences(node, line))
    return found


def _helper_offences(node: ast.Call, line: str) -> list[str]:
    """``_fire("<hook>", lambda: <hooks>.<hook>(...))``: a literal catalogue name and a
    lambda calling that very facade method."""
    name = node.args[0] if node.args else None
    call = node.args[1] if len(node.args) > 1 else None
    if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
        return [f"{line}: the step is not named by a literal: {ast.unparse(node)}"]
    if name.value not in CATALOGUE:
        return [f"{line}: {name.value!r} is not a catalogue hook"]
    if not isinstance(call, ast.Lambda) or call.args.args or call.args.kwonlyargs:
        return [f"{line}: {name.value} is not fired through a lambda calling the facade"]
    method = _facade_call(call.body)
    if method != name.value:
        return [f"{line}: the step {name.value!r} calls hooks.{method}"]
    return []


def test_no_host_module_fires_a_hook_by_a_computed_name() -> None:
    modules = sorted(HOST.glob("*.py"))
    assert len(modules) > 10  # the package is where this test thinks it is
    found = [
        offence
        for path in modules
        for offence in offences(path.read_text(encoding="utf-8"), path.name)
    ]
    assert found == []


def test_every_firing_of_the_host_goes_through_a_helper_that_names_its_method() -> None:
    fired: set[str] = set()
    for path in HOST.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Lambda) and (method := _facade_call(node.body)):
                fired.add(method)
    # The catalogue hooks the reference host fires, each by its own method.
    assert fired == {
        "pre_gateway_dispatch",
        "pre_command",
        "on_session_finalize",
        "on_session_reset",
        "on_session_start",
        "pre_llm_call",
        "on_session_end",
        "transform_llm_output",
        "post_llm_call",
        "pre_verify",
        "pre_api_request",
        "api_request_error",
        "transform_api_error_classification",
        "post_api_request",
        "on_interim_message",
        "on_stream_start",
        "on_stream_delta",
        "on_stream_end",
        "pre_tool_call",
        "post_tool_call",
        "transform_tool_result",
        "pre_approval_request",
        "post_approval_response",
        "subagent_start",
        "subagent_stop",
        "transform_terminal_output",
    }


def test_the_check_catches_each_way_around_the_facade() -> None:
    bad = textwrap.dedent(
        """
        def host(self, hook, payload):
            getattr(self.hooks, hook)(**payload)
            getattr(hooks, "pre_tool_call")(**payload)
            self.hooks.invoke(hook, **payload)
            self.hooks.dispatcher.fire(hook, payload)
            self._fire(hook, lambda: self.hooks.pre_tool_call(**payload))
            self._fire("pre_tool_call", lambda: self.hooks.post_tool_call(**payload))
            self._fire_if_heard("pre_llm_call", payload)
            self._fire("no_such_hook", lambda: self.hooks.no_such_hook())
        """
    )
    assert [o.split(": ", 1)[1].split(":")[0] for o in offences(bad)] == [
        "getattr on the hooks",
        "getattr on the hooks",
        "hook fired by a computed name",
        "hook fired by a computed name",
        "the step is not named by a literal",
        "the step 'pre_tool_call' calls hooks.post_tool_call",
        "pre_llm_call is not fired through a lambda calling the facade",
        "'no_such_hook' is not a catalogue hook",
    ]
    good = 'self._fire("pre_tool_call", lambda: self.hooks.pre_tool_call(tool_name="t"))'
    assert offences(good) == []
    assert offences('hooks.invoke("pre_tool_call", tool_name="t")') == []
