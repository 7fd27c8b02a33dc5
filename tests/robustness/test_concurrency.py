"""Concurrency: eight threads give the answers serial firing gives; loading, unloading
and reloading while firing is safe; two processes approving and revoking at once lose
nothing.  Sizes follow ``HERMES_ROBUST_SCALE``; mismatches are recorded as figures.
"""

from __future__ import annotations

import itertools
import json
import os
import queue
import random
import stat
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest
import yaml

import hermes_hooks
from hermes_hooks import testing
from hermes_hooks.shell.consent import ALLOWLIST_NAME, Allowlist
from tests.helpers import write_plugin
from tests.outbound.endpoint import Endpoint, wait_until
from tests.robustness.helpers import scale
from tests.robustness.resources import thread_count
from tests.shell.helpers import approve, sh, write_script

REPO = Path(__file__).resolve().parents[2]

GUARD = """
def register(ctx):
    def gate(tool_name, args, tool_call_id, **kwargs):
        command = str(args.get("command", ""))
        if "rm " in command:
            return {"action": "block", "message": f"guard: no rm in {tool_call_id}"}
        if tool_name == "read_file":
            return {"action": "approve", "message": "reads are reviewed", "rule_key": tool_name}
        return {"action": "modify", "args": {"checked_by": "guard", "call": tool_call_id}}

    def context(session_id, user_message, **kwargs):
        return f"guard context for {session_id}: {len(user_message)} chars"

    def transform(tool_name, result, **kwargs):
        return result.upper() if tool_name == "shout" else None

    def verify(attempt, final_response, **kwargs):
        if attempt < 1 and "TODO" in final_response:
            return {"action": "continue", "message": f"finish the TODO (attempt {attempt})"}

    def classify(status_code, **kwargs):
        if status_code == 429:
            return {"reason": "rate_limit", "retryable": True, "message": f"{status_code}"}

    ctx.register_hook("pre_tool_call", gate)
    ctx.register_hook("pre_llm_call", context)
    ctx.register_hook("transform_tool_result", transform)
    ctx.register_hook("pre_verify", verify)
    ctx.register_hook("transform_api_error_classification", classify)
"""

AUDIT = """
def register(ctx):
    def audit(tool_name, args, **kwargs):
        if args.get("command") == "forbidden":
            return {"action": "block", "message": "audit: forbidden"}

    ctx.register_hook("pre_tool_call", audit, trylast=True)
    ctx.register_hook("pre_llm_call", lambda **kw: {"context": "audit was here"})
"""


def _home_with_every_system(home: Path, endpoint: Endpoint, timeout: float) -> None:
    write_plugin(home / "plugins", "guard", GUARD)
    write_plugin(home / "plugins", "audit", AUDIT)
    gate = write_script(
        home / "agent-hooks" / "shell-gate.sh",
        sh('cat >/dev/null\necho \'{"decision": "block", "reason": "shell says no"}\''),
    )
    approve(home, "pre_tool_call", str(gate))
    config = {
        "plugins": {"hook_callback_timeout": timeout},
        "hooks": {
            "pre_tool_call": [{"command": str(gate), "matcher": "shell_tool"}],
            "outbound": [{"url": endpoint.url, "events": ["post_tool_call"]}],
        },
    }
    (home / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")


def _payloads(count: int) -> list[tuple[str, dict[str, Any]]]:
    """A reproducible mix of firings; every one has its own ids (D-14's rule)."""
    rng = random.Random(20260722)
    mixed: list[tuple[str, dict[str, Any]]] = []
    tools = ["terminal", "read_file", "write_file", "shout", "shell_tool"]
    commands = ["ls", "rm -rf build", "forbidden", "cat README"]
    for i in range(count):
        kind = rng.choice(
            ["pre_tool_call"] * 4
            + ["pre_llm_call", "transform_tool_result", "pre_verify", "post_tool_call"]
            + ["transform_api_error_classification"]
        )
        fields: dict[str, Any] = {"session_id": f"s{i}", "tool_call_id": f"call-{i}"}
        if kind in ("pre_tool_call", "transform_tool_result", "post_tool_call"):
            tool = rng.choice(tools if i % 20 == 0 else tools[:4])  # few shell spawns
            fields.update(tool_name=tool, args={"command": rng.choice(commands)})
        if kind == "transform_tool_result":
            fields["result"] = f"result {i}"
        if kind == "pre_llm_call":
            fields["user_message"] = "x" * rng.randint(0, 50)
        if kind == "pre_verify":
            fields.update(attempt=rng.randint(0, 1), final_response=rng.choice(["TODO", "done"]))
        if kind == "transform_api_error_classification":
            fields["status_code"] = rng.choice([429, 500])
        mixed.append((kind, fields))
    return mixed


@pytest.mark.parametrize("timeout", [0, 5.0], ids=["caller-thread", "bounded-workers"])
def test_eight_threads_give_the_answers_serial_firing_gives(
    home: Path, figures: dict[str, object], timeout: float
) -> None:
    endpoint = Endpoint()
    _home_with_every_system(home, endpoint, timeout)
    hooks = hermes_hooks.load(home, entry_points=False)
    mix = _payloads(scale(400, 2_000))
    try:
        serial = [testing.fire(hooks, kind, **fields) for kind, fields in mix]
        work: queue.SimpleQueue[int] = queue.SimpleQueue()
        for index in random.Random(7).sample(range(len(mix)), len(mix)):
            work.put(index)
        concurrent: dict[int, Any] = {}
        errors: list[BaseException] = []

        def worker() -> None:
            while True:
                try:
                    index = work.get_nowait()
                except queue.Empty:
                    return
                kind, fields = mix[index]
                try:
                    concurrent[index] = testing.fire(hooks, kind, **fields)
                except BaseException as exc:  # recorded: the assertion below reports it
                    errors.append(exc)

        threads = [threading.Thread(target=worker) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        lane = hooks.sources["outbound"].lanes[0]  # type: ignore[attr-defined]
    finally:
        hooks.close(10.0)  # flushes the webhook lane
        endpoint.close()
    # Nothing lost silently on the webhook lane: every event was delivered, or dropped
    # with D-81's warning when eight threads outran the endpoint (256 pending at most).
    posts = sum(2 for kind, _ in mix if kind == "post_tool_call")
    assert lane.stats.delivered + lane.stats.dropped == posts
    assert len(endpoint.requests) == lane.stats.delivered
    mismatches = [i for i in range(len(mix)) if concurrent.get(i) != serial[i]]
    figures.update(firings=2 * len(mix), threads=8, mismatches=len(mismatches))
    assert errors == []
    assert mismatches == []
    # the mix exercised every kind of answer
    assert {d.action for d in serial if hasattr(d, "action") and hasattr(d, "args")} == {
        "allow",
        "block",
        "approve",
    }


GATE = """
def register(ctx):
    def gate(tool_name, **kwargs):
        if tool_name == "bad":
            return {"action": "block", "message": "gate"}

    ctx.register_hook("pre_tool_call", gate)
"""


def test_load_unload_and_reload_while_firing_is_safe(
    home: Path, figures: dict[str, object]
) -> None:
    write_plugin(home / "plugins", "gate", GATE)
    seen = home / "seen.log"
    script = write_script(
        home / "agent-hooks" / "observe.sh", sh(f"cat >/dev/null; echo x >> {seen}")
    )
    approve(home, "post_tool_call", str(script))
    config = {
        "plugins": {"hook_callback_timeout": 5},
        "hooks": {"post_tool_call": [{"command": str(script), "matcher": "observed"}]},
    }
    (home / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    before = thread_count()
    hooks = hermes_hooks.load(home, entry_points=False)
    stop = threading.Event()
    answers: set[tuple[str, str | None]] = set()
    errors: list[BaseException] = []
    fired = [0]

    def firer() -> None:
        for n in itertools.count():
            if stop.is_set():
                return
            call = f"{threading.get_ident()}-{n}"  # D-14: one id never runs twice at once
            try:
                decision = testing.fire(hooks, "pre_tool_call", tool_name="bad", tool_call_id=call)
                testing.fire(hooks, "post_tool_call", tool_name="terminal")
            except BaseException as exc:
                errors.append(exc)
                return
            answers.add((decision.action, decision.message))
            fired[0] += 1

    threads = [threading.Thread(target=firer) for _ in range(4)]
    for thread in threads:
        thread.start()
    reloads = scale(20, 100)
    try:
        for i in range(reloads):
            hooks.reload()
            # plain manager churn too: callbacks come and go under the firing threads
            hooks.manager.register_callback("post_tool_call", lambda **kw: None, owner=f"t{i}")
            hooks.manager.unregister_owner(f"t{i}")
        wait_until(lambda: fired[0] >= 50)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    try:
        final = testing.fire(hooks, "pre_tool_call", tool_name="bad")
        callbacks = [cb.source for cb in hooks.manager.all_callbacks()]
    finally:
        hooks.close()
    wait_until(lambda: thread_count() <= before + 1)  # abandoned nothing, leaked nothing
    figures.update(reloads=reloads, firings=fired[0], errors=len(errors), answers=sorted(answers))
    assert errors == []
    # a reload swaps the whole set at once: every firing met the gate
    assert answers == {("block", "gate")}
    assert (final.action, final.message) == ("block", "gate")
    assert sorted(callbacks) == ["python", "shell"]  # exactly once each (D-08)


APPROVER = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    sys.path.insert(0, {repo!r})
    from hermes_hooks.shell.consent import Allowlist

    home, name, count, start = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
    while not os.path.exists(start):  # both processes begin together
        time.sleep(0.001)
    allowlist = Allowlist(home)
    for i in range(count):
        allowlist.approve("post_tool_call", f"/hooks/{{name}}-{{i}}.sh")
        allowlist.approve("on_session_end", "/hooks/shared.sh")
        if i % 2:
            allowlist.revoke(f"/hooks/{{name}}-{{i}}.sh")
    """
)


def test_two_processes_approving_and_revoking_at_once_lose_nothing(
    home: Path, tmp_path: Path, figures: dict[str, object]
) -> None:
    count = scale(60, 300)
    script = tmp_path / "approver.py"
    script.write_text(APPROVER.format(repo=str(REPO)), encoding="utf-8")
    start = tmp_path / "go"
    processes = [
        subprocess.Popen([sys.executable, str(script), str(home), name, str(count), str(start)])
        for name in ("alpha", "beta")
    ]
    start.touch()
    codes = [process.wait(120) for process in processes]
    approvals, problem = Allowlist(home).read()
    got = {(a.event, a.command) for a in approvals}
    expected = {
        ("post_tool_call", f"/hooks/{name}-{i}.sh")
        for name in ("alpha", "beta")
        for i in range(0, count, 2)
    } | {("on_session_end", "/hooks/shared.sh")}
    lost = expected - got
    extra = got - expected
    figures.update(operations=2 * count * 2 + count, lost=len(lost), extra=len(extra))
    assert codes == [0, 0]
    assert problem is None
    assert lost == set() and extra == set()
    assert len(approvals) == len(expected)  # the shared approval is there once
    document = json.loads((home / ALLOWLIST_NAME).read_text(encoding="utf-8"))
    assert len(document["approvals"]) == len(expected)
    assert stat.S_IMODE(os.stat(home / ALLOWLIST_NAME).st_mode) == 0o600
    leftovers = sorted(p.name for p in home.iterdir() if p.name.endswith(".tmp"))
    assert leftovers == []


def test_a_running_process_sees_another_process_revoke_at_its_next_firing(
    home: Path, tmp_path: Path
) -> None:
    log = tmp_path / "fired.log"
    script = write_script(home / "agent-hooks" / "seen.sh", sh(f"cat >/dev/null; echo x >> {log}"))
    (home / "config.yaml").write_text(
        yaml.safe_dump({"hooks": {"post_tool_call": [{"command": str(script)}]}}), encoding="utf-8"
    )
    approve(home, "post_tool_call", str(script))
    hooks = hermes_hooks.load(home, entry_points=False)
    try:
        testing.fire(hooks, "post_tool_call")
        revoke = subprocess.run(
            [sys.executable, "-m", "hermes_hooks", "revoke", str(script), "--home", str(home)],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=False,
        )
        testing.fire(hooks, "post_tool_call")
    finally:
        hooks.close()
    assert revoke.returncode == 0, revoke.stderr
    assert log.read_text().split() == ["x"]  # D-84: not called after the revoke
