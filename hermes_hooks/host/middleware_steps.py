"""The reference host's middleware: applied where hermes-agent applies it, shown as
timeline steps (``system="middleware"``).

* ``tool_request`` runs before ``pre_tool_call``: the rewritten arguments are what the
  hooks, the approval gate and the tool see, and its trace is the ``middleware_trace``
  of ``pre_tool_call`` and ``post_tool_call``;
* ``tool_execution`` wraps the tool run;
* ``llm_request`` runs before ``pre_api_request`` (its trace is that hook's
  ``middleware_trace``);
* ``llm_execution`` wraps the model call; a replay keeps the recorded answer, so a
  middleware that returns something else is noted, not obeyed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from hermes_hooks.host.timeline import Step
from hermes_hooks.plugins.middleware import LLM_EXECUTION, TOOL_EXECUTION

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks
    from hermes_hooks.host.payloads import ToolIds
    from hermes_hooks.host.timeline import Timeline

__all__ = ["llm_execution", "llm_request", "tool_execution", "tool_request"]


class HostParts(Protocol):
    """What the middleware steps use of the host."""

    hooks: Hooks
    timeline: Timeline


def _trace_text(trace: list[dict[str, Any]]) -> str:
    return ", ".join(e.get("name") or e.get("source") or "plugin" for e in trace)


def tool_request(
    host: HostParts, tool_name: str, args: dict[str, Any], ids: ToolIds, group: str
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The effective arguments of a tool call and the trace of the rewrites."""
    middleware = host.hooks.middleware
    if not middleware.has("tool_request"):
        return args, []
    step = host.timeline.open(Step("tool_request", system="middleware", group=group))
    try:
        result = middleware.apply_tool_request(tool_name, args, **ids)
    finally:
        host.timeline.close(step)
    if result.changed:
        step.notable = True
        step.outcome = (
            f"args rewritten by {_trace_text(result.trace)}: "
            f"{json.dumps(result.payload, ensure_ascii=False)}"
        )[:160]
    return result.payload, result.trace


def tool_execution(
    host: HostParts,
    tool_name: str,
    args: dict[str, Any],
    run: Callable[[dict[str, Any]], Any],
    group: str,
) -> Any:
    """Run the tool inside the tool execution middleware."""
    middleware = host.hooks.middleware
    if not middleware.has(TOOL_EXECUTION):
        return run(args)
    step = host.timeline.open(Step(TOOL_EXECUTION, system="middleware", group=group, notable=True))
    try:
        outcome = middleware.run_tool_execution(tool_name, args, run)
    finally:
        host.timeline.close(step)
    step.outcome = "tool run wrapped"
    return outcome


def llm_request(
    host: HostParts, request: Callable[[], dict[str, Any]], group: str
) -> tuple[Callable[[], dict[str, Any]], list[dict[str, Any]]]:
    """The effective provider request (built only when something reads it) and the
    trace of the rewrites."""
    middleware = host.hooks.middleware
    if not middleware.has("llm_request"):
        return request, []
    step = host.timeline.open(Step("llm_request", system="middleware", group=group))
    try:
        result = middleware.apply_llm_request(request())
    finally:
        host.timeline.close(step)
    if result.changed:
        step.notable = True
        step.outcome = f"request rewritten by {_trace_text(result.trace)}"
    rewritten = result.payload
    return (lambda: rewritten), result.trace


def llm_execution(
    host: HostParts, request: Callable[[], dict[str, Any]], answer: Any, group: str
) -> None:
    """Pass the recorded answer through the LLM execution middleware."""
    middleware = host.hooks.middleware
    if not middleware.has(LLM_EXECUTION):
        return
    step = host.timeline.open(Step(LLM_EXECUTION, system="middleware", group=group, notable=True))
    try:
        returned = middleware.run_llm_execution(request(), lambda _request: answer)
    finally:
        host.timeline.close(step)
    step.outcome = "model call wrapped"
    if returned is not answer:
        step.outcome += "; it returned another answer (a replay keeps the recorded one)"
