"""Helpers shared by the tests of this folder (imported, not fixtures)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


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
