"""Typed answers the facade returns, and the records the dispatcher emits.

They are slotted dataclasses because one is built on every firing (a frozen dataclass
costs several times more to construct); treat them as read-only values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "FAILOVER_REASONS",
    "DecisionRecord",
    "DispatchDecision",
    "ErrorClassification",
    "FailoverReason",
    "ToolDecision",
    "TranscriptionRequest",
    "VerifyDirective",
]


class FailoverReason:
    """The error-classification reasons a ``transform_api_error_classification`` hook may
    return, as string constants."""

    AUTH = "auth"
    AUTH_PERMANENT = "auth_permanent"
    BILLING = "billing"
    RATE_LIMIT = "rate_limit"
    OVERLOADED = "overloaded"
    SERVER_ERROR = "server_error"
    TIMEOUT = "timeout"
    CONTEXT_OVERFLOW = "context_overflow"
    PAYLOAD_TOO_LARGE = "payload_too_large"
    IMAGE_TOO_LARGE = "image_too_large"
    MODEL_NOT_FOUND = "model_not_found"
    PROVIDER_POLICY_BLOCKED = "provider_policy_blocked"
    CONTENT_POLICY_BLOCKED = "content_policy_blocked"
    FORMAT_ERROR = "format_error"
    INVALID_ENCRYPTED_CONTENT = "invalid_encrypted_content"
    MULTIMODAL_TOOL_CONTENT_UNSUPPORTED = "multimodal_tool_content_unsupported"
    THINKING_SIGNATURE = "thinking_signature"
    LONG_CONTEXT_TIER = "long_context_tier"
    OAUTH_LONG_CONTEXT_BETA_FORBIDDEN = "oauth_long_context_beta_forbidden"
    LLAMA_CPP_GRAMMAR_PATTERN = "llama_cpp_grammar_pattern"
    UNKNOWN = "unknown"


#: Every ``FailoverReason`` value, in the catalogue's order.
FAILOVER_REASONS: tuple[str, ...] = tuple(
    value for key, value in vars(FailoverReason).items() if key.isupper()
)


@dataclass(slots=True)
class ToolDecision:
    """The aggregated answer of ``pre_tool_call``.

    ``action`` is ``"allow"`` (run the tool with ``args``), ``"block"`` (return
    ``message`` to the model as an error) or ``"approve"`` (ask the approval gate, keyed
    by ``rule_key``, reviewed by ``review``).  ``args`` are the final effective
    arguments: the original plus every accepted modify.
    """

    action: Literal["allow", "block", "approve"]
    args: dict[str, Any]
    message: str | None = None
    rule_key: str | None = None
    review: str | None = None
    modified: bool = False

    @property
    def blocked(self) -> bool:
        """True when the tool must not run."""
        return self.action == "block"


@dataclass(slots=True)
class TranscriptionRequest:
    """The STT request fields after ``pre_transcription``; ``None`` = default."""

    prompt: str | None
    language: str | None
    model: str | None


@dataclass(slots=True)
class VerifyDirective:
    """A ``pre_verify`` answer that keeps the turn going with ``message``."""

    message: str


@dataclass(slots=True)
class ErrorClassification:
    """A claimed API-error classification; ``None`` fields keep the built-in hint."""

    reason: str
    retryable: bool | None = None
    should_compress: bool | None = None
    should_rotate_credential: bool | None = None
    should_fallback: bool | None = None
    message: str | None = None
    error_context: dict[str, Any] | None = None


@dataclass(slots=True)
class DispatchDecision:
    """The deciding ``pre_gateway_dispatch`` answer.

    ``action`` is ``"skip"`` (drop the message), ``"rewrite"`` (dispatch ``text``
    instead) or ``"allow"`` (normal dispatch).
    """

    action: Literal["skip", "rewrite", "allow"]
    reason: str | None = None
    text: str | None = None


Verdict = Literal[
    "block", "approve", "modify", "context", "replaced", "none", "error", "timeout", "skipped"
]


@dataclass(slots=True)
class DecisionRecord:
    """One callback run, as the dispatcher reports it to subscribers.

    ``source`` is ``"python"``, ``"shell"``, ``"webhook"`` or ``"gateway"``; ``verdict``
    says what the run contributed; ``reason`` carries the message, context or error
    text (possibly shortened); ``duration`` is in seconds.
    """

    hook: str
    callback: str
    source: str
    verdict: Verdict
    reason: str | None = None
    duration: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)
