"""What hermes-agent expects back from ``invoke_hook`` at each call site, made from the
typed answer of the hermes-hooks facade.

hermes-agent reads the list ``invoke_hook`` returns with an aggregator of its own per
call site (the first block or approve for ``pre_tool_call``, every context for
``pre_llm_call``, the first string for a transform ...).  The bridge hands it a list of
at most one element, already the answer hermes-hooks selected, so hermes-agent's
aggregator has nothing left to choose.

Each firing goes to the facade's own firing function with the keyword dict
``invoke_hook`` received, which the firing may own (as the typed methods hand it
theirs): this is the hot path of every tool call, and building a second dict of the
same keywords was a measurable part of the bridge's cost.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hermes_hooks._log import get_logger, warn_once
from hermes_hooks.hookspecs import VALID_HOOKS

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks
    from hermes_hooks.types import DispatchDecision, ToolDecision, VerifyDirective

__all__ = ["TRANSLATED", "answer", "failure_answer"]

log = get_logger("hermes_hooks.integrations")

_Translate = Callable[["Hooks", dict[str, Any]], list[Any]]


def _pre_tool_call(hooks: Hooks, payload: dict[str, Any]) -> list[Any]:
    decision: ToolDecision = hooks._fire("pre_tool_call", payload)
    if decision.action == "block":
        return [{"action": "block", "message": decision.message}]
    if decision.action == "approve":
        directive: dict[str, Any] = {"action": "approve", "message": decision.message}
        if decision.rule_key:
            directive["rule_key"] = decision.rule_key
        return [directive]
    if decision.modified:
        # hermes-agent 0.19.0 reads no "modify" directive, but it dispatches the very
        # dict it passed as ``args``: updating it in place is how the rewrite applies.
        args = payload.get("args")
        if isinstance(args, dict):
            args.clear()
            args.update(decision.args)
    return []


def _pre_llm_call(hooks: Hooks, payload: dict[str, Any]) -> list[Any]:
    context = hooks._fire("pre_llm_call", payload)
    return [{"context": context}] if context else []


def _first_string(name: str) -> _Translate:
    def translate(hooks: Hooks, payload: dict[str, Any]) -> list[Any]:
        text = hooks._fire(name, payload)
        return [text] if isinstance(text, str) else []

    return translate


def _pre_verify(hooks: Hooks, payload: dict[str, Any]) -> list[Any]:
    directive: VerifyDirective | None = hooks._fire("pre_verify", payload)
    return [] if directive is None else [{"action": "continue", "message": directive.message}]


def _pre_gateway_dispatch(hooks: Hooks, payload: dict[str, Any]) -> list[Any]:
    decision: DispatchDecision | None = hooks._fire("pre_gateway_dispatch", payload)
    if decision is None:
        return []
    answer: dict[str, Any] = {"action": decision.action}
    if decision.reason is not None:
        answer["reason"] = decision.reason
    if decision.text is not None:
        answer["text"] = decision.text
    return [answer]


#: The call sites whose answer is translated; every other hook (the observers) gets
#: the raw results of :meth:`~hermes_hooks.hooks.Hooks.invoke`, as hermes-agent would.
TRANSLATED: dict[str, _Translate] = {
    "pre_tool_call": _pre_tool_call,
    "pre_llm_call": _pre_llm_call,
    "transform_tool_result": _first_string("transform_tool_result"),
    "transform_terminal_output": _first_string("transform_terminal_output"),
    "transform_llm_output": _first_string("transform_llm_output"),
    "pre_verify": _pre_verify,
    "pre_gateway_dispatch": _pre_gateway_dispatch,
}


def answer(hooks: Hooks, name: str, payload: dict[str, Any]) -> list[Any]:
    """The list ``invoke_hook(name, **payload)`` returns to hermes-agent."""
    translate = TRANSLATED.get(name)
    if translate is not None:
        return translate(hooks, payload)
    if name not in VALID_HOOKS:
        # A hook of a newer hermes-agent: nothing of ours can implement it.
        warn_once(
            log,
            ("unknown hook", name),
            "hermes-hooks bridge: hermes-agent fired '%s', which the hermes-hooks "
            "catalogue does not have; nothing runs for it",
            name,
        )
        return []
    return hooks.invoke(name, **payload)


def failure_answer(name: str, tool_name: object, reason: str) -> list[Any]:
    """The answer when the bridge itself fails: a ``pre_tool_call`` is blocked (fail
    closed, since the gates it should have asked never ran), every other hook gets
    nothing, as hermes-agent gives a raising callback."""
    if name != "pre_tool_call":
        return []
    return [
        {
            "action": "block",
            "message": (
                f"hermes-hooks could not check the {tool_name} call ({reason}); "
                "blocked (fail closed). Run `hermes-hooks doctor`"
            ),
        }
    ]
