"""LangChain and LangGraph (``pip install 'hermes-hooks[langchain]'``): one middleware
for ``create_agent``, or one tool wrapper for a LangGraph ``ToolNode``.

    from hermes_hooks.integrations.langchain import HermesMiddleware
    agent = create_agent(model, tools, middleware=[HermesMiddleware(hermes_hooks.load())])

    # a hand-built LangGraph graph: the tool hooks only
    node = ToolNode(tools, **HermesMiddleware(hooks).tool_node_wrappers())

What fires, through the middleware's own hooks:

* ``before_agent``: ``on_session_start`` (first run of a thread) and ``pre_llm_call``;
  the turn's ids and context go into the graph state (``hermes_turn``), so they survive
  checkpoints and concurrent threads.  ``wrap_model_call`` appends the context to the
  turn's user message in every model request (the state keeps the clean message).
* ``wrap_tool_call``: ``pre_tool_call`` before every tool; a block returns a
  ``ToolMessage`` with ``status="error"`` and ``{"error": message}`` and the tool does
  not run; a ``modify`` reaches the tool; an ``approve`` is denied unless
  ``approve="allow"``.  Then ``post_tool_call`` and ``transform_tool_result``.
* ``after_agent``: ``transform_llm_output`` (a replacement rewrites the final AI
  message in the state), ``post_llm_call``, ``on_session_end``.

The session id is the run's ``thread_id`` (``config={"configurable": {"thread_id":
...}}``), else one per middleware.  Not fired: the API-level hooks, streaming
observers, approval hooks, ``pre_verify`` and the subagent hooks (LangGraph
sub-graphs have no hand-off event the middleware sees).  A run that raises skips
``after_agent``, so ``on_session_end`` does not fire for it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from langchain.agents.middleware import AgentMiddleware, AgentState
from langchain.agents.middleware.types import ModelRequest, ModelResponse
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.prebuilt.tool_node import ToolCallRequest
from typing_extensions import NotRequired

from hermes_hooks.integrations._sdk_common import (
    SdkFirings,
    Turn,
    block_result,
    elapsed_ms,
    new_id,
    result_text,
    with_context,
)

__all__ = ["PLATFORM", "HermesMiddleware", "HermesState"]

#: ``platform`` in the payloads this adapter fires.
PLATFORM = "langchain"

_TOOL_HOOKS = ("pre_tool_call", "post_tool_call", "transform_tool_result")

_ToolResult = Any  # a ToolMessage or a LangGraph Command
_ToolHandler = Callable[[ToolCallRequest], _ToolResult]
_AsyncToolHandler = Callable[[ToolCallRequest], Awaitable[_ToolResult]]


if TYPE_CHECKING:
    # Without the SDK installed the base is Any, which a TypedDict cannot extend.
    HermesState = dict[str, Any]
else:

    class HermesState(AgentState):
        """The agent state plus the current turn (ids, user message, context)."""

        hermes_turn: NotRequired[dict[str, Any]]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part if isinstance(part, str) else str(part.get("text", ""))
            for part in content
            if isinstance(part, (str, dict))
        )
    return str(content)


def _thread_id() -> str | None:
    try:
        from langgraph.config import get_config

        value = get_config().get("configurable", {}).get("thread_id")
    except RuntimeError:  # outside a graph run
        return None
    return str(value) if value is not None else None


def _history(messages: list[Any]) -> list[dict[str, Any]]:
    roles = {"human": "user", "ai": "assistant", "tool": "tool", "system": "system"}
    history = []
    for message in messages:
        kind = str(getattr(message, "type", ""))
        history.append({"role": roles.get(kind, kind), "content": _text(message.content)})
    return history


class HermesMiddleware(AgentMiddleware[Any, Any]):
    """Fires the hermes-hooks catalogue around a LangChain agent's model and tool calls.

    ``hooks`` is a loaded :class:`~hermes_hooks.hooks.Hooks`; ``approve`` is what a
    ``pre_tool_call`` approval becomes (``"deny"`` blocks, ``"allow"`` runs the call);
    ``model`` and ``platform`` go into the payloads.
    """

    state_schema = HermesState

    def __init__(
        self,
        hooks: Any,
        *,
        approve: str = "deny",
        model: str = "",
        platform: str = PLATFORM,
    ) -> None:
        super().__init__()
        self.firings = SdkFirings(hooks, "langchain", approve=approve)
        self.model = model
        self.platform = platform
        self._session = new_id("session")

    @property
    def name(self) -> str:
        """The middleware's name in the agent graph."""
        return "HermesHooks"

    # -- the turn ------------------------------------------------------------------------

    def _begin(self, state: dict[str, Any]) -> dict[str, Any]:
        messages = list(state.get("messages", []))
        humans = [m for m in messages if isinstance(m, HumanMessage)]
        turn = Turn(
            session_id=_thread_id() or self._session,
            user_message=_text(humans[-1].content) if humans else "",
            model=self.model,
            platform=self.platform,
            history=_history(messages[:-1]),
        )
        self.firings.begin(turn)
        return {"hermes_turn": _saved(turn)}

    def _end(self, state: dict[str, Any]) -> dict[str, Any] | None:
        turn = _turn(state)
        if turn is None:
            return None
        messages = list(state.get("messages", []))
        last = messages[-1] if messages else None
        text = _text(last.content) if isinstance(last, AIMessage) else ""
        final = self.firings.end(turn, text)
        if isinstance(last, AIMessage) and text and final != text:
            # Same id: the messages reducer replaces the final message in place.
            return {"messages": [last.model_copy(update={"content": final})]}
        return None

    def before_agent(self, state: HermesState, runtime: Any) -> dict[str, Any] | None:
        """Fire ``on_session_start`` and ``pre_llm_call``; keep the turn in the state."""
        return self._begin(dict(state))

    async def abefore_agent(self, state: HermesState, runtime: Any) -> dict[str, Any] | None:
        """The async twin of :meth:`before_agent` (the firing runs in a thread)."""
        return await asyncio.to_thread(self._begin, dict(state))

    def after_agent(self, state: HermesState, runtime: Any) -> dict[str, Any] | None:
        """Fire ``transform_llm_output``, ``post_llm_call`` and ``on_session_end``."""
        return self._end(dict(state))

    async def aafter_agent(self, state: HermesState, runtime: Any) -> dict[str, Any] | None:
        """The async twin of :meth:`after_agent`."""
        return await asyncio.to_thread(self._end, dict(state))

    # -- model calls ---------------------------------------------------------------------

    def wrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], ModelResponse[Any]]
    ) -> Any:
        """Append the turn's ``pre_llm_call`` context to its user message in the request."""
        return handler(_with_context(request))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> Any:
        """The async twin of :meth:`wrap_model_call`."""
        return await handler(_with_context(request))

    # -- tool calls ----------------------------------------------------------------------

    def wrap_tool_call(self, request: ToolCallRequest, handler: _ToolHandler) -> _ToolResult:
        """Gate the call with ``pre_tool_call``; after it, ``post_tool_call`` and
        ``transform_tool_result``."""
        if not self.firings.wants(*_TOOL_HOOKS):
            return handler(request)
        turn, name, args, call_id = self._call(request)
        gate = self.firings.gate(turn, name, args, call_id)
        if gate.message is not None:
            return _blocked(name, call_id, gate.message)
        started = time.perf_counter()
        result = handler(_with_args(request, args, gate.args))
        return self._after(turn, name, gate.args, call_id, result, started)

    async def awrap_tool_call(
        self, request: ToolCallRequest, handler: _AsyncToolHandler
    ) -> _ToolResult:
        """The async twin of :meth:`wrap_tool_call` (each firing runs in a thread)."""
        if not self.firings.wants(*_TOOL_HOOKS):
            return await handler(request)
        turn, name, args, call_id = self._call(request)
        gate = await asyncio.to_thread(self.firings.gate, turn, name, args, call_id)
        if gate.message is not None:
            return _blocked(name, call_id, gate.message)
        started = time.perf_counter()
        result = await handler(_with_args(request, args, gate.args))
        return await asyncio.to_thread(self._after, turn, name, gate.args, call_id, result, started)

    def tool_node_wrappers(self) -> dict[str, Any]:
        """``wrap_tool_call`` and ``awrap_tool_call`` for ``ToolNode(tools, **...)`` in a
        hand-built LangGraph graph (the tool hooks only: no turn events there)."""
        return {"wrap_tool_call": self.wrap_tool_call, "awrap_tool_call": self.awrap_tool_call}

    def _call(self, request: ToolCallRequest) -> tuple[Turn, str, dict[str, Any], str]:
        call = request.tool_call
        state = request.state if isinstance(request.state, dict) else {}
        turn = _turn(state) or Turn(self._session, "", self.model, self.platform)
        args = call.get("args")
        return turn, str(call.get("name", "")), dict(args or {}), str(call.get("id") or "")

    def _after(
        self,
        turn: Turn,
        name: str,
        args: dict[str, Any],
        call_id: str,
        result: _ToolResult,
        started: float,
    ) -> _ToolResult:
        if not isinstance(result, ToolMessage):
            return result  # a Command: the tool steers the graph; nothing to transform
        text = result_text(result.content)
        error = text if result.status == "error" else None
        final = self.firings.after(
            turn, name, args, call_id, text, duration_ms=elapsed_ms(started), error=error
        )
        if final == text:
            return result
        return result.model_copy(update={"content": final})


def _saved(turn: Turn) -> dict[str, Any]:
    return {
        "session_id": turn.session_id,
        "turn_id": turn.turn_id,
        "user_message": turn.user_message,
        "context": turn.context,
        "model": turn.model,
        "platform": turn.platform,
        "first": turn.first,
    }


def _turn(state: Any) -> Turn | None:
    saved = state.get("hermes_turn") if isinstance(state, dict) else None
    if not isinstance(saved, dict):
        return None
    return Turn(
        session_id=str(saved.get("session_id", "")),
        user_message=str(saved.get("user_message", "")),
        model=str(saved.get("model", "")),
        platform=str(saved.get("platform", PLATFORM)),
        turn_id=str(saved.get("turn_id", "")),
        context=saved.get("context"),
        first=bool(saved.get("first", False)),
    )


def _with_context(request: ModelRequest[Any]) -> ModelRequest[Any]:
    """The request with the context appended to the turn's own (last) user message."""
    turn = _turn(request.state)
    if turn is None or not turn.context:
        return request
    messages = list(request.messages)
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if isinstance(message, HumanMessage) and _text(message.content) == turn.user_message:
            sent = with_context(turn.user_message, turn.context)
            messages[index] = message.model_copy(update={"content": sent})
            return request.override(messages=messages)
    return request


def _with_args(
    request: ToolCallRequest, asked: dict[str, Any], effective: dict[str, Any]
) -> ToolCallRequest:
    if effective == asked:
        return request
    return request.override(tool_call={**request.tool_call, "args": effective})


def _blocked(name: str, call_id: str, message: str) -> ToolMessage:
    return ToolMessage(
        content=block_result(message), tool_call_id=call_id, name=name, status="error"
    )
