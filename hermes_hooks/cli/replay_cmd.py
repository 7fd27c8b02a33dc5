"""``hermes-hooks replay PATH...``: drive recorded sessions through a home's hooks.

Safe by default: each recording is replayed on a throw-away copy of the home (the real
one never changes) and outbound webhooks are built and signed but captured, not sent;
``--in-place`` and ``--live-webhooks`` lift those.  PATH is a file, a directory (every
``*.jsonl`` under it) or a glob.  Every file is validated before any is replayed, so a
malformed or hostile recording stops the command (exit 2, ``<file>:<line>: <reason>``)
before a hook has run.  Recordings are replayed in ``--jobs`` processes, each on a
fresh load; each timeline is printed as it is produced (in file order) and one summary
follows.  ``--fail-on block`` / ``--fail-on error`` turn the replay into a CI gate
(exit 1); ``--junit-xml`` writes the report CI systems read.

Exit codes: 0 replayed and no ``--fail-on`` hit; 1 a ``--fail-on`` hit, or a recording
whose worker process died (the others keep their results); 2 bad usage or input (no
recording matched, a malformed recording, a config error).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from hermes_hooks._escape import escape_json, escape_lines
from hermes_hooks.cli import EXIT_FAILURE, EXIT_OK, EXIT_USAGE
from hermes_hooks.cli._stdout import hook_output_to_stderr
from hermes_hooks.errors import RecordingError
from hermes_hooks.host.job import FAIL_ON, ReplayOptions, replay_file, write_to
from hermes_hooks.host.junit import write_junit
from hermes_hooks.host.loop import APPROVAL_POLICIES
from hermes_hooks.host.recording import scan_recording
from hermes_hooks.host.timeline import Summary, summary_lines
from hermes_hooks.host.worker import run_in_worker
from hermes_hooks.telemetry.otlp import exporting

if TYPE_CHECKING:
    from hermes_hooks.host.job import ReplayResult
    from hermes_hooks.host.recording import Header

EPILOG = (
    "Safe by default: the home is replayed on a temporary copy and outbound webhooks are "
    "captured, not sent (--in-place, --live-webhooks). Exit codes: 0 replayed, no "
    "--fail-on hit; 1 a --fail-on hit, or a recording not replayed because its worker "
    "process died; 2 bad usage or input (nothing matched, a malformed or hostile recording)."
)

#: A recording that takes longer than this shows a progress line on a terminal.
PROGRESS_AFTER = 1.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Paths, the CI gate, safety switches, the approval policy and display options."""

    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="session recordings: .jsonl files, directories (every *.jsonl under them) or globs",
    )
    parser.add_argument(
        "--fail-on",
        action="append",
        choices=FAIL_ON,
        default=[],
        help="exit 1 if any call was blocked (block) or any callback failed: raised, "
        "timed out, hung, a shell hook not found / not executable / killed / with "
        "unreadable output, a gateway handler failed, or the home did not load whole: "
        "an ERROR at load, a plugin or handler that failed to import, a gate not "
        "approved (error); may be given twice",
    )
    parser.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=os.cpu_count() or 1,
        metavar="N",
        help="replay N recordings at once, in separate processes (default: the CPU count)",
    )
    parser.add_argument(
        "--junit-xml",
        metavar="FILE",
        help="also write a JUnit XML report: one test case per recording, one failure "
        "per --fail-on hit",
    )
    parser.add_argument(
        "--live-webhooks",
        action="store_true",
        help="send outbound webhooks for real (default: build, sign and show them, but "
        "do not send: a replay must not post old events to live endpoints)",
    )
    parser.add_argument(
        "--in-place",
        action="store_true",
        help="load the home itself instead of a temporary copy (default: a copy, so "
        "audit logs, allowlists, outboxes and plugin state in the home stay untouched)",
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


_GLOB = frozenset("*?[")


def expand_paths(paths: list[str]) -> list[str]:
    """Files, directories (their ``*.jsonl`` files, recursively, sorted) and globs
    (sorted matches), in the order given.  A directory or pattern that matches nothing
    is a usage error (a missing file is reported when it is read)."""

    found: list[str] = []
    for given in paths:
        if os.path.isdir(given):
            matched = sorted(str(p) for p in Path(given).rglob("*.jsonl") if p.is_file())
            if not matched:
                raise RecordingError(f"{given}: directory holds no *.jsonl recordings")
        elif not os.path.exists(given) and _GLOB & set(given):
            matched = sorted(p for p in glob.glob(given, recursive=True) if os.path.isfile(p))
            if not matched:
                raise RecordingError(f"{given}: no recording matches this pattern")
        else:
            matched = [given]
        found.extend(matched)
    return found


class _Progress:
    """A progress line on stderr for a recording that takes more than a second,
    shown only when stderr is a terminal."""

    def __init__(self, name: str, total: int) -> None:
        self.name = name
        self.total = total
        self.started = time.monotonic()
        self.drawn = 0.0
        self.shown = False

    def __call__(self, done: int) -> None:
        now = time.monotonic()
        if now - self.started < PROGRESS_AFTER or now - self.drawn < 0.1:
            return
        self.drawn, self.shown = now, True
        sys.stderr.write(f"\rreplaying {self.name}: {done}/{self.total} entries")
        sys.stderr.flush()

    def clear(self) -> None:
        if self.shown:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


def _options(args: argparse.Namespace) -> ReplayOptions:

    return ReplayOptions(
        home=getattr(args, "home", None),
        surface=args.surface,
        approve=args.approve,
        accept_hooks=getattr(args, "accept_hooks", False),
        entry_points=not getattr(args, "no_entry_points", False),
        live_webhooks=args.live_webhooks,
        in_place=args.in_place,
        flush_timeout=args.flush_timeout,
        all_steps=args.all_steps,
        json=args.json,
        fail_on=tuple(dict.fromkeys(args.fail_on)),
    )


def _run_all(
    jobs: list[tuple[str, Header, int]],
    options: ReplayOptions,
    workers: int,
    report: IO[str],
    separator: Callable[[int], str],
) -> list[ReplayResult]:

    results: list[ReplayResult] = []
    write = write_to(report)
    if workers <= 1 or len(jobs) <= 1:
        tty = sys.stderr.isatty()
        for number, (path, header, count) in enumerate(jobs):
            write(separator(number))
            progress = _Progress(path, count + 2) if tty else None
            try:
                results.append(replay_file(path, header, options, write, progress))
            finally:
                if progress is not None:
                    progress.clear()
        return results

    # Each recording in its own worker process; the threads here only wait for them.
    with ThreadPoolExecutor(min(workers, len(jobs))) as pool:
        done = pool.map(lambda job: run_in_worker(job[0], job[1], options), jobs)
        for number, result in enumerate(done):
            write(separator(number) + result.output)
            results.append(result)
    return results


def run(args: argparse.Namespace) -> int:
    """Validate every recording, replay them, print timelines and one summary; with
    ``--otlp-endpoint``, every firing's span goes to that collector too (the
    recordings then replay in this process, where the exporter is)."""
    endpoint = getattr(args, "otlp_endpoint", None)
    if not endpoint:
        return _replay(args)

    args.jobs = 1
    with exporting(endpoint):
        return _replay(args)


def _replay(args: argparse.Namespace) -> int:

    if args.jobs < 1:
        print("hermes-hooks: --jobs must be at least 1", file=sys.stderr)
        return EXIT_USAGE
    paths = expand_paths(args.paths)  # RecordingError -> exit 2
    jobs = [(path, *scan_recording(path)) for path in paths]  # before any hook runs
    options = _options(args)
    js = options.json

    def separator(number: int) -> str:
        if js:
            return '{"replays": [\n' if number == 0 else ",\n"
        return "" if number == 0 else "\n"

    with hook_output_to_stderr() as report:
        results = _run_all(jobs, options, args.jobs, report, separator)
        total = Summary()
        for result in results:
            total.add(result.summary)
        failed = [
            reason
            for reason in FAIL_ON
            if any(reason in r.failed_on(options.fail_on) for r in results)
        ]
        # A recording whose worker died was not replayed: never a pass, --fail-on or not.
        crashed = [r for r in results if r.crashed]
        if js:
            tail = {
                "summary": asdict(total),
                "failed_on": failed,
                "crashed": [r.path for r in crashed],
            }
            tail_json = escape_json(json.dumps(tail, ensure_ascii=False, indent=2))
            report.write("\n], " + tail_json[1:] + "\n")
        else:
            if len(results) > 1:
                lines = ["", "Total of all recordings", *summary_lines(total)[1:]]
                report.write(escape_lines(lines) + "\n")
            if failed or crashed:
                report.write(_failure_text(results, failed, crashed))
        report.flush()
    if args.junit_xml:
        write_junit(args.junit_xml, results, options.fail_on, getattr(args, "home", None))
    return EXIT_FAILURE if failed or crashed else EXIT_OK


def _failure_text(results: list[Any], failed: list[str], crashed: list[Any]) -> str:

    causes = [f"--fail-on {' and '.join(failed)}"] if failed else []
    if crashed:
        count = len(crashed)
        causes.append(f"{count} recording{'s' if count > 1 else ''} not replayed")
    lines = ["", f"replay failed: {'; '.join(causes)}"]
    for result in results:
        if result.crashed:
            lines.append(f"  {result.path}: not replayed: {result.crashed}")
        for hit in result.hits:
            lines.append(f"  {result.path}: {hit.describe()}")
    return escape_lines(lines) + "\n"
