"""``hermes-hooks import-session --from hermes|claude-code SRC -o OUT``: turn real
sessions into recordings that ``replay`` drives through a home's hooks.

``--from hermes`` reads Hermes Agent's session store (``state.db``, or a Hermes home
holding one) or a trajectory file (``*.jsonl``); ``--from claude-code`` reads a
Claude Code transcript, or a directory of them (``~/.claude/projects/<project>/``).
One recording per session: ``OUT`` is the file when there is one session, else (or
when it is a directory, or ends with ``/``) a directory that receives
``<session>.jsonl`` files.  ``--session ID`` picks one
session.  Rows that cannot be read or placed are reported on stderr with their
location and skipped; nothing is guessed.

Exit codes: 0 written (skipped rows, if any, were reported); 2 bad usage or input
(the source is missing or of the wrong kind, no such session, no session found).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hermes_hooks.host.import_draft import Draft, ImportReport


EPILOG = (
    "Rows that cannot be read or placed are reported on stderr with their location and "
    "skipped. Exit codes: 0 written; 2 bad usage or input (missing source, wrong kind, no "
    "such session)."
)

SOURCES = ("hermes", "claude-code")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The source kind, the source, the output and the session filter."""
    parser.add_argument(
        "--from",
        dest="source_kind",
        choices=SOURCES,
        required=True,
        help="hermes: a state.db, a Hermes home, or a trajectory .jsonl; claude-code: a "
        "transcript .jsonl or a directory of them",
    )
    parser.add_argument("source", metavar="SRC", help="where the sessions are")
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUT",
        help="the recording file (one session) or a directory (one <session>.jsonl each)",
    )
    parser.add_argument("--session", metavar="ID", help="import only this session")


def _hermes(source: Path, report: ImportReport, session: str | None) -> Iterator[tuple[str, Draft]]:
    from hermes_hooks.errors import RecordingError
    from hermes_hooks.host.import_hermes import SQLITE_MAGIC, read_state_db, read_trajectories

    if source.is_dir():
        source = source / "state.db"
    try:
        with source.open("rb") as stream:
            magic = stream.read(len(SQLITE_MAGIC))
    except FileNotFoundError:
        raise RecordingError(f"{source}: no such file") from None
    except OSError as exc:
        raise RecordingError(f"{source}: cannot read ({exc.strerror or exc})") from None
    if magic == SQLITE_MAGIC:
        yield from read_state_db(source, report, session)
        return
    for session_id, draft in read_trajectories(source, report):
        if session is None or session_id == session:
            yield session_id, draft


def _claude(
    source: Path, report: ImportReport, session: str | None, home: str | None
) -> Iterator[tuple[str, Draft]]:
    from hermes_hooks.adapters.shell.dialects.claude_tools import tool_table
    from hermes_hooks.config import read_config, resolve_home
    from hermes_hooks.errors import RecordingError
    from hermes_hooks.host.import_claude import read_transcript, transcripts

    if not source.exists():
        raise RecordingError(f"{source}: no such file or directory")
    config = read_config(resolve_home(home))  # hooks_claude_tools: extends the table
    table = tool_table(
        config, lambda message, narrows=False: report.note("hooks_claude_tools", message)
    )
    for path in transcripts(source):
        draft = read_transcript(path, table, report)
        if draft is None:
            continue
        session_id = str(draft.header["session_id"])
        if session is None or session_id == session:
            yield session_id, draft


def run(args: argparse.Namespace) -> int:
    """Read the sessions, write one recording each, report what was skipped."""
    from hermes_hooks.cli import EXIT_OK, print_json
    from hermes_hooks.errors import RecordingError
    from hermes_hooks.host.import_draft import ImportReport

    report = ImportReport()
    source = Path(args.source).expanduser()
    found = (
        _hermes(source, report, args.session)
        if args.source_kind == "hermes"
        else _claude(source, report, args.session, getattr(args, "home", None))
    )
    drafts = []
    for session_id, draft in found:
        if draft.empty:
            report.skip(f"session {session_id}", "no user message")
            continue
        drafts.append((session_id, draft.lines()))
    for problem in report.problems:
        print(f"hermes-hooks: {problem}", file=sys.stderr)
    if not drafts:
        which = f"no session {args.session!r}" if args.session else "no session"
        raise RecordingError(f"{source}: {which} with a user message found")
    output = Path(args.output)
    directory = output.is_dir() or args.output.endswith(("/", "\\"))
    written = []
    if len(drafts) == 1 and not directory:
        output.parent.mkdir(parents=True, exist_ok=True)
        written.append(_write(output, drafts[0][1]))
    else:
        output.mkdir(parents=True, exist_ok=True)
        for session_id, lines in drafts:
            safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in session_id)
            written.append(_write(output / f"{safe}.jsonl", lines))
    if args.json:
        print_json({"written": written, "skipped": report.problems})
    else:
        for path in written:
            print(f"wrote {path}")
    return EXIT_OK


def _write(path: Path, lines: list[dict[str, object]]) -> str:
    path.write_text(
        "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8"
    )
    return str(path)
