"""The firing order of the reference host, as one sequence (the issue's acceptance test).

A callback is registered on every catalogue hook and a real gateway hook records every
gateway event, so the lists are what really ran.  Streaming observers run on their own
lane (D-61) and gateway handlers on theirs (D-01), so each is checked as an ordered
subsequence of what the host fired; the host's own log is the whole sequence.  The
expected sequences are written out by hand here, and the docs must show the same ones.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import hermes_hooks
from hermes_hooks.hooks import Hooks
from hermes_hooks.hookspecs import VALID_HOOKS
from hermes_hooks.host.loop import ReferenceHost
from hermes_hooks.host.recording import Recording
from tests.host.helpers import calls, header, recording, result, say, user

REPO = Path(__file__).resolve().parents[2]

# Two turns, one tool call each; the second edits a file (so pre_verify fires).
CLI_ORDER = [
    # turn 1
    "on_session_start",
    "pre_llm_call",
    "pre_api_request",
    "on_stream_start",
    "on_stream_delta",
    "on_stream_end",
    "post_api_request",
    "on_interim_message",
    "pre_tool_call",
    "transform_terminal_output",
    "post_tool_call",
    "transform_tool_result",
    "pre_api_request",
    "on_stream_start",
    "on_stream_delta",
    "on_stream_end",
    "post_api_request",
    "transform_llm_output",
    "post_llm_call",
    "on_session_end",
    # turn 2
    "pre_llm_call",
    "pre_api_request",
    "on_stream_start",
    "on_stream_end",
    "post_api_request",
    "pre_tool_call",
    "post_tool_call",
    "transform_tool_result",
    "pre_api_request",
    "on_stream_start",
    "on_stream_delta",
    "on_stream_end",
    "post_api_request",
    "pre_verify",
    "transform_llm_output",
    "post_llm_call",
    "on_session_end",
    # end of the recording
    "on_session_finalize",
]

GATEWAY_ORDER = [
    "gateway:startup",
    # turn 1
    "pre_gateway_dispatch",
    "session:start",
    "agent:start",
    "on_session_start",
    "pre_llm_call",
    "pre_api_request",
    "on_stream_start",
    "on_stream_delta",
    "on_stream_end",
    "post_api_request",
    "on_interim_message",
    "pre_tool_call",
    "transform_terminal_output",
    "post_tool_call",
    "transform_tool_result",
    "agent:step",
    "pre_api_request",
    "on_stream_start",
    "on_stream_delta",
    "on_stream_end",
    "post_api_request",
    "transform_llm_output",
    "post_llm_call",
    "on_session_end",
    "agent:end",
    # turn 2
    "pre_gateway_dispatch",
    "agent:start",
    "pre_llm_call",
    "pre_api_request",
    "on_stream_start",
    "on_stream_end",
    "post_api_request",
    "pre_tool_call",
    "post_tool_call",
    "transform_tool_result",
    "agent:step",
    "pre_api_request",
    "on_stream_start",
    "on_stream_delta",
    "on_stream_end",
    "post_api_request",
    "pre_verify",
    "transform_llm_output",
    "post_llm_call",
    "on_session_end",
    "agent:end",
    # end of the recording
    "on_session_finalize",
]


def two_turns(platform: str) -> Recording:
    return recording(
        header(platform=platform, user_id="u1", chat_id="c1"),
        user("What is in this directory?"),
        calls(("call-1", "terminal", {"command": "ls"}), text="Checking.")
        | {"deltas": ["Checking."]},
        result("call-1", output="README.md\n", returncode=0),
        say("A README.", deltas=["A README."]),
        user("Add a changelog."),
        calls(("call-2", "write_file", {"path": "CHANGELOG.md", "content": "# 1.0\n"})),
        result("call-2", content='{"ok": true}', changed_paths=["CHANGELOG.md"]),
        say("Added CHANGELOG.md.", deltas=["Added CHANGELOG.md."]),
    )


STREAM_HOOKS = {"on_stream_start", "on_stream_delta", "on_stream_end", "on_interim_message"}

RECORDER_HANDLER = """
import json, os

def handle(event_type, context):
    with open(os.environ["HERMES_TEST_GATEWAY_LOG"], "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"event": event_type, "context": context}) + "\\n")
"""


def only(names: list[str], keep: Any) -> list[str]:
    return [name for name in names if keep(name)]


def synchronous(name: str) -> bool:
    return ":" not in name and name not in STREAM_HOOKS


def watch_everything(hooks: Hooks) -> list[str]:
    """Register one callback on every catalogue hook; return the list they append to."""
    fired: list[str] = []
    for name in sorted(VALID_HOOKS):

        def callback(_name: str = name, **kwargs: Any) -> None:
            fired.append(_name)

        hooks.manager.register_callback(name, callback, owner="order")
    return fired


def test_cli_firing_order_of_a_two_turn_session(make_hooks: Any) -> None:
    hooks = make_hooks()
    fired = watch_everything(hooks)
    host = ReferenceHost(hooks)
    host.replay(two_turns("cli"))
    host.finish(0.5)
    hooks.close()  # delivers what the stream lanes still hold
    assert host.fired == CLI_ORDER
    assert only(fired, synchronous) == only(CLI_ORDER, synchronous)
    in_stream = lambda name: name in STREAM_HOOKS  # noqa: E731
    assert only(fired, in_stream) == only(CLI_ORDER, in_stream)


def test_gateway_firing_order_of_a_two_turn_session(
    home: Path, tmp_path: Path, monkeypatch: Any
) -> None:
    log = tmp_path / "gateway.jsonl"
    monkeypatch.setenv("HERMES_TEST_GATEWAY_LOG", str(log))
    recorder = home / "hooks" / "recorder"
    recorder.mkdir(parents=True)
    (recorder / "HOOK.yaml").write_text(
        "events: ['gateway:*', 'session:*', 'agent:*', 'command:*']\n", encoding="utf-8"
    )
    (recorder / "handler.py").write_text(RECORDER_HANDLER, encoding="utf-8")
    hooks = hermes_hooks.load(home, surface="gateway", entry_points=False)
    fired = watch_everything(hooks)
    host = ReferenceHost(hooks)
    host.replay(two_turns("telegram"))
    host.finish(0.5)
    hooks.close()
    assert host.fired == GATEWAY_ORDER
    assert only(fired, synchronous) == only(GATEWAY_ORDER, synchronous)
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert [line["event"] for line in lines] == only(GATEWAY_ORDER, lambda n: ":" in n)
    contexts = {line["event"]: line["context"] for line in reversed(lines)}  # first wins
    assert contexts["session:start"] == {
        "platform": "telegram",
        "user_id": "u1",
        "session_id": "s1",
        "session_key": "telegram:c1",
    }
    assert contexts["agent:start"] == {
        "platform": "telegram",
        "user_id": "u1",
        "chat_id": "c1",
        "thread_id": "",
        "chat_type": "",
        "session_id": "s1",
        "message": "What is in this directory?",
    }
    assert contexts["agent:step"] == {
        "platform": "telegram",
        "user_id": "u1",
        "session_id": "s1",
        "iteration": 1,
        "tool_names": ["terminal"],
    }
    assert contexts["agent:end"]["response"] == "A README."


def test_without_gateway_hooks_the_plugin_hooks_keep_their_order(home: Path) -> None:
    hooks = Hooks.empty(home, surface="gateway")
    fired = watch_everything(hooks)
    host = ReferenceHost(hooks)
    host.replay(two_turns("telegram"))
    host.finish(0.5)
    hooks.close()
    assert only(fired, synchronous) == only(GATEWAY_ORDER, synchronous)


def _documented(marker: str) -> list[str]:
    text = (REPO / "docs" / "host-and-replay.md").read_text(encoding="utf-8")
    match = re.search(rf"<!-- firing-order: {marker} -->\n```text\n(.*?)```", text, re.DOTALL)
    assert match is not None, f"docs/host-and-replay.md has no firing-order: {marker} block"
    return [
        line.split("#")[0].strip() for line in match[1].splitlines() if line.split("#")[0].strip()
    ]


def test_the_docs_show_the_tested_orders() -> None:
    assert _documented("cli") == CLI_ORDER
    assert _documented("gateway") == GATEWAY_ORDER
