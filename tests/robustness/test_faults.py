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
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

import hermes_hooks
from hermes_hooks import testing
from hermes_hooks.gateway.emitter import CallRecord
from hermes_hooks.hooks import Hooks
from hermes_hooks.types import ErrorClassification, TranscriptionRequest
from tests.conftest import tool_payload, write_plugin
from tests.gateway.conftest import write_hook
from tests.outbound.endpoint import Endpoint, Reply, wait_until
from tests.robustness import probe
from tests.shell.conftest import approve, py, sh, write_script

TIMEOUT_MESSAGE = "pre_tool_call plugin callback timed out or is still running"

# -- exception families ----------------------------------------------------------------


class UnprintableError(Exception):
    """An exception whose ``str()`` itself raises."""

    def __str__(self) -> str:
        raise RuntimeError("no text for you")


class PluginAbort(BaseException):
    """A plugin's own BaseException subclass (outside D-14's catch set)."""


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
    ]
    if sys.version_info >= (3, 11):
        families.append(ExceptionGroup("several", [ValueError("a"), KeyError("b")]))  # noqa: F821
    return families


ISOLATED = _isolated_families()
NOT_ISOLATED = [GeneratorExit("closing"), asyncio.CancelledError("cancelled"), PluginAbort("x")]


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
    with pytest.raises(KeyboardInterrupt):  # D-14: never swallowed
        hooks.pre_tool_call(**tool_payload())


@pytest.mark.parametrize("timeout", [0, 5.0], ids=["caller-thread", "bounded-worker"])
@pytest.mark.parametrize("exc", NOT_ISOLATED, ids=lambda e: type(e).__name__)
def test_base_exceptions_outside_d14_propagate_and_the_hooks_keep_working(
    make_hooks: Callable[..., Hooks], timeout: float, exc: BaseException
) -> None:
    # D-14 isolates Exception and SystemExit; any other BaseException reaches the
    # caller of the firing, as KeyboardInterrupt does.  The next firing is unharmed.
    hooks = make_hooks(timeout=timeout)
    armed = [True]

    def sometimes(**kwargs: Any) -> dict[str, str] | None:
        if armed.pop() if armed else False:
            raise exc
        return {"action": "block", "message": "recovered"}

    hooks.manager.register_callback("pre_tool_call", sometimes, owner="a")
    with pytest.raises(type(exc)):
        hooks.pre_tool_call(**tool_payload())
    assert hooks.pre_tool_call(**tool_payload()).message == "recovered"


@pytest.mark.parametrize("exc", [*ISOLATED, *NOT_ISOLATED], ids=lambda e: type(e).__name__)
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
    if family in ("value", "exit"):  # isolated: recorded as an error (D-14)
        assert [r.outcome for r in records] == ["error", "ok", "ok"]
    else:  # outside D-14's catch set: that call is lost, nothing after it
        assert [r.outcome for r in records] == ["ok", "ok"]


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
    ("pre_llm_call", lambda: {"context": 42}, lambda a: a == "42"),  # D-32: str()
    ("pre_llm_call", lambda: {"context": b"raw"}, lambda a: a == "b'raw'"),
    ("pre_llm_call", lambda: b"bytes", lambda a: a is None),
    ("pre_llm_call", lambda: {"context": BadStr()}, lambda a: a is None),
    ("pre_llm_call", lambda: HUGE, lambda a: a == HUGE),
    ("transform_tool_result", lambda: b"bytes", lambda a: a is None),
    ("transform_tool_result", lambda: "", lambda a: a == ""),  # D-16: "" counts
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


# -- blocking forever ------------------------------------------------------------------


def test_a_hung_gate_blocks_then_is_suppressed_without_running_again(
    make_hooks: Callable[..., Hooks],
) -> None:
    hooks = make_hooks(timeout=0.2)
    release = probe.gate("hung-gate")
    calls: list[str] = []

    def hung(**kwargs: Any) -> None:
        calls.append(kwargs["tool_call_id"])
        release.wait()

    observed: list[str] = []
    hooks.manager.register_callback("pre_tool_call", hung, owner="a")
    hooks.manager.register_callback(
        "pre_tool_call", lambda **kw: observed.append(kw["tool_call_id"]), owner="b"
    )
    first = hooks.pre_tool_call(**tool_payload(tool_call_id="c1"))
    second = hooks.pre_tool_call(**tool_payload(tool_call_id="c2"))
    assert (first.action, first.message) == ("block", TIMEOUT_MESSAGE)
    assert (second.action, second.message) == ("block", TIMEOUT_MESSAGE)
    assert calls == ["c1"]  # D-14: suppressed for 60 s, firings count as timeouts
    assert observed == ["c1", "c2"]
    assert not release.is_set()  # both answers came while the gate was still stuck


def test_a_hung_stream_observer_only_fills_its_own_queue(make_hooks: Callable[..., Hooks]) -> None:
    hooks = make_hooks()
    release = probe.gate("hung-stream")
    fast: list[str] = []
    hooks.manager.register_callback("on_stream_delta", lambda **kw: release.wait(), owner="stuck")
    hooks.manager.register_callback(
        "on_stream_delta", lambda delta, **kw: fast.append(delta), owner="fast"
    )
    try:
        for batch in range(6):  # batches the fast observer can keep up with
            for i in range(batch * 500, batch * 500 + 500):
                testing.fire(hooks, "on_stream_delta", delta=str(i))
            wait_until(lambda n=batch: len(fast) == 500 * (n + 1))
        assert not release.is_set()  # the token path never waited for the stuck one
        stuck = hooks.dispatcher.lane("stuck")
        assert stuck is not None and stuck.pending == 1024  # D-61: its own queue, full
        assert stuck.dropped >= 3000 - 1024 - 1
        assert fast == [str(i) for i in range(3000)]  # the other observer lost nothing
    finally:
        release.set()


def test_a_hung_shell_gate_is_killed_at_its_timeout_and_fails_as_configured(
    home: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "started"
    script = write_script(home / "agent-hooks" / "hang.sh", sh(f"touch {marker}\nexec sleep 120"))
    config = {
        "hooks": {
            "pre_tool_call": [
                {"command": str(script), "timeout": 1},
                {"command": f"{script} closed", "timeout": 1, "fail_closed": True},
            ]
        }
    }
    (home / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    approve(home, "pre_tool_call", str(script))
    approve(home, "pre_tool_call", f"{script} closed")
    hooks = hermes_hooks.load(home, entry_points=False)
    try:
        decision = hooks.pre_tool_call(**tool_payload())
    finally:
        hooks.close()
    assert marker.exists()
    assert decision.action == "block"
    assert decision.message == f"hook {script} closed failed closed: timed out after 1s"


def test_a_hung_gateway_handler_never_holds_emit(home: Path) -> None:
    write_hook(
        home / "hooks",
        "stuck",
        ("agent:*",),
        "from tests.robustness import probe\n"
        "def handle(event_type, context):\n"
        "    probe.note(event_type)\n"
        "    probe.gate('gateway-stuck').wait()\n",
    )
    (home / "config.yaml").write_text("plugins: {hook_callback_timeout: 0.2}\n", encoding="utf-8")
    hooks = hermes_hooks.load(home, surface="gateway", entry_points=False)
    records: list[CallRecord] = []
    hooks.gateway.subscribe(records.append)

    async def scenario() -> None:
        for i in range(6):
            await hooks.gateway.emit("agent:step", {"i": i})
        assert not probe.gate("gateway-stuck").is_set()  # every emit returned at once
        assert await hooks.gateway.drain(10)

    try:
        asyncio.run(scenario())
    finally:
        probe.gate("gateway-stuck").set()
        hooks.close()
    outcomes = [r.outcome for r in records]
    # D-01/D-14: three calls abandoned at the limit, then the hung handler is skipped
    assert outcomes == ["timeout", "timeout", "timeout", "skipped", "skipped", "skipped"]
    assert probe.notes == ["agent:step"] * 3


def test_a_hung_webhook_endpoint_never_holds_the_agent(home: Path) -> None:
    endpoint = Endpoint(Reply(hold=True))
    (home / "config.yaml").write_text(
        yaml.safe_dump(
            {"hooks": {"outbound": [{"url": endpoint.url, "events": ["post_tool_call"]}]}}
        ),
        encoding="utf-8",
    )
    hooks = hermes_hooks.load(home, entry_points=False)
    try:
        for _ in range(10):
            testing.fire(hooks, "post_tool_call")
        endpoint.wait_requests(1)  # the first POST is stuck in the endpoint...
        lane = hooks.sources["outbound"].lanes[0]  # type: ignore[attr-defined]
        assert lane.stats.delivered == 0  # ...and every firing already returned
    finally:
        endpoint.release()
        hooks.close(3.0)
        endpoint.close()
    assert lane.stats.delivered == 10


# -- calling back into the hooks ---------------------------------------------------------


@pytest.mark.parametrize("timeout", [0, 5.0], ids=["caller-thread", "bounded-worker"])
def test_a_callback_firing_other_hooks_gets_their_answers(
    make_hooks: Callable[..., Hooks], timeout: float
) -> None:
    hooks = make_hooks(timeout=timeout)
    inner: list[Any] = []

    def gate(**kwargs: Any) -> dict[str, str]:
        inner.append(testing.fire(hooks, "pre_llm_call"))
        testing.fire(hooks, "post_tool_call")
        return {"action": "block", "message": "outer"}

    hooks.manager.register_callback("pre_tool_call", gate, owner="a")
    hooks.manager.register_callback("pre_llm_call", lambda **kw: "inner context", owner="a")
    assert hooks.pre_tool_call(**tool_payload()).message == "outer"
    assert inner == ["inner context"]


def test_re_entering_a_bounded_gate_with_the_same_tool_call_is_refused(
    make_hooks: Callable[..., Hooks],
) -> None:
    hooks = make_hooks(timeout=5.0)
    inner: list[Any] = []

    def gate(**kwargs: Any) -> dict[str, str] | None:
        if not inner:
            inner.append(hooks.pre_tool_call(**tool_payload()))  # same tool_call_id
        return None

    hooks.manager.register_callback("pre_tool_call", gate, owner="a")
    outer = hooks.pre_tool_call(**tool_payload())
    # D-14: one tool_call_id never runs twice at once; the nested firing fails closed
    assert (inner[0].action, inner[0].message) == ("block", TIMEOUT_MESSAGE)
    assert outer.action == "allow"


@pytest.mark.parametrize("timeout", [0, 5.0], ids=["caller-thread", "bounded-worker"])
def test_re_entering_with_new_tool_calls_nests_to_the_callbacks_own_depth(
    make_hooks: Callable[..., Hooks], timeout: float
) -> None:
    hooks = make_hooks(timeout=timeout)

    def gate(tool_call_id: str, **kwargs: Any) -> dict[str, str]:
        depth = tool_call_id.count("+")
        if depth < 4:
            nested = hooks.pre_tool_call(**tool_payload(tool_call_id=tool_call_id + "+"))
            return {"action": "block", "message": f"{depth}<{nested.message}"}
        return {"action": "block", "message": "bottom"}

    hooks.manager.register_callback("pre_tool_call", gate, owner="a")
    decision = hooks.pre_tool_call(**tool_payload(tool_call_id="c"))
    assert decision.message == "0<1<2<3<bottom"


def test_registering_and_unregistering_inside_a_firing_applies_from_the_next(
    make_hooks: Callable[..., Hooks],
) -> None:
    hooks = make_hooks(timeout=5.0)
    order: list[str] = []

    def late(**kwargs: Any) -> None:
        order.append("late")

    def first(**kwargs: Any) -> None:
        order.append("first")
        hooks.manager.unregister_owner("second")
        hooks.manager.register_callback("post_tool_call", late, owner="late")

    hooks.manager.register_callback("post_tool_call", first, owner="a-first")
    hooks.manager.register_callback(
        "post_tool_call", lambda **kw: order.append("second"), owner="second"
    )
    testing.fire(hooks, "post_tool_call")
    testing.fire(hooks, "post_tool_call")
    # the running firing keeps the callbacks it started with; the next sees the change
    assert order == ["first", "second", "first", "late"]


def test_a_gateway_handler_emitting_events_gets_them_delivered(home: Path) -> None:
    write_hook(
        home / "hooks",
        "echo",
        ("agent:*",),
        "import asyncio\n"
        "from tests.robustness import probe\n"
        "async def handle(event_type, context):\n"
        "    probe.note(event_type)\n"
        "    if event_type == 'agent:start':\n"
        "        await probe.objects['hooks'].gateway.emit('agent:end', {})\n",
    )
    hooks = hermes_hooks.load(home, surface="gateway", entry_points=False)
    probe.objects["hooks"] = hooks

    async def scenario() -> None:
        await hooks.gateway.emit("agent:start", {})
        assert await hooks.gateway.drain(10)

    try:
        asyncio.run(scenario())
    finally:
        hooks.close()
    assert probe.notes == ["agent:start", "agent:end"]


# -- plugins whose import hangs ------------------------------------------------------------

HANGING_PLUGIN = """
from tests.robustness import probe
probe.note("import started")
probe.gate("plugin-import").wait()

def register(ctx):
    ctx.register_hook("pre_tool_call", lambda **kw: {"action": "block", "message": "slow"})
"""
QUICK_PLUGIN = """
def register(ctx):
    ctx.register_hook("pre_tool_call", lambda **kw: {"action": "approve", "message": "quick"})
"""


def test_a_plugin_whose_import_hangs_holds_load_but_never_a_firing(home: Path) -> None:
    # Documented: imports run on the loading thread, unbounded like any Python import.
    # Firings of hooks already loaded are unaffected; the load completes on release.
    write_plugin(home / "plugins", "a-slow", HANGING_PLUGIN)
    write_plugin(home / "plugins", "b-quick", QUICK_PLUGIN)
    running = Hooks.empty(home)
    running.manager.register_callback("pre_tool_call", lambda **kw: None, owner="x")
    loaded: list[Hooks] = []
    loader = threading.Thread(
        target=lambda: loaded.append(hermes_hooks.load(home, entry_points=False)), daemon=True
    )
    loader.start()
    wait_until(lambda: probe.notes == ["import started"])
    assert loader.is_alive() and not loaded
    assert running.pre_tool_call(**tool_payload()).action == "allow"
    probe.gate("plugin-import").set()
    loader.join(10)
    hooks = loaded[0]
    try:
        assert [r.state for r in hooks.sources["python"].records()] == ["loaded", "loaded"]  # type: ignore[attr-defined]
        decision = hooks.pre_tool_call(**tool_payload())
    finally:
        hooks.close()
    assert (decision.action, decision.message) == ("block", "slow")


@pytest.mark.parametrize("how", ["safe mode", "plugins.disabled"])
def test_a_hanging_plugin_is_never_imported_when_disabled_or_in_safe_mode(
    home: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    write_plugin(home / "plugins", "a-slow", HANGING_PLUGIN)
    write_plugin(home / "plugins", "b-quick", QUICK_PLUGIN)
    if how == "safe mode":
        monkeypatch.setenv("HERMES_SAFE_MODE", "1")
    else:
        (home / "config.yaml").write_text("plugins: {disabled: [a-slow]}\n", encoding="utf-8")
    hooks = hermes_hooks.load(home, entry_points=False)  # returns: nothing hangs
    try:
        decision = hooks.pre_tool_call(**tool_payload())
    finally:
        hooks.close()
    assert probe.notes == []
    expected = ("allow", None) if how == "safe mode" else ("approve", "quick")
    assert (decision.action, decision.message) == expected


# -- a config file that changes while running --------------------------------------------


def _write_config(home: Path, document: dict[str, Any]) -> None:
    (home / "config.yaml").write_text(yaml.safe_dump(document), encoding="utf-8")


def test_config_changes_apply_at_the_next_load_and_reload_applies_them_once(
    home: Path, tmp_path: Path
) -> None:
    log = tmp_path / "fired.log"
    one = write_script(home / "agent-hooks" / "one.sh", sh(f"cat >/dev/null; echo one >> {log}"))
    two = write_script(home / "agent-hooks" / "two.sh", sh(f"cat >/dev/null; echo two >> {log}"))
    for script in (one, two):
        approve(home, "post_tool_call", str(script))
    _write_config(
        home,
        {
            "plugins": {"hook_callback_timeout": 7},
            "hooks": {"post_tool_call": [{"command": str(one)}]},
        },
    )
    hooks = hermes_hooks.load(home, entry_points=False)
    try:
        _write_config(
            home,
            {
                "plugins": {"hook_callback_timeout": 2},
                "hooks": {"post_tool_call": [{"command": str(two)}]},
            },
        )
        testing.fire(hooks, "post_tool_call")
        assert log.read_text().split() == ["one"]  # OUT-05 / D-13: read at load only
        assert hooks.dispatcher.timeout == 7
        hooks.reload()
        hooks.reload()  # D-08: idempotent
        testing.fire(hooks, "post_tool_call")
        assert log.read_text().split() == ["one", "two"]
        assert hooks.dispatcher.timeout == 2
        (home / "config.yaml").write_text("hooks: [unclosed\n", encoding="utf-8")
        hooks.reload()  # garbage: warned, defaults, no crash
        testing.fire(hooks, "post_tool_call")
        assert log.read_text().split() == ["one", "two"]
        assert hooks.dispatcher.timeout == 30
    finally:
        hooks.close()


def test_reloading_while_the_config_is_rewritten_never_raises(home: Path) -> None:
    script = write_script(home / "agent-hooks" / "gate.py", py("import sys; sys.stdin.read()"))
    approve(home, "pre_tool_call", str(script))
    good = yaml.safe_dump({"hooks": {"pre_tool_call": [{"command": str(script)}]}})
    hooks = hermes_hooks.load(home, entry_points=False)
    stop = threading.Event()

    def writer() -> None:
        path = home / "config.yaml"
        while not stop.is_set():
            with path.open("w", encoding="utf-8") as handle:  # not atomic on purpose
                for i in range(0, len(good), 7):
                    handle.write(good[i : i + 7])
                    handle.flush()

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    try:
        for _ in range(40):
            hooks.reload()
            assert len(hooks.manager.callbacks("pre_tool_call")) <= 1
    finally:
        stop.set()
        thread.join(5)
    (home / "config.yaml").write_text(good, encoding="utf-8")
    hooks.reload()
    try:
        assert [cb.source for cb in hooks.manager.callbacks("pre_tool_call")] == ["shell"]
    finally:
        hooks.close()
