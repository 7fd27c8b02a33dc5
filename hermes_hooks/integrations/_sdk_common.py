"""What the agent SDK adapters share: one turn's ids, and the firings around a turn and
around a tool call, each under the hook's failure policy.

An adapter only knows *where* its SDK lets it in; this module knows *what* to fire
there, in the reference host's order (``docs/host-and-replay.md``): per turn
``on_session_start`` (new session) -> ``pre_llm_call`` -> per tool call
[``pre_tool_call`` -> the tool (or the block result) -> ``post_tool_call`` ->
``transform_tool_result``] -> ``transform_llm_output`` -> ``post_llm_call`` ->
``on_session_end``.

Nothing here raises into the SDK's loop.  The facade already isolates every callback;
what is left is a failure of the adapter itself (a payload it could not build, a
closed ``Hooks``).  That follows the hook's own policy: a fail-closed gate
(``pre_tool_call``) blocks the call with a message naming the failure, and every other
hook is skipped with an ERROR log, leaving the SDK's own value untouched.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from hermes_hooks._log import get_logger
from hermes_hooks.hookspecs import CATALOGUE
from hermes_hooks.types import ToolDecision

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks

__all__ = [
    "Gate",
    "SdkFirings",
    "Turn",
    "block_result",
    "elapsed_ms",
    "new_id",
    "result_text",
    "with_context",
]

log = get_logger("hermes_hooks.integrations")

_T = TypeVar("_T")


def new_id(prefix: str) -> str:
    """A fresh id (``<prefix>-<12 hex digits>``) for a session or a turn the SDK names none for."""
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def block_result(message: str) -> str:
    """The tool result the model sees for a blocked call: the reference host's shape."""
    return json.dumps({"error": message}, ensure_ascii=False)


def with_context(text: str, context: str | None) -> str:
    """The user message as sent to the model: the ``pre_llm_call`` context appended."""
    return f"{text}\n\n{context}" if context else text


@dataclass
class Turn:
    """One turn (one run of the SDK's agent loop): its ids and what ``pre_llm_call`` said."""

    session_id: str
    user_message: str
    model: str
    platform: str
    turn_id: str = field(default_factory=lambda: new_id("turn"))
    context: str | None = None
    first: bool = True
    history: list[dict[str, Any]] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)

    def tool_ids(self, tool_call_id: str) -> dict[str, str]:
        """The correlation ids of one tool call of this turn."""
        return {
            "task_id": self.session_id,
            "session_id": self.session_id,
            "tool_call_id": tool_call_id,
            "turn_id": self.turn_id,
            "api_request_id": "",
        }


@dataclass(frozen=True)
class Gate:
    """``pre_tool_call``'s answer as an adapter needs it: run with ``args`` or return
    ``message`` to the model instead."""

    args: dict[str, Any]
    message: str | None = None
    #: The approval's message when ``pre_tool_call`` asked for one and the policy let the
    #: call through (``approve="allow"``): a host with its own approval gate asks there.
    approval: str | None = None

    @property
    def blocked(self) -> bool:
        """True when the tool must not run."""
        return self.message is not None


class SdkFirings:
    """The firings of one adapter over one loaded :class:`~hermes_hooks.hooks.Hooks`.

    ``sdk`` names the adapter in log lines and block messages.  ``approve`` is what an
    ``approve`` answer becomes, since no SDK here has a human approval gate we can
    reach: ``"deny"`` (the default) blocks the call, ``"allow"`` runs it.
    """

    __slots__ = ("_sessions", "approve", "hooks", "sdk")

    def __init__(self, hooks: Hooks, sdk: str, *, approve: str = "deny") -> None:
        if approve not in ("deny", "allow"):
            raise ValueError(f"approve must be 'deny' or 'allow', not {approve!r}")
        self.hooks = hooks
        self.sdk = sdk
        self.approve = approve
        self._sessions: set[str] = set()

    # -- the failure policy ----------------------------------------------------------

    def _guarded(self, hook: str, call: Callable[[], _T], fallback: _T) -> _T:
        """``call()``; on an adapter failure log it at ERROR and return ``fallback``."""
        try:
            return call()
        except Exception as exc:  # the SDK's loop must never see it
            policy = "the call is blocked (fail closed)" if CATALOGUE[hook].fail_closed else ""
            log.error(
                "%s adapter: firing %s failed: %s: %s%s",
                self.sdk,
                hook,
                type(exc).__name__,
                exc,
                f"; {policy}" if policy else "; skipped",
            )
            return fallback

    # -- a turn ----------------------------------------------------------------------

    def begin(self, turn: Turn) -> str | None:
        """Fire ``on_session_start`` (first turn of a session this adapter has not seen)
        and ``pre_llm_call``; keep and return the context to append to the user message."""
        hooks = self.hooks
        turn.first = turn.session_id not in self._sessions
        self._sessions.add(turn.session_id)
        if turn.first:
            self._guarded(
                "on_session_start",
                lambda: hooks.on_session_start(
                    session_id=turn.session_id, model=turn.model, platform=turn.platform
                ),
                None,
            )
        context = self._guarded(
            "pre_llm_call",
            lambda: hooks.pre_llm_call(
                session_id=turn.session_id,
                task_id=turn.session_id,
                turn_id=turn.turn_id,
                user_message=turn.user_message,
                conversation_history=list(turn.history),
                is_first_turn=turn.first,
                model=turn.model,
                platform=turn.platform,
                parent_session_id=None,
                sender_id=None,
            ),
            None,
        )
        turn.context = context if isinstance(context, str) and context else None
        return turn.context

    def end(
        self,
        turn: Turn,
        response: str | None,
        *,
        error: BaseException | None = None,
        transform: bool = True,
    ) -> str:
        """Fire ``transform_llm_output`` and ``post_llm_call`` for a turn that produced
        ``response``, then ``on_session_end``; return the (maybe replaced) response.
        ``transform=False`` where the host cannot replace the response."""
        hooks = self.hooks
        final = response or ""
        if error is None and final and transform:
            replaced = self._guarded(
                "transform_llm_output",
                lambda: hooks.transform_llm_output(
                    response_text=final,
                    session_id=turn.session_id,
                    model=turn.model,
                    platform=turn.platform,
                ),
                None,
            )
            if isinstance(replaced, str) and replaced:
                final = replaced
        if error is None and final:
            delivered = final
            self._guarded(
                "post_llm_call",
                lambda: hooks.post_llm_call(
                    session_id=turn.session_id,
                    task_id=turn.session_id,
                    turn_id=turn.turn_id,
                    user_message=turn.user_message,
                    assistant_response=delivered,
                    conversation_history=list(turn.history),
                    model=turn.model,
                    platform=turn.platform,
                ),
                None,
            )
        reason = (
            f"error({type(error).__name__})"
            if error is not None
            else "text_response(finish_reason=stop)"
        )
        self._guarded(
            "on_session_end",
            lambda: hooks.on_session_end(
                session_id=turn.session_id,
                task_id=turn.session_id,
                turn_id=turn.turn_id,
                completed=error is None,
                failed=error is not None,
                interrupted=False,
                turn_exit_reason=reason,
                model=turn.model,
                platform=turn.platform,
            ),
            None,
        )
        return final

    # -- a tool call -----------------------------------------------------------------

    def gate(self, turn: Turn, tool_name: str, args: dict[str, Any], tool_call_id: str) -> Gate:
        """Fire ``pre_tool_call``; a block (or an approval this adapter answers "deny",
        or an adapter failure: the gate fails closed) also fires ``post_tool_call`` with
        ``status="blocked"``."""
        failed = f"{self.sdk} adapter could not run pre_tool_call; blocked (fail closed)"
        decision = self._guarded(
            "pre_tool_call",
            lambda: self.hooks.pre_tool_call(
                tool_name=tool_name,
                args=args,
                **turn.tool_ids(tool_call_id),
                middleware_trace=[],
            ),
            ToolDecision("block", args, failed),
        )
        message: str | None = None
        if decision.action == "block":
            message = decision.message or f"{tool_name} was blocked by a pre_tool_call hook"
        elif decision.action == "approve" and self.approve == "deny":
            message = f"BLOCKED: plugin approval required for {tool_name}"
        if message is None:
            if decision.action == "approve":
                asked = decision.message or f"plugin approval required for {tool_name}"
                return Gate(decision.args, approval=asked)
            return Gate(decision.args)
        blocked = message
        self._guarded(
            "post_tool_call",
            lambda: self.hooks.post_tool_call(
                tool_name=tool_name,
                args=decision.args,
                result=block_result(blocked),
                **turn.tool_ids(tool_call_id),
                duration_ms=0,
                status="blocked",
                error_type="plugin_block",
                error_message=blocked,
                middleware_trace=[],
            ),
            None,
        )
        return Gate(decision.args, message)

    def after(
        self,
        turn: Turn,
        tool_name: str,
        args: dict[str, Any],
        tool_call_id: str,
        result: str,
        *,
        duration_ms: int,
        error: str | None = None,
        transform: bool = True,
    ) -> str:
        """Fire ``post_tool_call`` and ``transform_tool_result`` for a call that ran;
        return the result the model should see.  ``transform=False`` where the host
        cannot replace the result (a transform it could not honour is not fired)."""
        after: dict[str, Any] = {
            "tool_name": tool_name,
            "args": args,
            "result": result,
            **turn.tool_ids(tool_call_id),
            "duration_ms": duration_ms,
            "status": "error" if error is not None else "ok",
            "error_type": "tool_error" if error is not None else None,
            "error_message": error,
        }
        self._guarded(
            "post_tool_call", lambda: self.hooks.post_tool_call(**after, middleware_trace=[]), None
        )
        if not transform:
            return result
        replaced = self._guarded(
            "transform_tool_result", lambda: self.hooks.transform_tool_result(**after), None
        )
        return replaced if isinstance(replaced, str) else result

    def observe(self, hook: str, **payload: Any) -> None:
        """Fire an observer hook (``subagent_start`` ...); failures are logged only."""
        self._guarded(hook, lambda: self.hooks.invoke(hook, **payload), None)

    def wants(self, *names: str) -> bool:
        """True when any of the hooks ``names`` has a callback (else the adapter can skip
        the thread hop of an async firing)."""
        return any(self.hooks.has_callbacks(name) for name in names)


def result_text(value: Any) -> str:
    """A tool's return value as the string our hooks see (JSON for structured values)."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def elapsed_ms(started: float) -> int:
    """Whole milliseconds since ``started`` (a :func:`time.perf_counter` reading)."""
    return int((time.perf_counter() - started) * 1000)
