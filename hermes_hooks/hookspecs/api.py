"""Provider API hooks: every attempt, its outcome, and error classification."""

from __future__ import annotations

from typing import Any

from hermes_hooks._contract import Kind, Selection, ShellUse
from hermes_hooks.hookspecs._marker import hookspec


@hookspec(kind=Kind.OBSERVER)
def pre_api_request(
    task_id: str,
    turn_id: str,
    api_request_id: str,
    session_id: str,
    user_message: str,
    conversation_history: list[dict[str, Any]],
    platform: str,
    model: str,
    provider: str,
    base_url: str,
    api_mode: str,
    api_call_count: int,
    retry_count: int,
    request_messages: list[dict[str, Any]],
    message_count: int,
    tool_count: int,
    approx_input_tokens: int,
    request_char_count: int,
    max_tokens: int | None,
    started_at: float,
    middleware_trace: list[Any],
    request: dict[str, Any],
    telemetry_schema_version: str,
) -> None:
    """Observer: the return value is ignored.

    Fires on every provider attempt, immediately before the request is sent.

    Sensitivity: high.  ``user_message``, ``conversation_history`` and
    ``request_messages`` are raw; ``request`` is sanitised (headers removed,
    secrets masked, inline media replaced by ``"<omitted N bytes>"``).
    """


@hookspec(kind=Kind.OBSERVER)
def post_api_request(
    task_id: str,
    turn_id: str,
    api_request_id: str,
    session_id: str,
    platform: str,
    model: str,
    provider: str,
    base_url: str,
    api_mode: str,
    api_call_count: int,
    api_duration: float,
    started_at: float,
    ended_at: float,
    finish_reason: str | None,
    message_count: int,
    response_model: str | None,
    response: dict[str, Any],
    usage: dict[str, Any] | None,
    assistant_message: dict[str, Any],
    assistant_content_chars: int,
    assistant_tool_call_count: int,
    telemetry_schema_version: str,
) -> None:
    """Observer: the return value is ignored.

    Fires after a provider response was normalised successfully.

    Sensitivity: ``response`` is sanitised; ``assistant_message`` is raw.
    """


@hookspec(kind=Kind.OBSERVER)
def api_request_error(
    task_id: str,
    turn_id: str,
    api_request_id: str,
    session_id: str,
    platform: str,
    model: str,
    provider: str,
    base_url: str,
    api_mode: str,
    api_call_count: int,
    api_duration: float,
    started_at: float,
    ended_at: float,
    status_code: int | None,
    retry_count: int,
    max_retries: int,
    retryable: bool,
    reason: str,
    error: str,
    request: dict[str, Any],
    telemetry_schema_version: str,
) -> None:
    """Observer: the return value is ignored.

    Fires on every failed provider attempt, with status and retry timing.

    Sensitivity: error text may contain provider or user data.
    """


@hookspec(
    kind=Kind.TRANSFORM,
    selection=Selection.ERROR_CLASSIFICATION,
    shell=ShellUse.REFUSED,
    # Shown to users, so the reason is words only.
    shell_refusal="it is Python-plugin-only: a shell hook cannot return a classification",
)
def transform_api_error_classification(
    provider: str,
    model: str,
    status_code: int | None,
    error_type: str | None,
    error_code: str | None,
    error_message: str | None,
    error_body: Any,
    error: Any,
    approx_tokens: int | None,
    context_length: int | None,
    num_messages: int | None,
    telemetry_schema_version: str,
) -> dict[str, Any] | None:
    """Transform: a valid return value replaces content.

    Fires once per failed API call, before the built-in classifier.  Python plugins
    only: shell registrations are refused at config read.

    Returns: ``None`` declines; a dict with ``reason`` (a ``FailoverReason`` value,
    case-insensitive) claims the error, with optional ``retryable``,
    ``should_compress``, ``should_rotate_credential``, ``should_fallback`` (booleans),
    ``message`` (cut to 500 characters) and ``error_context`` (dict).  All
    callbacks run; the first valid dict in callback order wins and the number of valid
    losers is logged as ``skipped N valid classification(s)``.

    Sensitivity: ``error_message`` and ``error_body`` may carry unredacted data.
    """
