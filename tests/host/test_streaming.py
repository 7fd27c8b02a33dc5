"""The host streams: finished entries go to a sink in order and can be forgotten, the
request forms follow the transcript incrementally, and history reaches callbacks
without the host copying it (the dispatcher isolates each callback)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.host.loop import ReferenceHost
from hermes_hooks.host.payloads import sanitise, sent_message
from hermes_hooks.host.recording import open_recording
from hermes_hooks.host.state import SessionState
from hermes_hooks.host.timeline import Entry
from tests.host.helpers import calls, header, on, recording, result, say, user


def test_finished_entries_go_to_the_sink_in_order_and_are_forgotten(make_hooks: Any) -> None:
    hooks = make_hooks()
    seen: list[Entry] = []
    host = ReferenceHost(hooks, on_entry=seen.append, keep_entries=False, keep_fired=False)
    rec = recording(header(), user("a"), say("1"), user("/new"), user("b"), say("2"))
    timeline = host.replay(rec)
    assert [(e.index, e.kind) for e in seen] == [(1, "turn"), (2, "command"), (3, "turn")]
    host.finish(0.5)
    assert [(e.index, e.kind) for e in seen][-1] == (0, "shutdown")
    assert timeline.entries == []
    assert host.fired == []
    assert [e.response for e in seen if e.kind == "turn"] == ["1", "2"]


def test_the_request_forms_follow_the_transcript() -> None:
    session = SessionState("s")
    messages = [
        {"role": "user", "content": "hi", "api_content": "hi\n\nctx sk-abcdefghijklmnopqrstu"},
        {"role": "assistant", "content": "hello", "tool_calls": [{"id": "c"}]},
        {"role": "tool", "tool_call_id": "c", "content": "ok"},
    ]
    for message in messages:
        session.append(message)
    session.set_content(1, "replaced")
    sent = [sent_message(m) for m in session.history]
    assert session.sent == sent
    assert session.sanitised == sanitise(sent)
    assert session.request_chars == len(json.dumps(sent, ensure_ascii=False))
    assert session.sanitised[0]["content"] == "hi\n\nctx ***"
    assert SessionState("e").request_chars == len(json.dumps([]))


def test_callbacks_get_their_own_copy_of_the_history(make_hooks: Any) -> None:
    hooks = make_hooks()
    received: list[list[dict[str, Any]]] = []

    def vandal(conversation_history: list[dict[str, Any]], **kwargs: Any) -> None:
        received.append(conversation_history)
        conversation_history.clear()  # must not reach the host or the next callback

    on(hooks, "pre_api_request", vandal)
    host = ReferenceHost(hooks)
    rec = recording(
        header(),
        user("a"),
        calls(("c1", "read_file", {"path": "x"})),
        result("c1", content="x"),
        say("done"),
    )
    host.replay(rec)
    assert len(received) == 2
    assert [m["role"] for m in host.session.history] == ["user", "assistant", "tool", "assistant"]


def test_an_opened_recording_streams_the_file_again_on_each_pass(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    lines = [header(), user("a"), say("1"), user("b"), say("2")]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    opened = open_recording(path)
    first = [e.user.text for e in opened.exchanges]
    assert first == ["a", "b"]
    assert [e.user.text for e in opened.exchanges] == first
    assert not isinstance(opened.exchanges, list)


def test_payloads_nobody_listens_to_are_not_built(
    make_hooks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hermes_hooks.host.model_calls as model_calls

    built: list[Any] = []

    def counting(value: Any) -> Any:
        built.append(value)
        return sanitise(value)

    monkeypatch.setattr(model_calls, "sanitise", counting)
    rec = recording(header(), user("a"), say("1"), user("b"), say("2"))
    ReferenceHost(make_hooks()).replay(rec)
    assert built == []  # no request envelope for a pre/post_api_request nobody hears
    hooks = make_hooks()
    on(hooks, "pre_api_request", lambda **kwargs: None)
    ReferenceHost(hooks).replay(rec)
    assert len(built) == 4  # model and tools of the request, for each of the 2 calls
