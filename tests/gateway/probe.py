"""Shared state between the tests and the ``handler.py`` files they write.

Handlers import this module (``from tests.gateway import probe``) and record what they
saw; tests hand them gates (``threading.Event``) to hold them where a test needs.
"""

from __future__ import annotations

import threading
from typing import Any

#: (hook key, event, context) per handler call, in call order.
calls: list[tuple[str, str, dict[str, Any]]] = []
#: Named gates; handlers wait on them, tests set them.
gates: dict[str, threading.Event] = {}
#: Free-form notes handlers leave (e.g. "cancelled").
notes: list[str] = []
_lock = threading.Lock()


def gate(name: str) -> threading.Event:
    """The gate called ``name`` (created unset on first use)."""
    with _lock:
        return gates.setdefault(name, threading.Event())


def record(module_name: str, event: str, context: dict[str, Any]) -> None:
    """Note one handler call; the hook key is the module name without its prefix."""
    calls.append((module_name.removeprefix("hermes_hook_"), event, context))


def seen(key: str) -> list[tuple[str, dict[str, Any]]]:
    """The (event, context) pairs hook ``key`` received."""
    return [(event, context) for k, event, context in calls if k == key]


def reset() -> None:
    """Release every gate (so stuck handler threads can finish) and forget everything."""
    with _lock:
        for event in gates.values():
            event.set()
        gates.clear()
    calls.clear()
    notes.clear()
