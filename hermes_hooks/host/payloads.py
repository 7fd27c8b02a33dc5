"""Payload pieces the reference host computes: sanitised request/response envelopes, the
built-in error classifier, message shapes and the terminal output cap, and the typed
groups of fields several hooks share.

Kept apart from the loop so the loop reads as the firing sequence only.  The shared
groups are :class:`~typing.TypedDict` s: unpacked into a facade call (``**ids``), their
keys and value types are checked against that hook's signature by the type checker,
as fields spelt out one by one are.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypedDict

from hermes_hooks.host.recording import ApiError, AssistantLine

__all__ = [
    "GATEWAY_TEXT_LIMIT",
    "TERMINAL_OUTPUT_CAP",
    "ApiAttempt",
    "ApprovalRequest",
    "SessionRotation",
    "StreamTurn",
    "ToolIds",
    "ToolResult",
    "assistant_message",
    "builtin_classification",
    "cap_output",
    "sanitise",
    "sent_message",
    "terminal_result",
]

#: ``agent:start.message`` and ``agent:end.response`` are cut at 500 characters.
GATEWAY_TEXT_LIMIT = 500

#: The terminal tool's final output cap, applied after ``transform_terminal_output``.
TERMINAL_OUTPUT_CAP = 100_000

# Secret-shaped strings masked in the sanitised ``request``/``response`` envelopes
# .  Compiled once: the envelopes are built for every provider attempt.
_SECRETS = re.compile(
    r"sk-[A-Za-z0-9_-]{16,}"
    r"|gh[pousr]_[A-Za-z0-9]{20,}"
    r"|AKIA[0-9A-Z]{16}"
    r"|xox[abprs]-[A-Za-z0-9-]{10,}"
    r"|(?i:bearer)\s+[A-Za-z0-9._~+/=-]{16,}"
)
_MASK = "***"


class ApiAttempt(TypedDict):
    """The fields of one provider attempt that ``pre_api_request``,
    ``api_request_error`` and ``post_api_request`` share (payload order)."""

    task_id: str
    turn_id: str
    api_request_id: str
    session_id: str
    platform: str
    model: str
    provider: str
    base_url: str
    api_mode: str
    api_call_count: int


class StreamTurn(TypedDict):
    """The fields of the streaming observers and ``on_interim_message``."""

    turn_id: str
    iteration: int
    session_id: str
    model: str
    provider: str
    surface: str


class ToolIds(TypedDict):
    """The correlation ids of one tool call (also the tool request middleware's context)."""

    task_id: str
    session_id: str
    tool_call_id: str
    turn_id: str
    api_request_id: str


class ToolResult(TypedDict):
    """What ``post_tool_call`` and ``transform_tool_result`` both receive about a tool
    call that ran (payload order)."""

    tool_name: str
    args: dict[str, Any]
    result: str
    task_id: str
    session_id: str
    tool_call_id: str
    turn_id: str
    api_request_id: str
    duration_ms: int
    status: str
    error_type: str | None
    error_message: str | None


class SessionRotation(TypedDict, total=False):
    """The old and the new session id that a gateway reset adds to
    ``on_session_finalize`` and ``on_session_reset`` (absent on other surfaces)."""

    old_session_id: str
    new_session_id: str


class ApprovalRequest(TypedDict):
    """What ``pre_approval_request`` and ``post_approval_response`` share."""

    command: str
    description: str
    pattern_key: str
    pattern_keys: list[str]
    session_key: str
    surface: str
    turn_id: str
    tool_call_id: str


def sanitise(value: Any) -> Any:
    """A JSON-safe copy of ``value`` with secret-shaped strings masked."""
    if isinstance(value, str):
        return _SECRETS.sub(_MASK, value)
    if isinstance(value, dict):
        return {str(k): sanitise(v) for k, v in value.items() if str(k).lower() != "headers"}
    if isinstance(value, (list, tuple)):
        return [sanitise(v) for v in value]
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return _SECRETS.sub(_MASK, str(value))


def sent_message(message: dict[str, Any]) -> dict[str, Any]:
    """One message as the provider receives it: ``api_content`` (the user text plus
    injected context) replaces the clean ``content`` of the stored message."""
    sent = {k: v for k, v in message.items() if k != "api_content"}
    if "api_content" in message:
        sent["content"] = message["api_content"]
    return sent


def assistant_message(line: AssistantLine) -> dict[str, Any]:
    """The normalised assistant message (OpenAI shape) of a recorded response."""
    message: dict[str, Any] = {"role": "assistant", "content": line.text or None}
    if line.tool_calls:
        message["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {
                    "name": call.name,
                    "arguments": json.dumps(call.arguments, ensure_ascii=False),
                },
            }
            for call in line.tool_calls
        ]
    return message


# status -> (FailoverReason, retryable): the built-in classifier the hook runs before.
_BY_STATUS: dict[int, tuple[str, bool]] = {
    400: ("format_error", False),
    401: ("auth", False),
    402: ("billing", False),
    403: ("auth_permanent", False),
    404: ("model_not_found", False),
    408: ("timeout", True),
    413: ("payload_too_large", False),
    429: ("rate_limit", True),
    503: ("overloaded", True),
    529: ("overloaded", True),
}


def builtin_classification(error: ApiError) -> tuple[str, bool]:
    """The built-in ``(reason, retryable)`` of a failed attempt; the recording's own
    ``retryable`` wins when given."""
    status = error.status_code
    if status in _BY_STATUS:
        reason, retryable = _BY_STATUS[status]
    elif status is not None and 500 <= status < 600:
        reason, retryable = "server_error", True
    elif (error.type or "").lower() in ("timeout", "timeout_error"):
        reason, retryable = "timeout", True
    else:
        reason, retryable = "unknown", False
    return reason, error.retryable if error.retryable is not None else retryable


def cap_output(output: str) -> str:
    """Apply the terminal tool's final output cap."""
    if len(output) <= TERMINAL_OUTPUT_CAP:
        return output
    omitted = len(output) - TERMINAL_OUTPUT_CAP
    return output[:TERMINAL_OUTPUT_CAP] + f"\n[output truncated: {omitted} characters omitted]"


def terminal_result(output: str, returncode: int) -> str:
    """The ``terminal`` tool's result string."""
    return json.dumps({"output": output, "returncode": returncode}, ensure_ascii=False)
