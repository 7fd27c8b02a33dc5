"""A throw-away copy of a Hermes home for a replay, so the real one never changes.

Replaying a recording runs the home's hooks for real: plugins write audit logs and
state, shell hooks get approved into the allowlist, the outbound adapter opens its
durable outbox, gateway handlers append to their logs.  ``hermes-hooks replay``
therefore loads a copy made by :func:`home_copy` and deletes it afterwards (unless
``--in-place`` asks for the home itself).

What is not copied: the agent's own session store and installation (``state.db``,
``sessions/``, a ``hermes-agent/`` checkout), virtual environments and caches.  Hooks
are not loaded from them, and they can be large.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["NOT_COPIED", "home_copy"]

#: Names skipped anywhere in the tree when the home is copied.
NOT_COPIED = frozenset(
    {
        "state.db",
        "state.db-wal",
        "state.db-shm",
        "sessions",
        "hermes-agent",
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        ".git",
        ".cache",
    }
)


def _ignore(directory: str, names: list[str]) -> set[str]:
    return {name for name in names if name in NOT_COPIED}


@contextmanager
def home_copy(home: str | os.PathLike[str]) -> Iterator[Path]:
    """Copy ``home`` into a new temporary directory, yield the copy's path, delete it.

    Symbolic links are copied as links (a link that leads out of the home still
    leads there).  A home that does not exist yields an empty directory, as loading
    a missing home loads nothing.
    """
    from hermes_hooks.errors import ConfigError

    source = Path(home).expanduser()
    with tempfile.TemporaryDirectory(prefix="hermes-replay-") as scratch:
        target = Path(scratch) / (source.name or "home")
        try:
            if source.is_dir():
                shutil.copytree(source, target, symlinks=True, ignore=_ignore)
            else:
                target.mkdir()
        except (OSError, shutil.Error) as exc:
            raise ConfigError(
                f"{source}: cannot copy the home for a replay ({_first(exc)}); make it "
                "readable, or pass --in-place to replay on the home itself"
            ) from None
        yield target


def _first(exc: BaseException) -> str:
    """The first problem of a copy (``shutil.Error`` carries a list of them)."""
    if isinstance(exc, shutil.Error) and exc.args and isinstance(exc.args[0], list):
        source, _, why = exc.args[0][0]
        return f"{source}: {why}"
    return str(exc)
