"""The OpenAI Agents SDK (``pip install 'hermes-hooks[openai-agents]'``): one object, and
``await guard.run(agent, input)`` in place of ``await Runner.run(agent, input)``.

    from hermes_hooks.integrations.openai_agents import OpenAIAgentsGuard
    guard = OpenAIAgentsGuard(hermes_hooks.load())
    result = await guard.run(agent, "What is in /tmp?")

What fires, and where the SDK lets us in:

* ``on_session_start`` (first run of a ``session_id``), ``pre_llm_call`` before the run;
  its context is appended to the user message of every model call of the run through
  ``RunConfig.call_model_input_filter`` (the stored input stays clean).
* ``pre_tool_call`` / ``post_tool_call`` / ``transform_tool_result`` around every
  function tool, by wrapping the tool's ``on_invoke_tool`` on a clone of each agent
  (the agent, and the agents it hands off to).  A block returns ``{"error": message}``
  to the model as the tool's output and the tool does not run; a ``modify`` reaches
  the tool; an ``approve`` is denied unless ``approve="allow"``.
* ``subagent_start`` on every hand-off (the new agent's name is ``child_subagent_id``)
  and ``subagent_stop`` for it when the run ends.
* ``transform_llm_output`` and ``post_llm_call`` on the final text output, then
  ``on_session_end`` (also when the run raises; the exception then propagates as the
  SDK raised it).

Not fired: the API-level hooks (``pre_api_request`` ...), streaming observers, the
approval hooks and ``pre_verify``; ``Runner.run_streamed`` with :meth:`agent` and
:meth:`run_config` gets the tool hooks only.  Hosted tools (web search, file search, computer,
shell run by the provider) and MCP tools never pass through ``on_invoke_tool``, so
``pre_tool_call`` does not see them; put MCP servers behind ``hermes-hooks mcp-proxy``.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import json
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from agents import Agent, FunctionTool, RunConfig, RunHooks, Runner
from agents.run_config import CallModelData, ModelInputData

from hermes_hooks.integrations._sdk_common import (
    SdkFirings,
    Turn,
    block_result,
    elapsed_ms,
    new_id,
    result_text,
    with_context,
)

if TYPE_CHECKING:
    from agents.result import RunResult

    from hermes_hooks.hooks import Hooks

__all__ = ["PLATFORM", "OpenAIAgentsGuard"]

#: ``platform`` in the payloads this adapter fires.
PLATFORM = "openai-agents"

_TOOL_HOOKS = ("pre_tool_call", "post_tool_call", "transform_tool_result")
_TURN_HOOKS = ("on_session_start", "pre_llm_call")
_END_HOOKS = ("transform_llm_output", "post_llm_call", "on_session_end")

# The turn a tool call belongs to: set by run(); the SDK runs tools in tasks created
# inside the run, which copy it.
_TURN: contextvars.ContextVar[Turn | None] = contextvars.ContextVar("hermes_turn", default=None)
# Marks an on_invoke_tool we made, so a tool is never wrapped twice.
_WRAPPED = "__hermes_hooks_wrapped__"


def _model_name(agent: Agent[Any]) -> str:
    model = agent.model
    if isinstance(model, str):
        return model
    if model is None:
        return ""
    return str(getattr(model, "model", None) or type(model).__name__)


def _user_text(value: Any) -> str:
    """The text of the run's input: the string, or the last user message of a list."""
    if isinstance(value, str):
        return value
    for item in reversed(value if isinstance(value, list) else []):
        if isinstance(item, dict) and item.get("role") == "user":
            content = item.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


class OpenAIAgentsGuard:
    """Fires the hermes-hooks catalogue around runs of OpenAI Agents SDK agents.

    ``hooks`` is a loaded :class:`~hermes_hooks.hooks.Hooks`; ``approve`` is what a
    ``pre_tool_call`` approval becomes (``"deny"`` blocks, ``"allow"`` runs the call);
    ``platform`` goes into every payload.
    """

    def __init__(self, hooks: Hooks, *, approve: str = "deny", platform: str = PLATFORM) -> None:
        self.firings = SdkFirings(hooks, "openai-agents", approve=approve)
        self.platform = platform
        self._loose: Turn | None = None

    # -- the one line ------------------------------------------------------------------

    async def run(
        self,
        agent: Agent[Any],
        input: str | list[Any],
        *,
        session_id: str | None = None,
        run_config: RunConfig | None = None,
        hooks: RunHooks[Any] | None = None,
        **kwargs: Any,
    ) -> RunResult:
        """``Runner.run(agent, input, ...)`` with the hooks fired around it.

        ``session_id`` groups runs into one session (``on_session_start`` fires on its
        first run only); a fresh id is made when omitted.  Every other keyword goes to
        ``Runner.run`` unchanged.
        """
        firings = self.firings
        turn = Turn(
            session_id=session_id or new_id("session"),
            user_message=_user_text(input),
            model=_model_name(agent),
            platform=self.platform,
        )
        if firings.wants(*_TURN_HOOKS):
            await asyncio.to_thread(firings.begin, turn)
        else:
            firings.begin(turn)  # nothing to call: only the session bookkeeping
        handoffs = _HandoffHooks(firings, turn, hooks)
        token = _TURN.set(turn)
        try:
            result = await Runner.run(
                self.agent(agent),
                input,
                run_config=self.run_config(run_config),
                hooks=handoffs,
                **kwargs,
            )
        except Exception as exc:
            await handoffs.stopped("failed")
            await asyncio.to_thread(firings.end, turn, None, error=exc)
            raise
        finally:
            _TURN.reset(token)
        await handoffs.stopped("completed")
        output = result.final_output
        text = output if isinstance(output, str) else None
        if firings.wants(*_END_HOOKS):
            final = await asyncio.to_thread(firings.end, turn, text)
            if text is not None and final != text:
                result.final_output = final
        return result

    def run_sync(self, agent: Agent[Any], input: str | list[Any], **kwargs: Any) -> RunResult:
        """The blocking twin of :meth:`run` (as ``Runner.run_sync``)."""
        return asyncio.run(self.run(agent, input, **kwargs))

    # -- the parts, for callers who build their own run ---------------------------------

    def agent(self, agent: Agent[Any]) -> Agent[Any]:
        """A clone of ``agent`` whose function tools fire the tool hooks, and whose
        hand-off agents are cloned the same way (the original is left as it was)."""
        return self._clone(agent, {})

    def run_config(self, base: RunConfig | None = None) -> RunConfig:
        """``base`` (or a default ``RunConfig``) whose model-input filter also appends the
        run's ``pre_llm_call`` context to its user message; ``base``'s own filter runs first."""
        config = base or RunConfig()
        inner = config.call_model_input_filter

        async def add_context(data: CallModelData[Any]) -> ModelInputData:
            model_data = data.model_data
            if inner is not None:
                maybe = inner(data)
                model_data = await maybe if isinstance(maybe, Awaitable) else maybe
            turn = _TURN.get()
            if turn is None or not turn.context:
                return model_data
            return ModelInputData(
                input=_with_context(model_data.input, turn), instructions=model_data.instructions
            )

        return dataclasses.replace(config, call_model_input_filter=add_context)

    # -- inside --------------------------------------------------------------------------

    def _clone(self, agent: Agent[Any], done: dict[int, Agent[Any]]) -> Agent[Any]:
        if id(agent) in done:
            return done[id(agent)]
        clone = agent.clone(tools=[self._tool(tool) for tool in agent.tools])
        done[id(agent)] = clone
        clone.handoffs = [
            self._clone(target, done) if isinstance(target, Agent) else target
            for target in agent.handoffs
        ]
        return clone

    def _tool(self, tool: Any) -> Any:
        if not isinstance(tool, FunctionTool) or getattr(tool.on_invoke_tool, _WRAPPED, False):
            return tool
        return dataclasses.replace(tool, on_invoke_tool=self._wrap(tool.name, tool.on_invoke_tool))

    def _turn(self) -> Turn:
        """The current run's turn; tools of a cloned agent run outside :meth:`run` share one."""
        turn = _TURN.get()
        if turn is None:
            if self._loose is None:
                self._loose = Turn(new_id("session"), "", "", self.platform)
            turn = self._loose
        return turn

    def _wrap(
        self, name: str, invoke: Callable[[Any, str], Awaitable[Any]]
    ) -> Callable[[Any, str], Awaitable[Any]]:
        firings = self.firings

        async def guarded(context: Any, arguments: str) -> Any:
            if not firings.wants(*_TOOL_HOOKS):
                return await invoke(context, arguments)
            turn = self._turn()
            call_id = str(getattr(context, "tool_call_id", "") or "")
            try:
                parsed = json.loads(arguments) if arguments else {}
            except ValueError:
                parsed = None
            args = parsed if isinstance(parsed, dict) else {"_raw_arguments": arguments}
            gate = await asyncio.to_thread(firings.gate, turn, name, args, call_id)
            if gate.message is not None:
                return block_result(gate.message)
            sent = arguments if gate.args == args else json.dumps(gate.args, ensure_ascii=False)
            started = time.perf_counter()
            try:
                value = await invoke(context, sent)
            except Exception as exc:
                text = block_result(f"{type(exc).__name__}: {exc}")
                await asyncio.to_thread(
                    firings.after,
                    turn,
                    name,
                    gate.args,
                    call_id,
                    text,
                    duration_ms=elapsed_ms(started),
                    error=str(exc),
                )
                raise  # the SDK's own tool-error handling decides what the model sees
            text = result_text(value)
            final = await asyncio.to_thread(
                firings.after, turn, name, gate.args, call_id, text, duration_ms=elapsed_ms(started)
            )
            return value if final == text else final

        setattr(guarded, _WRAPPED, True)
        return guarded


def _with_context(items: list[Any], turn: Turn) -> list[Any]:
    """``items`` with the context appended to the run's own user message (the last user
    item carrying exactly its text); any other item is passed through untouched."""
    sent = list(items)
    for index in range(len(sent) - 1, -1, -1):
        item = sent[index]
        if not (isinstance(item, dict) and item.get("role") == "user"):
            continue
        content = item.get("content")
        if content == turn.user_message:
            sent[index] = {**item, "content": with_context(turn.user_message, turn.context)}
            break
        if isinstance(content, list) and _user_text([item]) == turn.user_message:
            extra = {"type": "input_text", "text": f"\n\n{turn.context}"}
            sent[index] = {**item, "content": [*content, extra]}
            break
    return sent


class _HandoffHooks(RunHooks[Any]):
    """Run hooks that fire ``subagent_start`` on hand-offs, forwarding every event to the
    caller's own run hooks."""

    def __init__(self, firings: SdkFirings, turn: Turn, inner: RunHooks[Any] | None) -> None:
        self._firings = firings
        self._turn = turn
        self._inner = inner
        self._children: list[tuple[str, float]] = []

    async def on_handoff(self, context: Any, from_agent: Any, to_agent: Any) -> None:
        """Fire ``subagent_start`` for ``to_agent``; then the caller's hook."""
        turn = self._turn
        self._children.append((str(to_agent.name), time.perf_counter()))
        if self._firings.wants("subagent_start"):
            await asyncio.to_thread(
                self._firings.observe,
                "subagent_start",
                parent_session_id=turn.session_id,
                parent_turn_id=turn.turn_id,
                parent_subagent_id=None,
                child_session_id=None,
                child_subagent_id=str(to_agent.name),
                child_role=None,
                child_goal="",
            )
        if self._inner is not None:
            await self._inner.on_handoff(context, from_agent, to_agent)

    async def stopped(self, status: str) -> None:
        """Fire ``subagent_stop`` for every agent handed off to during the run."""
        if not self._children or not self._firings.wants("subagent_stop"):
            return
        turn = self._turn
        for _child, started in self._children:
            await asyncio.to_thread(
                self._firings.observe,
                "subagent_stop",
                parent_session_id=turn.session_id,
                parent_turn_id=turn.turn_id,
                child_session_id=None,
                child_role=None,
                child_summary=None,
                child_status=status,
                tool_call_history=[],
                duration_ms=elapsed_ms(started),
            )

    async def on_llm_start(
        self, context: Any, agent: Any, system_prompt: str | None, input_items: list[Any]
    ) -> None:
        """Forwarded to the caller's run hooks."""
        if self._inner is not None:
            await self._inner.on_llm_start(context, agent, system_prompt, input_items)

    async def on_llm_end(self, context: Any, agent: Any, response: Any) -> None:
        """Forwarded to the caller's run hooks."""
        if self._inner is not None:
            await self._inner.on_llm_end(context, agent, response)

    async def on_agent_start(self, context: Any, agent: Any) -> None:
        """Forwarded to the caller's run hooks."""
        if self._inner is not None:
            await self._inner.on_agent_start(context, agent)

    async def on_agent_end(self, context: Any, agent: Any, output: Any) -> None:
        """Forwarded to the caller's run hooks."""
        if self._inner is not None:
            await self._inner.on_agent_end(context, agent, output)

    async def on_tool_start(self, context: Any, agent: Any, tool: Any) -> None:
        """Forwarded to the caller's run hooks."""
        if self._inner is not None:
            await self._inner.on_tool_start(context, agent, tool)

    async def on_tool_end(self, context: Any, agent: Any, tool: Any, result: object) -> None:
        """Forwarded to the caller's run hooks."""
        if self._inner is not None:
            await self._inner.on_tool_end(context, agent, tool, result)
