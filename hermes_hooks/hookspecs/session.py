"""Session lifecycle hooks: start, end of turn, finalize, reset."""

from __future__ import annotations

from hermes_hooks._contract import Kind
from hermes_hooks.hookspecs._marker import hookspec


@hookspec(kind=Kind.OBSERVER)
def on_session_start(
    session_id: str,
    model: str,
    platform: str,
    telemetry_schema_version: str,
) -> None:
    """Observer: the return value is ignored.

    Fires once when a brand-new session runs its first turn, before ``pre_llm_call``;
    after a reset, for the new id on its first turn.
    """


@hookspec(kind=Kind.OBSERVER)
def on_session_end(
    session_id: str,
    task_id: str,
    turn_id: str,
    completed: bool,
    failed: bool,
    interrupted: bool,
    turn_exit_reason: str,
    model: str,
    platform: str,
    reason: str | None,
    api_request_id: str | None,
    telemetry_schema_version: str,
) -> None:
    """Observer: the return value is ignored.

    Despite its name it fires at the end of every turn, whatever the outcome;
    session-level work belongs in ``on_session_finalize``.  ``turn_exit_reason`` is an
    open string whose documented forms are ``text_response(finish_reason=<r>)``,
    ``interrupted_by_user``, ``interrupted_by_system(<issuer>)``,
    ``interrupted_during_api_call(<issuer>)``, ``max_iterations_reached(<n>)``,
    ``empty_response_exhausted`` and ``approval_refused``.  Exit paths may
    omit fields; declare parameters with defaults or accept ``**kwargs``.
    """


@hookspec(kind=Kind.OBSERVER)
def on_session_finalize(
    session_id: str | None,
    platform: str,
    reason: str,
    old_session_id: str | None,
    new_session_id: str | None,
    telemetry_schema_version: str,
) -> None:
    """Observer: the return value is ignored.

    Fires when a surface tears down an active session: ``/new``, idle expiry,
    shutdown.  ``reason`` is ``"new_session"``, ``"shutdown"`` or ``"idle_expiry"``
    (consumers accept others).  ``old_session_id``/``new_session_id`` only on
    gateway resets.
    """


@hookspec(kind=Kind.OBSERVER)
def on_session_reset(
    session_id: str,
    platform: str,
    reason: str,
    old_session_id: str | None,
    new_session_id: str | None,
    telemetry_schema_version: str,
) -> None:
    """Observer: the return value is ignored.

    Fires at a session boundary after the replacement exists; ``session_id`` is the
    new id.  Order on every surface: ``on_session_finalize(old)`` then
    ``on_session_reset(new)`` then ``on_session_start(new)`` on the next turn.
    """
