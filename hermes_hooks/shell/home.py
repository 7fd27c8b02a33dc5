"""What the shell adapter decides about a home before it imports anything heavier.

Every load asks these, hooks or not: which consent bypass is active, and
whether the home has an allowlist.  They live apart from :mod:`.consent` and
:mod:`.config` so that a home with no ``hooks:`` block and no allowlist loads without
the consent, parsing and spawning modules (a start-up cost every agent pays).
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from hermes_hooks.config import env_flag

__all__ = [
    "ALLOWLIST_NAME",
    "TRUTHY",
    "auto_accept_configured",
    "bypass_reason",
    "copy_of",
    "replay_copy",
]

#: The allowlist's file name in the Hermes home.
ALLOWLIST_NAME = "shell-hooks-allowlist.json"
#: Strings the ``hooks:`` block reads as true (``hooks_auto_accept``, ``fail_closed``).
TRUTHY = frozenset({"1", "true", "yes", "on"})


def auto_accept_configured(config: Mapping[str, Any]) -> bool:
    """Whether ``hooks_auto_accept: true`` is set at the top level of ``config.yaml``
    (the third consent bypass)."""
    value = config.get("hooks_auto_accept")
    if isinstance(value, bool):
        return value
    return isinstance(value, str) and value.strip().lower() in TRUTHY


def bypass_reason(accept_hooks: bool, config: Mapping[str, Any]) -> str | None:
    """Which consent bypass is active, or None: the ``--accept-hooks`` flag,
    ``HERMES_ACCEPT_HOOKS``, or ``hooks_auto_accept: true``."""
    if accept_hooks:
        return "--accept-hooks"
    if env_flag("HERMES_ACCEPT_HOOKS"):
        return "HERMES_ACCEPT_HOOKS"
    if auto_accept_configured(config):
        return "hooks_auto_accept"
    return None


#: (the copy, the home it is a copy of) while a replay loads its copy of a home.
_COPY: contextvars.ContextVar[tuple[str, Path] | None] = contextvars.ContextVar(
    "hermes_hooks_replay_copy", default=None
)


@contextlib.contextmanager
def replay_copy(copy: str | os.PathLike[str], home: str | os.PathLike[str]) -> Iterator[None]:
    """Within this block, a load of ``copy`` treats it as the home ``home`` it was
    copied from: the approvals made there hold in it, no prompt is shown and the
    allowlist is never written (an approval a bypass gives lasts for that load)."""
    token = _COPY.set((os.path.abspath(os.fspath(copy)), Path(home)))
    try:
        yield
    finally:
        _COPY.reset(token)


def copy_of(home: str | os.PathLike[str]) -> Path | None:
    """The home ``home`` is a replay's copy of (inside :func:`replay_copy`), else None."""
    current = _COPY.get()
    if current is None or os.path.abspath(os.fspath(home)) != current[0]:
        return None
    return current[1]
