"""Which OpenTelemetry is there: whether the API is installed, whether a home turns
telemetry off, and whether the application has configured a real tracer or meter
provider (until it has, firings are not traced at all)."""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pathlib import Path

    from hermes_hooks._dispatch import Dispatcher
    from hermes_hooks._manager import HookManager
    from hermes_hooks.report import Finding

__all__ = [
    "PROVIDERS",
    "Instrumented",
    "api_available",
    "api_installed",
    "check_telemetry",
    "explicit_provider",
    "global_provider_set",
    "otel_setting",
    "set_providers",
]


class Instrumented(Protocol):
    """What telemetry reads of the hooks it instruments: the facade hands itself over,
    so telemetry never imports it."""

    @property
    def home(self) -> Path:
        """The Hermes home of the load."""

    @property
    def config(self) -> Mapping[str, Any]:
        """The parsed ``config.yaml``."""

    @property
    def manager(self) -> HookManager:
        """The load's manager."""

    @property
    def dispatcher(self) -> Dispatcher:
        """The load's dispatcher."""

    @property
    def sources(self) -> Mapping[str, Any]:
        """The load's hook-system sources, by name."""


_api: bool | None = None  # is the API importable? (asked once)
#: The providers :func:`set_providers` gave (None: the global ones).
PROVIDERS: dict[str, Any] = {"tracer": None, "meter": None}


def api_available() -> bool:
    """Whether the OpenTelemetry API (``hermes-hooks[otel]``) can be imported."""
    global _api
    if _api is None:
        try:
            import opentelemetry.trace  # noqa: F401
        except ImportError:
            _api = False
        else:
            _api = True
    return _api


def api_installed() -> bool:
    """Whether the API is installed, found without importing it (importing it costs a
    load more than the rest of an empty home): :class:`Telemetry` imports it on first
    use, and treats an API that is found but cannot be imported as absent."""
    if _api is not None:
        return _api
    try:
        return importlib.util.find_spec("opentelemetry.trace") is not None
    except (ImportError, ValueError):  # no parent package, or a broken module entry
        return False


def otel_setting(config: Mapping[str, Any], source: str = "config.yaml") -> tuple[bool, str | None]:
    """``telemetry.otel`` of a parsed config: (enabled, problem).

    Absent means enabled (spans go wherever the application's provider sends them;
    without the SDK that is nowhere).  Anything but ``true`` or ``false`` is a
    problem, logged at ERROR by :func:`instrument` and reported by ``doctor``;
    telemetry then stays on, the documented default.  The problem names the key's
    ``config.yaml:line:col`` when the config was read from its file.
    """
    from hermes_hooks.config import position_of  # deferred: only a problem needs it

    section = config.get("telemetry")
    if section is None:
        return True, None
    if not isinstance(section, dict):
        where = position_of(config, ("telemetry",)) or source
        return True, (
            f"{where}: 'telemetry' must be a mapping, got {type(section).__name__}; "
            "OpenTelemetry stays on. Fix: write 'telemetry:' with 'otel: true' or "
            "'otel: false' under it."
        )
    value = section.get("otel", True)
    if isinstance(value, bool):
        return value, None
    where = position_of(config, ("telemetry", "otel")) or source
    return True, (
        f"{where}: telemetry.otel must be true or false, got {value!r} "
        f"({type(value).__name__}); OpenTelemetry stays on. Fix: write "
        "'otel: false' (no quotes) to turn it off, or 'otel: true'."
    )


def set_providers(tracer_provider: Any = None, meter_provider: Any = None) -> None:
    """Use these providers for every load from now on instead of the global ones.

    For applications that keep their providers out of the OpenTelemetry globals (and
    for ``replay --otlp-endpoint``); ``None`` returns to the global provider.
    """
    PROVIDERS["tracer"] = tracer_provider
    PROVIDERS["meter"] = meter_provider


#: Where the OpenTelemetry API keeps the global providers: (module, attribute, the
#: API's no-op class). The attribute is None until the application sets a provider;
#: a provider that is the API's no-op one records nothing either.
_GLOBAL_PROVIDERS = (
    ("opentelemetry.trace", "_TRACER_PROVIDER", "NoOpTracerProvider"),
    ("opentelemetry.metrics._internal", "_METER_PROVIDER", "NoOpMeterProvider"),
)
_TRACE_MODULE, _METRICS_MODULE = (row[0] for row in _GLOBAL_PROVIDERS)
_MODULES = sys.modules
#: Environment variables through which the API loads a provider on first use.
_PROVIDER_VARIABLES = ("OTEL_PYTHON_TRACER_PROVIDER", "OTEL_PYTHON_METER_PROVIDER")
_MISSING = object()


def _real_provider(provider: Any, module: Any, noop: str) -> bool:
    """Whether ``provider`` can record anything (it is set, and not the no-op one)."""
    if provider is None:
        return False
    noop_class = getattr(module, noop, None) if module is not None else None
    return not (isinstance(noop_class, type) and isinstance(provider, noop_class))


def global_provider_set() -> bool:
    """Whether the application has set a real global tracer or meter provider.

    Asked on every firing until the answer is yes, so it only reads module attributes:
    an API module that was never imported cannot hold a provider either. An API whose
    globals are not where this looks for them counts as set, so that a future API
    release costs the fast path, never the spans.
    """
    # Written out, not looped: this runs on every firing while no provider is set.
    trace = _MODULES.get(_TRACE_MODULE)
    if trace is not None:
        provider = getattr(trace, "_TRACER_PROVIDER", _MISSING)
        if provider is not None and (
            provider is _MISSING or _real_provider(provider, trace, "NoOpTracerProvider")
        ):
            return True
    metrics = _MODULES.get(_METRICS_MODULE)
    if metrics is not None:
        provider = getattr(metrics, "_METER_PROVIDER", _MISSING)
        if provider is not None and (
            provider is _MISSING or _real_provider(provider, metrics, "NoOpMeterProvider")
        ):
            return True
    return False


def explicit_provider(tracer_provider: Any, meter_provider: Any) -> bool:
    """Whether a load starts with a real provider: one given to :func:`set_providers`,
    or one the environment names (the API loads it on first use)."""
    if any(name in os.environ for name in _PROVIDER_VARIABLES):
        return True
    given = zip((tracer_provider, meter_provider), _GLOBAL_PROVIDERS, strict=True)
    return any(
        _real_provider(provider, sys.modules.get(module_name), noop)
        for provider, (module_name, _attribute, noop) in given
    )


def check_telemetry(hooks: Instrumented) -> list[Finding]:
    """``doctor``: an unusable ``telemetry.otel`` is an error; otherwise say whether
    spans are on, and whether the API is installed."""
    from hermes_hooks.report import Finding

    subject = "telemetry"
    enabled, problem = otel_setting(hooks.config, str(hooks.home / "config.yaml"))
    if problem:
        return [Finding("error", subject, problem)]
    if not enabled:
        return [Finding("info", subject, "OpenTelemetry off (telemetry.otel: false)")]
    if not api_available():
        return [
            Finding(
                "info",
                subject,
                "OpenTelemetry API not installed; install hermes-hooks[otel] for spans",
            )
        ]
    return [Finding("ok", subject, "OpenTelemetry spans and metrics on")]
