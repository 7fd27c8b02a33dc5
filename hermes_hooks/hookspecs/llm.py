"""Turn-level LLM hooks: context injection, response transforms, the verify gate."""

from __future__ import annotations

from typing import Any

from hermes_hooks._contract import Kind, Selection, ShellUse
from hermes_hooks.hookspecs._marker import hookspec

# ---------------------------------------------------------------------------------------
# Start of a turn
# ---------------------------------------------------------------------------------------


@hookspec(kind=Kind.DIRECTIVE, selection=Selection.COLLECT_CONTEXT, shell=ShellUse.DIRECTIVE)
def pre_llm_call(
    session_id: str,
    task_id: str,
    turn_id: str,
    user_message: str,
    conversation_history: list[dict[str, Any]],
    is_first_turn: bool,
    model: str,
    platform: str,
    parent_session_id: str | None,
    sender_id: str | None,
    telemetry_schema_version: str,
) -> str | dict[str, Any] | None:
    """Directive: documented return shapes change the agent's flow.

    Fires once per turn, before the tool-calling loop (after ``on_session_start`` on
    a new session's first turn).

    Returns: a non-empty string or ``{"context": ...}``; every valid piece is
    collected in callback order (Python before shell), joined with ``"\\n\\n"`` and
    appended to the user message sent to the API.  Context never goes
    into the system prompt.  A failing callback contributes nothing.

    Sensitivity: the full user message and conversation history.
    """


# ---------------------------------------------------------------------------------------
# End of a turn
# ---------------------------------------------------------------------------------------


@hookspec(kind=Kind.TRANSFORM, selection=Selection.FIRST_NONEMPTY_STRING)
def transform_llm_output(
    response_text: str,
    session_id: str,
    model: str,
    platform: str,
    telemetry_schema_version: str,
) -> str | None:
    """Transform: a valid return value replaces content.

    Fires once per turn for a non-empty, non-interrupted final response, before
    ``post_llm_call`` and before delivery.

    Returns: the first non-empty string replaces the response; ``None`` and ``""``
    leave it unchanged.

    Sensitivity: the full final assistant text.
    """


@hookspec(kind=Kind.OBSERVER)
def post_llm_call(
    session_id: str,
    task_id: str,
    turn_id: str,
    user_message: str,
    assistant_response: str,
    conversation_history: list[dict[str, Any]],
    model: str,
    platform: str,
    telemetry_schema_version: str,
) -> None:
    """Observer: the return value is ignored.

    Fires once per successful turn, after ``transform_llm_output``; not on
    interruption or when the iteration limit ends the turn without a response.
    ``assistant_response`` is the delivered (transformed) text.

    Sensitivity: the full prompt, response and history.
    """


@hookspec(kind=Kind.DIRECTIVE, selection=Selection.VERIFY_DIRECTIVE, shell=ShellUse.DIRECTIVE)
def pre_verify(
    session_id: str,
    platform: str,
    model: str,
    coding: bool,
    attempt: int,
    final_response: str,
    changed_paths: list[str],
    telemetry_schema_version: str,
) -> dict[str, Any] | None:
    """Directive: documented return shapes change the agent's flow.

    Fires at every would-be final response of a turn that edited code (again after
    each nudge); ``attempt`` counts the nudges already applied.

    Returns: ``{"action": "continue", "message": str}`` (or Claude Code's
    ``{"decision": "block", "reason": str}``) keeps the turn going with the message as
    a synthetic user turn.  Only the first valid directive is used; the host
    caps nudges at ``agent.max_verify_nudges``.  Anything else lets the turn end.

    Guidance: make hooks idempotent; use ``coding`` and ``attempt`` to limit them.
    """
