"""The ``hookspec`` decorator: declares one catalogue hook and its contract at once."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, TypeVar

import pluggy

from hermes_hooks._contract import DEFAULT_POLICY, POLICY, Kind, OptIn, Policy, Selection, ShellUse
from hermes_hooks._version import PROJECT_NAME

__all__ = ["PROJECT_NAME", "TELEMETRY_FIELD", "TELEMETRY_VERSION", "SpecInfo", "hookspec"]

#: The legacy envelope marker every Python callback receives.
TELEMETRY_FIELD = "telemetry_schema_version"
TELEMETRY_VERSION = "hermes.observer.v1"

_pluggy_spec = pluggy.HookspecMarker(PROJECT_NAME)
_F = TypeVar("_F", bound=Callable[..., Any])


class SpecInfo:
    """What the decorator records on a hookspec function, read by the catalogue.

    Every per-hook fact lives here (and, for how callbacks run, in the one policy
    table of ``_contract`` that the decorator reads): the adapters, the dispatcher,
    the facade, the docs and the CLI read them through the hook's
    :class:`~hermes_hooks._contract.Contract`, never from lists of their own.
    """

    __slots__ = (
        "kind",
        "marker",
        "opt_in",
        "policy",
        "selection",
        "shell",
        "shell_refusal",
        "streaming",
        "tool_scoped",
        "webhook_refusal",
    )

    def __init__(
        self,
        kind: Kind,
        selection: Selection,
        shell: ShellUse,
        tool_scoped: bool,
        marker: bool,
        *,
        policy: Policy = DEFAULT_POLICY,
        shell_refusal: str | None = None,
        webhook_refusal: str | None = None,
        streaming: bool = False,
        opt_in: OptIn | None = None,
    ) -> None:
        self.kind = kind
        self.selection = selection
        self.shell = shell
        self.tool_scoped = tool_scoped
        self.marker = marker
        self.policy = policy
        self.shell_refusal = shell_refusal
        self.webhook_refusal = webhook_refusal
        self.streaming = streaming
        self.opt_in = opt_in


def hookspec(
    *,
    kind: Kind,
    selection: Selection = Selection.IGNORE,
    shell: ShellUse = ShellUse.OBSERVE,
    shell_refusal: str | None = None,
    tool_scoped: bool = False,
    webhook_refusal: str | None = None,
    streaming: bool = False,
    opt_in: OptIn | None = None,
    marker: bool = True,
) -> Callable[[_F], _F]:
    """Declare a catalogue hook.

    The function's parameters are the payload fields (with the spec's types as
    annotations) and, last, ``telemetry_schema_version`` — every hook but
    ``gateway_platform_event`` (``marker=False``) carries it, and pluggy checks
    hookimpl argument names against these parameters.  The docstring is the hook's
    documentation and must open with the kind's fixed sentence.

    ``shell`` says what shell hooks may do on it; when it is ``REFUSED``,
    ``shell_refusal`` says why in words (shown in the warning and the docs).
    ``tool_scoped`` means a ``matcher`` on the tool name applies.  ``webhook_refusal``
    says why outbound webhooks may not subscribe (None: they may).  ``streaming``
    means a registered callback switches provider calls to streaming.  ``opt_in``
    names firings dropped unless a setting asks for them.  How callbacks run
    (bounded, on which thread, fail open or closed) is the hook's row in
    :data:`hermes_hooks._contract.POLICY`.
    """

    def decorate(func: _F) -> _F:
        name = func.__name__
        signature = inspect.signature(func)
        # Kept on the function, so the catalogue built from it at import time reads it
        # back rather than inspecting all 37 hookspecs a second time.
        func.__signature__ = signature  # type: ignore[attr-defined]
        has_marker = TELEMETRY_FIELD in signature.parameters
        if has_marker != marker:
            raise TypeError(
                f"hookspec {name}: telemetry_schema_version must "
                f"{'' if marker else 'not '}be a parameter (marker={marker})"
            )
        if (shell is ShellUse.REFUSED) != bool(shell_refusal):
            raise TypeError(
                f"hookspec {name}: give shell_refusal (the reason in words) exactly when "
                "shell=ShellUse.REFUSED"
            )
        func.hermes_contract = SpecInfo(  # type: ignore[attr-defined]
            kind,
            selection,
            shell,
            tool_scoped,
            marker,
            policy=POLICY.get(name, DEFAULT_POLICY),
            shell_refusal=shell_refusal,
            webhook_refusal=webhook_refusal,
            streaming=streaming,
            opt_in=opt_in,
        )
        return _pluggy_spec(func)

    return decorate
