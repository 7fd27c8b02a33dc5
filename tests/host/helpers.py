"""Shared helpers for the reference-host tests: build recordings and register callbacks."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from hermes_hooks.hooks import Hooks
from hermes_hooks.host.recording import Recording, parse_recording

MODEL = "test/model-1"


def header(**fields: Any) -> dict[str, Any]:
    """A header line (CLI platform unless overridden)."""
    return {
        "type": "header",
        "version": 1,
        "session_id": "s1",
        "platform": "cli",
        "model": MODEL,
        "provider": "test",
        **fields,
    }


def user(text: str) -> dict[str, Any]:
    return {"type": "user", "text": text}


def say(text: str, **fields: Any) -> dict[str, Any]:
    return {"type": "assistant", "text": text, **fields}


def calls(*tool_calls: tuple[str, str, dict[str, Any]], text: str = "") -> dict[str, Any]:
    line: dict[str, Any] = {
        "type": "assistant",
        "tool_calls": [{"id": i, "name": n, "arguments": a} for i, n, a in tool_calls],
    }
    if text:
        line["text"] = text
    return line


def result(call_id: str, **fields: Any) -> dict[str, Any]:
    return {"type": "tool_result", "tool_call_id": call_id, **fields}


def recording(*lines: dict[str, Any], path: str = "test.jsonl") -> Recording:
    """Parse recording lines given as dicts."""
    return parse_recording([json.dumps(line) for line in lines], path)


def on(hooks: Hooks, hook: str, function: Callable[..., Any], owner: str = "test") -> None:
    """Register ``function`` for ``hook`` as a Python plugin callback."""
    hooks.manager.register_callback(hook, function, owner=owner)


class Calls:
    """Collects the payloads a hook's callback received, in order."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, dict[str, Any]]] = []

    def watch(self, hooks: Hooks, *names: str, answer: Any = None) -> None:
        for name in names:

            def callback(_hook: str = name, **kwargs: Any) -> Any:
                self.seen.append((_hook, kwargs))
                return answer

            on(hooks, name, callback, owner=f"watch-{name}")

    def of(self, hook: str) -> list[dict[str, Any]]:
        return [payload for name, payload in self.seen if name == hook]

    @property
    def hooks(self) -> list[str]:
        return [name for name, _ in self.seen]
