"""Streaming observers: off the token path, one queue per callback."""

from __future__ import annotations

from hermes_hooks._contract import Kind, OptIn, ShellUse
from hermes_hooks.hookspecs._marker import hookspec


@hookspec(kind=Kind.STREAM, streaming=True)
def on_stream_start(
    turn_id: str,
    iteration: int,
    session_id: str,
    model: str,
    provider: str,
    surface: str,
    telemetry_schema_version: str,
) -> None:
    """Stream observer: delivered through a bounded per-callback queue; the return value is ignored.

    Fires when a streaming LLM response begins.  Registering it makes provider calls
    use the streaming transport.

    Payload: the common stream fields only.
    """


@hookspec(
    kind=Kind.STREAM,
    shell=ShellUse.REFUSED,
    # The reasons are shown to users, so they are words only.
    shell_refusal="it fires once per streamed token and would spawn one process per token",
    webhook_refusal="one POST per streamed token would flood the target's queue",
    streaming=True,
    opt_in=OptIn(field="kind", value="reasoning", setting="stream_reasoning_deltas"),
)
def on_stream_delta(
    delta: str,
    kind: str,
    turn_id: str,
    iteration: int,
    session_id: str,
    model: str,
    provider: str,
    surface: str,
    telemetry_schema_version: str,
) -> None:
    """Stream observer: delivered through a bounded per-callback queue; the return value is ignored.

    Fires for every normalised streaming delta; ``kind`` is ``"text"`` or
    ``"reasoning"`` (reasoning only with ``plugins.stream_reasoning_deltas: true``).
    A stuck callback drops only its own oldest events.  Shell hooks are refused
    (one process per token).

    Sensitivity: ``delta`` is raw model output.
    """


@hookspec(kind=Kind.STREAM, streaming=True)
def on_stream_end(
    final_text: str,
    finished: bool,
    error: str | None,
    turn_id: str,
    iteration: int,
    session_id: str,
    model: str,
    provider: str,
    surface: str,
    telemetry_schema_version: str,
) -> None:
    """Stream observer: delivered through a bounded per-callback queue; the return value is ignored.

    Fires when a streaming response finishes or errors, after the stream closed;
    ``error`` is ``None`` on success, else the error text.
    """


@hookspec(kind=Kind.STREAM)
def on_interim_message(
    text: str,
    already_streamed: bool,
    turn_id: str,
    iteration: int,
    session_id: str,
    model: str,
    provider: str,
    surface: str,
    telemetry_schema_version: str,
) -> None:
    """Stream observer: delivered through a bounded per-callback queue; the return value is ignored.

    Fires when a mid-loop assistant message surfaces before the final response.
    Registering only this hook does not force the streaming transport.
    """
