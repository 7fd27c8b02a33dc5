"""Programs that run another program or shell code given in their arguments.

``sudo rm x`` runs ``rm``; ``bash -c 'rm x'`` and ``eval rm x`` run shell code;
``find . -exec rm {} \\;`` and ``xargs rm`` run ``rm`` with arguments found at run
time.  :func:`inner` says what such a command runs, so the command analysis can look
through it.  It is deliberately pessimistic: an option it does not know (which might
take the next word as its argument) makes every later word a possible program, and a
program whose code cannot be seen (a shell reading a script or its standard input,
``source``, ``alias``) makes the whole command unknown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["CODE_VARIABLES", "Inner", "inner", "is_code_variable"]

#: Variables whose value bash (or a child bash) runs or expands as code later on.
CODE_VARIABLES = frozenset(
    {"PS0", "PS1", "PS2", "PS3", "PS4", "PROMPT_COMMAND", "BASH_ENV", "ENV", "SHELLOPTS"}
)

#: Programs that run code this reading cannot see (a file, the standard input, an
#: alias or hash table entry defined at run time).
_OPAQUE = frozenset({"alias", "hash", "enable", "source", ".", "let", "fc"})
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_%]*=")


def is_code_variable(name: str) -> bool:
    """Whether assigning ``name`` can make bash run code that is not in the command
    (a prompt, a startup file, an exported function)."""
    return name in CODE_VARIABLES or name.startswith("BASH_FUNC_")


@dataclass(frozen=True)
class _Options:
    """How a wrapper reads its options before the program it runs."""

    with_arg: str = ""  # short options taking the next word (or the rest of the cluster)
    flags: str = ""  # short options without an argument
    long_with_arg: frozenset[str] = frozenset()
    long_flags: frozenset[str] = frozenset()
    numeric: bool = False  # nice's -5: a digit cluster is a flag
    skip: int = 0  # operands before the program (timeout's duration)


_WRAPPERS: dict[str, _Options] = {
    "sudo": _Options(
        with_arg="ugpCDrtUTR",
        flags="AbEHiKklnPSsVBN",
        long_with_arg=frozenset(
            {"--user", "--group", "--prompt", "--close-from", "--chdir", "--role", "--type"}
            | {"--other-user", "--command-timeout", "--chroot", "--host"}
        ),
        long_flags=frozenset(
            {"--askpass", "--background", "--bell", "--preserve-env", "--login", "--shell"}
            | {"--non-interactive", "--stdin", "--set-home", "--preserve-groups", "--list"}
        ),
    ),
    "doas": _Options(with_arg="uC", flags="nsL"),
    "env": _Options(
        with_arg="uC",
        flags="i0v",
        long_with_arg=frozenset({"--unset", "--chdir"}),
        long_flags=frozenset({"--ignore-environment", "--null", "--debug"}),
    ),
    "command": _Options(flags="p"),
    "builtin": _Options(),
    "exec": _Options(with_arg="a", flags="cl"),
    "nohup": _Options(),
    "time": _Options(flags="p"),
    "nice": _Options(with_arg="n", long_with_arg=frozenset({"--adjustment"}), numeric=True),
    "timeout": _Options(
        with_arg="sk",
        flags="v",
        long_with_arg=frozenset({"--signal", "--kill-after"}),
        long_flags=frozenset({"--preserve-status", "--foreground", "--verbose"}),
        skip=1,
    ),
    "stdbuf": _Options(with_arg="ioe", long_with_arg=frozenset({"--input", "--output", "--error"})),
    "setsid": _Options(flags="cfw", long_flags=frozenset({"--ctty", "--fork", "--wait"})),
    "ionice": _Options(with_arg="cnpPu", flags="t"),
    "busybox": _Options(),
    "xargs": _Options(
        with_arg="adEILnPs",
        flags="0prtxo",
        long_with_arg=frozenset(
            {"--arg-file", "--delimiter", "--max-lines", "--max-args", "--max-procs"}
            | {"--max-chars", "--process-slot-var"}
        ),
        long_flags=frozenset(
            {"--null", "--no-run-if-empty", "--verbose", "--interactive", "--exit"}
            | {"--open-tty", "--show-limits", "--replace", "--eof"}
        ),
    ),
}
_SHELL_OPTIONS = _Options(with_arg="oO", long_with_arg=frozenset({"--rcfile", "--init-file"}))
#: Wrappers that run nothing without a program, or whose bare form reads the standard
#: input as shell code (``sudo -s``): a missing program is then unknown.
_NEEDS_PROGRAM = frozenset({"sudo", "doas"})
_FIND_ACTIONS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


@dataclass
class Inner:
    """What a command runs besides itself: word lists (``(words, open)``: ``open`` when
    more words may follow at run time) and shell code to analyse."""

    commands: list[tuple[list[str], bool]] = field(default_factory=list)
    scripts: list[str] = field(default_factory=list)


def inner(words: list[str], open_: bool) -> Inner | None:
    """What the simple command ``words`` (program name first, without a directory)
    runs through its arguments; None when that cannot be known statically."""
    name = words[0]
    if name in _OPAQUE:
        return None
    if name in _SHELLS:
        return _shell(words, open_)
    if name == "eval":
        return None if open_ else Inner(scripts=[" ".join(words[1:])])
    if name == "trap":
        return _trap(words, open_)
    if name == "find":
        return _find(words, open_)
    if name == "su":
        return _su(words, open_)
    if name == "watch":
        return _watch(words, open_)
    if name == "coproc":
        return _anywhere(words, 1, open_)
    if name == "command" and any(w.startswith("-") and ("v" in w or "V" in w) for w in words[1:2]):
        return Inner()  # command -v/-V only looks the name up
    options = _WRAPPERS.get(name)
    if options is None:
        return Inner()
    start = _after_options(words, options)
    if start is None:  # an option this reading does not know
        return _anywhere(words, 1, open_)
    if name == "env":
        if any(w.startswith(("-S", "--split-string")) for w in words[1:start]):
            return None
        while start < len(words) and _ASSIGNMENT.match(words[start]):
            if is_code_variable(words[start].split("=", 1)[0]):
                return None
            start += 1
    start += options.skip
    if start >= len(words):
        if open_ or name in _NEEDS_PROGRAM:
            return None  # the program is an expansion, or the standard input
        if name == "xargs":
            return Inner(commands=[(["echo"], True)])
        return Inner()
    command = words[start:]
    if name == "xargs":
        # Arguments are appended (or put in place of a replacement string) at run time.
        if any(_replaces(w) for w in words[1:start]):
            command = command[:1]
        return Inner(commands=[(command, True)])
    return Inner(commands=[(command, open_)])


def _after_options(words: list[str], options: _Options) -> int | None:
    """The index of the first operand after ``words[0]``'s options; None when an option
    is unknown (it might take the next word)."""
    index = 1
    while index < len(words):
        word = words[index]
        if word == "--":
            return index + 1
        if not word.startswith("-") or word == "-":
            return index
        if word.startswith("--"):
            name = word.split("=", 1)[0]
            if name in options.long_with_arg:
                index += 1 if "=" in word else 2
            elif name in options.long_flags:
                index += 1
            else:
                return None
            continue
        step = _cluster(word, options)
        if step is None:
            return None
        index += step
    return index


def _cluster(word: str, options: _Options) -> int | None:
    """How many words a short-option cluster such as ``-u`` or ``-Eu`` uses."""
    for position, letter in enumerate(word[1:], start=1):
        if letter in options.with_arg:
            return 1 if position + 1 < len(word) else 2
        if letter in options.flags or (options.numeric and letter.isdigit()):
            continue
        return None
    return 1


def _replaces(option: str) -> bool:
    """Whether an xargs option sets a replacement string (``-I``, ``-i``, ``--replace``)."""
    if option.startswith("--"):
        return option.startswith("--replace")
    return "I" in option or "i" in option


def _anywhere(words: list[str], first: int, open_: bool) -> Inner | None:
    """Every word from ``first`` on may be the program (an option was not understood)."""
    if open_:
        return None
    return Inner(commands=[(words[index:], False) for index in range(first, len(words))])


def _shell(words: list[str], open_: bool) -> Inner | None:
    """``bash -c CODE``: the code; a shell reading a file or its input is unknown."""
    start = _after_options_with_c(words)
    if start is None or start >= len(words):
        return None
    return Inner(scripts=[words[start]])


def _after_options_with_c(words: list[str]) -> int | None:
    """The index of ``-c``'s code in a shell's words; None without ``-c``."""
    index, has_c = 1, False
    while index < len(words):
        word = words[index]
        if word == "--":
            index += 1
            break
        if word.startswith("--"):
            index += 2 if word in _SHELL_OPTIONS.long_with_arg else 1
            continue
        if len(word) < 2 or word[0] not in "-+":
            break
        has_c = has_c or (word[0] == "-" and "c" in word)
        takes = any(letter in _SHELL_OPTIONS.with_arg for letter in word[1:])
        index += 2 if takes else 1
    return index if has_c else None


_WATCH = _Options(
    with_arg="nq",
    flags="bcdegptxwrC",
    long_with_arg=frozenset({"--interval", "--equexit"}),
    long_flags=frozenset({"--beep", "--color", "--differences", "--errexit", "--exec"})
    | frozenset({"--precise", "--no-title", "--no-wrap", "--chgexit", "--no-rerun"}),
)


def _watch(words: list[str], open_: bool) -> Inner | None:
    """``watch CODE…``: the words joined run through ``sh -c`` (directly with ``-x``)."""
    start = _after_options(words, _WATCH)
    if start is None or open_:
        return None
    rest = words[start:]
    if not rest:
        return Inner()
    return Inner(commands=[(rest, False)], scripts=[" ".join(rest)])


def _trap(words: list[str], open_: bool) -> Inner | None:
    """``trap CODE SIGNAL…``: the code runs later, in this shell."""
    operands = [w for w in words[1:] if w != "--"]
    if operands and operands[0] in ("-p", "-l", "-P"):
        return Inner()
    if not operands:
        return None if open_ else Inner()
    return Inner(scripts=[operands[0]])


def _su(words: list[str], open_: bool) -> Inner | None:
    """``su -c CODE``; a bare ``su`` starts a shell on the standard input."""
    for index, word in enumerate(words[1:-1], start=1):
        if word in ("-c", "--command"):
            return Inner(scripts=[words[index + 1]])
        if word.startswith("--command="):
            return Inner(scripts=[word.split("=", 1)[1]])
    return None


def _find(words: list[str], open_: bool) -> Inner | None:
    """``find … -exec PROGRAM ARGS ;`` (and ``-execdir``, ``-ok``, ``-okdir``)."""
    if open_:
        return None  # an expansion could hold an -exec
    result = Inner()
    index = 1
    while index < len(words):
        if words[index] not in _FIND_ACTIONS:
            index += 1
            continue
        command: list[str] = []
        index += 1
        while index < len(words) and words[index] not in (";", "+"):
            command.append(words[index])
            index += 1
        cut = next((i for i, w in enumerate(command) if "{}" in w), len(command))
        if cut == 0:
            return None  # the program itself is the found file
        result.commands.append((command[:cut], True))
    return result
