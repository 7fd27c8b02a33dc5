"""Approval hooks: around the human or smart approval gate."""

from __future__ import annotations

from hermes_hooks._contract import Kind
from hermes_hooks.hookspecs._marker import hookspec


@hookspec(kind=Kind.OBSERVER)
def pre_approval_request(
    command: str,
    description: str,
    pattern_key: str,
    pattern_keys: list[str],
    session_key: str,
    surface: str,
    turn_id: str,
    tool_call_id: str,
    telemetry_schema_version: str,
) -> None:
    """Observer: the return value is ignored.

    Fires before an approval decision is requested; it cannot veto (use
    ``pre_tool_call``).  ``surface`` is ``"cli"``, ``"gateway"``, ``"smart"`` or
    ``"acp"`` (consumers accept others).

    Sensitivity: the command may contain secrets.
    """


@hookspec(kind=Kind.OBSERVER)
def post_approval_response(
    command: str,
    description: str,
    pattern_key: str,
    pattern_keys: list[str],
    session_key: str,
    surface: str,
    turn_id: str,
    tool_call_id: str,
    choice: str,
    decided_by: str | None,
    telemetry_schema_version: str,
) -> None:
    """Observer: the return value is ignored.

    Fires after a prompted or smart decision, a timeout, or a failed notification.
    ``choice`` is ``once``, ``session``, ``always``, ``deny``, ``timeout``,
    ``notify_failed``, ``smart_approve`` or ``smart_deny``; ``decided_by`` is
    ``"aux_llm"`` exactly for smart choices.
    """
