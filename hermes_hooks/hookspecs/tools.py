"""Tool-call hooks: around every tool execution (pre_tool_call .. transform_terminal_output)."""

from __future__ import annotations

from typing import Any

from hermes_hooks._contract import Kind, Selection, ShellUse
from hermes_hooks.hookspecs._marker import hookspec

# ---------------------------------------------------------------------------------------
# Before the tool runs
# ---------------------------------------------------------------------------------------


@hookspec(
    kind=Kind.DIRECTIVE,
    selection=Selection.TOOL_DECISION,
    shell=ShellUse.DIRECTIVE,
    tool_scoped=True,
)
def pre_tool_call(
    tool_name: str,
    args: dict[str, Any],
    task_id: str,
    session_id: str,
    tool_call_id: str,
    turn_id: str,
    api_request_id: str,
    middleware_trace: list[Any],
    telemetry_schema_version: str,
) -> dict[str, Any] | None:
    """Directive: documented return shapes change the agent's flow.

    Fires immediately before every tool execution, once per tool call (three parallel
    calls fire it three times).

    Returns:
        ``{"action": "block", "message": str}`` stops the call; the message (non-empty)
        goes back to the model as an error.  ``{"action": "approve", "message"?,
        "rule_key"?, "review"?}`` escalates to the human (or ``"smart"``) approval gate.
        ``{"action": "modify", "args": dict}`` shallow-merges new arguments
        (with ``"replace": True`` the dict replaces them whole, as Claude Code's
        ``updatedInput`` does).  Anything else is ignored.

    Selection: every callback runs, in callback order.  Any valid block
    beats any approve and the first block's message is used; else the first valid
    approve wins; else the accumulated modifies apply.  Each callback sees a deep copy
    of the arguments accumulated so far.  A raising or timed-out Python callback
    blocks the call (fail closed).

    Payload: ``tool_name`` (e.g. ``"terminal"``), ``args`` (the model's arguments),
    ``task_id`` (``""`` if unset), ``session_id``, ``tool_call_id``, ``turn_id``,
    ``api_request_id``, ``middleware_trace``.

    Sensitivity: the raw arguments may contain user content, paths, commands or secrets.
    """


# ---------------------------------------------------------------------------------------
# After the tool ran
# ---------------------------------------------------------------------------------------


@hookspec(kind=Kind.OBSERVER, tool_scoped=True)
def post_tool_call(
    tool_name: str,
    args: dict[str, Any],
    result: str,
    task_id: str,
    session_id: str,
    tool_call_id: str,
    turn_id: str,
    api_request_id: str,
    duration_ms: int,
    status: str,
    error_type: str | None,
    error_message: str | None,
    middleware_trace: list[Any],
    telemetry_schema_version: str,
) -> None:
    """Observer: the return value is ignored.

    Fires immediately after every tool execution returns, whether the result was a
    success, an error or a ``pre_tool_call`` block.

    Payload: ``result`` is always a JSON string (``{"error": ...}`` for errors);
    ``status`` is ``"ok"``, ``"error"`` or ``"blocked"``; ``error_type`` is ``None``,
    ``"tool_error"``, ``"plugin_block"`` or another core value (an open set);
    ``error_message`` is the error or block text; ``duration_ms`` is 0 for blocked
    calls; ``args`` are the final effective arguments.

    Sensitivity: result and error text may contain tool or user content and secrets.
    """


@hookspec(kind=Kind.TRANSFORM, selection=Selection.FIRST_STRING)
def transform_tool_result(
    tool_name: str,
    args: dict[str, Any],
    result: str,
    task_id: str,
    session_id: str,
    tool_call_id: str,
    turn_id: str,
    api_request_id: str,
    duration_ms: int,
    status: str,
    error_type: str | None,
    error_message: str | None,
    telemetry_schema_version: str,
) -> str | None:
    """Transform: a valid return value replaces content.

    Fires after a tool returns, after ``post_tool_call`` and before the result joins
    the conversation; for ``terminal`` after ``transform_terminal_output``.  It does not
    fire for a ``pre_tool_call`` block.

    Returns: the first ``str`` (the empty string counts) replaces the result; ``None``
    leaves it unchanged.  Every callback sees the original result.

    Sensitivity: the full result destined for the model, and the arguments.
    """


@hookspec(kind=Kind.TRANSFORM, selection=Selection.FIRST_STRING)
def transform_terminal_output(
    command: str,
    output: str,
    returncode: int,
    task_id: str,
    env_type: str,
    telemetry_schema_version: str,
) -> str | None:
    """Transform: a valid return value replaces content.

    Fires inside the ``terminal`` tool for a foreground command, after bounded capture
    and before the final output cap; background output never passes here.

    Returns: the first ``str`` (the empty string counts) replaces the captured output,
    still subject to the final cap; ``None`` leaves it unchanged.

    Payload: ``env_type`` is the terminal backend (``"local"``, ``"docker"``,
    ``"ssh"``, ... an open set).

    Sensitivity: command and output may contain credentials.
    """
