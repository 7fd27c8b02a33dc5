"""Synthetic payloads: one realistic keyword payload for every catalogued hook.

``hermes-hooks test``, ``doctor``'s smoke test and replay tools fire hooks without a
live agent; they all use :func:`synthetic_payload`, so a script sees the same stdin
shape whichever tool fired it.  Every payload holds every field of the hook's contract,
with a value of the field's catalogue type (a test checks all 37).

    >>> synthetic_payload("pre_tool_call", tool_name="write_file")["args"]["path"]
    'hermes-synthetic/notes.md'
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from hermes_hooks._manager import unknown_hook
from hermes_hooks.envelope import TOOL_EVENTS
from hermes_hooks.hookspecs import CATALOGUE

__all__ = ["DEFAULT_TOOL", "TOOL_ARGS", "synthetic_payload"]

#: The tool a tool event names when no ``tool_name`` is given.
DEFAULT_TOOL = "terminal"
#: Plausible arguments for well-known tools; any other tool gets ``{}``.  The terminal
#: command is one a guard should refuse (``rm -rf`` on an absolute path), so ``test`` shows
#: a gate's block; paths live under a directory that normally does not exist, so a
#: post-tool formatter fired by ``test`` or ``doctor`` touches nothing real.
TOOL_ARGS: dict[str, dict[str, Any]] = {
    "terminal": {"command": "rm -rf /tmp/hermes-hooks-synthetic"},
    "write_file": {"path": "hermes-synthetic/notes.md", "content": "- ship the hook\n"},
    "patch": {
        "path": "hermes-synthetic/app.py",
        "old_string": "print('hi')",
        "new_string": "print('hello')",
    },
    "read_file": {"path": "hermes-synthetic/README.md"},
    "web_search": {"query": "pluggy hook ordering"},
    "web_extract": {"urls": ["https://example.com/"]},
    "delegate_task": {"goal": "Summarise the failing tests"},
    "execute_code": {"code": "print(1 + 1)"},
}
_RESULTS = {
    "terminal": '{"output": "", "exit_code": 0}',
    "read_file": '{"content": "# Project\\n"}',
}

SESSION = "test-session"
TASK = "test-task"
TURN = "test-turn"
CALL = "test-call"
REQUEST = "test-request"
MODEL = "anthropic/claude-sonnet-4"
PROVIDER = "anthropic"
PLATFORM = "cli"
BASE_URL = "https://api.anthropic.com"
STARTED = 1_767_225_600.0  # 2026-01-01T00:00:00Z
_HISTORY = [
    {"role": "user", "content": "Tidy up the README"},
    {"role": "assistant", "content": "Done: I rewrote the install section."},
]
_STREAM = {
    "turn_id": TURN,
    "iteration": 1,
    "session_id": SESSION,
    "model": MODEL,
    "provider": PROVIDER,
    "surface": PLATFORM,
}
_KANBAN = {
    "task_id": "kb-42",
    "profile_name": "default",
    "board": "main",
    "assignee": "worker-1",
    "run_id": "run-7",
}
_APPROVAL = {
    "command": "rm -rf build/",
    "description": "recursive delete",
    "pattern_key": "rm_rf",
    "pattern_keys": ["rm_rf"],
    "session_key": "cli:test-session",
    "surface": PLATFORM,
    "turn_id": TURN,
    "tool_call_id": CALL,
}
_API = {
    "task_id": TASK,
    "turn_id": TURN,
    "api_request_id": REQUEST,
    "session_id": SESSION,
    "platform": PLATFORM,
    "model": MODEL,
    "provider": PROVIDER,
    "base_url": BASE_URL,
    "api_mode": "anthropic_messages",
    "api_call_count": 1,
}
_REQUEST = {"model": MODEL, "max_tokens": 4096, "messages": [{"role": "user", "content": "hi"}]}


def _tool(tool_name: str) -> dict[str, Any]:
    return {
        "tool_name": tool_name,
        "args": TOOL_ARGS.get(tool_name, {}),
        "task_id": TASK,
        "session_id": SESSION,
        "tool_call_id": CALL,
        "turn_id": TURN,
        "api_request_id": REQUEST,
    }


def _tool_result(tool_name: str) -> dict[str, Any]:
    return {
        **_tool(tool_name),
        "result": _RESULTS.get(tool_name, '{"success": true}'),
        "duration_ms": 42,
        "status": "ok",
        "error_type": None,
        "error_message": None,
    }


_BUILDERS: dict[str, Callable[[str], dict[str, Any]]] = {
    "pre_tool_call": lambda tool: {**_tool(tool), "middleware_trace": []},
    "post_tool_call": lambda tool: {**_tool_result(tool), "middleware_trace": []},
    "transform_tool_result": _tool_result,
    "transform_terminal_output": lambda _: {
        "command": "ls hermes-synthetic",
        "output": "notes.md\n",
        "returncode": 0,
        "task_id": TASK,
        "env_type": "local",
    },
    "pre_llm_call": lambda _: {
        "session_id": SESSION,
        "task_id": TASK,
        "turn_id": TURN,
        "user_message": "What changed since yesterday?",
        "conversation_history": _HISTORY,
        "is_first_turn": False,
        "model": MODEL,
        "platform": PLATFORM,
        "parent_session_id": None,
        "sender_id": None,
    },
    "transform_llm_output": lambda _: {
        "response_text": "Two files changed: README.md and src/app.py.",
        "session_id": SESSION,
        "model": MODEL,
        "platform": PLATFORM,
    },
    "post_llm_call": lambda _: {
        "session_id": SESSION,
        "task_id": TASK,
        "turn_id": TURN,
        "user_message": "What changed since yesterday?",
        "assistant_response": "Two files changed: README.md and src/app.py.",
        "conversation_history": _HISTORY,
        "model": MODEL,
        "platform": PLATFORM,
    },
    "pre_verify": lambda _: {
        "session_id": SESSION,
        "platform": PLATFORM,
        "model": MODEL,
        "coding": True,
        "attempt": 0,
        "final_response": "All done — the change is applied.",
        "changed_paths": ["src/app.py"],
    },
    "pre_transcription": lambda _: {
        "file_path": "/tmp/voice-note.ogg",
        "provider": "openai",
        "model": None,
        "language": None,
        "prompt": None,
        "source": "telegram",
    },
    "pre_api_request": lambda _: {
        **_API,
        "user_message": "What changed since yesterday?",
        "conversation_history": _HISTORY,
        "retry_count": 0,
        "request_messages": [{"role": "user", "content": "What changed since yesterday?"}],
        "message_count": 3,
        "tool_count": 12,
        "approx_input_tokens": 2048,
        "request_char_count": 8192,
        "max_tokens": 4096,
        "started_at": STARTED,
        "middleware_trace": [],
        "request": _REQUEST,
    },
    "post_api_request": lambda _: {
        **_API,
        "api_duration": 1.234,
        "started_at": STARTED,
        "ended_at": STARTED + 1.234,
        "finish_reason": "stop",
        "message_count": 3,
        "response_model": MODEL,
        "response": {"id": "msg-1", "stop_reason": "end_turn"},
        "usage": {"input_tokens": 2048, "output_tokens": 512},
        "assistant_message": {"role": "assistant", "content": "Two files changed."},
        "assistant_content_chars": 18,
        "assistant_tool_call_count": 0,
    },
    "api_request_error": lambda _: {
        **_API,
        "api_duration": 0.5,
        "started_at": STARTED,
        "ended_at": STARTED + 0.5,
        "status_code": 429,
        "retry_count": 0,
        "max_retries": 3,
        "retryable": True,
        "reason": "rate_limit",
        "error": "429 Too Many Requests",
        "request": _REQUEST,
    },
    "transform_api_error_classification": lambda _: {
        "provider": PROVIDER,
        "model": MODEL,
        "status_code": 429,
        "error_type": "rate_limit_error",
        "error_code": "rate_limited",
        "error_message": "Rate limit exceeded",
        "error_body": {"error": {"type": "rate_limit_error", "message": "Rate limit exceeded"}},
        "error": "RateLimitError: Rate limit exceeded",
        "approx_tokens": 2048,
        "context_length": 200000,
        "num_messages": 3,
    },
    "on_stream_start": lambda _: dict(_STREAM),
    "on_stream_delta": lambda _: {"delta": "Hel", "kind": "text", **_STREAM},
    "on_stream_end": lambda _: {
        "final_text": "Hello there.",
        "finished": True,
        "error": None,
        **_STREAM,
    },
    "on_interim_message": lambda _: {
        "text": "Let me look at the tests first.",
        "already_streamed": False,
        **_STREAM,
    },
    "on_session_start": lambda _: {"session_id": SESSION, "model": MODEL, "platform": PLATFORM},
    "on_session_end": lambda _: {
        "session_id": SESSION,
        "task_id": TASK,
        "turn_id": TURN,
        "completed": True,
        "failed": False,
        "interrupted": False,
        "turn_exit_reason": "text_response(finish_reason=stop)",
        "model": MODEL,
        "platform": PLATFORM,
        "reason": None,
        "api_request_id": REQUEST,
    },
    "on_session_finalize": lambda _: {
        "session_id": SESSION,
        "platform": PLATFORM,
        "reason": "new_session",
        "old_session_id": SESSION,
        "new_session_id": "test-session-2",
    },
    "on_session_reset": lambda _: {
        "session_id": "test-session-2",
        "platform": PLATFORM,
        "reason": "new_session",
        "old_session_id": SESSION,
        "new_session_id": "test-session-2",
    },
    "on_skill_lifecycle": lambda _: {
        "action": "loaded",
        "skill_name": "release-notes",
        "provenance": "local",
        "task_id": TASK,
        "session_id": SESSION,
        "use_count": 3,
        "reused": True,
        "reuse_after_patch": None,
    },
    "subagent_start": lambda _: {
        "parent_session_id": SESSION,
        "parent_turn_id": TURN,
        "parent_subagent_id": None,
        "child_session_id": "child-session",
        "child_subagent_id": "sub-1",
        "child_role": "leaf",
        "child_goal": "Summarise the failing tests",
    },
    "subagent_stop": lambda _: {
        "parent_session_id": SESSION,
        "parent_turn_id": TURN,
        "child_session_id": "child-session",
        "child_role": "leaf",
        "child_summary": "Three tests fail on a missing fixture.",
        "child_status": "completed",
        "tool_call_history": [
            {
                "tool_name": "read_file",
                "tool_input": {"argument_keys": ["path"], "targets": {"path": "tests/x.py"}},
                "input_bytes": 24,
                "output_bytes": 2048,
                "status": "ok",
            }
        ],
        "duration_ms": 1234,
    },
    "pre_gateway_dispatch": lambda _: {
        "event": {
            "text": "hello agent",
            "message_id": "m-1",
            "internal": False,
            "source": {
                "platform": "telegram",
                "chat_id": "c-1",
                "chat_type": "dm",
                "user_id": "u-1",
                "thread_id": None,
            },
        },
        "gateway": None,
        "session_store": None,
    },
    "gateway_platform_event": lambda _: {
        "platform": "telegram",
        "event_type": "reaction",
        "payload": {
            "emojis": ["👍"],
            "custom_emoji_ids": [],
            "chat_id": "c-1",
            "message_id": "m-1",
            "thread_id": None,
        },
    },
    "pre_command": lambda _: {
        "surface": PLATFORM,
        "command": "model",
        "alias_used": "model",
        "args_raw": "anthropic/claude-sonnet-4",
        "session_key": "cli:test-session",
        "platform": PLATFORM,
    },
    "pre_approval_request": lambda _: dict(_APPROVAL),
    "post_approval_response": lambda _: {**_APPROVAL, "choice": "once", "decided_by": None},
    "kanban_task_claimed": lambda _: dict(_KANBAN),
    "kanban_task_completed": lambda _: {**_KANBAN, "summary": "Fixed the flaky test."},
    "kanban_task_blocked": lambda _: {**_KANBAN, "reason": "waiting on kb-41"},
    "on_kanban_worker_spawned": lambda _: {
        **_KANBAN,
        "worker_pid": 4242,
        "workspace_path": "/tmp/kanban/kb-42",
    },
    "on_kanban_worker_exited": lambda _: {
        **_KANBAN,
        "worker_pid": 4242,
        "exit_kind": "nonzero_exit",
        "exit_code": 1,
        "outcome": "requeued",
        "retry_status": "retry 1 of 3",
    },
    "on_kanban_worker_stale_claim": lambda _: {
        **_KANBAN,
        "worker_pid": 4242,
        "heartbeat_stale": True,
        "retry_status": "retry 1 of 3",
    },
    "on_kanban_task_updated": lambda _: {**_KANBAN, "changed_fields": ["assignee", "model"]},
    "on_kanban_dispatch_tick": lambda _: {
        "board": "main",
        "profile_name": "default",
        "dry_run": False,
        "outcome": "ok",
        "result": {"claimed": ["kb-42"], "spawned": 1, "skipped": []},
    },
}


def synthetic_payload(event: str, *, tool_name: str | None = None) -> dict[str, Any]:
    """A fresh keyword payload for ``event`` holding every catalogued field.

    ``tool_name`` names the tool on the tool events (``pre_tool_call``,
    ``post_tool_call``, ``transform_tool_result``; default ``"terminal"``) and picks
    plausible ``args``; other events ignore it.  Raises
    :class:`~hermes_hooks.errors.UnknownHookError` (with a suggestion) for a name
    outside the catalogue.  The caller owns the result: it is a deep copy.
    """
    if event not in CATALOGUE:
        raise unknown_hook(event)
    tool = (tool_name or DEFAULT_TOOL) if event in TOOL_EVENTS else DEFAULT_TOOL
    return copy.deepcopy(_BUILDERS[event](tool))
