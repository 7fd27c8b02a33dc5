"""``hermes-hooks completion bash|zsh|fish``: print a shell completion script.

The script is generated from this tool's own argparse parser by shtab, so it always
lists the commands and options this version has.  shtab only writes text: the script
it prints completes by itself, without starting ``hermes-hooks`` at each TAB (which
argcomplete's scripts do).  It is the ``completion`` extra, imported only here.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["EPILOG", "SHELLS", "add_arguments", "install_hint", "run"]

#: The shells a script can be printed for.
SHELLS = ("bash", "zsh", "fish")
#: Paths complete as paths (the rest of the words from the parser itself).
_DIRECTORIES = frozenset({"--home"})
_FILES = frozenset({"--junit-xml", "--output", "-o"})
_PATH_ARGUMENTS = frozenset({"paths", "path", "src", "source", "settings", "files"})
#: Reads no home: a missing --home or HERMES_HOME must not stop a shell's start-up file.
CREATES_HOME = True

EPILOG = (
    "Load it from the shell's start-up file: bash, in ~/.bashrc: eval \"$(hermes-hooks "
    'completion bash)"; zsh: save it as _hermes-hooks in a folder of $fpath; fish: save it '
    "as ~/.config/fish/completions/hermes-hooks.fish. Needs the completion extra: pip "
    "install 'hermes-hooks[completion]'. Exit codes: 0 printed; 1 the extra is not "
    "installed."
)


def install_hint() -> str:
    """The message for a missing shtab, naming the fix."""
    return (
        "hermes-hooks: completion needs shtab, which is not installed. Fix: "
        "pip install 'hermes-hooks[completion]' (or pip install shtab)"
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The shell to print a script for."""
    parser.add_argument("shell", choices=SHELLS, help="the shell the script is for")


def _mark_paths(parser: argparse.ArgumentParser, directory: Any, file: Any) -> None:
    """Tell shtab which arguments take a path (``directory`` and ``file`` are its
    markers), so that TAB lists folders or files there."""
    for action in parser._actions:  # argparse keeps no public list of them
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                _mark_paths(sub, directory, file)
            continue
        if _DIRECTORIES.intersection(action.option_strings):
            action.complete = directory  # type: ignore[attr-defined]
        elif _FILES.intersection(action.option_strings) or (
            not action.option_strings and action.dest in _PATH_ARGUMENTS
        ):
            action.complete = file  # type: ignore[attr-defined]


def run(args: argparse.Namespace) -> int:
    """Print the completion script for ``args.shell``."""
    try:
        import shtab
    except ImportError:
        print(install_hint(), file=sys.stderr)
        return 1
    from hermes_hooks.cli import build_parser

    parser = build_parser("")  # every command with all of its arguments
    _mark_paths(parser, shtab.DIRECTORY, shtab.FILE)
    sys.stdout.write(shtab.complete(parser, shell=args.shell))
    return 0
