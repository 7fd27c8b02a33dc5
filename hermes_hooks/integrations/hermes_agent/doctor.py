"""``doctor``'s findings about the Hermes Agent bridge: hooks that would fire twice, or
not at all, once hermes-agent runs this home.

Read from the loaded home and the installed distributions only; hermes-agent itself is
never imported (its bundled plugins are found on disk, next to its package).
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_hooks._capabilities import HostCapabilities
from hermes_hooks.integrations.hermes_agent.names import ENTRY_POINT_NAME
from hermes_hooks.report import Finding

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks

__all__ = ["AGENT_SHELL_EVENTS", "check_bridge", "doctor_host"]

SUBJECT = "hermes-agent bridge"

#: The ``hooks:`` events hermes-agent 0.19.0 runs shell hooks for itself.
AGENT_SHELL_EVENTS = frozenset(
    {
        "api_request_error",
        "kanban_task_blocked",
        "kanban_task_claimed",
        "kanban_task_completed",
        "on_session_end",
        "on_session_finalize",
        "on_session_reset",
        "on_session_start",
        "post_api_request",
        "post_approval_response",
        "post_llm_call",
        "post_tool_call",
        "pre_api_request",
        "pre_approval_request",
        "pre_gateway_dispatch",
        "pre_llm_call",
        "pre_tool_call",
        "pre_verify",
        "subagent_start",
        "subagent_stop",
        "transform_llm_output",
        "transform_terminal_output",
        "transform_tool_result",
    }
)

#: Events whose entries are gates: one that does not run lets tool calls through.
_GATES = frozenset({"pre_tool_call", "PreToolUse"})


class _AgentsModel:
    """Stands in for the running agent's model while ``doctor`` looks at a bridged
    home: under the bridge the agent answers ``type: prompt`` hooks, so they are not
    refused for want of a model; asked anything here, it says who would answer."""

    def complete(
        self,
        prompt: str,
        *,
        model: str | None = None,
        timeout: float | None = None,
        agent: bool = False,
    ) -> str:
        """Refuse: only the running agent's model answers under the bridge."""
        raise RuntimeError("answered by hermes-agent's model when the agent runs this home")


def doctor_host(home: Path) -> HostCapabilities | None:
    """What ``doctor`` lends a home whose ``config.yaml`` enables the bridge (the
    agent's model, as a stand-in), else None."""
    from hermes_hooks.config import inspect_config

    plugins = inspect_config(home).data.get("plugins")
    if not isinstance(plugins, Mapping):
        return None
    enabled, disabled = plugins.get("enabled"), plugins.get("disabled")
    if not isinstance(enabled, list) or ENTRY_POINT_NAME not in enabled:
        return None
    if isinstance(disabled, list) and ENTRY_POINT_NAME in disabled:
        return None
    return HostCapabilities(hook_model=_AgentsModel())


def check_bridge(hooks: Hooks) -> list[Finding]:
    """The bridge's findings for the home ``hooks`` was loaded from (none when
    hermes-agent is not installed and the bridge is not enabled)."""
    settings = hooks.settings
    config = hooks.home / "config.yaml"
    enabled = (
        settings.enabled is not None
        and ENTRY_POINT_NAME in settings.enabled
        and ENTRY_POINT_NAME not in settings.disabled
    )
    if not enabled:
        if importlib.util.find_spec("hermes_cli") is None:
            return []
        return _not_bridged(hooks, config)
    findings = [*_bundled(hooks, config), *_both_groups(hooks)]
    if not findings:
        findings.append(
            Finding(
                "ok",
                SUBJECT,
                "enabled: hermes-agent fires every hook of this home once, through hermes-hooks",
            )
        )
    gateway = _gateway_hooks(hooks.home / "hooks")
    if gateway:
        findings.append(
            Finding(
                "ok",
                SUBJECT,
                f"gateway hooks {', '.join(gateway)}: in hermes-agent's gateway they fire "
                "once, on hermes-hooks' lanes (the agent's own hook registry loads none of them)",
            )
        )
    return findings


def _gateway_hooks(directory: Path) -> list[str]:
    """Names of the gateway hooks under ``directory`` that load (nothing imported)."""
    from hermes_hooks.gateway.source import survey

    return [record.name for record, _ in survey(directory) if record.state == "pending"]


def _not_bridged(hooks: Hooks, config: Path) -> list[Finding]:
    """hermes-agent is installed but does not load the bridge: entries only
    hermes-hooks runs never fire inside the agent."""
    only = list(_hooks_only_entries(hooks.config.get("hooks")))
    if not only:
        return []
    gate = any(event in _GATES for event, _ in only)
    return [
        Finding(
            "error" if gate else "warn",
            SUBJECT,
            "hermes-agent is installed but does not load the bridge, so inside the agent "
            f"these never fire: {', '.join(label for _, label in only)}. Fix: add "
            f"{ENTRY_POINT_NAME} to plugins.enabled in {config}",
        )
    ]


def _hooks_only_entries(block: Any) -> Iterator[tuple[str, str]]:
    """(event, label) of the ``hooks:`` entries hermes-agent does not run as written."""
    if not isinstance(block, Mapping):
        return
    for event, entries in block.items():
        if event == "outbound":
            yield event, "hooks.outbound (webhooks)"
            continue
        if not isinstance(entries, list):
            continue
        for index, entry in enumerate(entries):
            label = f"hooks.{event}[{index}]"
            if event not in AGENT_SHELL_EVENTS:
                yield event, label
            elif isinstance(entry, Mapping):
                if entry.get("persistent") is True or entry.get("dialect") == "claude-code":
                    yield event, label
                elif entry.get("fail_closed") is True or entry.get("failClosed") is True:
                    yield event, f"{label} (fails open in hermes-agent)"


def _bundled(hooks: Hooks, config: Path) -> Iterator[Finding]:
    """Names in ``plugins.enabled`` that only match a plugin bundled with hermes-agent:
    the agent loads it, hermes-hooks does not, and under the bridge its hooks never fire."""
    root = _bundled_root()
    if root is None:
        return
    bundled = {key for key, _ in _plugin_dirs(root)}
    bundled |= {name for _, name in _plugin_dirs(root)}
    python = hooks.sources.get("python")
    found = {n for r in getattr(python, "plugins", []) for n in (r.key, r.name) if n}
    for name in hooks.settings.enabled or []:
        if name in bundled and name not in found and name != ENTRY_POINT_NAME:
            yield Finding(
                "error",
                SUBJECT,
                f"{config}: plugins.enabled lists '{name}', a plugin bundled with "
                "hermes-agent; hermes-hooks does not load bundled plugins, so under the "
                "bridge its hooks never fire. Fix: copy its folder into "
                f"{hooks.home / 'plugins'} (both then load that copy), or remove it from "
                "plugins.enabled",
            )


def _bundled_root() -> Path | None:
    """hermes-agent's bundled ``plugins/`` folder, as the agent finds it."""
    override = os.environ.get("HERMES_BUNDLED_PLUGINS")
    if override:
        return Path(override)
    spec = importlib.util.find_spec("hermes_cli")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).resolve().parent.parent / "plugins"


def _plugin_dirs(root: Path) -> Iterator[tuple[str, str]]:
    """(key, folder name) of each plugin folder under ``root``, one category deep."""
    if not root.is_dir():
        return
    for child in sorted(root.iterdir()):
        if (child / "plugin.yaml").is_file() or (child / "plugin.yml").is_file():
            yield child.name, child.name
        elif child.is_dir():
            for inner in sorted(child.iterdir()):
                if (inner / "plugin.yaml").is_file() or (inner / "plugin.yml").is_file():
                    yield f"{child.name}/{inner.name}", inner.name


def _both_groups(hooks: Hooks) -> Iterator[Finding]:
    """A distribution whose hooks hermes-hooks loads twice: once from its pluggy
    entry point and once from its hermes-agent entry point, for the same hook."""
    python = hooks.sources.get("python")
    by_dist: dict[str, list[Any]] = {}
    for record in getattr(python, "plugins", []):
        if record.distribution and record.state == "loaded":
            by_dist.setdefault(record.distribution, []).append(record)
    for dist, records in sorted(by_dist.items()):
        groups = {r.source for r in records}
        if len(groups) < 2:
            continue
        seen: dict[str, str] = {}
        for record in records:
            for hook in record.hooks:
                if hook in seen and seen[hook] != record.key:
                    yield Finding(
                        "warn",
                        SUBJECT,
                        f"'{dist}' registers {hook} under two entry points ('{seen[hook]}' "
                        f"and '{record.key}'), so each {hook} fires it twice. Fix: disable "
                        "one of them in plugins.disabled",
                    )
                seen.setdefault(hook, record.key)
