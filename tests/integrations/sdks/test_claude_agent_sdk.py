"""The Claude Agent SDK's hook callbacks, called the way the SDK calls them: its own
control-protocol handler (``Query``) receives a ``hook_callback`` request from the CLI
side of a transport, runs our callback with the SDK's input types, and writes the answer
the CLI would read; each answer is also checked against the SDK's output types."""

from __future__ import annotations

import asyncio
import json
import logging
import typing
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import HookMatcher
from claude_agent_sdk._internal.query import Query
from claude_agent_sdk._internal.transport import Transport
from claude_agent_sdk.types import (
    HookSpecificOutput,
    PostToolUseFailureHookInput,
    PostToolUseHookInput,
    PreToolUseHookInput,
    StopHookInput,
    SubagentStartHookInput,
    SubagentStopHookInput,
    SyncHookJSONOutput,
    UserPromptSubmitHookInput,
)

from hermes_hooks.integrations.claude_agent_sdk import ClaudeAgentHooks, claude_agent_hooks
from tests.integrations.sdks.helpers import (
    CRASH_BLOCK,
    PLUGIN_BLOCK,
    PLUGIN_CONTEXT,
    SHELL_BLOCK,
    SHELL_CONTEXT,
    BrokenFacade,
    fired,
    load_home,
    make_home,
)


def conforms(value: Any, kind: Any, where: str = "answer") -> None:
    """Assert ``value`` fits ``kind`` (a TypedDict, a Literal, a union of TypedDicts
    told apart by ``hookEventName``, or a plain type): no unknown keys, every required
    key, every literal one of its values."""
    origin = typing.get_origin(kind)
    if typing.is_typeddict(kind):
        assert isinstance(value, dict), where
        hints = typing.get_type_hints(kind)
        assert set(value) <= set(hints), f"{where}: unknown keys {set(value) - set(hints)}"
        assert kind.__required_keys__ <= set(value), f"{where}: missing required keys"
        for key, item in value.items():
            conforms(item, hints[key], f"{where}.{key}")
    elif origin is typing.Literal:
        assert value in typing.get_args(kind), f"{where}: {value!r} not in {typing.get_args(kind)}"
    elif origin in (typing.Union, type(int | str)):
        options = typing.get_args(kind)
        if all(typing.is_typeddict(o) for o in options):
            assert isinstance(value, dict), where
            event = value.get("hookEventName")
            matches = [
                o
                for o in options
                if event in typing.get_args(typing.get_type_hints(o)["hookEventName"])
            ]
            assert len(matches) == 1, f"{where}: no output type for hookEventName {event!r}"
            match = matches[0]
            conforms(value, match, where)
        else:
            assert any(_fits(value, o) for o in options), where
    elif kind is Any:
        return
    else:
        assert isinstance(value, origin or kind), f"{where}: {value!r} is not {kind}"


def _fits(value: Any, kind: Any) -> bool:
    try:
        conforms(value, kind)
    except AssertionError:
        return False
    return True


def test_the_checker_refuses_what_the_sdk_types_refuse() -> None:
    assert HookSpecificOutput  # the union the checker tells apart by hookEventName
    for bad in (
        {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "Deny"}},
        {"hookSpecificOutput": {"hookEventName": "PreToolUse", "context": "x"}},
        {"decision": "approve"},
        {"hookSpecificOutput": {"permissionDecision": "deny"}},
    ):
        assert not _fits(bad, SyncHookJSONOutput), bad


class _Wire(Transport):
    """The CLI's end of the SDK's transport: keeps every line the SDK writes."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []

    async def connect(self) -> None:
        return None

    async def write(self, data: str) -> None:
        self.lines.append(json.loads(data))

    def read_messages(self) -> AsyncIterator[dict[str, Any]]:
        raise AssertionError("the test drives the handler directly")

    async def close(self) -> None:
        return None

    def is_ready(self) -> bool:
        return True

    async def end_input(self) -> None:
        return None


class _Cli:
    """Sends hook_callback requests through the SDK's own handler, as the CLI does."""

    def __init__(self, matchers: dict[str, list[HookMatcher]]) -> None:
        self.wire = _Wire()
        self.query = Query(transport=self.wire, is_streaming_mode=True)
        self.ids: dict[str, str] = {}
        for event, found in matchers.items():
            assert len(found) == 1 and len(found[0].hooks) == 1
            callback_id = f"hook_{len(self.ids)}"
            self.query.hook_callbacks[callback_id] = found[0].hooks[0]
            self.ids[event] = callback_id

    def close(self) -> None:
        """The SDK's own shutdown of the query, and its message streams (which the
        reader task, not started here, would close)."""
        asyncio.run(self.query.close())
        self.query._message_send.close()
        self.query._message_receive.close()

    def send(self, data: dict[str, Any], tool_use_id: str | None = None) -> dict[str, Any]:
        """One event; the answer as the CLI receives it (checked against the SDK's type)."""
        request = {
            "type": "control_request",
            "request_id": f"req-{len(self.wire.lines)}",
            "request": {
                "subtype": "hook_callback",
                "callback_id": self.ids[data["hook_event_name"]],
                "input": data,
                "tool_use_id": tool_use_id,
            },
        }
        asyncio.run(self.query._handle_control_request(request))  # type: ignore[arg-type]
        line = self.wire.lines[-1]
        assert line["response"]["subtype"] == "success", line
        answer: dict[str, Any] = line["response"]["response"]
        conforms(answer, SyncHookJSONOutput)
        return answer


def _base(session: str = "sess-1") -> dict[str, Any]:
    return {"session_id": session, "transcript_path": "/dev/null", "cwd": "/work"}


def _pre(name: str, tool_input: dict[str, Any], use_id: str) -> PreToolUseHookInput:
    return PreToolUseHookInput(
        **_base(),
        hook_event_name="PreToolUse",
        tool_name=name,
        tool_input=tool_input,
        tool_use_id=use_id,
    )


def _prompt(text: str) -> UserPromptSubmitHookInput:
    return UserPromptSubmitHookInput(**_base(), hook_event_name="UserPromptSubmit", prompt=text)


def _deny(reason: str) -> dict[str, Any]:
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    }


@pytest.fixture
def home(tmp_path: Path) -> Path:
    # Claude's Bash is our terminal: the shell gate guards that.
    return make_home(tmp_path, gate_matcher="terminal")


def test_a_turn_through_the_sdk_handler(home: Path) -> None:
    hooks = load_home(home)
    cli = _Cli(claude_agent_hooks(hooks))
    try:
        context = cli.send(_prompt("clean up"))
        danger = cli.send(_pre("Bash", {"command": "rm -rf /"}, "tu-1"), "tu-1")
        harmless = cli.send(_pre("Bash", {"command": "echo hi"}, "tu-2"), "tu-2")
        plugin = cli.send(_pre("delete_everything", {"path": "/srv"}, "tu-3"), "tu-3")
        after = cli.send(
            PostToolUseHookInput(
                **_base(),
                hook_event_name="PostToolUse",
                tool_name="Bash",
                tool_input={"command": "echo hi"},
                tool_response={"stdout": "hi\n", "stderr": "", "interrupted": False},
                tool_use_id="tu-2",
                duration_ms=12,
            ),
            "tu-2",
        )
        failed = cli.send(
            PostToolUseFailureHookInput(
                **_base(),
                hook_event_name="PostToolUseFailure",
                tool_name="Read",
                tool_input={"file_path": "/work/missing.txt"},
                tool_use_id="tu-4",
                error="File does not exist.",
            ),
            "tu-4",
        )
        stop = cli.send(
            StopHookInput(
                **_base(),
                hook_event_name="Stop",
                stop_hook_active=False,
                last_assistant_message="All clean.",
            )
        )
    finally:
        cli.close()
        hooks.close()
    assert context == {
        "hookSpecificOutput": {
            "hookEventName": "UserPromptSubmit",
            "additionalContext": f"{PLUGIN_CONTEXT}\n\n{SHELL_CONTEXT}",
        }
    }
    assert danger == _deny(SHELL_BLOCK)
    assert harmless == {}
    assert plugin == _deny(PLUGIN_BLOCK)
    assert after == failed == stop == {}
    notes = fired(home)
    assert [(n["hook"], n.get("tool")) for n in notes if n["by"] == "shell"] == [
        ("pre_llm_call", None),
        ("pre_tool_call", "terminal"),
        ("pre_tool_call", "terminal"),
    ]
    assert [
        (n["hook"], n.get("tool"), n.get("args") or n.get("status"))
        for n in notes
        if n["by"] == "plugin"
    ] == [
        ("on_session_start", None, None),
        ("pre_llm_call", None, None),
        ("pre_tool_call", "terminal", {"command": "rm -rf /"}),
        ("post_tool_call", "terminal", "blocked"),
        ("pre_tool_call", "terminal", {"command": "echo hi"}),
        ("pre_tool_call", "delete_everything", {"path": "/srv"}),
        ("post_tool_call", "delete_everything", "blocked"),
        ("post_tool_call", "terminal", "ok"),
        ("post_tool_call", "read_file", "error"),
        ("post_llm_call", None, None),
        ("on_session_end", None, None),
    ]


def _ask(reason: str, **extra: Any) -> dict[str, Any]:
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "ask",
            **({"permissionDecisionReason": reason} if reason else {}),
            **extra,
        }
    }


def test_modify_approve_crash_and_transform_answers(home: Path) -> None:
    hooks = load_home(home)
    cli = _Cli(claude_agent_hooks(hooks))
    try:
        modified = cli.send(_pre("Bash", {"command": "ls"}, "tu-1"), "tu-1")
        asked = cli.send(_pre("ask_first", {"path": "/etc"}, "tu-2"), "tu-2")
        crashed = cli.send(_pre("crash_the_gate", {"path": "/"}, "tu-3"), "tu-3")
        shouted = cli.send(
            PostToolUseHookInput(
                **_base(),
                hook_event_name="PostToolUse",
                tool_name="shout",
                tool_input={"text": "quiet"},
                tool_response="quiet",
                tool_use_id="tu-4",
            ),
            "tu-4",
        )
    finally:
        cli.close()
        hooks.close()
    # A rewrite never grants a permission: it goes through the SDK's permission flow.
    assert modified == _ask("", updatedInput={"command": "ls -la"})
    assert asked == _ask("a human should look")
    assert crashed == _deny(CRASH_BLOCK)
    assert shouted == {
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": "QUIET"}
    }


def test_approvals_can_be_denied_or_let_through(home: Path) -> None:
    hooks = load_home(home)
    deny = _Cli(claude_agent_hooks(hooks, approve="deny"))
    allow = _Cli(claude_agent_hooks(hooks, approve="allow"))
    try:
        denied = deny.send(_pre("ask_first", {"path": "/etc"}, "tu-1"), "tu-1")
        allowed = allow.send(_pre("ask_first", {"path": "/etc"}, "tu-2"), "tu-2")
    finally:
        deny.close()
        allow.close()
        hooks.close()
    assert denied == _deny("BLOCKED: plugin approval required for ask_first")
    assert allowed == {}
    with pytest.raises(ValueError, match=r"approve must be one of \('ask', 'deny', 'allow'\)"):
        ClaudeAgentHooks(hooks, approve="maybe")


def test_claude_tool_names_and_fields_map_through_the_table(home: Path) -> None:
    (home / "config.yaml").write_text(
        (home / "config.yaml").read_text(encoding="utf-8")
        + "hooks_claude_tools:\n"
        + "  NotebookEdit: {tool: notebook_edit, fields: {notebook_path: path}}\n",
        encoding="utf-8",
    )
    hooks = load_home(home)
    cli = _Cli(claude_agent_hooks(hooks))
    try:
        cli.send(_pre("Read", {"file_path": "/work/a.txt"}, "tu-1"), "tu-1")
        cli.send(_pre("NotebookEdit", {"notebook_path": "/work/n.ipynb"}, "tu-2"), "tu-2")
    finally:
        cli.close()
        hooks.close()
    gates = [(n["tool"], n["args"]) for n in fired(home) if n["hook"] == "pre_tool_call"]
    assert gates == [
        ("read_file", {"path": "/work/a.txt"}),
        ("notebook_edit", {"path": "/work/n.ipynb"}),
    ]


def test_an_adapter_failure_denies_the_tool_and_says_nothing_elsewhere(
    home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    hooks = load_home(home)
    cli = _Cli(claude_agent_hooks(BrokenFacade(hooks, "pre_tool_call", "pre_llm_call")))
    try:
        with caplog.at_level(logging.ERROR, logger="hermes_hooks"):
            context = cli.send(_prompt("go"))
            gated = cli.send(_pre("Bash", {"command": "echo hi"}, "tu-1"), "tu-1")
            # An input the adapter cannot read (no tool_name): fail closed as well.
            broken = dict(_pre("Bash", {"command": "echo hi"}, "tu-2"))
            del broken["tool_name"]
            unreadable = cli.send(broken, "tu-2")
    finally:
        cli.close()
        hooks.close()
    assert context == {}
    block = "claude-agent-sdk adapter could not run pre_tool_call; blocked (fail closed)"
    assert gated == unreadable == _deny(block)
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert errors == [
        "claude-agent-sdk adapter: firing pre_llm_call failed: KeyError: "
        "'adapter bug in pre_llm_call'; skipped",
        "claude-agent-sdk adapter: firing pre_tool_call failed: KeyError: "
        "'adapter bug in pre_tool_call'; the call is blocked (fail closed)",
        "claude-agent-sdk adapter: PreToolUse failed: KeyError: 'tool_name'",
    ]


def test_subagent_events(home: Path) -> None:
    hooks = load_home(home)
    cli = _Cli(claude_agent_hooks(hooks))
    try:
        started = cli.send(
            SubagentStartHookInput(
                **_base(), hook_event_name="SubagentStart", agent_id="ag-1", agent_type="Explore"
            )
        )
        stopped = cli.send(
            SubagentStopHookInput(
                **_base(),
                hook_event_name="SubagentStop",
                stop_hook_active=False,
                agent_id="ag-1",
                agent_transcript_path="/dev/null",
                agent_type="Explore",
                last_assistant_message="found it",
            )
        )
    finally:
        cli.close()
        hooks.close()
    assert started == stopped == {}
    assert [(n["hook"], n["child"]) for n in fired(home)] == [
        ("subagent_start", "ag-1"),
        ("subagent_stop", "completed"),
    ]
