"""Gateway-side plugin hooks: inbound dispatch, native platform events, slash commands."""

from __future__ import annotations

from typing import Any

from hermes_hooks._contract import Kind, Selection
from hermes_hooks.hookspecs._marker import hookspec


@hookspec(kind=Kind.DIRECTIVE, selection=Selection.DISPATCH_ACTION)
def pre_gateway_dispatch(
    event: Any,
    gateway: Any,
    session_store: Any,
    telemetry_schema_version: str,
) -> dict[str, Any] | None:
    """Directive: documented return shapes change the agent's flow.

    Fires once per inbound, non-internal ``MessageEvent``, before authentication and
    agent dispatch.

    Returns: ``{"action": "skip", "reason"?}`` drops the message;
    ``{"action": "rewrite", "text": str}`` replaces its text; ``{"action": "allow"}`` or
    ``None`` dispatches normally.  All callbacks run; the first recognised dict in
    callback order decides; a timeout or exception is no decision.  Shell hooks
    and webhooks only observe, receiving ``event`` as a plain dict.

    Sensitivity: extremely privileged in-process objects.
    """


@hookspec(kind=Kind.OBSERVER, marker=False)
def gateway_platform_event(platform: str, event_type: str, payload: dict[str, Any]) -> None:
    """Observer: the return value is ignored.

    Fires for supported native platform events after authorisation: ``reaction``,
    ``message_edited``, ``message_deleted``, ``thread_created``, ``thread_renamed``,
    each with its own payload dict.  Callbacks get plain dicts only; all ids are strings; unknown
    fields are ``None``.  It never carries ``telemetry_schema_version``.
    """


@hookspec(kind=Kind.OBSERVER)
def pre_command(
    surface: str,
    command: str,
    alias_used: str,
    args_raw: str,
    session_key: str,
    platform: str,
    telemetry_schema_version: str,
) -> None:
    """Observer: the return value is ignored.

    Fires before a recognised slash command's handler runs (not for ``/stop`` or an
    in-run ``/approve``).  ``alias_used`` is the command word as typed.
    Directive-shaped returns are logged at debug level.

    Sensitivity: ``args_raw`` may contain secrets typed after the command.
    """
