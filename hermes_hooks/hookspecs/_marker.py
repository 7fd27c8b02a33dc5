"""The ``hookspec`` decorator: declares one catalogue hook and its contract at once."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, TypeVar

import pluggy

from hermes_hooks._contract import Kind, Selection, ShellUse

__all__ = ["PROJECT_NAME", "TELEMETRY_FIELD", "TELEMETRY_VERSION", "SpecInfo", "hookspec"]

#: The pluggy project name shared by hookspecs and ``hermes_hooks.hookimpl``.
PROJECT_NAME = "hermes"
#: PL-14 / D-17: the legacy envelope marker every Python callback receives.
TELEMETRY_FIELD = "telemetry_schema_version"
TELEMETRY_VERSION = "hermes.observer.v1"

_pluggy_spec = pluggy.HookspecMarker(PROJECT_NAME)
_F = TypeVar("_F", bound=Callable[..., Any])


class SpecInfo:
    """What the decorator records on a hookspec function, read by the catalogue."""

    __slots__ = ("kind", "marker", "selection", "shell", "tool_scoped")

    def __init__(
        self, kind: Kind, selection: Selection, shell: ShellUse, tool_scoped: bool, marker: bool
    ) -> None:
        self.kind = kind
        self.selection = selection
        self.shell = shell
        self.tool_scoped = tool_scoped
        self.marker = marker


def hookspec(
    *,
    kind: Kind,
    selection: Selection = Selection.IGNORE,
    shell: ShellUse = ShellUse.OBSERVE,
    tool_scoped: bool = False,
    marker: bool = True,
) -> Callable[[_F], _F]:
    """Declare a catalogue hook.

    The function's parameters are the payload fields (with the spec's types as
    annotations) and, last, ``telemetry_schema_version`` — every hook but
    ``gateway_platform_event`` (``marker=False``) carries it (D-17), and pluggy checks
    hookimpl argument names against these parameters.  The docstring is the hook's
    documentation and must open with the kind's fixed sentence.
    """

    def decorate(func: _F) -> _F:
        has_marker = TELEMETRY_FIELD in inspect.signature(func).parameters
        if has_marker != marker:
            raise TypeError(
                f"hookspec {func.__name__}: telemetry_schema_version must "
                f"{'' if marker else 'not '}be a parameter (marker={marker})"
            )
        func.hermes_contract = SpecInfo(kind, selection, shell, tool_scoped, marker)  # type: ignore[attr-defined]
        return _pluggy_spec(func)

    return decorate
