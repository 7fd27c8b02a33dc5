"""``hermes-hooks replay FILE...``: drive recorded sessions through a home's hooks.

Every file is validated before any is replayed, so a malformed recording stops the
command (exit 2, ``<file>:<line>: <reason>``) before a hook has run.  Each recording is
then replayed on a fresh load of the home (plugins start from a clean state), its
timeline printed, and a summary follows.  ``--fail-on block`` / ``--fail-on error``
turn the replay into a CI gate (exit 1).
"""

from __future__ import annotations

import argparse
from typing import Any

NAME = "replay"
HELP = "replay recorded sessions through the hooks and show what each hook decided"

FAIL_ON = ("block", "error")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Files, the CI gate, the approval policy and display options."""
    from hermes_hooks.host.loop import APPROVAL_POLICIES

    parser.add_argument("files", nargs="+", metavar="FILE", help="session recordings (.jsonl)")
    parser.add_argument(
        "--fail-on",
        action="append",
        choices=FAIL_ON,
        default=[],
        help="exit 1 if any call was blocked (block) or any callback errored or timed "
        "out (error); may be given twice",
    )
    parser.add_argument(
        "--approve",
        choices=APPROVAL_POLICIES,
        default="deny",
        help="answer to hooks that ask for approval: deny (default; the call is blocked) "
        "or allow (it runs once)",
    )
    parser.add_argument(
        "--surface",
        choices=("cli", "gateway"),
        default=None,
        help="the surface to load (default: cli for platform cli/tui, else gateway)",
    )
    parser.add_argument(
        "--all-steps",
        action="store_true",
        help="also show firings that no callback listened to",
    )
    parser.add_argument(
        "--flush-timeout",
        type=float,
        default=2.0,
        metavar="SECONDS",
        help="how long to wait for queued webhook deliveries at the end (default 2)",
    )
    parser.add_argument(
        "--otlp-endpoint",
        metavar="URL",
        default=None,
        help="export the replay's spans over OTLP/HTTP to this collector address "
        "(such as http://127.0.0.1:4318; needs the hermes-hooks[otel-export] extra)",
    )


def _surface(platform: str, chosen: str | None) -> str:
    if chosen:
        return chosen
    return "cli" if platform in ("cli", "tui") else "gateway"


def run(args: argparse.Namespace) -> int:
    """Validate every file, replay each on a fresh load, print timelines and summary;
    with ``--otlp-endpoint``, every firing's span goes to that collector too."""
    endpoint = getattr(args, "otlp_endpoint", None)
    if not endpoint:
        return _replay(args)
    from hermes_hooks._otlp import exporting

    with exporting(endpoint):
        return _replay(args)


def _replay(args: argparse.Namespace) -> int:
    from hermes_hooks import load
    from hermes_hooks.cli import EXIT_FAILURE, EXIT_OK, print_json
    from hermes_hooks.host.loop import ReferenceHost
    from hermes_hooks.host.recording import load_recording
    from hermes_hooks.host.timeline import Summary, render_text, summary_lines
    from hermes_hooks.telemetry import replay_span

    recordings = [load_recording(path) for path in args.files]  # RecordingError -> exit 2
    home = getattr(args, "home", None)
    accept = getattr(args, "accept_hooks", False)
    total = Summary()
    results: list[dict[str, Any]] = []
    for number, recording in enumerate(recordings):
        hooks = load(
            home, surface=_surface(recording.header.platform, args.surface), accept_hooks=accept
        )
        host = ReferenceHost(hooks, approve=args.approve)
        try:
            with replay_span(recording.path):  # one trace per recording
                timeline = host.replay(recording)
        finally:
            host.finish(args.flush_timeout)
        total.add(timeline.summary)
        if args.json:
            results.append(timeline.as_dict())
            continue
        if number:
            print()
        print("\n".join(render_text(timeline, all_steps=args.all_steps)))
    failed = [
        reason
        for reason, hit in (
            ("block", total.calls_blocked > 0),
            ("error", total.errors + total.timeouts > 0),
        )
        if reason in args.fail_on and hit
    ]
    if args.json:
        from dataclasses import asdict

        print_json({"replays": results, "summary": asdict(total), "failed_on": failed})
    elif len(recordings) > 1:
        print()
        print("\n".join(["Total of all recordings", *summary_lines(total)[1:]]))
    if failed and not args.json:
        print(f"\nreplay failed: --fail-on {' and '.join(failed)}")
    return EXIT_FAILURE if failed else EXIT_OK
