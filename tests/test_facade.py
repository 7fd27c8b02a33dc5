"""The typed facade is generated from the catalogue: no drift, the spec's docstrings,
typed keyword-only fields, and a type checker that rejects a misspelt field."""

from __future__ import annotations

import asyncio
import inspect
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hermes_hooks._gen import FACADE_DIR, render_facade
from hermes_hooks.config import Settings
from hermes_hooks.hooks import Hooks
from hermes_hooks.hookspecs import CATALOGUE

SOURCE_FACADE = Path(__file__).resolve().parents[1] / "hermes_hooks" / "_facade"


def test_the_checked_in_facade_matches_the_generator() -> None:
    expected = render_facade()
    generated = sorted(p.name for p in SOURCE_FACADE.glob("*.py") if p.name != "_runtime.py")
    assert generated == sorted(expected)
    for name, text in expected.items():
        assert (SOURCE_FACADE / name).read_text(encoding="utf-8") == text, (
            f"hermes_hooks/_facade/{name} drifted: run python -m hermes_hooks._gen"
        )
    assert FACADE_DIR.name == "_facade"


def test_each_method_carries_the_spec_docstring_and_typed_signature() -> None:
    for name, contract in CATALOGUE.items():
        method = getattr(Hooks, name)
        assert method.__doc__ == contract.method_doc
        assert method.__doc__.endswith(contract.doc)
        params = list(inspect.signature(method).parameters.values())
        assert [p.name for p in params] == ["self", *(f.name for f in contract.fields), "extra"]
        assert all(p.kind is p.KEYWORD_ONLY for p in params[1:-1]), name
        assert [p.annotation for p in params[1:-1]] == [f.type for f in contract.fields]
        assert params[-1].kind is inspect.Parameter.VAR_KEYWORD


def test_the_typed_declarations_name_the_answer_type() -> None:
    text = (SOURCE_FACADE / "tools.py").read_text(encoding="utf-8")
    assert "            **extra: Any,\n        ) -> ToolDecision:\n" in text
    assert "        apre_tool_call = async_twin(pre_tool_call)\n" in text
    stream = (SOURCE_FACADE / "stream.py").read_text(encoding="utf-8")
    assert "def on_stream_delta(\n" in stream and ") -> None:\n" in stream


@pytest.mark.parametrize("opted_in", [False, True])
def test_reasoning_deltas_pass_only_with_the_opt_in(opted_in: bool) -> None:
    hooks = Hooks.empty(settings=Settings(stream_reasoning_deltas=opted_in))
    seen: list[str] = []
    hooks.manager.register_callback(
        "on_stream_delta", lambda delta, kind, **_: seen.append(f"{kind}:{delta}"), owner="p"
    )
    payload = {"turn_id": "t", "iteration": 1, "session_id": "s", "model": "m"}
    payload |= {"provider": "p", "surface": "cli"}
    hooks.on_stream_delta(delta="think", kind="reasoning", **payload)
    asyncio.run(hooks.aon_stream_delta(delta="more", kind="reasoning", **payload))
    hooks.on_stream_delta(delta="Hi", kind="text", **payload)
    hooks.close()
    assert seen == (["reasoning:think", "reasoning:more", "text:Hi"] if opted_in else ["text:Hi"])


#: Every field spelt out: a ``**dict`` argument would let mypy assume it holds the rest.
_CALL = """
    decision = {awaiting}hooks.{method}(
        tool_nmae="terminal",
        args={{"command": "ls"}},
        task_id="",
        session_id="s",
        tool_call_id="c",
        turn_id="t",
        api_request_id="r",
        middleware_trace=[],
    )
    return decision.blocked
"""
HOST = (
    "from hermes_hooks.hooks import Hooks\n\n\n"
    "def gate(hooks: Hooks) -> bool:"
    + _CALL.format(awaiting="", method="pre_tool_call")
    + "\n\nasync def agate(hooks: Hooks) -> bool:"
    + _CALL.format(awaiting="await ", method="apre_tool_call")
)


def _mypy(tmp_path: Path, source: str) -> subprocess.CompletedProcess[str]:
    host = tmp_path / "host.py"
    host.write_text(textwrap.dedent(source), encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--strict", str(host)],
        cwd=tmp_path,  # the installed package, as a host sees it
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_mypy_rejects_a_misspelt_field_in_a_host(tmp_path: Path) -> None:
    result = _mypy(tmp_path, HOST)
    assert result.returncode == 1, result.stdout + result.stderr
    errors = [
        line.split(": error: ")[1] for line in result.stdout.splitlines() if ": error: " in line
    ]
    assert errors == [
        'Missing named argument "tool_name" for "pre_tool_call" of "ToolsCalls"  [call-arg]',
        'Missing named argument "tool_name"  [call-arg]',
    ], result.stdout
    fixed = _mypy(tmp_path, HOST.replace("tool_nmae=", "tool_name="))
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
