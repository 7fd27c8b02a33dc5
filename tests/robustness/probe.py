"""Shared state between robustness tests and the plugin and handler files they write.

Plugin ``__init__.py`` and gateway ``handler.py`` files import this module (``from
tests.robustness import probe``), note what happened and wait on gates the tests open.
"""

from __future__ import annotations

import threading
from typing import Any

#: Objects a test hands to the code under test (a loaded Hooks, say).
objects: dict[str, Any] = {}
#: Free-form notes, in the order they were made.
notes: list[str] = []
#: Named gates; code under test waits on them, tests set them.
gates: dict[str, threading.Event] = {}
_lock = threading.Lock()


def gate(name: str) -> threading.Event:
    """The gate called ``name`` (created closed on first use)."""
    with _lock:
        return gates.setdefault(name, threading.Event())


def note(text: str) -> None:
    """Record that ``text`` happened."""
    with _lock:
        notes.append(text)


def reset() -> None:
    """Open every gate (so anything stuck can finish) and forget everything."""
    with _lock:
        for event in gates.values():
            event.set()
        gates.clear()
        notes.clear()
        objects.clear()
