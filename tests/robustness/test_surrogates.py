"""Lone surrogates in a payload (model APIs do emit ``"\\ud800"``) are converted in every
envelope, never dropped: shell stdin, Claude Code stdin, webhook bodies, durable rows."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from hermes_hooks.hooks import Hooks
from tests.outbound.endpoint import Reply
from tests.outbound.helpers import OutboundEnv
from tests.outbound.test_outbox import durable, rows
from tests.shell.helpers import approve, py, write_config, write_script

#: A lone high surrogate, a lone low one, and a pair split into two code points.
ARGS = {"command": "echo \ud800 and \udcff", "pair": "\ud83d\ude00", "plain": "é"}
CONVERTED = {"command": "echo \ufffd and \ufffd", "pair": "😀", "plain": "é"}

#: A gate that records the stdin it got and allows the call.
RECORDER = py(
    "import sys, pathlib\n"
    "data = sys.stdin.buffer.read()\n"
    "pathlib.Path(sys.argv[0] + '.stdin').write_bytes(data)\n"
    "print('{}')"
)


@pytest.fixture
def env(home: Path) -> Iterator[OutboundEnv]:
    """Real endpoints on 127.0.0.1 plus loaded homes, torn down in a safe order."""
    environment = OutboundEnv(home)
    yield environment
    environment.close()


def test_a_shell_gate_gets_the_payload_converted_and_does_not_block(
    home: Path, load: Callable[..., Hooks]
) -> None:
    script = write_script(home / "agent-hooks" / "gate.py", RECORDER)
    write_config(home, {"pre_tool_call": [{"command": str(script), "fail_closed": True}]})
    approve(home, "pre_tool_call", str(script))
    hooks = load()
    decision = hooks.pre_tool_call(tool_name="terminal", args=ARGS, tool_call_id="c1")
    assert decision.blocked is False
    stdin = json.loads(Path(f"{script}.stdin").read_bytes().decode("utf-8"))
    assert stdin["tool_input"] == CONVERTED


def test_a_claude_code_hook_gets_the_payload_converted(
    home: Path, load: Callable[..., Hooks]
) -> None:
    script = write_script(home / "agent-hooks" / "cc.py", RECORDER)
    write_config(
        home,
        {"PreToolUse": [{"command": str(script), "dialect": "claude-code", "matcher": "Bash"}]},
    )
    approve(home, "pre_tool_call", str(script))
    hooks = load()
    decision = hooks.pre_tool_call(tool_name="terminal", args=ARGS, tool_call_id="c1")
    assert decision.blocked is False
    stdin = json.loads(Path(f"{script}.stdin").read_bytes().decode("utf-8"))
    assert stdin["tool_input"]["command"] == "echo \ufffd and \ufffd"


def test_a_webhook_body_carries_the_converted_payload(env: OutboundEnv) -> None:
    endpoint = env.endpoint()
    hooks = env.load(
        f"""
        hooks:
          outbound:
            - url: {endpoint.url}
              events: [pre_tool_call]
        """
    )
    hooks.pre_tool_call(tool_name="terminal", args=ARGS, tool_call_id="c1")
    (request,) = endpoint.wait_requests(1)
    assert json.loads(request.body.decode("utf-8"))["tool_input"] == CONVERTED


def test_a_durable_event_is_stored_and_delivered(env: OutboundEnv, home: Path) -> None:
    endpoint = env.endpoint(Reply(200, hold=True))
    hooks = env.load(durable(endpoint.url, timeout="30"))
    hooks.on_session_end(session_id="s\ud800", reason="bye \udfff")
    (request,) = endpoint.wait_requests(1)
    (row,) = rows(home)  # stored before the first attempt, not lost
    body = json.loads(row.body.decode("utf-8"))
    assert (body["session_id"], body["extra"]["reason"]) == ("s\ufffd", "bye \ufffd")
    assert request.body == row.body
    endpoint.release()
