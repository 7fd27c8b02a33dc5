"""What every command shares once it runs: loading its home, printing JSON, logging,
and turning errors into exit codes (the top-level help needs none of it)."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_hooks._escape import escape, escape_json
from hermes_hooks.cli._codes import EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from hermes_hooks.errors import ConfigError, HermesHooksError, RecordingError, UnknownHookError

if TYPE_CHECKING:
    from hermes_hooks._capabilities import HostCapabilities
    from hermes_hooks.hooks import Hooks

__all__ = ["load_home", "print_json", "run_command"]


def load_home(
    args: argparse.Namespace,
    *,
    surface: str = "cli",
    inspect: bool = False,
    host: HostCapabilities | None = None,
    strict: bool = False,
) -> Hooks:
    """Load the home a command was pointed at, honouring the common options;
    ``inspect=True`` for commands that only look, ``host`` what the host lends,
    ``strict`` to refuse a ``config.yaml`` that cannot be used as written (see
    :func:`hermes_hooks.load`)."""
    # The hook machinery loads with the first command that loads a home.
    from hermes_hooks._loader import load

    return load(
        getattr(args, "home", None),
        surface=surface,
        accept_hooks=getattr(args, "accept_hooks", False),
        entry_points=not getattr(args, "no_entry_points", False),
        inspect=inspect,
        host=host,
        strict=strict,
    )


def print_json(data: Any) -> None:
    """Print ``data`` as indented JSON (the ``--json`` output of every command).

    The JSON is the data as it is, untrusted strings included: JSON escapes their C0
    controls itself, and :func:`~hermes_hooks._escape.escape_json` the few characters
    it would leave raw (DEL, C1 controls, bidirectional overrides), so the document is
    safe on a terminal and parses to the same values."""
    print(escape_json(json.dumps(data, indent=2, ensure_ascii=False, default=str)))


def run_command(args: argparse.Namespace) -> int:
    """Run the command ``args`` names (``args.run``), with logging set up as ``-v``
    asks; return its exit code, or the code a usage error or failure maps to."""
    logging.basicConfig(
        level=logging.WARNING - 10 * min(args.verbose, 2),
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    problem = _home_problem(args)
    if problem:
        print(f"hermes-hooks: {problem}", file=sys.stderr)
        return EXIT_USAGE
    try:
        return int(args.run(args))
    except (UnknownHookError, ConfigError, RecordingError) as exc:
        print(f"hermes-hooks: {_error_text(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except HermesHooksError as exc:
        print(f"hermes-hooks: {_error_text(exc)}", file=sys.stderr)
        return EXIT_FAILURE
    except BrokenPipeError:  # e.g. piped into head
        return EXIT_OK
    except KeyboardInterrupt:  # Ctrl-C: the exit code shells report for SIGINT
        return EXIT_INTERRUPTED


def _home_problem(args: argparse.Namespace) -> str | None:
    """Why an explicit ``--home`` cannot be used, or None.

    A mistyped ``--home`` used to read as an empty home, and ``doctor`` then said "no
    problems found" about a folder that does not exist.  Only a command that creates
    the home (``CREATES_HOME = True`` in its module) may be pointed at a missing one.
    """
    home = getattr(args, "home", None)
    # $HERMES_HOME is the same choice made in the environment: held to the same rule.
    named = "--home"
    if home is None and os.environ.get("HERMES_HOME"):
        home, named = os.environ["HERMES_HOME"], "HERMES_HOME"
    if home is None or args.creates_home:
        return None
    path = Path(home).expanduser()
    if path.is_dir():
        return None
    if path.exists():
        return f"{named} {home}: not a folder; point {named} at a Hermes home folder"
    return f"{named} {home}: no such folder; create it, or point {named} at an existing Hermes home"


def _error_text(exc: BaseException) -> str:
    """An error's message for the terminal: its lines kept (a config error lists one
    problem a line), every other control character escaped."""
    return escape(str(exc), keep_newlines=True)
