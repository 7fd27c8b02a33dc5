"""Delegation hooks: child agents built and finished by ``delegate_task``."""

from __future__ import annotations

from typing import Any

from hermes_hooks._contract import Kind
from hermes_hooks.hookspecs._marker import hookspec


@hookspec(kind=Kind.OBSERVER)
def subagent_start(
    parent_session_id: str | None,
    parent_turn_id: str,
    parent_subagent_id: str | None,
    child_session_id: str | None,
    child_subagent_id: str,
    child_role: str | None,
    child_goal: str,
    telemetry_schema_version: str,
) -> None:
    """Observer: the return value is ignored.

    Fires once per child agent, after it is built and before it runs.  It cannot block
    delegation: block the ``delegate_task`` tool in ``pre_tool_call`` instead.
    ``parent_turn_id`` is ``""`` when unavailable; ``child_role`` is the
    effective role, or ``None`` when role-based orchestration is off.

    Sensitivity: the child goal may contain user or project content.
    """


@hookspec(kind=Kind.OBSERVER)
def subagent_stop(
    parent_session_id: str | None,
    parent_turn_id: str,
    child_session_id: str | None,
    child_role: str | None,
    child_summary: str | None,
    child_status: str,
    tool_call_history: list[dict[str, Any]],
    duration_ms: int,
    telemetry_schema_version: str,
) -> None:
    """Observer: the return value is ignored.

    Fires once per child after ``delegate_task`` drained its children, on the
    parent's calling thread and serialised there; Python callbacks are never moved to a
    time-limited worker.  ``child_status`` is ``"completed"``, ``"failed"``,
    ``"interrupted"`` or ``"error"``.  Keep callbacks fast: heavy delegation fires it
    many times per turn.
    """
