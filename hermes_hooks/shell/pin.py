"""Where a shell hook's command leads: its program and its script as absolute paths.

A command such as ``myhook`` or ``python3 hook.py`` names its program through ``PATH``,
so the same text runs different files from one ``PATH`` to the next.  Consent therefore
pins what the text resolved to when it was approved, and a firing whose :func:`resolve`
differs is refused (:func:`hermes_hooks.shell.pin_check.refusal`).

The resolution follows what the spawn does, without touching the files:

* the program (the first argument, ``~`` expanded): a path containing ``/`` is joined
  to the base folder when relative; a bare name is looked up on ``PATH``;
* the script (the argument the script rule picks, :func:`~.config.script_index`): joined
  to the base folder when relative; the program itself when the rule picks the first
  argument; none for inline code (``sh -c '...'``).

The base folder is the home the command was configured in, so a relative path in a
home's ``config.yaml`` names the same file from any working directory; only a command
given without a home (a bare ``resolve(command)``) depends on the current directory.

Paths are never normalised (``a/../b`` stays as written): with symbolic links,
collapsing ``..`` can name another file than the one the kernel opens.

A file inside the home is pinned by its path relative to the home (:func:`inside`), so
an approval keeps naming the same file when the whole home is copied, moved or cloned;
:attr:`Resolution.in_home` says which paths were found that way.
"""

from __future__ import annotations

import functools
import os
import shutil
from dataclasses import dataclass, field

from hermes_hooks.shell.config import (
    expand_argv,
    expand_variables,
    script_index,
    split_command,
)

__all__ = ["CWD", "PATH", "Resolution", "inside", "resolve"]

#: What a resolution can depend on, as messages name it.
CWD = "the current directory"
PATH = "PATH"


@dataclass(frozen=True)
class Resolution:
    """The files a command runs.  Two resolutions are equal when both paths are."""

    program: str | None  # absolute; None: a bare name not found on PATH
    script: str | None  # absolute; None: inline code, no script file
    #: What to execute: the command's arguments with both paths made absolute, so the
    #: spawn cannot look anything up again between the check and ``execve``.
    argv: tuple[str, ...] = field(default=(), compare=False)
    #: What each path depends on besides the text (:data:`CWD`, :data:`PATH`, or None).
    program_via: str | None = field(default=None, compare=False)
    script_via: str | None = field(default=None, compare=False)
    #: (program, script) relative to the home, for each written relative to it in the
    #: command and staying inside it; None for the others.  Such a file is the same
    #: file in any copy of the home, so its approval pins it relative to the home.
    in_home: tuple[str | None, str | None] = field(default=(None, None), compare=False)

    @property
    def depends_on(self) -> tuple[str, ...]:
        """What the resolution depends on besides the text, each named once."""
        return tuple(dict.fromkeys(v for v in (self.program_via, self.script_via) if v))

    def changed_since(self, then: Resolution) -> tuple[str, ...]:
        """What must have changed for ``then`` to resolve to this: :data:`CWD`, ..."""
        moved = []
        if self.program != then.program:
            moved.append(self.program_via)
        if self.script != then.script:
            moved.append(self.script_via if self.script != self.program else self.program_via)
        return tuple(dict.fromkeys(v for v in moved if v))

    def describe(self) -> str:
        """``/a/hook.sh``, or ``/usr/bin/python3 /a/hook.py`` when the program is an
        interpreter; ``nothing`` for a program not found."""
        program = self.program or "nothing (program not found)"
        if self.script is None or self.script == self.program:
            return program
        return f"{program} {self.script}"


def _trimmed(path: str) -> str:
    """``path`` without its leading ``./`` (any number of them)."""
    while path.startswith("./"):
        path = path[2:].lstrip("/")
    return path


def _absolute(path: str, base: str | None = None) -> str | None:
    """``path`` joined to ``base``, else to the current directory (leading ``./``
    dropped), or None when the current directory is gone."""
    if os.path.isabs(path):
        return path
    try:
        return os.path.join(base if base is not None else os.getcwd(), _trimmed(path))
    except OSError:  # the current directory was removed
        return None


def _in_home(path: str, base: str | None) -> str | None:
    """``path`` as relative to the home ``base``, when the command wrote it so."""
    if base is None or os.path.isabs(path):
        return None
    return _below(_trimmed(path))


def inside(path: str | None, home: str | os.PathLike[str] | None) -> str | None:
    """``path`` relative to ``home`` when it names a file below it, else None.

    Textual, as everything here: ``path`` must start with the home as given or as an
    absolute path, and what follows must not climb out through ``..`` (a path that
    leaves the home and comes back is not taken for one inside it).
    """
    if path is None or home is None:
        return None
    folder = os.fspath(home)
    for candidate in dict.fromkeys([folder, os.path.abspath(folder) if folder else folder]):
        if not candidate:
            continue
        prefix = candidate if candidate.endswith(os.sep) else candidate + os.sep
        if path.startswith(prefix):
            return _below(path[len(prefix) :])
    return None


def _below(relative: str) -> str | None:
    """``relative`` when it stays below the folder it is relative to, else None."""
    parts = relative.replace(os.altsep or os.sep, os.sep).split(os.sep)
    return relative if relative and ".." not in parts else None


def _has_separator(arg: str) -> bool:
    return os.sep in arg or (os.altsep is not None and os.altsep in arg)


@functools.lru_cache(maxsize=512)
def _split(command: str) -> tuple[tuple[str, ...], int | None] | None:
    """(arguments, script index) of ``command``: pure text work, cached because every
    firing resolves its command again and splitting costs more than the lookups."""
    try:
        parts = split_command(command)
    except ValueError:
        return None
    if not parts or not parts[0]:
        return None
    return tuple(parts), script_index(parts)


def resolve(
    command: str,
    base: str | os.PathLike[str] | None = None,
    variables: tuple[tuple[str, str], ...] = (),
) -> Resolution | None:
    """The files ``command`` runs now, relative paths taken from ``base`` (the home it
    is configured in; the current directory when None), after writing out the
    ``variables`` its runner's shell expands (an entry's
    :attr:`~.entry.ShellEntry.variables`); None when it cannot be split."""
    folder = None if base is None else os.fspath(base)
    relative_via = CWD if folder is None else None  # a home is fixed for the load
    split = _split(expand_variables(command, variables))
    if split is None:
        return None
    parts, index = split
    argv = list(expand_argv(list(parts)))
    first = argv[0]
    program: str | None
    program_via: str | None = None
    program_in_home = script_in_home = None
    if _has_separator(first):
        program = _absolute(first, folder)
        program_via = None if os.path.isabs(first) else relative_via
        program_in_home = _in_home(first, folder)
    else:
        program_via = PATH
        found = shutil.which(first)
        program = _absolute(found) if found else None  # a relative PATH entry counts too
    if program is not None:
        argv[0] = program
    script: str | None = None
    script_via = None
    if index == 0:
        script, script_via, script_in_home = program, program_via, program_in_home
    elif index is not None:
        script = _absolute(argv[index], folder)
        script_via = None if os.path.isabs(argv[index]) else relative_via
        script_in_home = _in_home(argv[index], folder)
        if script is not None:
            argv[index] = script
    in_home = (program_in_home, script_in_home)
    return Resolution(program, script, tuple(argv), program_via, script_via, in_home)
