"""Load one plugin under one system and write what it did as JSON.

Run as ``python worker.py (hermes|hooks) PLUGIN HOME OUT``, one process per plugin and
system, so neither system's global state leaks into the other's.  The parent set
``HERMES_HOME=HOME`` (with ``plugins.enabled: [PLUGIN]`` in its config.yaml).

The JSON has ``load`` (state and error), ``registrations`` (every kind, as comparable
values) and ``firings`` (each hook the plugin registered fired with the shared payloads:
the decision the host would act on, and the raw results).  Side effects on the home are
read by the parent after the process ends.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.reference import jail

jail.install()

from tests.reference.payloads import TOOL_CALLS, firings  # noqa: E402

logging.basicConfig(level=logging.ERROR)

#: Hooks whose answer is the first string result (the original when there is none).
FIRST_STRING = ("transform_tool_result", "transform_terminal_output", "transform_llm_output")
#: Hooks compared by the decision the host acts on; the others by their raw results.
DECISION_HOOKS = ("pre_tool_call", "pre_llm_call", *FIRST_STRING)


def plain(value: Any) -> Any:
    """A JSON value for comparison: containers recursed, anything else its type name
    (so two runs agree on objects whose repr carries an address)."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return f"<{type(value).__name__}>"


def hermes_decision(hook: str, results: list[Any]) -> Any:
    """What hermes-agent's call sites make of a hook's raw results."""
    if hook == "pre_tool_call":
        for result in results:
            if not isinstance(result, dict) or result.get("action") not in ("block", "approve"):
                continue
            message = result.get("message")
            message = message if isinstance(message, str) and message else None
            if result["action"] == "block" and not message:
                continue
            rule_key = result.get("rule_key") if result["action"] == "approve" else None
            rule_key = rule_key.strip() if isinstance(rule_key, str) and rule_key.strip() else None
            return {"action": result["action"], "message": message, "rule_key": rule_key}
        return {"action": "allow", "message": None, "rule_key": None}
    if hook in FIRST_STRING:
        return next((r for r in results if isinstance(r, str)), None)
    if hook == "pre_llm_call":
        pieces = []
        for r in results:
            if isinstance(r, dict) and r.get("context"):
                pieces.append(str(r["context"]))
            elif isinstance(r, str) and r.strip():
                pieces.append(r)
        return "\n\n".join(pieces) or None
    return None


LLM_REQUEST = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


def middleware_effects(
    apply_tool: Any, run_tool: Any, apply_llm: Any, run_llm: Any
) -> dict[str, Any]:
    """Every tool call through the request and execution middleware, and one model
    request through the LLM ones: effective payloads, traces, results."""

    def outcome(call: Any) -> Any:
        try:
            return plain(call())
        except Exception as exc:
            return f"raised {type(exc).__name__}: {exc}"

    out: dict[str, Any] = {}
    for call_id, tool, args in TOOL_CALLS:
        request = apply_tool(tool, dict(args))
        out[f"tool_request#{call_id}"] = plain(
            {"payload": request.payload, "changed": request.changed, "trace": request.trace}
        )
        out[f"tool_execution#{call_id}"] = outcome(
            lambda tool=tool, args=args: run_tool(
                tool, dict(args), lambda a, tool=tool: f"ran {tool} {json.dumps(a, sort_keys=True)}"
            )
        )
    request = apply_llm(json.loads(json.dumps(LLM_REQUEST)))
    out["llm_request"] = plain(
        {"payload": request.payload, "changed": request.changed, "trace": request.trace}
    )
    out["llm_execution"] = outcome(
        lambda: run_llm(json.loads(json.dumps(LLM_REQUEST)), lambda r: {"echo": r})
    )
    return out


def run_hermes(plugin: str) -> dict[str, Any]:
    """Load ``plugin`` with hermes-agent's own plugin manager and fire its hooks."""
    import importlib

    from hermes_cli import plugins as hermes_plugins

    registries = {
        "image_gen": "agent.image_gen_registry",
        "video_gen": "agent.video_gen_registry",
        "web_search": "agent.web_search_registry",
        "browser": "agent.browser_registry",
        "tts": "agent.tts_registry",
        "transcription": "agent.transcription_registry",
    }

    def providers() -> set[str]:
        found = set()
        for kind, module_name in registries.items():
            module = importlib.import_module(module_name)
            found |= {f"{kind}:{p.name}" for p in module.list_providers()}
        from agent.secret_sources import registry as secrets

        found |= {f"secret_source:{s.name}" for s in secrets.list_sources()}
        try:
            from hermes_cli import dashboard_auth

            found |= {f"dashboard_auth:{p.name}" for p in dashboard_auth.list_providers()}
        except Exception:
            pass
        return found

    before = providers()
    manager = hermes_plugins.get_plugin_manager()
    manager.discover_and_load()
    loaded = manager._plugins.get(plugin)
    if loaded is None:
        load = {"state": "missing", "error": None}
    else:
        load = {"state": "loaded" if loaded.enabled else "failed", "error": loaded.error}
    from tools.registry import registry as tool_registry

    engine = manager._context_engine
    found = sorted(providers() - before) + ([f"context_engine:{engine.name}"] if engine else [])
    tools = {}
    for name in sorted(manager._plugin_tool_names):
        entry = tool_registry._tools.get(name)
        tools[name] = {
            "toolset": entry.toolset,
            "description": entry.description,
            "emoji": entry.emoji,
            "is_async": entry.is_async,
        }
    registrations = {
        "hooks": {h: len(cbs) for h, cbs in sorted(manager._hooks.items()) if cbs},
        "middleware": {k: len(cbs) for k, cbs in sorted(manager._middleware.items()) if cbs},
        "tools": tools,
        "commands": {
            n: {"description": c["description"], "args_hint": c["args_hint"]}
            for n, c in sorted(manager._plugin_commands.items())
        },
        "cli_commands": {
            n: {"help": c["help"], "description": c["description"]}
            for n, c in sorted(manager._cli_commands.items())
        },
        "skills": {q: s["description"] for q, s in sorted(manager._plugin_skills.items())},
        "auxiliary_tasks": {k: plain(t) for k, t in sorted(manager._aux_tasks.items())},
        "platforms": sorted(manager._plugin_platform_names),
        "providers": found,
        "slack_action_handlers": [str(a) for a, _cb, _p in manager._slack_action_handlers],
    }
    fired: dict[str, Any] = {}
    for hook in registrations["hooks"]:
        if hook not in _catalogue():
            continue  # hermes-agent keeps it but no call site fires it
        for firing_id, payload in firings(hook):
            results = manager.invoke_hook(hook, **payload)
            decides = hook in DECISION_HOOKS
            fired[f"{hook}#{firing_id}"] = {
                "decision": plain(hermes_decision(hook, results)),
                "results": [] if decides else plain(results),
            }
    if registrations["middleware"]:
        from hermes_cli import middleware as mw

        fired["middleware"] = middleware_effects(
            mw.apply_tool_request_middleware,
            mw.run_tool_execution_middleware,
            mw.apply_llm_request_middleware,
            mw.run_llm_execution_middleware,
        )
    return {"load": load, "registrations": registrations, "firings": fired}


def _catalogue() -> frozenset[str]:
    from hermes_hooks.hookspecs import VALID_HOOKS

    return VALID_HOOKS


def hooks_decision(hook: str, hooks: Any, payload: dict[str, Any]) -> tuple[Any, list[Any]]:
    """Fire once through the typed facade; the decision, and the raw results."""
    if hook == "pre_tool_call":
        d = hooks.pre_tool_call(**payload)
        return {"action": d.action, "message": d.message, "rule_key": d.rule_key}, []
    if hook in DECISION_HOOKS:
        return getattr(hooks, hook)(**payload), []
    return None, hooks.invoke(hook, **payload)


def run_hooks(plugin: str) -> dict[str, Any]:
    """Load ``plugin`` with hermes-hooks and fire its hooks."""
    import hermes_hooks

    hooks = hermes_hooks.load(os.environ["HERMES_HOME"])
    records = {r.key: r for r in hooks.sources["python"].records()}
    record = records.get(plugin)
    if record is None:
        load = {"state": "missing", "error": None}
    else:
        state = "loaded" if record.state == "loaded" else "failed"
        load = {"state": state, "error": record.error}
    reg = hooks.registry
    owned = [c for name in sorted(_catalogue()) for c in hooks.manager.callbacks(name)]
    hook_counts: dict[str, int] = {}
    for callback in owned:
        if callback.owner == plugin:
            hook_counts[callback.hook] = hook_counts.get(callback.hook, 0) + 1
    for inert in reg.inert_hooks:
        hook_counts[inert.hook] = hook_counts.get(inert.hook, 0) + 1
    middleware: dict[str, int] = {}
    for m in reg.middleware:
        middleware[m.kind] = middleware.get(m.kind, 0) + 1
    registrations = {
        "hooks": dict(sorted(hook_counts.items())),
        "middleware": dict(sorted(middleware.items())),
        "tools": {
            t.name: {
                "toolset": t.toolset,
                "description": t.description,
                "emoji": t.emoji,
                "is_async": t.is_async,
            }
            for t in sorted(reg.tools.values(), key=lambda t: t.name)
        },
        "commands": {
            c.name: {"description": c.description, "args_hint": c.args_hint}
            for c in sorted(reg.commands.values(), key=lambda c: c.name)
        },
        "cli_commands": {
            c.name: {"help": c.help, "description": c.description}
            for c in sorted(reg.cli_commands.values(), key=lambda c: c.name)
        },
        "skills": {q: s.description for q, s in sorted(reg.skills.items())},
        "auxiliary_tasks": {
            k: plain(
                {
                    "key": t.key,
                    "display_name": t.display_name,
                    "description": t.description,
                    "defaults": dict(t.defaults),
                    "plugin": t.plugin,
                }
            )
            for k, t in sorted(reg.auxiliary_tasks.items())
        },
        "platforms": sorted(reg.platforms),
        "providers": sorted(
            f"{p.kind}:{p.name}" for p in reg.providers if p.kind != "context_engine"
        )
        + [f"context_engine:{p.name}" for p in reg.providers if p.kind == "context_engine"],
        "slack_action_handlers": [str(h.action_id) for h in reg.slack_action_handlers],
    }
    fired: dict[str, Any] = {}
    for hook in registrations["hooks"]:
        if hook not in _catalogue():
            continue
        for firing_id, payload in firings(hook):
            decision, results = hooks_decision(hook, hooks, payload)
            fired[f"{hook}#{firing_id}"] = {"decision": plain(decision), "results": plain(results)}
    if registrations["middleware"]:
        m = hooks.middleware
        fired["middleware"] = middleware_effects(
            m.apply_tool_request, m.run_tool_execution, m.apply_llm_request, m.run_llm_execution
        )
    hooks.close()
    return {"load": load, "registrations": registrations, "firings": fired}


def main() -> None:
    system, plugin, _home, out = sys.argv[1:5]
    report = run_hermes(plugin) if system == "hermes" else run_hooks(plugin)
    Path(out).write_text(json.dumps(report, indent=1, sort_keys=True), encoding="utf-8")


if __name__ == "__main__":
    main()
