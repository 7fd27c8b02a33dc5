"""hermes-hooks: the four hook systems of an AI agent behind one pluggy manager.

Public names (the stable surface other code relies on)::

    hermes_hooks.hookimpl       the pluggy marker for plugin authors
    hermes_hooks.load(...)      build the Hooks of a Hermes home
    hermes_hooks.Hooks          the typed facade
    hermes_hooks.HostCapabilities  what a host lends plugins (``load(host=...)``)
    hermes_hooks.VALID_HOOKS    the 37 catalogue hook names
    hermes_hooks.GATEWAY_EVENTS gateway event -> the context keys its handlers get

Importing the package stays light: every public name above but ``__version__``, pluggy
with :data:`hookimpl` among them, loads when first used (the module ``__getattr__``
below), so neither the CLI's ``--help`` (whose parser lives in this package) nor a
receiver importing :mod:`hermes_hooks.webhooks` pays for the hook machinery.  The
redacting log filter is not lost by this: every module that logs gets its logger from
``_log.get_logger``, so the filter is on our loggers before any of our code can log.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from hermes_hooks._version import PROJECT_NAME, __version__

if TYPE_CHECKING:
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

#: Where each public name loaded on first use lives (``hookimpl`` is made from pluggy).
_HOMES = {
    **dict.fromkeys(
        (
            "DecisionRecord",
            "DispatchDecision",
            "ErrorClassification",
            "FailoverReason",
            "ToolDecision",
            "TranscriptionRequest",
            "VerifyDirective",
        ),
        "hermes_hooks.types",
    ),
    "VALID_HOOKS": "hermes_hooks.hookspecs",
    "load": "hermes_hooks._loader",
    "GATEWAY_EVENTS": "hermes_hooks.gateway.events",
    "Hooks": "hermes_hooks.hooks",
    "HostCapabilities": "hermes_hooks.plugins.context",
}


def __getattr__(name: str) -> Any:
    # Each of these pulls in modules a plain import does not need: load it on first
    # use, and keep it as a module attribute so later lookups are direct.
    if name == "hookimpl":
        # pluggy is the hook machinery: only plugins and load() need it.
        value: Any = importlib.import_module("pluggy").HookimplMarker(PROJECT_NAME)
    elif name in _HOMES:
        value = getattr(importlib.import_module(_HOMES[name]), name)
    else:
        raise AttributeError(f"module 'hermes_hooks' has no attribute {name!r}")
    globals()[name] = value
    return value
