"""Whether any installed distribution may declare one of our entry-point groups, found
without importing ``importlib_metadata``.

Importing ``importlib_metadata`` and letting it read every distribution's metadata
costs more than the rest of a ``load()`` of an empty home, and most environments
declare none of our groups.  :func:`may_declare` reads only the ``entry_points.txt``
files ``importlib_metadata`` itself would read, and answers False only when none of
them has a section for one of the groups; whenever it cannot be sure (a zip or egg on
the path, a metadata finder it does not know, a file it cannot read) it answers True
and the caller asks ``importlib_metadata`` as before.  So the answer never hides a
plugin: at worst it saves nothing.
"""

from __future__ import annotations

import importlib.machinery
import os
import sys
from collections.abc import Iterable, Iterator

__all__ = ["may_declare"]

#: What ``importlib_metadata`` takes for "no such file" when it reads metadata.
_ABSENT = (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError)


def may_declare(groups: Iterable[str]) -> bool:
    """False only when no distribution on ``sys.path`` declares a section for one of
    ``groups`` in its ``entry_points.txt``; True when one does or when unsure."""
    wanted = frozenset(groups)
    if not _only_path_finders():
        return True
    for root in list(sys.path):
        files = _metadata_files(root)
        if files is None:
            return True
        for path in files:
            try:
                with open(path, encoding="utf-8") as stream:
                    text = stream.read()
            except _ABSENT:
                continue
            except (OSError, UnicodeDecodeError):  # let importlib_metadata say what is wrong
                return True
            if _declares(text, wanted):
                return True
    return False


def _only_path_finders() -> bool:
    """Whether every metadata finder on ``sys.meta_path`` searches ``sys.path``
    directories the way :func:`_metadata_files` does (the standard path finder, or
    ``importlib_metadata``'s own once imported): another finder may know of
    distributions this module cannot see."""
    known = _backport_finders()
    for finder in sys.meta_path:
        if getattr(finder, "find_distributions", None) is None:
            continue
        if finder is importlib.machinery.PathFinder or isinstance(finder, known):
            continue
        return False
    return True


#: ``importlib_metadata.MetadataPathFinder`` as seen so far (its finder stays on
#: ``sys.meta_path`` even if the module is later hidden from ``sys.modules``).
_BACKPORT_FINDERS: set[type] = set()


def _backport_finders() -> tuple[type, ...]:
    """The classes of ``importlib_metadata``'s finder: the backport puts an instance on
    ``sys.meta_path`` when it is imported, so it is in ``sys.modules`` by then and need
    not be imported here."""
    finder = getattr(sys.modules.get("importlib_metadata"), "MetadataPathFinder", None)
    if isinstance(finder, type):
        _BACKPORT_FINDERS.add(finder)
    return tuple(_BACKPORT_FINDERS)


_backport_finders()


def _metadata_files(root: object) -> Iterator[str] | None:
    """The ``entry_points.txt`` paths of the metadata directories in ``root``, or None
    when ``root`` is something this module does not read (a zip file, an egg, a
    non-text entry)."""
    if not isinstance(root, str):
        return None
    base = root or "."
    if os.path.basename(base).lower().endswith(".egg"):
        return None
    try:
        children = os.listdir(base)
    except OSError:
        # A missing entry holds nothing; anything else (a zip file) is not ours to read.
        return None if os.path.exists(base) else iter(())
    return (
        os.path.join(base, child, "entry_points.txt")
        for child in children
        if child.lower().endswith((".dist-info", ".egg-info"))
    )


#: Entry points discovery skips (the Hermes Agent bridge, which hermes-hooks itself
#: declares): a section holding only these declares nothing to load.
_SKIPPED_VALUES = ("hermes_hooks.integrations.hermes_agent",)


def _declares(text: str, groups: frozenset[str]) -> bool:
    """Whether ``text`` (an ``entry_points.txt``) has a ``[group]`` section for one of
    ``groups`` with an entry discovery would load, read as ``importlib_metadata``
    reads section names."""
    inside = False
    for line in text.splitlines():
        value = line.strip()
        if value.startswith("[") and value.endswith("]"):
            inside = value.strip("[]") in groups
        elif inside and value and not value.startswith(("#", ";")):
            target = value.partition("=")[2].strip().partition(":")[0].strip()
            if target not in _SKIPPED_VALUES:
                return True
    return False
