"""Selection rules of every non-observer hook (D-16, D-28, D-30..D-32, D-36, D-38, D-48)."""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

import pytest

from hermes_hooks._callback import IN_PROCESS, Group
from hermes_hooks.shell.output import SHELL_CALLBACKS
from hermes_hooks.types import (
    DispatchDecision,
    ErrorClassification,
    TranscriptionRequest,
    VerifyDirective,
)


def add(hooks: Any, hook: str, owner: str, function: Any, group: Group = Group.PYTHON) -> None:
    # A shell-group callback is registered as the shell system registers its hooks.
    policy = SHELL_CALLBACKS if group is Group.SHELL else IN_PROCESS
    hooks.manager.register_callback(hook, function, owner=owner, group=group, policy=policy)


@pytest.fixture(params=[0.0, 5.0], ids=["inline", "bounded"])
def hooks(request: pytest.FixtureRequest, make_hooks: Any) -> Any:
    return make_hooks(timeout=request.param)


LLM = {
    "session_id": "s",
    "task_id": "t",
    "turn_id": "u",
    "user_message": "hi",
    "conversation_history": [],
    "is_first_turn": True,
    "model": "m",
    "platform": "cli",
    "parent_session_id": None,
    "sender_id": None,
}


def test_pre_llm_call_joins_valid_pieces_with_one_blank_line(hooks: Any) -> None:
    add(hooks, "pre_llm_call", "a", lambda **kw: "first")
    add(hooks, "pre_llm_call", "b", lambda **kw: {"context": "second"})
    add(hooks, "pre_llm_call", "c", lambda **kw: {"context": 42})
    add(hooks, "pre_llm_call", "d", lambda **kw: {"context": "  "})
    add(hooks, "pre_llm_call", "e", lambda **kw: "   ")
    add(hooks, "pre_llm_call", "f", lambda **kw: {"context": None})
    add(hooks, "pre_llm_call", "g", lambda **kw: {"other": "x"})
    add(hooks, "pre_llm_call", "shell", lambda **kw: {"context": "from shell"}, Group.SHELL)
    assert hooks.pre_llm_call(**LLM) == "first\n\nsecond\n\n42\n\nfrom shell"


def test_pre_llm_call_failing_callback_contributes_nothing(hooks: Any) -> None:
    def broken(**kw: Any) -> str:
        raise RuntimeError("boom")

    add(hooks, "pre_llm_call", "a", broken)
    add(hooks, "pre_llm_call", "b", lambda **kw: "kept")
    assert hooks.pre_llm_call(**LLM) == "kept"


def test_pre_llm_call_with_nothing_returns_none(hooks: Any) -> None:
    add(hooks, "pre_llm_call", "a", lambda **kw: None)
    assert hooks.pre_llm_call(**LLM) is None


TOOL_RESULT = {
    "tool_name": "read_file",
    "args": {},
    "result": "original",
    "task_id": "",
    "session_id": "s",
    "tool_call_id": "c",
    "turn_id": "t",
    "api_request_id": "",
    "duration_ms": 3,
    "status": "ok",
    "error_type": None,
    "error_message": None,
}


def test_transform_tool_result_takes_the_first_string_even_empty(hooks: Any) -> None:
    seen: list[str] = []
    add(hooks, "transform_tool_result", "a", lambda result, **kw: seen.append(result))
    add(hooks, "transform_tool_result", "b", lambda result, **kw: "")
    add(hooks, "transform_tool_result", "c", lambda result, **kw: seen.append(result) or "late")
    assert hooks.transform_tool_result(**TOOL_RESULT) == ""
    assert seen == ["original", "original"]  # transforms are not chained (D-16)


def test_transform_terminal_output_none_keeps_the_output(hooks: Any) -> None:
    add(hooks, "transform_terminal_output", "a", lambda **kw: None)
    add(hooks, "transform_terminal_output", "b", lambda **kw: b"bytes are not str")
    payload = {"command": "ls", "output": "x", "returncode": 0, "task_id": "", "env_type": "local"}
    assert hooks.transform_terminal_output(**payload) is None


def test_transform_llm_output_skips_empty_strings(hooks: Any) -> None:
    add(hooks, "transform_llm_output", "a", lambda **kw: "")
    add(hooks, "transform_llm_output", "b", lambda response_text, **kw: response_text + "!")
    add(hooks, "transform_llm_output", "c", lambda **kw: "third")
    payload = {"response_text": "hello", "session_id": "", "model": "m", "platform": "cli"}
    assert hooks.transform_llm_output(**payload) == "hello!"


STT = {
    "file_path": "/tmp/a.ogg",
    "provider": "openai",
    "model": "whisper-1",
    "language": "pt",
    "prompt": "configured",
    "source": "gateway",
}


def test_pre_transcription_last_writer_wins_per_field(hooks: Any, caplog: Any) -> None:
    seen: list[Any] = []
    add(hooks, "pre_transcription", "a", lambda **kw: {"prompt": "A", "language": "en"})
    add(
        hooks,
        "pre_transcription",
        "b",
        lambda prompt, **kw: seen.append(prompt) or {"prompt": "B", "model": 7, "x": "y"},
    )
    add(hooks, "pre_transcription", "c", lambda **kw: {"file_path": "/etc/passwd"})
    assert hooks.pre_transcription(**STT) == TranscriptionRequest("B", "en", "whisper-1")
    assert seen == ["configured"]  # each callback sees the original values (D-28)
    assert "pre_transcription: c:" in caplog.text
    assert "tried to change file_path; file_path is read-only" in caplog.text


def test_pre_transcription_empty_string_unsets(hooks: Any) -> None:
    add(hooks, "pre_transcription", "a", lambda **kw: {"prompt": "", "language": "", "model": ""})
    assert hooks.pre_transcription(**STT) == TranscriptionRequest(None, None, None)


VERIFY = {
    "session_id": "s",
    "platform": "cli",
    "model": "m",
    "coding": True,
    "attempt": 0,
    "final_response": "done",
    "changed_paths": ["a.py"],
}


def test_pre_verify_first_valid_directive_only(hooks: Any) -> None:
    add(hooks, "pre_verify", "a", lambda **kw: {"action": "continue"})
    add(hooks, "pre_verify", "b", lambda **kw: {"decision": "block", "reason": "run tests"})
    add(hooks, "pre_verify", "c", lambda **kw: {"action": "continue", "message": "later"})
    assert hooks.pre_verify(**VERIFY) == VerifyDirective("run tests")


def test_pre_verify_anything_else_lets_the_turn_end(hooks: Any) -> None:
    add(hooks, "pre_verify", "a", lambda **kw: {"action": "stop", "message": "x"})
    assert hooks.pre_verify(**VERIFY) is None


ERR = {
    "provider": "p",
    "model": "m",
    "status_code": 404,
    "error_type": None,
    "error_code": None,
    "error_message": "nope",
    "error_body": None,
    "error": None,
    "approx_tokens": None,
    "context_length": None,
    "num_messages": None,
}


def test_error_classification_first_valid_wins_and_losers_warn(hooks: Any, caplog: Any) -> None:
    add(hooks, "transform_api_error_classification", "a", lambda **kw: {"reason": "nonsense"})
    add(
        hooks,
        "transform_api_error_classification",
        "b",
        lambda **kw: {
            "reason": " Model_Not_Found ",
            "retryable": 0,
            "should_fallback": "yes",
            "message": "  " + "m" * 600,
            "error_context": {"k": 1},
            "ignored": True,
        },
    )
    add(hooks, "transform_api_error_classification", "c", lambda **kw: {"reason": "billing"})
    add(hooks, "transform_api_error_classification", "d", lambda **kw: {"reason": "auth"})
    result = hooks.transform_api_error_classification(**ERR)
    assert result == ErrorClassification(
        reason="model_not_found",
        retryable=False,
        should_fallback=True,
        message="m" * 500,
        error_context={"k": 1},
    )
    assert "transform_api_error_classification: skipped 2 valid classification(s)" in [
        r.getMessage() for r in caplog.records
    ]


def test_error_classification_none_when_nothing_claims(hooks: Any) -> None:
    add(hooks, "transform_api_error_classification", "a", lambda **kw: "rate_limit")
    assert hooks.transform_api_error_classification(**ERR) is None


class Event:
    text = "hello"


DISPATCH = {"event": Event(), "gateway": object(), "session_store": object()}


def test_pre_gateway_dispatch_first_recognised_dict_decides(hooks: Any, caplog: Any) -> None:
    add(hooks, "pre_gateway_dispatch", "a", lambda **kw: {"action": "maybe"})
    add(hooks, "pre_gateway_dispatch", "b", lambda **kw: {"action": "rewrite", "text": 5})
    add(hooks, "pre_gateway_dispatch", "c", lambda **kw: {"action": "rewrite", "text": "new"})
    add(hooks, "pre_gateway_dispatch", "d", lambda **kw: {"action": "skip"})
    assert hooks.pre_gateway_dispatch(**DISPATCH) == DispatchDecision("rewrite", text="new")
    assert (
        "pre_gateway_dispatch: b:test_pre_gateway_dispatch_first_recognised_dict_decides."
        "<locals>.<lambda> returned rewrite without a string 'text'; ignored"
    ) in caplog.text


def test_pre_gateway_dispatch_gets_the_live_objects(hooks: Any) -> None:
    seen: list[Any] = []
    add(
        hooks,
        "pre_gateway_dispatch",
        "a",
        lambda event, gateway, **kw: seen.append((event, gateway)),
    )
    hooks.pre_gateway_dispatch(**DISPATCH)
    assert seen == [(DISPATCH["event"], DISPATCH["gateway"])]


def test_async_pre_gateway_dispatch_awaits_natively_and_times_out(make_hooks: Any) -> None:
    hooks = make_hooks(timeout=0.2)
    loop_threads: list[int] = []

    async def on_loop(**kw: Any) -> dict[str, str]:
        loop_threads.append(threading.get_ident())
        return {"action": "skip", "reason": "quiet"}

    async def stuck(**kw: Any) -> None:
        await asyncio.sleep(30)

    add(hooks, "pre_gateway_dispatch", "a", stuck)
    add(hooks, "pre_gateway_dispatch", "b", on_loop)

    async def main() -> Any:
        return threading.get_ident(), await hooks.apre_gateway_dispatch(**DISPATCH)

    loop_thread, decision = asyncio.run(main())
    assert decision == DispatchDecision("skip", reason="quiet")
    assert loop_threads == [loop_thread]


def test_subagent_stop_runs_on_the_calling_thread(make_hooks: Any) -> None:
    hooks = make_hooks(timeout=5.0)
    threads: list[int] = []
    add(hooks, "subagent_stop", "a", lambda **kw: threads.append(threading.get_ident()))
    hooks.subagent_stop(
        parent_session_id="p",
        parent_turn_id="",
        child_session_id="c",
        child_role=None,
        child_summary=None,
        child_status="completed",
        tool_call_history=[],
        duration_ms=5,
    )
    assert threads == [threading.get_ident()]


def test_bounded_observers_run_off_the_calling_thread(make_hooks: Any) -> None:
    hooks = make_hooks(timeout=5.0)
    threads: list[int] = []
    add(hooks, "on_session_start", "a", lambda **kw: threads.append(threading.get_ident()))
    hooks.on_session_start(session_id="s", model="m", platform="cli")
    assert len(threads) == 1 and threads[0] != threading.get_ident()


def test_pre_command_directive_returns_are_logged_at_debug(hooks: Any, caplog: Any) -> None:
    add(hooks, "pre_command", "a", lambda **kw: {"action": "block"})
    hooks.pre_command(
        surface="cli",
        command="model",
        alias_used="m",
        args_raw="",
        session_key="k",
        platform="cli",
    )
    records = [r for r in caplog.records if "directive-shaped return" in r.getMessage()]
    assert [r.levelno for r in records] == [logging.DEBUG]


def test_shell_callbacks_on_the_gateway_loop_are_not_bounded_by_the_plugin_limit(
    make_hooks: Any,
) -> None:
    hooks = make_hooks(timeout=0.1)
    finished: list[str] = []

    def slow_shell_observer(**kw: Any) -> None:
        threading.Event().wait(0.5)  # longer than hook_callback_timeout
        finished.append("done")

    hooks.manager.register_callback(
        "pre_gateway_dispatch",
        slow_shell_observer,
        owner="shell:0",
        group=Group.SHELL,
        policy=SHELL_CALLBACKS,
    )
    assert asyncio.run(hooks.apre_gateway_dispatch(**DISPATCH)) is None
    assert finished == ["done"]  # awaited to the end (D-15), not abandoned at 0.1 s
