"""Persistent shell hooks: one running process per entry, one JSON line per firing.

Every test runs real subprocesses: a Python script speaking the line protocol by hand
(so the protocol itself is what is tested, not the contrib helper).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from hermes_hooks.hooks import Hooks
from hermes_hooks.shell import persistent
from hermes_hooks.shell.config import parse_hooks
from hermes_hooks.shell.hook import ShellHook
from tests.helpers import tool_payload
from tests.shell.helpers import approve, py, warnings_of, write_config
from tests.shell.test_run import process_gone, wait_gone

# A hook speaking the protocol by hand.  Each request is logged to requests.jsonl next
# to the script; the answer depends on the tool call's command:
#   "block" / "bare-block"  -> a block with / without a message
#   "crash" / "kill"        -> exit 3 / SIGKILL itself before answering
#   "hang"                  -> start a grandchild, note its pid, sleep
#   "garbage" / "wrong-id"  -> a line that is not JSON / an answer with another id
#   "print"                 -> a line of chatter, then the answer (two lines)
#   anything else           -> {"id": <id>, "pid": <own pid>} (no opinion)
PROTOCOL = """
import json, os, signal, subprocess, sys, time
here = os.path.dirname(os.path.abspath(__file__))
for raw in sys.stdin:
    request = json.loads(raw)
    with open(os.path.join(here, "requests.jsonl"), "a") as log:
        log.write(raw)
    command = (request.get("tool_input") or {}).get("command")
    ident = request["id"]
    answer = {"id": ident, "pid": os.getpid()}
    if command == "block":
        answer.update(action="block", message="no rm today")
    elif command == "bare-block":
        answer.update(action="block")
    elif command == "crash":
        sys.stderr.write("boom\\n"); sys.stderr.flush(); sys.exit(3)
    elif command == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif command == "hang":
        child = subprocess.Popen(["sleep", "300"])
        with open(os.path.join(here, "grandchild.pid"), "w") as f:
            f.write(str(child.pid))
        time.sleep(300)
    elif command == "garbage":
        sys.stdout.write("hello there\\n"); sys.stdout.flush(); continue
    elif command == "wrong-id":
        answer["id"] = ident + 100
    elif command == "print":
        sys.stdout.write(json.dumps(answer) + "\\n")
    sys.stdout.write(json.dumps(answer) + "\\n")
    sys.stdout.flush()
"""


def fire(hooks: Hooks, command: str = "ls") -> object:
    return hooks.pre_tool_call(**tool_payload(args={"command": command}))


def requests(home: Path) -> list[dict[str, object]]:
    lines = (home / "agent-hooks" / "requests.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def the_hook(hooks: Hooks) -> ShellHook:
    source = hooks.sources["shell"]
    hook = source.records()[0].hook  # type: ignore[attr-defined]
    assert isinstance(hook, ShellHook) and hook.process is not None
    return hook


@pytest.fixture
def persistent_gate(gate: Callable[..., Hooks]) -> Callable[..., Hooks]:
    """``persistent_gate(**entry)``: the protocol script as a persistent gate."""

    def make(**entry: object) -> Hooks:
        return gate(py(PROTOCOL), name="guard.py", persistent=True, **entry)

    return make


def test_one_process_answers_every_firing_with_the_request_id(
    home: Path, persistent_gate: Callable[..., Hooks]
) -> None:
    hooks = persistent_gate()
    for _ in range(3):
        assert fire(hooks).action == "allow"  # type: ignore[attr-defined]
    seen = requests(home)
    assert [r["id"] for r in seen] == [1, 2, 3]
    assert list(seen[0])[:2] == ["id", "hook_event_name"]
    assert (seen[0]["hook_event_name"], seen[0]["tool_name"]) == ("pre_tool_call", "terminal")
    assert seen[0]["tool_input"] == {"command": "ls"}
    assert the_hook(hooks).process.starts == 1  # type: ignore[union-attr]


def test_an_answer_blocks_like_a_per_firing_hook(
    persistent_gate: Callable[..., Hooks],
) -> None:
    hooks = persistent_gate()
    decision = fire(hooks, "block")
    assert (decision.action, decision.message) == ("block", "no rm today")  # type: ignore[attr-defined]
    # {"action": "block"} with no message is what exit code 2 is to a per-firing hook.
    decision = fire(hooks, "bare-block")
    assert (decision.action, decision.message) == ("block", "Blocked by shell hook.")  # type: ignore[attr-defined]
    assert fire(hooks).action == "allow"  # type: ignore[attr-defined]
    assert the_hook(hooks).process.starts == 1  # type: ignore[union-attr]


FAILURES = {
    "crash": "exited before answering (exit code 3)",
    "kill": "exited before answering (killed by signal 9)",
    "garbage": "garbled answer: an answer line that is not JSON (process group killed)",
    "wrong-id": "garbled answer: an answer with id 101, expected 1 (process group killed)",
}


@pytest.mark.parametrize("case", sorted(FAILURES))
@pytest.mark.parametrize("fail_closed", [True, False])
def test_a_failure_follows_the_fail_closed_matrix_and_restarts(
    home: Path,
    persistent_gate: Callable[..., Hooks],
    caplog: pytest.LogCaptureFixture,
    case: str,
    fail_closed: bool,
) -> None:
    hooks = persistent_gate(fail_closed=fail_closed)
    script = home / "agent-hooks" / "guard.py"
    decision = fire(hooks, case)
    reason = FAILURES[case]
    if fail_closed:
        assert (decision.action, decision.message) == (  # type: ignore[attr-defined]
            "block",
            f"hook {script} failed closed: {reason}",
        )
    else:
        assert decision.action == "allow"  # type: ignore[attr-defined]
    assert any(reason in w for w in warnings_of(caplog)), warnings_of(caplog)
    hook = the_hook(hooks)
    assert hook.process.pid is None  # type: ignore[union-attr]
    # The next firing starts it again (no wait after a first failure), warned once.
    assert fire(hooks).action == "allow"  # type: ignore[attr-defined]
    assert fire(hooks).action == "allow"  # type: ignore[attr-defined]
    assert hook.process.starts == 2  # type: ignore[union-attr]
    restarts = [w for w in warnings_of(caplog) if "is restarted after a failure" in w]
    assert len(restarts) == 1
    if case == "crash":
        assert any("stderr: boom" in w for w in warnings_of(caplog))


def test_an_extra_answer_line_is_caught_by_the_next_firing_at_the_latest(
    home: Path, persistent_gate: Callable[..., Hooks]
) -> None:
    # Two lines for one request: caught on this firing if both lines were read
    # together, else on the next, whose request id the stale line does not carry.
    hooks = persistent_gate(fail_closed=True)
    script = home / "agent-hooks" / "guard.py"
    messages = [fire(hooks, "print").message, fire(hooks).message]  # type: ignore[attr-defined]
    assert messages in (
        [
            f"hook {script} failed closed: garbled answer: more than one answer line "
            "(process group killed)",
            None,
        ],
        [
            None,
            f"hook {script} failed closed: garbled answer: an answer with id 1, "
            "expected 2 (process group killed)",
        ],
    )
    assert fire(hooks).action == "allow"  # type: ignore[attr-defined]


@pytest.mark.parametrize("fail_closed", [True, False])
def test_a_timeout_kills_the_process_group(
    home: Path, persistent_gate: Callable[..., Hooks], fail_closed: bool
) -> None:
    hooks = persistent_gate(timeout=1, fail_closed=fail_closed)
    assert fire(hooks).action == "allow"  # type: ignore[attr-defined]
    hook = the_hook(hooks)
    pid = hook.process.pid  # type: ignore[union-attr]
    assert pid is not None
    decision = fire(hooks, "hang")
    if fail_closed:
        script = home / "agent-hooks" / "guard.py"
        assert (decision.action, decision.message) == (  # type: ignore[attr-defined]
            "block",
            f"hook {script} failed closed: timed out after 1s",
        )
    else:
        assert decision.action == "allow"  # type: ignore[attr-defined]
    grandchild = int((home / "agent-hooks" / "grandchild.pid").read_text())
    assert wait_gone(pid) and wait_gone(grandchild)
    assert fire(hooks).action == "allow"  # type: ignore[attr-defined]
    assert hook.process.starts == 2  # type: ignore[union-attr]


@pytest.mark.parametrize("fail_closed", [True, False])
def test_a_missing_program(
    home: Path, load: Callable[..., Hooks], fail_closed: bool, caplog: pytest.LogCaptureFixture
) -> None:
    command = str(home / "agent-hooks" / "absent.py")
    write_config(
        home,
        {"pre_tool_call": [{"command": command, "persistent": True, "fail_closed": fail_closed}]},
    )
    approve(home, "pre_tool_call", command)
    decision = fire(load())
    if fail_closed:
        assert (decision.action, decision.message) == (  # type: ignore[attr-defined]
            "block",
            f"hook {command} failed closed: command not found",
        )
    else:
        assert decision.action == "allow"  # type: ignore[attr-defined]
    assert any("command not found" in w for w in warnings_of(caplog))


def test_restarts_back_off_while_it_keeps_failing(
    home: Path, gate: Callable[..., Hooks], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(persistent, "BACKOFF_FIRST", 600.0)
    hooks = gate(py("import sys\nsys.exit(5)"), name="dies.py", persistent=True, fail_closed=True)
    script = home / "agent-hooks" / "dies.py"
    first, second, third = fire(hooks), fire(hooks), fire(hooks)
    assert first.message == f"hook {script} failed closed: exited before answering (exit code 5)"  # type: ignore[attr-defined]
    assert second.message == first.message  # type: ignore[attr-defined]
    # The third firing is inside the wait after two failures in a row: not started,
    # and still a failure, so the fail-closed gate blocks.
    assert third.action == "block"  # type: ignore[attr-defined]
    assert third.message.startswith(  # type: ignore[attr-defined]
        f"hook {script} failed closed: not restarted yet after 2 failures in a row"
    )
    assert the_hook(hooks).process.starts == 2  # type: ignore[union-attr]


def test_backoff_grows_to_its_cap() -> None:
    assert [persistent.backoff(n) for n in (1, 2, 3, 4)] == [0.0, 0.5, 1.0, 2.0]
    assert persistent.backoff(50) == persistent.BACKOFF_MAX


def test_close_ends_the_process_and_a_later_firing_starts_it_again(
    persistent_gate: Callable[..., Hooks],
) -> None:
    hooks = persistent_gate()
    fire(hooks)
    hook = the_hook(hooks)
    pid = hook.process.pid  # type: ignore[union-attr]
    assert pid is not None
    hooks.close()
    assert wait_gone(pid)
    assert hook.process.pid is None  # type: ignore[union-attr]
    assert fire(hooks).action == "allow"  # type: ignore[attr-defined]
    assert hook.process.starts == 2  # type: ignore[union-attr]
    hooks.close()


def test_unload_ends_the_process(persistent_gate: Callable[..., Hooks]) -> None:
    hooks = persistent_gate()
    fire(hooks)
    pid = the_hook(hooks).process.pid  # type: ignore[union-attr]
    assert pid is not None
    hooks.unload()
    assert wait_gone(pid)


def test_a_changed_script_is_restarted(home: Path, persistent_gate: Callable[..., Hooks]) -> None:
    hooks = persistent_gate()
    fire(hooks)
    hook = the_hook(hooks)
    old = hook.process.pid  # type: ignore[union-attr]
    script = home / "agent-hooks" / "guard.py"
    script.write_text(script.read_text() + "\n# edited\n")
    os.utime(script, ns=(1, 1))  # a different mtime whatever the clock's resolution
    fire(hooks)
    assert hook.process.starts == 2  # type: ignore[union-attr]
    assert (old is not None and process_gone(old)) or wait_gone(old)  # type: ignore[arg-type]


def test_an_idle_exit_is_restarted_without_failing(
    home: Path, gate: Callable[..., Hooks], caplog: pytest.LogCaptureFixture
) -> None:
    # A hook that answers one request, then exits: each firing finds it gone.
    body = py(
        "import json, sys\n"
        "request = json.loads(sys.stdin.readline())\n"
        'print(json.dumps({"id": request["id"], "action": "block", "message": "once"}))\n'
    )
    hooks = gate(body, name="once.py", persistent=True, fail_closed=True)
    the_hook(hooks).process.close = lambda timeout=1.0: None  # type: ignore[method-assign, union-attr]
    assert fire(hooks).message == "once"  # type: ignore[attr-defined]
    wait_gone(the_hook(hooks).process._process.pid)  # type: ignore[union-attr]
    assert fire(hooks).message == "once"  # type: ignore[attr-defined]
    exits = [w for w in warnings_of(caplog) if "exited between firings (exit code 0)" in w]
    assert len(exits) == 1
    assert the_hook(hooks).process.starts == 2  # type: ignore[union-attr]
    the_hook(hooks).process._stop()  # type: ignore[union-attr]


def test_concurrent_firings_take_turns(persistent_gate: Callable[..., Hooks], home: Path) -> None:
    import threading

    hooks = persistent_gate()
    results: list[str] = []

    def worker() -> None:
        for _ in range(5):
            results.append(fire(hooks).action)  # type: ignore[attr-defined]

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == ["allow"] * 20
    assert sorted(r["id"] for r in requests(home)) == list(range(1, 21))
    assert the_hook(hooks).process.starts == 1  # type: ignore[union-attr]


# -- config ------------------------------------------------------------------------------


def test_config_reads_persistent(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    parsed = parse_hooks(
        {
            "hooks": {
                "pre_tool_call": [
                    {"command": "a", "persistent": True},
                    {"command": "b", "persistent": "yes"},
                    {"command": "c"},
                ],
                "PreToolUse": [{"command": "d", "persistent": True}],
            }
        },
        "config.yaml",
    )
    # A Claude Code entry has no such key: that dialect skips the entry, saying so.
    assert [(e.command, e.persistent) for e in parsed.entries] == [
        ("a", True),
        ("b", False),
        ("c", False),
    ]
    messages = [p.message for p in parsed.problems]
    assert (
        "persistent must be true or false, got 'yes'; the hook is started for each firing. "
        "Fix: 'persistent: true'."
    ) in messages
    assert any(m.startswith("'persistent' is not a claude-code entry key") for m in messages)


def test_list_shows_persistent(persistent_gate: Callable[..., Hooks]) -> None:
    hooks = persistent_gate()
    record = hooks.sources["shell"].records()[0]  # type: ignore[attr-defined]
    assert record.as_dict()["persistent"] is True


def test_a_per_firing_entry_has_no_process(gate: Callable[..., Hooks]) -> None:
    hooks = gate(py("print('{}')"), name="plain.py")
    record = hooks.sources["shell"].records()[0]  # type: ignore[attr-defined]
    assert record.hook.process is None
    assert record.as_dict()["persistent"] is False
