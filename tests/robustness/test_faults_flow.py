"""Fault injection, part two: callbacks that block forever or call back into the hooks,
plugins whose import hangs, and a config file that changes while running.  Part one
(``test_faults.py``) covers raised exceptions, odd return values and payload mutation.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

import hermes_hooks
from hermes_hooks import testing
from hermes_hooks.gateway.emitter import CallRecord
from hermes_hooks.hooks import Hooks
from tests.gateway.helpers import write_hook
from tests.helpers import tool_payload, write_plugin
from tests.outbound.endpoint import Endpoint, Reply, wait_until
from tests.robustness import probe
from tests.shell.helpers import approve, py, sh, write_script

TIMEOUT_MESSAGE = "pre_tool_call plugin callback timed out or is still running"

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
    try:
        assert running.pre_tool_call(**tool_payload()).action == "allow"
    finally:
        running.close()  # its idle worker must not outlive the test (leak tests count)
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
        hooks.reload()  # registers each callback once (D-08)
        testing.fire(hooks, "post_tool_call")
        assert log.read_text().split() == ["one", "two"]
        assert hooks.dispatcher.timeout == 2
        (home / "config.yaml").write_text("hooks: [unclosed\n", encoding="utf-8")
        # Garbage (say, an editor caught mid-write): an ERROR, no crash, and the reload
        # is skipped, so the hooks and settings loaded before stay (no gate drops out).
        hooks.reload()
        testing.fire(hooks, "post_tool_call")
        assert log.read_text().split() == ["one", "two", "two"]
        assert hooks.dispatcher.timeout == 2
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


def test_a_reload_of_an_unusable_config_keeps_the_gates_loaded_before(
    home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    gate = write_script(
        home / "agent-hooks" / "gate.sh",
        sh("""cat >/dev/null; echo '{"action": "block", "message": "gate"}'"""),
    )
    approve(home, "pre_tool_call", str(gate))
    _write_config(home, {"hooks": {"pre_tool_call": [{"command": str(gate)}]}})
    hooks = hermes_hooks.load(home, entry_points=False)
    try:
        assert hooks.pre_tool_call(**tool_payload()).action == "block"
        (home / "config.yaml").write_text("hooks:\n  pre_tool_call: [\n", encoding="utf-8")
        hooks.reload()
        assert hooks.pre_tool_call(**tool_payload()).action == "block"  # still guarded
        assert (
            f"{home / 'config.yaml'} cannot be used; reload skipped: the hooks and settings "
            "loaded before stay in effect until it is fixed"
        ) in [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
        (home / "config.yaml").write_text("hooks: {}\n", encoding="utf-8")
        hooks.reload()  # a usable file applies as written, even one without the gate
        assert hooks.pre_tool_call(**tool_payload()).action == "allow"
    finally:
        hooks.close()
