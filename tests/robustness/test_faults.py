"""Fault injection across the four systems: callbacks that raise every exception
family, return odd types, mutate their payload, block forever or call back into the
hooks; plugins whose import hangs; a config file that changes while running.

The host never crashes, and each outcome is the documented one (D-14, D-20, D-32,
D-61, D-01, D-15, D-70, D-79, D-13 / OUT-05).  ``docs/robustness.md`` lists them.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import hermes_hooks
from hermes_hooks import testing
from hermes_hooks.gateway.emitter import CallRecord
from hermes_hooks.hooks import Hooks
from hermes_hooks.types import ErrorClassification, TranscriptionRequest
from tests.gateway.helpers import write_hook
from tests.helpers import tool_payload
from tests.outbound.endpoint import wait_until
from tests.robustness import probe

TIMEOUT_MESSAGE = "pre_tool_call plugin callback timed out or is still running"

# -- exception families ----------------------------------------------------------------


class UnprintableError(Exception):
    """An exception whose ``str()`` itself raises."""

    def __str__(self) -> str:
        raise RuntimeError("no text for you")


class PluginAbort(BaseException):
    """A plugin's own BaseException subclass."""


def _isolated_families() -> list[BaseException]:
    families: list[BaseException] = [
        ValueError("bad value"),
        TypeError("bad type"),
        KeyError("missing"),
        RuntimeError("runtime"),
        OSError(5, "input/output error"),
        RecursionError("too deep"),
        MemoryError("no memory"),
        StopIteration("stopped"),
        UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"),
        AssertionError("assumption"),
        ZeroDivisionError("division by zero"),
        NotImplementedError("later"),
        TimeoutError("slow"),
        ConnectionResetError(104, "reset"),
        UnprintableError(),
        ValueError("x" * 100_000),
        SystemExit(3),  # D-14 names it: isolated like an Exception
        # Every BaseException but KeyboardInterrupt is the callback's failure: plugin
        # code never ends the host (a CancelledError with no cancellation under way too).
        GeneratorExit("closing"),
        asyncio.CancelledError("cancelled"),
        PluginAbort("x"),
    ]
    if sys.version_info >= (3, 11):
        families.append(ExceptionGroup("several", [ValueError("a"), KeyError("b")]))  # noqa: F821
    return families


ISOLATED = _isolated_families()


def _text(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:
        return f"<unprintable {type(exc).__name__}>"


def raiser(exc: BaseException) -> Callable[..., Any]:
    def callback(**kwargs: Any) -> None:
        raise exc

    return callback


@pytest.mark.parametrize("timeout", [0, 5.0], ids=["caller-thread", "bounded-worker"])
@pytest.mark.parametrize("exc", ISOLATED, ids=lambda e: type(e).__name__)
def test_a_raising_gate_blocks_with_the_d14_message_and_the_rest_still_run(
    make_hooks: Callable[..., Hooks], timeout: float, exc: BaseException
) -> None:
    hooks = make_hooks(timeout=timeout)
    after: list[str] = []
    hooks.manager.register_callback("pre_tool_call", raiser(exc), owner="a")
    hooks.manager.register_callback(
        "pre_tool_call", lambda **kw: after.append(kw["tool_call_id"]), owner="b"
    )
    decision = hooks.pre_tool_call(**tool_payload())
    assert decision.action == "block"
    assert decision.message == (
        "pre_tool_call plugin callback raiser.<locals>.callback raised "
        f"{type(exc).__name__}: {_text(exc)[:200]}"
    )
    assert after == ["call-1"]  # D-20: every callback runs, even after a block


@pytest.mark.parametrize("timeout", [0, 5.0], ids=["caller-thread", "bounded-worker"])
@pytest.mark.parametrize("exc", ISOLATED, ids=lambda e: type(e).__name__)
def test_a_raising_observer_is_skipped_and_warned_once(
    make_hooks: Callable[..., Hooks],
    caplog: pytest.LogCaptureFixture,
    timeout: float,
    exc: BaseException,
) -> None:
    hooks = make_hooks(timeout=timeout)
    seen: list[str] = []
    hooks.manager.register_callback("post_tool_call", raiser(exc), owner="a")
    hooks.manager.register_callback(
        "post_tool_call", lambda **kw: seen.append(kw["status"]), owner="b"
    )
    for _ in range(3):
        assert testing.fire(hooks, "post_tool_call") is None
    assert seen == ["ok", "ok", "ok"]
    warned = [r for r in caplog.records if r.levelno == logging.WARNING and "raised" in r.msg]
    assert len(warned) == 1  # then DEBUG for the repeats
    assert f"raised {type(exc).__name__}: " in warned[0].getMessage()


@pytest.mark.parametrize("timeout", [0, 5.0], ids=["caller-thread", "bounded-worker"])
def test_keyboard_interrupt_from_a_callback_reaches_the_host(
    make_hooks: Callable[..., Hooks], timeout: float
) -> None:
    hooks = make_hooks(timeout=timeout)
    hooks.manager.register_callback("pre_tool_call", raiser(KeyboardInterrupt()), owner="a")
    with pytest.raises(KeyboardInterrupt):  # Ctrl-C reaches the host (D-14)
        hooks.pre_tool_call(**tool_payload())


@pytest.mark.parametrize("exc", ISOLATED, ids=lambda e: type(e).__name__)
def test_stream_observers_raising_anything_but_keyboard_interrupt_keep_their_lane(
    make_hooks: Callable[..., Hooks], exc: BaseException
) -> None:
    hooks = make_hooks()
    got: list[str] = []

    def observer(delta: str, **kwargs: Any) -> None:
        if delta == "bad":
            raise exc
        got.append(delta)

    hooks.manager.register_callback("on_stream_delta", observer, owner="obs")
    for delta in ("a", "bad", "b"):
        testing.fire(hooks, "on_stream_delta", delta=delta)
    lane = hooks.dispatcher.lane("obs")
    assert lane is not None
    wait_until(lambda: got == ["a", "b"])  # D-61: the stream is unaffected


FAMILY_HANDLER = """
import asyncio
from tests.robustness import probe

class PluginAbort(BaseException):
    pass

FAMILIES = {"value": ValueError("v"), "exit": SystemExit(2), "abort": PluginAbort("a"),
            "generator": GeneratorExit("g"), "cancelled": asyncio.CancelledError("c")}

async def handle(event_type, context):
    probe.note(f"{event_type}:{context['n']}")
    family = context.get("raise")
    if family:
        raise FAMILIES[family]
"""


@pytest.mark.parametrize("family", ["value", "exit", "abort", "generator", "cancelled"])
def test_a_gateway_lane_outlives_a_handler_raising_anything_but_keyboard_interrupt(
    home: Path, family: str
) -> None:
    write_hook(home / "hooks", "fragile", ("agent:*",), FAMILY_HANDLER)
    hooks = hermes_hooks.load(home, surface="gateway", entry_points=False)
    records: list[CallRecord] = []
    hooks.gateway.subscribe(records.append)

    async def scenario() -> None:
        await hooks.gateway.emit("agent:start", {"n": 1, "raise": family})
        await hooks.gateway.emit("agent:step", {"n": 2})
        await hooks.gateway.drain(10)
        await hooks.gateway.emit("agent:end", {"n": 3})  # restarts a lane whose task ended
        assert await hooks.gateway.drain(10)

    try:
        asyncio.run(scenario())
    finally:
        hooks.close()
    assert probe.notes == ["agent:start:1", "agent:step:2", "agent:end:3"]
    # Isolated, whatever it raised: recorded as an error, and the lane goes on.
    assert [r.outcome for r in records] == ["error", "ok", "ok"]


# -- odd return values ---------------------------------------------------------------


class EvilDict(dict[str, Any]):
    """A dict whose every read raises."""

    def get(self, *args: Any) -> Any:
        raise RuntimeError("evil get")


class BadStr:
    def __str__(self) -> str:
        raise RuntimeError("no str")


async def _coro(value: Any) -> Any:
    return value


def _generator() -> Iterator[int]:
    yield 1


HUGE = "x" * 10_000_000

ODD_RETURNS: list[tuple[str, Callable[[], Any], Callable[[Any], bool]]] = [
    ("pre_tool_call", lambda: b"block", lambda d: d.action == "allow"),
    ("pre_tool_call", lambda: "block", lambda d: d.action == "allow"),
    ("pre_tool_call", object, lambda d: d.action == "allow"),
    ("pre_tool_call", lambda: [{"action": "block", "message": "m"}], lambda d: d.action == "allow"),
    ("pre_tool_call", _generator, lambda d: d.action == "allow"),
    ("pre_tool_call", lambda: {"action": 5}, lambda d: d.action == "allow"),
    # D-20: a Python block needs a non-empty string message
    ("pre_tool_call", lambda: {"action": "block", "message": 5}, lambda d: d.action == "allow"),
    (
        "pre_tool_call",
        lambda: {"action": "block", "message": HUGE},
        lambda d: d.action == "block" and d.message == HUGE,
    ),
    (
        "pre_tool_call",
        lambda: {"action": "modify", "args": "rm -rf /"},
        lambda d: d.action == "allow" and d.args == {"command": "ls -la"} and not d.modified,
    ),
    (
        "pre_tool_call",
        lambda: {"action": "approve", "message": 5, "rule_key": 7, "review": "SMART "},
        lambda d: (
            (d.action, d.message, d.rule_key, d.review) == ("approve", None, "terminal", "smart")
        ),
    ),
    (
        "pre_tool_call",
        lambda: EvilDict(action="block"),
        lambda d: d.action == "block" and "raised RuntimeError: evil get" in (d.message or ""),
    ),
    (  # a sync callback returning an un-awaited coroutine: it is awaited (D-10)
        "pre_tool_call",
        lambda: _coro({"action": "block", "message": "from a coroutine"}),
        lambda d: d.message == "from a coroutine",
    ),
    ("pre_llm_call", lambda: {"context": 42}, lambda a: a == "42"),  # converted with str() (D-32)
    ("pre_llm_call", lambda: {"context": b"raw"}, lambda a: a == "b'raw'"),
    ("pre_llm_call", lambda: b"bytes", lambda a: a is None),
    ("pre_llm_call", lambda: {"context": BadStr()}, lambda a: a is None),
    ("pre_llm_call", lambda: HUGE, lambda a: a == HUGE),
    ("transform_tool_result", lambda: b"bytes", lambda a: a is None),
    ("transform_tool_result", lambda: "", lambda a: a == ""),  # "" is a replacement (D-16)
    ("transform_tool_result", BadStr, lambda a: a is None),
    ("transform_llm_output", lambda: "", lambda a: a is None),
    ("pre_verify", lambda: {"action": "continue", "message": ["x"]}, lambda a: a is None),
    (
        "transform_api_error_classification",
        lambda: {"reason": " RATE_LIMIT ", "retryable": "no", "message": "m" * 1000},
        lambda a: (
            isinstance(a, ErrorClassification)
            and (a.reason, a.retryable, len(a.message or "")) == ("rate_limit", True, 500)
        ),
    ),
    ("transform_api_error_classification", lambda: {"reason": 5}, lambda a: a is None),
    (
        "pre_transcription",
        lambda: {"prompt": 5, "language": "de", "file_path": "/etc/passwd"},
        lambda a: a == TranscriptionRequest(prompt=None, language="de", model=None),
    ),
    ("pre_gateway_dispatch", lambda: {"action": "rewrite", "text": 5}, lambda a: a is None),
]


@pytest.mark.parametrize("timeout", [0, 5.0], ids=["caller-thread", "bounded-worker"])
@pytest.mark.parametrize(
    ("hook", "make", "expected"),
    ODD_RETURNS,
    ids=[f"{h}-{i}" for i, (h, *_) in enumerate(ODD_RETURNS)],
)
def test_odd_return_values_give_the_documented_answer(
    make_hooks: Callable[..., Hooks],
    timeout: float,
    hook: str,
    make: Callable[[], Any],
    expected: Callable[[Any], bool],
) -> None:
    hooks = make_hooks(timeout=timeout)
    hooks.manager.register_callback(hook, lambda **kw: make(), owner="odd")
    payload = tool_payload() if hook == "pre_tool_call" else {}
    answer = testing.fire(hooks, hook, **payload)
    assert expected(answer), answer


def test_an_observer_returning_an_unawaited_coroutine_has_it_awaited(
    make_hooks: Callable[..., Hooks],
) -> None:
    ran: list[str] = []

    async def work() -> None:
        ran.append("awaited")

    hooks = make_hooks(timeout=5.0)
    hooks.manager.register_callback("post_tool_call", lambda **kw: work(), owner="a")
    testing.fire(hooks, "post_tool_call")
    assert ran == ["awaited"]  # and no "never awaited" warning (filterwarnings = error)


def test_a_callback_returning_cyclic_args_fails_closed_without_crashing_the_host(
    make_hooks: Callable[..., Hooks],
) -> None:
    cycle: list[Any] = []
    cycle.append(cycle)
    hooks = make_hooks(timeout=5.0)
    hooks.manager.register_callback(
        "pre_tool_call", lambda **kw: {"action": "modify", "args": {"x": cycle}}, owner="a"
    )
    hooks.manager.register_callback("pre_tool_call", lambda **kw: None, owner="b")
    decision = hooks.pre_tool_call(**tool_payload())
    assert decision.action == "block"
    assert "raised RecursionError" in (decision.message or "")


# -- payload mutation ----------------------------------------------------------------


@pytest.mark.parametrize("timeout", [0, 5.0], ids=["caller-thread", "bounded-worker"])
def test_callbacks_mutating_their_payload_change_nothing_for_others_or_the_host(
    make_hooks: Callable[..., Hooks], timeout: float
) -> None:
    hooks = make_hooks(timeout=timeout)
    seen: list[Any] = []

    def vandal(**kwargs: Any) -> None:
        kwargs["args"]["command"] = "rm -rf /"
        kwargs["args"]["nested"]["list"].append("extra")
        del kwargs["args"]["nested"]["keep"]
        kwargs["tool_name"] = "delete_everything"
        kwargs["middleware_trace"].append("injected")

    def witness(tool_name: str, args: dict[str, Any], middleware_trace: list[str]) -> None:
        seen.append((tool_name, args, middleware_trace))

    hooks.manager.register_callback("pre_tool_call", vandal, owner="a")
    hooks.manager.register_callback("pre_tool_call", witness, owner="b")
    args = {"command": "ls", "nested": {"list": [1], "keep": True}}
    payload = tool_payload(args=args)
    decision = hooks.pre_tool_call(**payload)
    pristine = {"command": "ls", "nested": {"list": [1], "keep": True}}
    assert seen == [("terminal", pristine, [])]
    assert args == pristine and payload["middleware_trace"] == []
    assert decision.action == "allow" and decision.args == pristine
