"""hermes-hooks: the four hook systems of an AI agent behind one pluggy manager.

Public names (see ``design.md``)::

    hermes_hooks.hookimpl       the pluggy marker for plugin authors
    hermes_hooks.load(...)      build the Hooks of a Hermes home
    hermes_hooks.Hooks          the typed facade
    hermes_hooks.HostCapabilities  what a host lends plugins (``load(host=...)``)
    hermes_hooks.VALID_HOOKS    the 37 catalogue hook names
    hermes_hooks.GATEWAY_EVENTS gateway event -> context keys (Table GW-T1)

Importing the package stays light: it imports neither ``typing`` nor ``logging``, and
every public name above, pluggy with :data:`hookimpl` among them, loads when first used,
so the CLI's ``--help`` (whose parser lives in this package) never pays for them.  The
redacting log filter is not lost by this: every module that logs gets its logger from
``_log.get_logger``, so the filter is on our loggers before any of our code can log.
"""

from __future__ import annotations

from hermes_hooks._version import PROJECT_NAME, __version__

# typing.TYPE_CHECKING without importing typing (a third of what ``import hermes_hooks``
# cost); type checkers treat any name TYPE_CHECKING as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    import pluggy

    from hermes_hooks._loader import load
    from hermes_hooks.gateway.events import GATEWAY_EVENTS
    from hermes_hooks.hooks import Hooks
    from hermes_hooks.hookspecs import VALID_HOOKS
    from hermes_hooks.plugins.context import HostCapabilities
    from hermes_hooks.types import (
        DecisionRecord,
        DispatchDecision,
        ErrorClassification,
        FailoverReason,
        ToolDecision,
        TranscriptionRequest,
        VerifyDirective,
    )

__all__ = [
    "GATEWAY_EVENTS",
    "VALID_HOOKS",
    "DecisionRecord",
    "DispatchDecision",
    "ErrorClassification",
    "FailoverReason",
    "Hooks",
    "HostCapabilities",
    "ToolDecision",
    "TranscriptionRequest",
    "VerifyDirective",
    "__version__",
    "hookimpl",
    "load",
]

if TYPE_CHECKING:
    #: Marks a function as an implementation of the catalogue hook of the same name.
    hookimpl: pluggy.HookimplMarker

#: Public names loaded on first use (a plain ``import hermes_hooks`` stays light).
_TYPES = frozenset(
    {
        "DecisionRecord",
        "DispatchDecision",
        "ErrorClassification",
        "FailoverReason",
        "ToolDecision",
        "TranscriptionRequest",
        "VerifyDirective",
    }
)


def __getattr__(name: str) -> Any:
    # Each public name below pulls in modules a plain import does not need: load it on
    # first use, and keep it as a module attribute so later lookups are direct.
    value = _lazy(name)
    globals()[name] = value
    return value


def _lazy(name: str) -> Any:
    if name == "hookimpl":
        import pluggy

        return pluggy.HookimplMarker(PROJECT_NAME)
    if name in _TYPES:
        from hermes_hooks import types

        return getattr(types, name)
    if name == "VALID_HOOKS":
        from hermes_hooks.hookspecs import VALID_HOOKS

        return VALID_HOOKS
    if name == "load":
        from hermes_hooks._loader import load

        return load
    if name == "GATEWAY_EVENTS":
        from hermes_hooks.gateway.events import GATEWAY_EVENTS

        return GATEWAY_EVENTS
    if name == "Hooks":
        from hermes_hooks.hooks import Hooks

        return Hooks
    if name == "HostCapabilities":
        from hermes_hooks.plugins.context import HostCapabilities

        return HostCapabilities
    raise AttributeError(f"module 'hermes_hooks' has no attribute {name!r}")
