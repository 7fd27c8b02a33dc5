"""The reference host honours what the hooks decide (D-20..D-36, D-40..D-47)."""

from __future__ import annotations

import dataclasses
import json
import logging
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.hooks import Hooks
from hermes_hooks.host.loop import ReferenceHost, replay
from hermes_hooks.host.recording import ModelStep, ToolCall
from hermes_hooks.host.timeline import Timeline
from hermes_hooks.host.tools import NOT_REPLAYABLE, RecordedToolRunner, ToolOutcome
from tests.host.helpers import Calls, calls, header, on, recording, result, say, user


class RecordingRunner(RecordedToolRunner):
    """A real runner that also remembers which calls ran, and with which args."""

    def __init__(self) -> None:
        self.ran: list[tuple[str, dict[str, Any]]] = []

    def run(self, step: ModelStep, call: ToolCall, args: dict[str, Any]) -> ToolOutcome:
        self.ran.append((call.id, args))
        return super().run(step, call, args)


def one_call(name: str = "terminal", args: dict[str, Any] | None = None, **res: Any) -> Any:
    res = res or {"output": "out\n", "returncode": 0}
    return recording(
        header(),
        user("go"),
        calls(("c1", name, args if args is not None else {"command": "ls"})),
        result("c1", **res),
        say("done"),
    )


def run(hooks: Hooks, rec: Any, **options: Any) -> tuple[Timeline, ReferenceHost]:
    host = ReferenceHost(hooks, **options)
    timeline = host.replay(rec)
    host.finish(0.5)
    return timeline, host


def tool_messages(hooks: Hooks) -> list[list[dict[str, Any]]]:
    """Watch post_llm_call and return each turn's final conversation history."""
    seen: list[list[dict[str, Any]]] = []
    on(hooks, "post_llm_call", lambda conversation_history, **kw: seen.append(conversation_history))
    return seen


# -- pre_tool_call -------------------------------------------------------------------------


def test_a_block_stops_the_tool_and_reports_it_as_blocked(make_hooks: Any) -> None:
    hooks = make_hooks()
    on(hooks, "pre_tool_call", lambda **kw: {"action": "block", "message": "no terminal"})
    watch = Calls()
    watch.watch(hooks, "post_tool_call", "transform_tool_result", "transform_terminal_output")
    history = tool_messages(hooks)
    runner = RecordingRunner()
    timeline, _ = run(hooks, one_call(), runner=runner)
    assert runner.ran == []
    (post,) = watch.of("post_tool_call")
    assert post["result"] == '{"error": "no terminal"}'
    assert (post["status"], post["error_type"], post["error_message"], post["duration_ms"]) == (
        "blocked",
        "plugin_block",
        "no terminal",
        0,
    )
    assert watch.of("transform_tool_result") == []  # not after a block (D-26)
    assert watch.of("transform_terminal_output") == []
    assert history[0][2] == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": '{"error": "no terminal"}',
    }
    assert timeline.summary.calls_blocked == 1
    assert timeline.summary.blocks_by_source == {"python": 1}
    step = next(s for s in timeline.entries[0].steps if s.hook == "pre_tool_call")
    assert step.outcome == "BLOCKED: no terminal"
    assert [(r.callback.split(":")[0], r.verdict, r.reason) for r in step.runs] == [
        ("test", "block", "no terminal")
    ]


def test_modified_args_reach_the_tool_and_the_observers(make_hooks: Any) -> None:
    hooks = make_hooks()
    on(hooks, "pre_tool_call", lambda **kw: {"action": "modify", "args": {"command": "ls -la"}})
    watch = Calls()
    watch.watch(hooks, "post_tool_call", "transform_tool_result", "transform_terminal_output")
    runner = RecordingRunner()
    timeline, _ = run(hooks, one_call(args={"command": "ls", "timeout": 5}), runner=runner)
    final = {"command": "ls -la", "timeout": 5}
    assert runner.ran == [("c1", final)]
    assert watch.of("post_tool_call")[0]["args"] == final  # effective args (D-21)
    assert watch.of("transform_tool_result")[0]["args"] == final
    assert watch.of("transform_terminal_output")[0]["command"] == "ls -la"
    assert timeline.summary.args_modified == 1


@pytest.mark.parametrize(
    ("policy", "ran", "choice"), [("deny", False, "deny"), ("allow", True, "once")]
)
def test_approve_goes_through_the_approval_policy(
    make_hooks: Any, policy: str, ran: bool, choice: str
) -> None:
    hooks = make_hooks()
    on(
        hooks,
        "pre_tool_call",
        lambda **kw: {"action": "approve", "message": "risky", "rule_key": "rk"},
    )
    watch = Calls()
    watch.watch(hooks, "pre_approval_request", "post_approval_response", "post_tool_call")
    runner = RecordingRunner()
    timeline, _ = run(hooks, one_call(), runner=runner, approve=policy)
    assert bool(runner.ran) is ran
    (request,) = watch.of("pre_approval_request")
    assert request == {
        "command": "ls",
        "description": "risky",
        "pattern_key": "rk",
        "pattern_keys": ["rk"],
        "session_key": "cli:s1",
        "surface": "cli",
        "turn_id": "s1:turn-1",
        "tool_call_id": "c1",
        "telemetry_schema_version": "hermes.observer.v1",
    }
    assert watch.of("post_approval_response")[0]["choice"] == choice
    post = watch.of("post_tool_call")[0]
    if ran:
        assert post["status"] == "ok"
        assert timeline.summary.calls_blocked == 0
    else:
        assert post["status"] == "blocked"
        # a denied approval blocks the call with the gate's default message (D-22)
        assert post["error_message"] == "BLOCKED: plugin approval required for terminal"
        assert timeline.summary.approvals_denied == 1


def test_a_call_blocked_while_recording_is_not_replayable_when_allowed(make_hooks: Any) -> None:
    hooks = make_hooks()
    watch = Calls()
    watch.watch(hooks, "post_tool_call")
    run(hooks, one_call(blocked=True))
    post = watch.of("post_tool_call")[0]
    assert (post["status"], post["error_message"]) == ("error", NOT_REPLAYABLE)
    assert json.loads(post["result"]) == {"error": NOT_REPLAYABLE}


# -- tool results and transforms -----------------------------------------------------------


def test_terminal_output_is_transformed_then_the_result(make_hooks: Any) -> None:
    hooks = make_hooks()
    on(hooks, "transform_terminal_output", lambda output, **kw: output.upper())
    on(hooks, "transform_tool_result", lambda result, **kw: result + " [checked]")
    watch = Calls()
    watch.watch(hooks, "post_tool_call", "transform_terminal_output")
    history = tool_messages(hooks)
    timeline, _ = run(hooks, one_call(output="hello\n", returncode=3))
    term = watch.of("transform_terminal_output")[0]
    assert (term["command"], term["output"], term["returncode"], term["env_type"]) == (
        "ls",
        "hello\n",
        3,
        "local",
    )
    assert watch.of("post_tool_call")[0]["result"] == '{"output": "HELLO\\n", "returncode": 3}'
    assert history[0][2]["content"] == '{"output": "HELLO\\n", "returncode": 3} [checked]'
    assert timeline.summary.terminal_outputs_transformed == 1
    assert timeline.summary.results_transformed == 1


def test_background_terminal_output_skips_the_terminal_transform(make_hooks: Any) -> None:
    hooks = make_hooks()
    watch = Calls()
    watch.watch(hooks, "transform_terminal_output", "post_tool_call")
    run(hooks, one_call(output="[1] 42\n", returncode=0, background=True))
    assert watch.of("transform_terminal_output") == []  # background output (D-27)
    assert watch.of("post_tool_call")[0]["result"] == '{"output": "[1] 42\\n", "returncode": 0}'


def test_a_tool_error_is_reported_as_tool_error(make_hooks: Any) -> None:
    hooks = make_hooks()
    watch = Calls()
    watch.watch(hooks, "post_tool_call")
    run(hooks, one_call(name="web_search", args={"q": "x"}, status="error", error="backend down"))
    post = watch.of("post_tool_call")[0]
    assert (post["result"], post["status"], post["error_type"], post["error_message"]) == (
        '{"error": "backend down"}',
        "error",
        "tool_error",
        "backend down",
    )


# -- the model turn --------------------------------------------------------------------------


def test_context_is_appended_to_the_message_sent_and_the_stored_one_stays_clean(
    make_hooks: Any,
) -> None:
    hooks = make_hooks()
    on(hooks, "pre_llm_call", lambda **kw: {"context": "CTX"})
    watch = Calls()
    watch.watch(hooks, "pre_api_request", "post_llm_call")
    timeline, _ = run(hooks, recording(header(), user("hello"), say("hi")))
    sent = watch.of("pre_api_request")[0]["request_messages"]
    assert sent == [{"role": "user", "content": "hello\n\nCTX"}]  # appended (D-31)
    assert watch.of("post_llm_call")[0]["conversation_history"][0] == {
        "role": "user",
        "content": "hello",
        "api_content": "hello\n\nCTX",
    }
    assert timeline.summary.context_injected == 1


def test_post_llm_call_gets_the_transformed_response(make_hooks: Any) -> None:
    hooks = make_hooks()
    on(hooks, "transform_llm_output", lambda response_text, **kw: response_text + "!!")
    watch = Calls()
    watch.watch(hooks, "post_llm_call", "on_session_end")
    timeline, _ = run(hooks, recording(header(), user("hello"), say("hi", finish_reason="stop")))
    post = watch.of("post_llm_call")[0]
    assert post["assistant_response"] == "hi!!"  # transformed text (D-33)
    assert post["conversation_history"][-1]["content"] == "hi!!"
    end = watch.of("on_session_end")[0]
    assert (end["completed"], end["failed"], end["interrupted"], end["turn_exit_reason"]) == (
        True,
        False,
        False,
        "text_response(finish_reason=stop)",
    )
    assert timeline.entries[0].response == "hi!!"
    assert timeline.summary.responses_transformed == 1


def edit_then_answers(*answers: str) -> Any:
    return recording(
        header(),
        user("edit"),
        calls(("c1", "write_file", {"path": "a.py"})),
        result("c1", content="{}", changed_paths=["b.py", "a.py"]),
        *[say(a) for a in answers],
    )


def test_pre_verify_nudges_continue_with_the_next_recorded_step(make_hooks: Any) -> None:
    hooks = make_hooks()
    watch = Calls()
    on(
        hooks,
        "pre_verify",
        lambda attempt, **kw: (
            {"action": "continue", "message": "test it"} if attempt == 0 else None
        ),
    )
    watch.watch(hooks, "pre_verify", "post_llm_call")
    timeline, _ = run(hooks, edit_then_answers("first", "second"))
    attempts = [
        (p["attempt"], p["final_response"], p["changed_paths"]) for p in watch.of("pre_verify")
    ]
    assert attempts == [(0, "first", ["a.py", "b.py"]), (1, "second", ["a.py", "b.py"])]
    post = watch.of("post_llm_call")[0]
    assert post["assistant_response"] == "second"
    assert {"role": "user", "content": "test it"} in post["conversation_history"]
    assert timeline.summary.verify_nudges == 1


def test_pre_verify_is_capped_by_max_verify_nudges(
    make_hooks: Any, caplog: pytest.LogCaptureFixture
) -> None:
    hooks = make_hooks()
    hooks.rebind(dataclasses.replace(hooks.context, config={"agent": {"max_verify_nudges": 2}}))
    on(hooks, "pre_verify", lambda **kw: {"decision": "block", "reason": "again"})
    watch = Calls()
    watch.watch(hooks, "pre_verify", "post_llm_call")
    caplog.set_level(logging.INFO, logger="hermes_hooks.host")
    run(hooks, edit_then_answers("a1", "a2", "a3", "a4"))
    assert [p["attempt"] for p in watch.of("pre_verify")] == [0, 1]
    assert watch.of("post_llm_call")[0]["assistant_response"] == "a3"
    assert "pre_verify nudge cap (2) reached; delivering response" in caplog.messages  # cap (D-36)


def test_pre_verify_does_not_fire_without_edits(make_hooks: Any) -> None:
    hooks = make_hooks()
    watch = Calls()
    watch.watch(hooks, "pre_verify")
    timeline, _ = run(hooks, recording(header(), user("x"), say("a"), say("b")))
    assert watch.of("pre_verify") == []
    assert timeline.entries[0].response == "a"
    assert timeline.entries[0].notes == [
        "1 recorded model step(s) after this response were not replayed (no pre_verify "
        "nudge asked for them)"
    ]


def test_a_failed_attempt_fires_the_error_hooks_then_the_retry(make_hooks: Any) -> None:
    hooks = make_hooks()
    on(hooks, "transform_api_error_classification", lambda **kw: {"reason": "overloaded"})
    watch = Calls()
    watch.watch(hooks, "pre_api_request", "api_request_error", "transform_api_error_classification")
    rec = recording(
        header(provider="p1"),
        user("x"),
        {"type": "assistant", "error": {"status_code": 429, "message": "slow down"}},
        say("ok"),
    )
    timeline, _ = run(hooks, rec)
    assert [p["retry_count"] for p in watch.of("pre_api_request")] == [0, 1]
    assert [p["api_call_count"] for p in watch.of("pre_api_request")] == [1, 2]
    error = watch.of("api_request_error")[0]
    assert (error["status_code"], error["reason"], error["retryable"], error["error"]) == (
        429,
        "rate_limit",
        True,
        "slow down",
    )
    classify = watch.of("transform_api_error_classification")[0]
    assert (classify["provider"], classify["status_code"], classify["error_message"]) == (
        "p1",
        429,
        "slow down",
    )
    step = next(
        s for s in timeline.entries[0].steps if s.hook == "transform_api_error_classification"
    )
    assert step.outcome == "classified as overloaded"
    assert timeline.entries[0].response == "ok"
    assert timeline.summary.api_errors == 1


def test_a_turn_that_ends_in_an_api_error_fails(make_hooks: Any) -> None:
    hooks = make_hooks()
    watch = Calls()
    watch.watch(hooks, "on_session_end", "post_llm_call", "transform_llm_output")
    rec = recording(
        header(),
        user("x"),
        {"type": "assistant", "error": {"status_code": 401, "message": "bad key"}},
    )
    run(hooks, rec)
    end = watch.of("on_session_end")[0]
    assert (end["completed"], end["failed"], end["turn_exit_reason"]) == (
        False,
        True,
        "api_error(auth)",
    )
    assert watch.of("post_llm_call") == watch.of("transform_llm_output") == []


def test_streaming_deltas_and_interim_messages(make_hooks: Any) -> None:
    hooks = make_hooks()
    watch = Calls()
    watch.watch(hooks, "on_stream_delta", "on_stream_end", "on_interim_message")
    rec = recording(
        header(),
        user("x"),
        calls(("c1", "read_file", {"path": "a"}), text="Reading it."),
        result("c1", content="A"),
        say("Done now", reasoning="think"),
    )
    run(hooks, rec)
    assert [(p["delta"], p["kind"], p["iteration"]) for p in watch.of("on_stream_delta")] == [
        ("Reading ", "text", 1),
        ("it.", "text", 1),
        ("Done ", "text", 2),
        ("now", "text", 2),
    ]  # reasoning deltas need plugins.stream_reasoning_deltas (ST-10)
    assert [(p["final_text"], p["finished"], p["error"]) for p in watch.of("on_stream_end")] == [
        ("Reading it.", True, None),
        ("Done now", True, None),
    ]
    (interim,) = watch.of("on_interim_message")
    assert (interim["text"], interim["already_streamed"], interim["surface"]) == (
        "Reading it.",
        True,
        "cli",
    )


def test_without_stream_observers_only_recorded_streams_stream(make_hooks: Any) -> None:
    hooks = make_hooks()
    watch = Calls()
    watch.watch(hooks, "on_interim_message")
    rec = recording(
        header(),
        user("x"),
        calls(("c1", "t", {}), text="Looking."),
        result("c1", content="r"),
        say("ok"),
    )
    run(hooks, rec)
    assert watch.of("on_interim_message")[0]["already_streamed"] is False  # not streamed (D-63)


def test_delegated_tasks_fire_subagent_hooks_inside_the_tool(make_hooks: Any) -> None:
    hooks = make_hooks()
    watch = Calls()
    watch.watch(hooks, "pre_tool_call", "subagent_start", "subagent_stop", "post_tool_call")
    rec = recording(
        header(),
        user("x"),
        calls(("d1", "delegate_task", {"goal": "g"})),
        {
            "type": "subagent",
            "tool_call_id": "d1",
            "goal": "g1",
            "role": "leaf",
            "child_session_id": "k1",
            "child_subagent_id": "a1",
        },
        {
            "type": "subagent",
            "tool_call_id": "d1",
            "goal": "g2",
            "child_session_id": "k2",
            "summary": "s2",
            "status": "failed",
            "duration_ms": 7,
            "tool_calls": [{"tool_name": "read_file", "status": "ok"}],
        },
        result("d1", content="both done"),
        say("ok"),
    )
    run(hooks, rec)
    assert watch.hooks == [
        "pre_tool_call",
        "subagent_start",
        "subagent_start",
        "subagent_stop",
        "subagent_stop",
        "post_tool_call",
    ]
    start = watch.of("subagent_start")[0]
    assert {k: v for k, v in start.items() if k != "telemetry_schema_version"} == {
        "parent_session_id": "s1",
        "parent_turn_id": "s1:turn-1",
        "parent_subagent_id": None,
        "child_session_id": "k1",
        "child_subagent_id": "a1",
        "child_role": "leaf",
        "child_goal": "g1",
    }
    stop = watch.of("subagent_stop")[1]
    assert {k: v for k, v in stop.items() if k != "telemetry_schema_version"} == {
        "parent_session_id": "s1",
        "parent_turn_id": "s1:turn-1",
        "child_session_id": "k2",
        "child_role": None,
        "child_summary": "s2",
        "child_status": "failed",
        "tool_call_history": [{"tool_name": "read_file", "status": "ok"}],
        "duration_ms": 7,
    }


def test_a_blocked_delegation_runs_no_child(make_hooks: Any) -> None:
    hooks = make_hooks()
    on(
        hooks,
        "pre_tool_call",
        lambda tool_name, **kw: (
            {"action": "block", "message": "no"} if tool_name == "delegate_task" else None
        ),
    )
    watch = Calls()
    watch.watch(hooks, "subagent_start", "subagent_stop")
    rec = recording(
        header(),
        user("x"),
        calls(("d1", "delegate_task", {})),
        {"type": "subagent", "tool_call_id": "d1", "goal": "g1"},
        result("d1", content="r"),
        say("ok"),
    )
    run(hooks, rec)
    assert watch.seen == []


# -- sessions --------------------------------------------------------------------------------


def test_new_finalizes_resets_and_starts_a_new_session(make_hooks: Any) -> None:
    hooks = make_hooks()
    watch = Calls()
    watch.watch(
        hooks,
        "on_session_start",
        "pre_command",
        "on_session_finalize",
        "on_session_reset",
        "pre_llm_call",
    )
    run(hooks, recording(header(), user("a"), say("1"), user("/new"), user("b"), say("2")))
    strip = lambda p: {k: v for k, v in p.items() if k != "telemetry_schema_version"}  # noqa: E731
    assert [(h, strip(p)) for h, p in watch.seen] == [
        ("on_session_start", {"session_id": "s1", "model": "test/model-1", "platform": "cli"}),
        ("pre_llm_call", strip(watch.of("pre_llm_call")[0])),
        (
            "pre_command",
            {
                "surface": "cli",
                "command": "new",
                "alias_used": "new",
                "args_raw": "",
                "session_key": "cli:s1",
                "platform": "cli",
            },
        ),
        ("on_session_finalize", {"session_id": "s1", "platform": "cli", "reason": "new_session"}),
        ("on_session_reset", {"session_id": "s1-2", "platform": "cli", "reason": "new_session"}),
        ("on_session_start", {"session_id": "s1-2", "model": "test/model-1", "platform": "cli"}),
        ("pre_llm_call", strip(watch.of("pre_llm_call")[1])),
        ("on_session_finalize", {"session_id": "s1-2", "platform": "cli", "reason": "shutdown"}),
    ]
    first, second = watch.of("pre_llm_call")
    assert (first["is_first_turn"], first["conversation_history"]) == (True, [])
    assert (second["session_id"], second["is_first_turn"], second["conversation_history"]) == (
        "s1-2",
        True,
        [],
    )


def test_a_continuing_turn_sees_the_history_and_is_not_first(make_hooks: Any) -> None:
    hooks = make_hooks()
    watch = Calls()
    watch.watch(hooks, "pre_llm_call", "on_session_start")
    run(hooks, recording(header(), user("a"), say("1"), user("b"), say("2")))
    assert len(watch.of("on_session_start")) == 1
    second = watch.of("pre_llm_call")[1]
    assert second["is_first_turn"] is False
    assert second["conversation_history"] == [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "1"},
    ]


def test_an_interrupted_turn_delivers_nothing(make_hooks: Any) -> None:
    hooks = make_hooks()
    watch = Calls()
    watch.watch(hooks, "pre_tool_call", "transform_llm_output", "post_llm_call", "on_session_end")
    rec = recording(
        header(),
        user("x"),
        calls(("c1", "terminal", {"command": "tail -f log"})),
        {"type": "interrupt"},
    )
    timeline, _ = run(hooks, rec)
    assert watch.hooks == ["on_session_end"]
    end = watch.of("on_session_end")[0]
    assert (end["completed"], end["interrupted"], end["turn_exit_reason"]) == (
        False,
        True,
        "interrupted_by_user",
    )
    assert timeline.entries[0].response is None


def test_gateway_dispatch_can_drop_or_rewrite_messages(home: Path) -> None:
    hooks = Hooks.empty(home, surface="gateway")

    def dispatch(event: Any, session_store: Any, **kw: Any) -> Any:
        if event.text == "ambient":
            session_store.append_to_transcript(event.source.chat_id, event.text)
            return {"action": "skip", "reason": "buffered"}
        if event.text == "hey bot":
            return {"action": "rewrite", "text": "hey bot, with context"}
        return None

    on(hooks, "pre_gateway_dispatch", dispatch)
    watch = Calls()
    watch.watch(hooks, "pre_llm_call")
    host = ReferenceHost(hooks)
    rec = recording(
        header(platform="discord", chat_id="42"), user("ambient"), user("hey bot"), say("hi")
    )
    timeline = host.replay(rec)
    host.finish(0.5)
    assert [p["user_message"] for p in watch.of("pre_llm_call")] == ["hey bot, with context"]
    assert host.store.ingested == [("42", "ambient")]
    entries = [e for e in timeline.entries if e.kind != "startup"]  # gateway:startup first
    assert entries[0].kind == "dropped"
    assert entries[0].steps[0].outcome == "skipped (buffered)"
    assert timeline.summary.turns == 1


# -- decision records and the summary --------------------------------------------------------


def test_errors_and_timeouts_are_counted(make_hooks: Any) -> None:
    hooks = make_hooks(timeout=0.2)

    def broken(**kw: Any) -> None:
        raise RuntimeError("boom")

    on(hooks, "post_tool_call", broken)
    timeline, _ = run(hooks, one_call())
    assert (timeline.summary.errors, timeline.summary.timeouts) == (1, 0)
    step = next(s for s in timeline.entries[0].steps if s.hook == "post_tool_call")
    assert step.runs[0].verdict == "error"
    assert step.runs[0].reason is not None and step.runs[0].reason.endswith("RuntimeError: boom")


def test_the_replay_helper_closes_the_hooks(make_hooks: Any) -> None:
    hooks = make_hooks()
    watch = Calls()
    watch.watch(hooks, "on_session_finalize")
    timeline = replay(recording(header(), user("a"), say("b")), hooks)
    assert timeline.summary.turns == 1
    assert watch.of("on_session_finalize")[0]["reason"] == "shutdown"
    assert timeline.summary.webhooks_delivered is None  # no outbound adapter: unknown


def test_delivery_counts_come_from_the_outbound_source(make_hooks: Any) -> None:
    class Outbound:
        name = "outbound"

        def records(self) -> list[Any]:
            return []

        def unload(self) -> None:
            pass

        def close(self, timeout: float) -> None:
            pass

        def delivery_stats(self) -> dict[str, int]:
            return {"delivered": 3, "failed": 1}

    hooks = make_hooks()
    hooks.sources["outbound"] = Outbound()
    timeline = replay(recording(header(), user("a"), say("b")), hooks)
    assert (timeline.summary.webhooks_delivered, timeline.summary.webhooks_failed) == (3, 1)
