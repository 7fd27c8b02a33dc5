"""A claude-code entry's ``shell:``: its command run through the shell, as Claude Code
runs it.

Claude Code hands every command hook to a shell (``bash`` unless the handler says
``shell: powershell``), so a script without a ``#!`` line runs anyway: ``execve``
refuses it, and bash then reads the file as a bash script.  An entry with
``shell: bash`` runs the same way here, keeping everything else a shell hook has (its
own process group, killed whole at the timeout, bounded capture):

* a command with no shell syntax runs as ``bash -c '"$0" "$@"' <argv>``: bash starts
  exactly the argv consent resolved and pinned (absolute paths, nothing looked up
  again), and falls back to reading a ``#!``-less script as bash, as in Claude Code;
* a command with shell syntax (pipes, variables such as ``$CLAUDE_PLUGIN_ROOT``,
  redirections) is bash's own code: ``bash -c <command>``, the consent key as written.

Bash is looked up on ``PATH`` once, when the entry is read; the absolute path found is
what every firing runs.
"""

from __future__ import annotations

import re
import shlex
import shutil
from collections.abc import Mapping
from typing import Any

from hermes_hooks.shell.config import expand_variables, script_for_command
from hermes_hooks.shell.entry import EntryRefused

__all__ = [
    "SHELL_KEY",
    "needs_bash",
    "needs_shell",
    "plugin_variables",
    "shell_argv",
    "shell_program",
]

#: The entry key, as Claude Code's handler field.
SHELL_KEY = "shell"
#: bash starts its positional parameters as the program and its arguments.
_RUN_ARGV = '"$0" "$@"'
_SHELL_CHARS = frozenset("|&;<>()$`*?[]{}!#\n\\")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
#: How the executable formats the kernel starts begin (ELF, Mach-O, a #! line).
_EXECUTABLE_MAGIC = (
    b"#!",
    b"\x7fELF",
    b"\xcf\xfa\xed\xfe",
    b"\xfe\xed\xfa\xcf",
    b"\xca\xfe\xba\xbe",
)


def needs_shell(text: str) -> bool:
    """Whether ``text`` means something different to a shell than to our splitter
    (pipes, redirections, variables, globs, ``~user``, assignments, comments)."""
    try:
        words = shlex.split(text)
    except ValueError:
        return True
    if not words or _ASSIGNMENT.match(words[0]):
        return True
    quote = None
    word_start = True
    for index, char in enumerate(text):
        if quote == "'":
            quote = None if char == "'" else quote
            continue
        if quote == '"':
            if char in "$`\\":
                return True
            quote = None if char == '"' else quote
            continue
        if char in "'\"":
            quote = char
        elif char in _SHELL_CHARS:
            return True
        elif char == "~":
            after = text[index + 1 : index + 2]
            if not word_start or after not in ("", "/", " ", "\t"):
                return True  # only a word that is ~ or starts with ~/ is expanded
        word_start = char in " \t"
    return False


def needs_bash(entry: Mapping[str, Any]) -> bool:
    """Whether the script ``entry``'s command runs exists but is no format the kernel
    starts (no ``#!`` line): Claude Code's shell runs it as a bash script, and so an
    entry without ``shell: bash`` would fail where Claude Code does not."""
    command = entry.get("command")
    script = script_for_command(command) if isinstance(command, str) else None
    if script is None:
        return False
    try:
        with open(script, "rb") as handle:
            start = handle.read(4)
    except OSError:  # missing or unreadable: approve and doctor say so
        return False
    return bool(start) and not start.startswith(_EXECUTABLE_MAGIC)


def shell_program(value: object) -> str:
    """The absolute path of the shell ``shell: <value>`` names; :class:`EntryRefused`
    (saying why and the fix) for a value this dialect cannot run."""
    if value == "powershell":
        raise EntryRefused(
            "shell 'powershell' is not supported here: only bash runs hooks on this host; "
            "use shell: bash or remove 'shell'; skipped"
        )
    if value != "bash":
        raise EntryRefused(f"shell must be 'bash' (as in Claude Code), got {value!r}; skipped")
    found = shutil.which("bash")
    if found is None:
        raise EntryRefused("shell: bash, but no bash is found on PATH: install bash; skipped")
    return found


def plugin_variables(
    shell: str | None, plugin_root: str | None, plugin_data: str | None, command: Any
) -> tuple[tuple[str, str], ...]:
    """The plugin's variables to write out in ``command`` before it is resolved: for a
    command run through the shell (which expands ``${CLAUDE_PLUGIN_ROOT}`` from the
    environment the dialect gives it) that is a plain command once they are written
    out.  Consent then pins the plugin's script, and the firing runs that resolved
    file as a command without shell syntax does (nothing is looked up in between).
    Empty otherwise: without a shell the text is not expanded at all."""
    if shell is None or not isinstance(command, str):
        return ()
    pairs = tuple(
        (name, value)
        for name, value in (
            ("CLAUDE_PLUGIN_ROOT", plugin_root),
            ("CLAUDE_PLUGIN_DATA", plugin_data),
        )
        if value is not None
    )
    text = command.strip()
    expanded = expand_variables(text, pairs)
    if expanded == text or needs_shell(expanded):
        return ()
    return pairs


def shell_argv(shell: str, command: str, argv: tuple[str, ...]) -> tuple[str, ...]:
    """What to execute for an entry with a shell: ``argv`` (the resolved command)
    started by the shell, or the ``command`` text as the shell's code when it has shell
    syntax (see the module docstring)."""
    if needs_shell(command):
        return (shell, "-c", command)
    return (shell, "-c", _RUN_ARGV, *argv)
