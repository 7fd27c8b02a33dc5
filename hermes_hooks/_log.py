"""Logging helpers: the package logger and warn-once deduplication (D-14)."""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Hashable

__all__ = ["exception_text", "logger", "warn_once"]

#: The package logger; adapters use children such as ``hermes_hooks.shell``.
logger = logging.getLogger("hermes_hooks")

_SEEN_LIMIT = 4096  # bounded, so ever-changing messages cannot grow memory forever
_seen: OrderedDict[Hashable, None] = OrderedDict()
_seen_lock = threading.Lock()


def warn_once(log: logging.Logger, key: Hashable, message: str, *args: object) -> None:
    """Log ``message`` at WARNING the first time ``key`` is seen, at DEBUG afterwards."""
    with _seen_lock:
        first = key not in _seen
        if first:
            _seen[key] = None
            if len(_seen) > _SEEN_LIMIT:
                _seen.popitem(last=False)
    log.log(logging.WARNING if first else logging.DEBUG, message, *args)


def exception_text(exc: BaseException, limit: int | None = None) -> str:
    """``str(exc)``, cut to ``limit`` characters, for messages about third-party errors.

    Never raises: an exception whose ``__str__`` fails reads ``<unprintable Type>``, so
    reporting a callback's failure cannot itself fail.
    """
    try:
        text = str(exc)
    except Exception:
        text = f"<unprintable {type(exc).__name__}>"
    return text if limit is None else text[:limit]


def reset_warn_once() -> None:
    """Forget which warnings were logged (tests use a fresh slate per test)."""
    with _seen_lock:
        _seen.clear()
