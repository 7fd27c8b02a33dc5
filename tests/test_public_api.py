"""The public surface: each public module's ``__all__`` is pinned, every name in any
``__all__`` exists, and every exception the package defines sits in the documented
tree (or is one of the documented exceptions outside it)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import hermes_hooks
from hermes_hooks import errors
from tests.helpers import importable

PUBLIC_ALL: dict[str, list[str]] = {
    "hermes_hooks": [
        "DecisionRecord",
        "DispatchDecision",
        "ErrorClassification",
        "FailoverReason",
        "GATEWAY_EVENTS",
        "Hooks",
        "HostCapabilities",
        "ToolDecision",
        "TranscriptionRequest",
        "VALID_HOOKS",
        "VerifyDirective",
        "__version__",
        "hookimpl",
        "load",
    ],
    "hermes_hooks.sources": ["ADAPTERS", "Source", "Unloaded", "every_source"],
    "hermes_hooks.boot": [
        "Agent",
        "AgentFactory",
        "boot_file",
        "get_agent_factory",
        "set_agent_factory",
    ],
    "hermes_hooks.config": [
        "ConfigData",
        "ConfigFile",
        "DEFAULT_CALLBACK_TIMEOUT",
        "MAX_CALLBACK_TIMEOUT",
        "Settings",
        "check_config",
        "env_flag",
        "inspect_config",
        "parse_callback_timeout",
        "position_of",
        "read_config",
        "resolve_home",
        "safe_mode",
    ],
    "hermes_hooks.envelope": [
        "DEFAULT_PROFILE",
        "TOOL_EVENTS",
        "build_envelope",
        "dumps",
        "jsonable",
    ],
    "hermes_hooks.errors": [
        "BootConfigError",
        "ConfigEditError",
        "ConfigError",
        "HermesHooksError",
        "PluginLoadError",
        "PluginToolOverrideError",
        "RecordingError",
        "UnknownHookError",
        "VerificationError",
    ],
    "hermes_hooks.gateway": ["GATEWAY_EVENTS"],
    "hermes_hooks.hooks": ["Hooks"],
    "hermes_hooks.hookspecs": [
        "CATALOGUE",
        "PROJECT_NAME",
        "SPEC_MODULES",
        "STREAMING_HOOKS",
        "TELEMETRY_FIELD",
        "TELEMETRY_VERSION",
        "VALID_HOOKS",
        "hookspec",
    ],
    "hermes_hooks.host": [
        "APPROVAL_POLICIES",
        "DEFAULT_MAX_VERIFY_NUDGES",
        "LINE_TYPES",
        "RECORDING_VERSION",
        "RecordedToolRunner",
        "Recording",
        "RecordingWriter",
        "ReferenceHost",
        "SubagentRun",
        "Summary",
        "Timeline",
        "ToolOutcome",
        "ToolRunner",
        "delivery_stats",
        "iter_recording",
        "load_recording",
        "open_recording",
        "parse_recording",
        "render_text",
        "replay",
        "scan_recording",
        "summary_lines",
    ],
    "hermes_hooks.plugins.prompt_sections": [
        "MAX_SECTIONS",
        "MAX_SECTION_CHARS",
        "MAX_TOTAL_CHARS",
        "PromptSections",
        "Section",
        "recover",
    ],
    "hermes_hooks.report": ["EntryErrors", "Finding", "Level", "Section"],
    "hermes_hooks.schemas": [
        "FILE_SCHEMAS",
        "all_schemas",
        "annotation_schema",
        "event_schema",
        "write_all",
    ],
    "hermes_hooks.synthetic": ["DEFAULT_TOOL", "TOOL_ARGS", "synthetic_payload"],
    "hermes_hooks.testing": ["fire", "fire_hook", "hermes_home", "hermes_hooks", "hermes_plugin"],
    "hermes_hooks.types": [
        "DecisionRecord",
        "DispatchDecision",
        "ErrorClassification",
        "FAILOVER_REASONS",
        "FailoverReason",
        "ToolDecision",
        "TranscriptionRequest",
        "VerifyDirective",
    ],
    "hermes_hooks.webhooks": [
        "DEFAULT_TOLERANCE",
        "Deduplicator",
        "GITHUB_HEADER",
        "STANDARD_PREFIX",
        "VerificationError",
        "Verified",
        "github_signature",
        "standard_key",
        "standard_signature",
        "standard_signatures",
        "verify",
    ],
}

#: Exceptions deliberately outside HermesHooksError, as ``errors.py`` explains.
OUTSIDE_THE_TREE = {
    "hermes_hooks._workers.TimedOut",
    "hermes_hooks._workers.Suppressed",
    "hermes_hooks._workers.Hung",
    "hermes_hooks._workers.Busy",
    "hermes_hooks.gateway.lanes.Overran",
    "hermes_hooks.integrations.mcp.inflight.Cancelled",
}


def _all_modules() -> list[str]:
    # __main__ runs the command line on import, so it is left out.
    return ["hermes_hooks"] + [
        m.name
        for m in pkgutil.walk_packages(hermes_hooks.__path__, "hermes_hooks.")
        if not m.name.endswith("__main__")
        if importable(m.name)
    ]


@pytest.mark.parametrize("module", sorted(PUBLIC_ALL))
def test_public_all_is_pinned(module: str) -> None:
    assert sorted(importlib.import_module(module).__all__) == PUBLIC_ALL[module]


def test_every_name_in_every_all_exists() -> None:
    missing = [
        f"{name}.{attribute}"
        for name in _all_modules()
        for attribute in getattr(importlib.import_module(name), "__all__", ())
        if not hasattr(importlib.import_module(name), attribute)
    ]
    assert missing == []


def test_every_exception_is_in_the_tree_or_documented_outside() -> None:
    stray = []
    for name in _all_modules():
        module = importlib.import_module(name)
        for attribute, value in vars(module).items():
            if not (inspect.isclass(value) and issubclass(value, BaseException)):
                continue
            if value.__module__ != name or attribute.startswith("_"):
                continue
            qualified = f"{name}.{attribute}"
            if not issubclass(value, errors.HermesHooksError) and qualified not in OUTSIDE_THE_TREE:
                stray.append(qualified)
    assert stray == []


def test_the_tree_keeps_the_builtins_callers_caught_before() -> None:
    assert issubclass(errors.VerificationError, ValueError)
    assert issubclass(errors.ConfigEditError, ValueError)
    assert issubclass(errors.ConfigEditError, errors.ConfigError)
    assert issubclass(errors.BootConfigError, RuntimeError)
    assert issubclass(errors.BootConfigError, errors.ConfigError)
    assert issubclass(errors.UnknownHookError, KeyError)
    from hermes_hooks.cli.config_edit import ConfigEditError
    from hermes_hooks.webhooks import VerificationError

    assert (ConfigEditError, VerificationError) == (
        errors.ConfigEditError,
        errors.VerificationError,
    )


def test_plugin_load_error_names_the_plugin_the_hook_and_the_signature() -> None:
    from hermes_hooks._manager import HookManager

    def gate(tool_name, wrong_field):  # type: ignore[no-untyped-def]
        return None

    manager = HookManager()
    with pytest.raises(errors.PluginLoadError) as caught:
        manager.register_callback("pre_tool_call", gate, owner="my-plugin")
    assert (caught.value.plugin, caught.value.hook, caught.value.signature) == (
        "my-plugin",
        "pre_tool_call",
        "(tool_name, wrong_field)",
    )
    with pytest.raises(errors.PluginLoadError) as caught:
        manager.register_callback("pre_tool_cal", gate, owner="my-plugin")
    assert (caught.value.plugin, caught.value.hook) == ("my-plugin", "pre_tool_cal")
    assert str(caught.value).startswith("Plugin 'my-plugin' tried to register unknown hook")
