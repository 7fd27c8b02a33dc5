"""``hermes-hooks mcp-proxy [--name NAME] -- COMMAND [ARGS...]``: guard any MCP server.

Starts COMMAND as the upstream MCP server (a child in its own process group, talking
over its stdin and stdout) and serves the MCP client on this process's stdin and
stdout (or, with ``--listen HOST:PORT``, MCP clients over streamable HTTP at
``http://HOST:PORT/mcp``, one upstream per client session), firing the home's hooks on
every ``tools/call`` under the name ``mcp__<NAME>__<tool>``.  Everything hooks print
goes to stderr, which MCP clients keep as the server's log.  Needs the ``mcp`` extra
(``pip install 'hermes-hooks[mcp]'``).

MCP clients pass only a few environment variables to the servers they start, so give
the home with ``--home`` in the server entry rather than relying on ``HERMES_HOME``.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hermes_hooks.cli import EXIT_FAILURE, EXIT_OK, EXIT_USAGE

EPILOG = (
    "Example server entry: command hermes-hooks, args [mcp-proxy, --home, /home/me/.hermes, "
    "--name, files, --, npx, -y, @modelcontextprotocol/server-filesystem, /srv]. "
    "Tool definitions must be approved (hermes-hooks approve mcp__files__*) or accepted "
    "for a run (--accept-hooks); a changed definition is hidden and refused. Over HTTP: "
    "--listen 127.0.0.1:8931 -- COMMAND serves http://127.0.0.1:8931/mcp, starting one "
    "COMMAND per client session. Exit codes: 0 the client closed the session (or a "
    "signal stopped the listening proxy); 1 the upstream could not be started or the "
    "address not bound; 2 bad usage."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The server name, the tool filter, the approval policy and the upstream command."""
    parser.add_argument(
        "--name",
        help="the server's name in the client's configuration: hooks see its tools as "
        "mcp__NAME__TOOL (default: from the command)",
    )
    parser.add_argument(
        "--allow-tool",
        action="append",
        default=[],
        metavar="PATTERN",
        help="list and allow only tools matching PATTERN (a glob on the tool's own or "
        "mcp__ name; repeatable)",
    )
    parser.add_argument(
        "--deny-tool",
        action="append",
        default=[],
        metavar="PATTERN",
        help="hide and refuse tools matching PATTERN (repeatable; wins over --allow-tool)",
    )
    parser.add_argument(
        "--approve",
        choices=("deny", "allow"),
        default="deny",
        help="what a hook's approval request gets: no human is at hand (default: deny)",
    )
    parser.add_argument(
        "--call-timeout",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="answer a tools/call the upstream has not answered in time with an error "
        "(default 0: wait as long as the client does)",
    )
    parser.add_argument(
        "--upstream-url",
        metavar="URL",
        help="reach the upstream over streamable HTTP at URL instead of starting COMMAND",
    )
    parser.add_argument(
        "--listen",
        metavar="HOST:PORT",
        help="serve clients over streamable HTTP at http://HOST:PORT/mcp instead of "
        "stdio; each client session gets its own upstream (port 0: any free port, "
        "printed on stderr). Only loopback addresses unless --allow-remote",
    )
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="let --listen bind an address other machines can reach (no authentication: "
        "anyone who reaches the port can call the guarded tools)",
    )
    parser.add_argument(
        "--idle-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="with --listen: end a session (and its upstream) after SECONDS with no "
        "request in flight and no open stream, as a client that vanished without ending "
        "it leaves it (default 1800)",
    )
    parser.add_argument(
        "--record",
        metavar="PATH",
        help="write the session's tool calls as a recording that hermes-hooks replay runs "
        "(with --listen: one file per session, PATH's name followed by the session id)",
    )
    parser.add_argument("upstream", nargs=argparse.REMAINDER, help="-- COMMAND [ARGS...]")


def run(args: argparse.Namespace) -> int:
    """Load the home, then relay until the client ends the session."""
    command = list(args.upstream)
    if command[:1] == ["--"]:
        command = command[1:]
    if bool(command) == bool(args.upstream_url):
        print(
            "hermes-hooks: mcp-proxy needs the upstream server: -- COMMAND [ARGS...] "
            "or --upstream-url URL (one of them)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    try:
        from hermes_hooks.integrations.mcp import stdio
        from hermes_hooks.integrations.mcp.proxy import Options, Proxy
        from hermes_hooks.integrations.mcp.upstreams import HttpUpstream, StdioUpstream
    except ImportError as exc:
        print(
            f"hermes-hooks: mcp-proxy needs the MCP SDK ({exc.name} is missing): "
            "pip install 'hermes-hooks[mcp]'",
            file=sys.stderr,
        )
        return EXIT_USAGE
    from hermes_hooks.cli._run import load_home
    from hermes_hooks.cli._stdout import hook_output_to_stderr
    from hermes_hooks.integrations.mcp.naming import default_server_name, normalise
    from hermes_hooks.integrations.mcp.pins import ToolPins

    if args.upstream_url:
        upstream: HttpUpstream | StdioUpstream = HttpUpstream(args.upstream_url)
        fallback = default_server_name([args.upstream_url.rstrip("/").rsplit("/mcp", 1)[0]])
    else:
        upstream, fallback = StdioUpstream(command), default_server_name(command)
    options = Options(
        server=normalise(args.name) if args.name else fallback,
        accept=bool(getattr(args, "accept_hooks", False)),
        approve=args.approve,
        allow=tuple(args.allow_tool),
        deny=tuple(args.deny_tool),
        call_timeout=args.call_timeout,
        record=Path(args.record).expanduser().absolute() if args.record else None,
    )
    if not args.name:
        # A matcher written for the client's key (mcp__files__.*) would silently stop
        # matching under a guessed name: say which name the hooks see.
        print(
            f"hermes-hooks: warning: no --name; hooks see this server's tools as "
            f"mcp__{options.server}__<tool>. Pass --name with the server's key in the "
            "client's configuration so that matchers written for it match.",
            file=sys.stderr,
        )
    if args.listen:
        return _listen(args, options, upstream_factory(args, command))
    stdin = sys.stdin
    with hook_output_to_stderr() as protocol_out:
        # Strict: a config.yaml that cannot be used as written would otherwise serve
        # the client without the gates it names; refusing to start is loud (the client
        # shows the server failed, with this message in its log) and fails closed.
        hooks = load_home(args, strict=True)
        try:
            proxy = Proxy(hooks, options, ToolPins(hooks.home), upstream)
            try:
                asyncio.run(stdio.serve_stdio(proxy, stdin, protocol_out))
            except OSError as exc:
                what = args.upstream_url or command[0]
                print(f"hermes-hooks: cannot start {what!r}: {exc}", file=sys.stderr)
                return EXIT_FAILURE
        finally:
            hooks.close()
    return EXIT_OK


def upstream_factory(args: argparse.Namespace, command: list[str]) -> Callable[[], Any]:
    """A fresh upstream per call: each HTTP client session gets its own."""
    from hermes_hooks.integrations.mcp.upstreams import HttpUpstream, StdioUpstream

    if args.upstream_url:
        return lambda: HttpUpstream(args.upstream_url)
    return lambda: StdioUpstream(command)


def _listen(args: argparse.Namespace, options: Any, new_upstream: Callable[[], Any]) -> int:
    """Serve clients over streamable HTTP until a signal stops the proxy."""
    from hermes_hooks.cli._run import load_home
    from hermes_hooks.integrations.mcp import listen
    from hermes_hooks.integrations.mcp.pins import ToolPins
    from hermes_hooks.integrations.mcp.proxy import Proxy

    try:
        host, port = listen.parse_listen(args.listen)
    except ValueError as exc:
        print(f"hermes-hooks: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if not listen.is_loopback(host) and not args.allow_remote:
        print(
            f"hermes-hooks: --listen {args.listen}: {host} is not a loopback address, so "
            "other machines could call the tools without any authentication; listen on "
            "127.0.0.1, or add --allow-remote if that network is trusted",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if args.idle_timeout is not None and not 0 < args.idle_timeout < float("inf"):
        print(
            f"hermes-hooks: --idle-timeout {args.idle_timeout}: give a positive number of seconds",
            file=sys.stderr,
        )
        return EXIT_USAGE
    hooks = load_home(args, strict=True)  # strict for the reason given for stdio
    try:
        try:
            sock = listen.bind(host, port)
        except OSError as exc:
            print(f"hermes-hooks: cannot listen on {args.listen}: {exc}", file=sys.stderr)
            return EXIT_FAILURE
        pins = ToolPins(hooks.home)

        def open_proxy(session_id: str) -> Proxy:
            record = options.record
            if record is not None:  # one recording per session: they would overwrite
                record = record.with_name(f"{record.stem}.{session_id}{record.suffix}")
            session_options = dataclasses.replace(options, record=record)
            return Proxy(hooks, session_options, pins, new_upstream(), session_id=session_id)

        bound = sock.getsockname()[1]
        shown = f"[{host}]" if ":" in host else host
        print(
            f"hermes-hooks: mcp-proxy listening on http://{shown}:{bound}{listen.PATH}",
            file=sys.stderr,
            flush=True,
        )
        idle = args.idle_timeout or listen.IDLE_TIMEOUT
        return asyncio.run(listen.serve_http(open_proxy, sock, host, idle))
    finally:
        hooks.close()
