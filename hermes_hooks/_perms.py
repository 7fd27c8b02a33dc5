"""Strict modes for hook code, as ssh checks ``~/.ssh``: ``doctor`` warns when a file
Hermes runs or imports, or a directory holding one, can be changed by someone else.

A hook script, a plugin or a gateway hook runs with the user's full credentials, so a
group- or world-writable one lets anybody in that group (or on the machine) run code
as the user.  The three ``doctor`` checks (plugins, shell hooks, gateway hooks) share
:func:`loose_permissions`; nothing refuses to load, as the reference does not either.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

__all__ = ["loose_paths", "loose_permissions"]


def loose_permissions(path: Path) -> str | None:
    """Why ``path`` is too open, or None: writable by group or others (symlinks
    followed, as the loader follows them).  A missing path, or a platform without POSIX
    modes, is not a permission problem."""
    if os.name != "posix":
        return None
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    who = [name for bit, name in ((stat.S_IWGRP, "group"), (stat.S_IWOTH, "others")) if mode & bit]
    if not who or (stat.S_ISDIR(mode) and mode & stat.S_ISVTX):
        return None  # a sticky directory (/tmp) lets nobody replace what they do not own
    kind = "directory" if stat.S_ISDIR(mode) else "file"
    return (
        f"{kind} {path} is writable by {' and '.join(who)} (mode {stat.S_IMODE(mode):04o}): "
        f"they can change code Hermes runs as you. Fix: chmod go-w {path}"
    )


def loose_paths(paths: Iterable[Path]) -> list[str]:
    """:func:`loose_permissions` of each distinct path, in order, problems only."""
    found: list[str] = []
    seen: set[Path] = set()
    for path in paths:
        if path in seen:
            continue
        seen.add(path)
        problem = loose_permissions(path)
        if problem is not None:
            found.append(problem)
    return found
