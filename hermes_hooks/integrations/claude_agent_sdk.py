"""The Claude Agent SDK (``pip install 'hermes-hooks[claude-agent-sdk]'``): its hook
callbacks, built from our decisions, in one line.

    from hermes_hooks.integrations.claude_agent_sdk import claude_agent_hooks
    options = ClaudeAgentOptions(hooks=claude_agent_hooks(hermes_hooks.load()))

Each SDK event and what it fires (tool names and fields go through the Claude Code tool
table of ``config.yaml``'s ``hooks_claude_tools:``: ``Bash`` is ``terminal``,
``file_path`` is ``path`` ...):

* ``UserPromptSubmit``: ``on_session_start`` (first prompt of a session id) and
  ``pre_llm_call``; the context comes back as ``additionalContext``.
* ``PreToolUse``: ``pre_tool_call``.  A block is ``permissionDecision: "deny"`` with the
  message as ``permissionDecisionReason`` (Claude shows it to the model); an approval
  is ``"ask"`` (the SDK's own permission flow: ``can_use_tool`` or the permission
  mode decides), or per ``approve=`` a deny or nothing; a modify is ``updatedInput``
  with ``"ask"``, so a rewrite never grants a permission the session did not have.
  The matcher fails closed (``on_failure="block"``) should the callback itself die.
* ``PostToolUse``: ``post_tool_call`` and ``transform_tool_result``; a replaced result
  is ``updatedToolOutput`` (JSON text that parses is sent parsed: Claude keeps a
  built-in tool's original output when the shape does not match its schema).
* ``PostToolUseFailure``: ``post_tool_call`` with ``status="error"``.
* ``Stop``: ``post_llm_call`` (with ``last_assistant_message``) and ``on_session_end``.
* ``SubagentStart`` / ``SubagentStop``: ``subagent_start`` / ``subagent_stop``.

Not expressible: this SDK release's Python hooks have no ``SessionStart``/``SessionEnd``
events (``on_session_start`` fires on the first prompt instead, ``on_session_end`` at
every ``Stop``, as our catalogue defines it), a ``Stop`` cannot replace the final text
(``transform_llm_output`` is not fired), and the API-level, streaming and approval
hooks and ``pre_verify`` have no event here.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, cast

from claude_agent_sdk import HookMatcher

from hermes_hooks._log import get_logger
from hermes_hooks.claude.tools import ToolTable, tool_table
from hermes_hooks.integrations._sdk_common import SdkFirings, Turn, result_text

if TYPE_CHECKING:
    from claude_agent_sdk.types import HookCallback

__all__ = ["APPROVALS", "PLATFORM", "ClaudeAgentHooks", "claude_agent_hooks"]

log = get_logger("hermes_hooks.integrations")

#: ``platform`` in the payloads this adapter fires.
PLATFORM = "claude-agent-sdk"
#: What a ``pre_tool_call`` approval can become: the SDK's permission flow (``ask``), a
#: deny, or nothing (``allow``).
APPROVALS = ("ask", "deny", "allow")

_Output = dict[str, Any]
_Callback = Callable[[Any, "str | None", Any], Awaitable[_Output]]


class ClaudeAgentHooks:
    """The hook callbacks of one loaded :class:`~hermes_hooks.hooks.Hooks` for the
    Claude Agent SDK; :meth:`matchers` is ``ClaudeAgentOptions(hooks=...)``."""

    def __init__(
        self, hooks: Any, *, approve: str = "ask", model: str = "", platform: str = PLATFORM
    ) -> None:
        if approve not in APPROVALS:
            raise ValueError(f"approve must be one of {APPROVALS}, not {approve!r}")
        self.approve = approve
        self.firings = SdkFirings(
            hooks, "claude-agent-sdk", approve="deny" if approve == "deny" else "allow"
        )
        self.model = model
        self.platform = platform
        self.table: ToolTable = tool_table(hooks.config or {}, _warn)
        self._ours = {}
        for row in reversed(self.table.rows):  # the first row naming a Claude tool wins
            self._ours[row.claude] = row.tool
        self._turns: dict[str, Turn] = {}
        self._children: dict[str, float] = {}

    def matchers(self) -> dict[str, list[HookMatcher]]:
        """Every callback under its SDK event, matching every tool."""
        callbacks: dict[str, _Callback] = {
            "UserPromptSubmit": self.user_prompt_submit,
            "PreToolUse": self.pre_tool_use,
            "PostToolUse": self.post_tool_use,
            "PostToolUseFailure": self.post_tool_use_failure,
            "Stop": self.stop,
            "SubagentStart": self.subagent_start,
            "SubagentStop": self.subagent_stop,
        }
        return {
            event: [
                HookMatcher(
                    matcher=None,
                    # Our answers are plain dicts of the SDK's output shapes (the tests
                    # check them against its TypedDicts).
                    hooks=[cast("HookCallback", callback)],
                    on_failure="block" if event == "PreToolUse" else None,
                )
            ]
            for event, callback in callbacks.items()
        }

    # -- callbacks (each never raises: see _safe) -----------------------------------

    async def user_prompt_submit(self, data: Any, tool_use_id: str | None, context: Any) -> _Output:
        """``on_session_start`` (new session) and ``pre_llm_call`` -> ``additionalContext``."""
        return await self._safe("UserPromptSubmit", self._prompt, data)

    async def pre_tool_use(self, data: Any, tool_use_id: str | None, context: Any) -> _Output:
        """``pre_tool_call`` -> ``permissionDecision`` / ``updatedInput``."""
        return await self._safe("PreToolUse", self._pre_tool, data, tool_use_id)

    async def post_tool_use(self, data: Any, tool_use_id: str | None, context: Any) -> _Output:
        """``post_tool_call`` and ``transform_tool_result`` -> ``updatedToolOutput``."""
        return await self._safe("PostToolUse", self._post_tool, data, tool_use_id)

    async def post_tool_use_failure(
        self, data: Any, tool_use_id: str | None, context: Any
    ) -> _Output:
        """``post_tool_call`` with ``status="error"``."""
        return await self._safe("PostToolUseFailure", self._failed_tool, data, tool_use_id)

    async def stop(self, data: Any, tool_use_id: str | None, context: Any) -> _Output:
        """``post_llm_call`` and ``on_session_end``."""
        return await self._safe("Stop", self._stop, data)

    async def subagent_start(self, data: Any, tool_use_id: str | None, context: Any) -> _Output:
        """``subagent_start``."""
        return await self._safe("SubagentStart", self._child_started, data)

    async def subagent_stop(self, data: Any, tool_use_id: str | None, context: Any) -> _Output:
        """``subagent_stop``."""
        return await self._safe("SubagentStop", self._child_stopped, data)

    async def _safe(self, event: str, work: Callable[..., _Output], *args: Any) -> _Output:
        """Run ``work`` in a thread; a failure of the adapter itself is logged at ERROR
        and answered as the gate's policy says: PreToolUse denies, the rest say nothing."""
        try:
            return await asyncio.to_thread(work, *args)
        except Exception as exc:
            log.error("claude-agent-sdk adapter: %s failed: %s: %s", event, type(exc).__name__, exc)
            if event != "PreToolUse":
                return {}
            return _deny(
                "claude-agent-sdk adapter could not run pre_tool_call; blocked (fail closed)"
            )

    # -- the work --------------------------------------------------------------------

    def _turn(self, data: Any) -> Turn:
        session_id = str(data["session_id"])
        turn = self._turns.get(session_id)
        if turn is None:  # a tool call before any prompt we saw: a turn of its own
            turn = Turn(session_id, "", self.model, self.platform)
            self._turns[session_id] = turn
        return turn

    def _call(self, data: Any, tool_use_id: str | None) -> tuple[str, dict[str, Any], str]:
        claude = str(data["tool_name"])
        tool = self._ours.get(claude, claude)
        args = self.table.from_claude(tool, dict(data.get("tool_input") or {}))
        return tool, args, str(tool_use_id or data.get("tool_use_id") or "")

    def _prompt(self, data: Any) -> _Output:
        turn = Turn(str(data["session_id"]), str(data.get("prompt", "")), self.model, self.platform)
        self._turns[turn.session_id] = turn
        context = self.firings.begin(turn)
        if not context:
            return {}
        return {
            "hookSpecificOutput": {
                "hookEventName": "UserPromptSubmit",
                "additionalContext": context,
            }
        }

    def _pre_tool(self, data: Any, tool_use_id: str | None) -> _Output:
        turn = self._turn(data)
        tool, args, call_id = self._call(data, tool_use_id)
        gate = self.firings.gate(turn, tool, args, call_id)
        if gate.message is not None:
            return _deny(gate.message)
        out: dict[str, Any] = {"hookEventName": "PreToolUse"}
        if gate.approval is not None and self.approve == "ask":
            out["permissionDecision"] = "ask"
            out["permissionDecisionReason"] = gate.approval
        if gate.args != args:
            cwd = str(data.get("cwd") or "")
            out["updatedInput"] = self.table.to_claude(tool, gate.args, cwd)
            out.setdefault("permissionDecision", "ask")
        return {"hookSpecificOutput": out} if len(out) > 1 else {}

    def _post_tool(self, data: Any, tool_use_id: str | None) -> _Output:
        turn = self._turn(data)
        tool, args, call_id = self._call(data, tool_use_id)
        response = data.get("tool_response")
        text = result_text(response)
        final = self.firings.after(
            turn, tool, args, call_id, text, duration_ms=int(data.get("duration_ms") or 0)
        )
        if final == text:
            return {}
        updated: Any = final
        if not isinstance(response, str):
            try:
                updated = json.loads(final)
            except ValueError:
                updated = final
        return {
            "hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": updated}
        }

    def _failed_tool(self, data: Any, tool_use_id: str | None) -> _Output:
        turn = self._turn(data)
        tool, args, call_id = self._call(data, tool_use_id)
        error = str(data.get("error") or "tool error")
        self.firings.after(
            turn,
            tool,
            args,
            call_id,
            json.dumps({"error": error}, ensure_ascii=False),
            duration_ms=int(data.get("duration_ms") or 0),
            error=error,
            transform=False,
        )
        return {}

    def _stop(self, data: Any) -> _Output:
        turn = self._turns.pop(str(data["session_id"]), None) or self._turn(data)
        self._turns.pop(turn.session_id, None)
        self.firings.end(turn, data.get("last_assistant_message"), transform=False)
        return {}

    def _child_started(self, data: Any) -> _Output:
        turn = self._turn(data)
        child = str(data["agent_id"])
        self._children[child] = time.perf_counter()
        self.firings.observe(
            "subagent_start",
            parent_session_id=turn.session_id,
            parent_turn_id=turn.turn_id,
            parent_subagent_id=None,
            child_session_id=None,
            child_subagent_id=child,
            child_role=data.get("agent_type"),
            child_goal="",
        )
        return {}

    def _child_stopped(self, data: Any) -> _Output:
        turn = self._turn(data)
        child = str(data["agent_id"])
        started = self._children.pop(child, None)
        self.firings.observe(
            "subagent_stop",
            parent_session_id=turn.session_id,
            parent_turn_id=turn.turn_id,
            child_session_id=None,
            child_role=data.get("agent_type"),
            child_summary=data.get("last_assistant_message"),
            child_status="completed",
            tool_call_history=[],
            duration_ms=int((time.perf_counter() - started) * 1000) if started else 0,
        )
        return {}


def claude_agent_hooks(hooks: Any, *, approve: str = "ask") -> dict[str, list[HookMatcher]]:
    """The one line: ``ClaudeAgentOptions(hooks=claude_agent_hooks(hooks))``."""
    return ClaudeAgentHooks(hooks, approve=approve).matchers()


def _deny(message: str) -> _Output:
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": message,
        }
    }


def _warn(message: str, *, narrows: bool = False) -> None:
    """A bad ``hooks_claude_tools:`` row (the table reader says which and how to fix it);
    an ERROR when it leaves part of a gate off."""
    level = logging.ERROR if narrows else logging.WARNING
    log.log(level, "config.yaml: hooks_claude_tools: %s", message)
