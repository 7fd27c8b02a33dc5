"""The ``hermes-hooks`` command-line tool (also ``python -m hermes_hooks``).

Each command is a row of :data:`COMMANDS` (its name and one-line help) and a module
with ``add_arguments(parser)`` and ``run(args) -> int`` (and ``EPILOG``, the end of
its own help, and ``CREATES_HOME = True`` if it may be pointed at a home that does
not exist yet); a command line imports only the module of the command it names.
Errors become exit codes here and only here: 0 success, 1 a check failed or a hook
blocked, 2 bad usage or input.

Start-up matters here: a command line imports only the one command module it names
(``--help`` and no arguments import none), and that module imports what its command
needs; the hook machinery loads when a command loads a home.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from hermes_hooks._version import __version__
from hermes_hooks.cli._ascii import fit_to_encoding
from hermes_hooks.cli._codes import EXIT_FAILURE, EXIT_OK, EXIT_USAGE

__all__ = ["COMMANDS", "EXIT_FAILURE", "EXIT_OK", "EXIT_USAGE", "build_parser", "main"]

#: Every command as (name, module, one-line help), in the order ``--help`` lists them.
#: Names and help live here, so that listing the commands imports none of them; the
#: module holds the rest (see the module docstring).
COMMANDS: tuple[tuple[str, str, str], ...] = (
    (
        "replay",
        "hermes_hooks.cli.replay_cmd",
        "replay recorded sessions through the hooks and show what each hook decided",
    ),
    (
        "list",
        "hermes_hooks.cli.list_cmd",
        "show what a Hermes home loads: plugins, shell hooks, outbound targets, gateway hooks",
    ),
    (
        "doctor",
        "hermes_hooks.cli.doctor_cmd",
        "check every plugin, shell hook, outbound target and gateway hook of a home",
    ),
    (
        "test",
        "hermes_hooks.cli.test_cmd",
        "fire every callback of one event on a synthetic payload and show what each returns",
    ),
    (
        "approve",
        "hermes_hooks.cli.approve_cmd",
        "approve a shell hook (event + exact command) or MCP tools without the prompt",
    ),
    (
        "revoke",
        "hermes_hooks.cli.revoke_cmd",
        "remove every allowlist approval of a shell-hook command (all events)",
    ),
    (
        "import-claude",
        "hermes_hooks.cli.import_claude_cmd",
        "convert the hooks of Claude Code settings files into dialect: claude-code entries",
    ),
    (
        "import-session",
        "hermes_hooks.cli.import_session_cmd",
        "turn Hermes Agent sessions or Claude Code transcripts into replayable recordings",
    ),
    (
        "emit",
        "hermes_hooks.cli.emit_cmd",
        "fire a gateway event at the gateway hooks of a home and show what each did",
    ),
    (
        "outbox",
        "hermes_hooks.cli.outbox_cmd",
        "list, show, redeliver or purge events of durable outbound targets",
    ),
    (
        "listen",
        "hermes_hooks.cli.listen_cmd",
        "run a local webhook receiver that verifies and pretty-prints each delivery",
    ),
    (
        "mcp-proxy",
        "hermes_hooks.cli.mcp_proxy_cmd",
        "guard an MCP server: relay a client to it and fire the hooks on every tool call",
    ),
    (
        "hooks",
        "hermes_hooks.cli.catalogue_cmd",
        "print the hook catalogue: every hook, its kind and its payload fields",
    ),
    (
        "schema",
        "hermes_hooks.cli.schema_cmd",
        "print the JSON Schema of an event's shell stdin or webhook body, or a config file",
    ),
    (
        "completion",
        "hermes_hooks.cli.completion_cmd",
        "print a bash, zsh or fish completion script generated from this tool's options",
    ),
)


def build_parser(command: str | None = "") -> argparse.ArgumentParser:
    """The top-level parser with every command's subparser.

    ``command`` names the one command whose arguments are needed: every command is
    listed (from :data:`COMMANDS`), but only that one's module is imported and its
    arguments added (None: none, for the top-level ``--help``).  The default ``""``,
    or a word that is no command (so that argparse reports it as usual), adds every
    command's arguments.  Each command's ``add_arguments`` may import what its choices
    need (the replay host, say), so a command line pays only for its own command.
    """
    parser = argparse.ArgumentParser(
        prog="hermes-hooks",
        description="Inspect, test and run the hooks of a Hermes home.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--home", help="the Hermes home (default: $HERMES_HOME, else ~/.hermes)")
    parser.add_argument(
        "--accept-hooks",
        action="store_true",
        help="approve shell hooks without prompting (as HERMES_ACCEPT_HOOKS=1)",
    )
    parser.add_argument(
        "--no-entry-points",
        action="store_true",
        help="ignore plugins installed as distributions (inspect the home alone)",
    )
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more log output")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    if command is not None and command not in {name for name, _, _ in COMMANDS}:
        command = ""
    for name, module_name, summary in COMMANDS:
        if command not in ("", name):
            # Listed only: no arguments, not even -h (each costs argparse a lookup).
            subparsers.add_parser(name, help=summary, add_help=False)
            continue
        module = importlib.import_module(module_name)
        sub = subparsers.add_parser(
            name,
            help=summary,
            description=summary,
            epilog=getattr(module, "EPILOG", None),  # e.g. a command's own exit codes
        )
        sub.add_argument("--json", action="store_true", help="machine-readable output")
        sub.add_argument("--home", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        # The global switches work after the command name too (``replay --no-entry-points``).
        for flag in ("--accept-hooks", "--no-entry-points"):
            sub.add_argument(
                flag, action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS
            )
        # -v works after the command name too, adding to any given before it.
        sub.add_argument(
            "-v", "--verbose", action="count", default=argparse.SUPPRESS, help=argparse.SUPPRESS
        )
        module.add_arguments(sub)
        sub.set_defaults(run=module.run, creates_home=getattr(module, "CREATES_HOME", False))
    return parser


def _command_word(argv: Sequence[str]) -> str | None:
    """The command a command line names: its first positional word (``--home`` is the
    only top-level option that takes a value), or None when it names none."""
    takes_value = False
    for token in argv:
        if takes_value:
            takes_value = False
            continue
        if token == "--":
            return None
        if token.startswith("-"):
            # --home VALUE, and its abbreviations down to --ho (argparse accepts them).
            takes_value = len(token) >= 4 and "--home".startswith(token)
            continue
        return token
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the tool; return the process exit code."""
    words = list(sys.argv[1:] if argv is None else argv)
    fit_to_encoding(sys.stdout, sys.stderr)
    command = _command_word(words)
    names = [name for name, _, _ in COMMANDS]
    if command is not None and command not in names:
        import difflib  # only a mistyped command pays for it

        close = difflib.get_close_matches(command, names, n=1)
        hint = f"did you mean '{close[0]}'?" if close else f"commands: {', '.join(names)}"
        print(f"hermes-hooks: unknown command '{command}' — {hint}", file=sys.stderr)
        return EXIT_USAGE
    parser = build_parser(command)
    args = parser.parse_args(words)  # prints help, version or a usage error, and exits
    if not getattr(args, "run", None):
        parser.print_help()
        return EXIT_USAGE
    # The command's module has loaded this already (the help never needs it).
    from hermes_hooks.cli._run import run_command

    return run_command(args)
