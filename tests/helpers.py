"""Helpers shared by the tests of this folder (imported, not fixtures)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

#: Modules that import an optional extra's package at the top: imported by the
#: meta-tests only where that package is installed (``tox -e sdks`` has the agent SDKs).
NEEDS_EXTRA = {
    "hermes_hooks.integrations.openai_agents": "agents",
    "hermes_hooks.integrations.langchain": "langchain",
    "hermes_hooks.integrations.claude_agent_sdk": "claude_agent_sdk",
    "hermes_hooks.integrations.mcp.proxy": "mcp_types",
    "hermes_hooks.integrations.mcp.stdio": "mcp_types",
    "hermes_hooks.integrations.mcp.listen": "mcp_types",
}


def importable(module: str) -> bool:
    """False for a module of :data:`NEEDS_EXTRA` whose extra is not installed here."""
    extra = NEEDS_EXTRA.get(module)
    return extra is None or importlib.util.find_spec(extra) is not None


def tool_payload(**overrides: Any) -> dict[str, Any]:
    """A complete pre_tool_call payload."""
    payload: dict[str, Any] = {
        "tool_name": "terminal",
        "args": {"command": "ls -la"},
        "task_id": "task-1",
        "session_id": "sess-1",
        "tool_call_id": "call-1",
        "turn_id": "turn-1",
        "api_request_id": "req-1",
        "middleware_trace": [],
    }
    payload.update(overrides)
    return payload


def write_plugin(root: Path, key: str, body: str, manifest: str | None = None) -> Path:
    """Create ``<root>/<key>/`` with a plugin.yaml and an __init__.py."""
    path = root / key
    path.mkdir(parents=True)
    (path / "plugin.yaml").write_text(
        manifest if manifest is not None else f"name: {key.split('/')[-1]}\nversion: '0.1'\n",
        encoding="utf-8",
    )
    (path / "__init__.py").write_text(body, encoding="utf-8")
    return path
