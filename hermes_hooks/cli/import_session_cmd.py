"""``hermes-hooks import-session --from hermes|claude-code SRC -o OUT``: turn real
sessions into recordings that ``replay`` drives through a home's hooks.

``--from hermes`` reads Hermes Agent's session store (``state.db``, or a Hermes home
holding one) or a trajectory file (``*.jsonl``); ``--from claude-code`` reads a
Claude Code transcript, or a directory of them (``~/.claude/projects/<project>/``).
One recording per session: ``OUT`` is the file when there is one session, else (or
when it is a directory, or ends with ``/``) a directory that receives one file per
session, named by :func:`file_name` (unique per session id, whatever characters or
length the id has).  ``--session ID`` picks one session.  An existing recording is
overwritten only with ``--force``; without it nothing is written.  Rows that cannot be
read or placed are reported on stderr with their location and skipped; nothing is
guessed.

Exit codes: 0 written (skipped rows, if any, were reported); 2 bad usage or input
(the source is missing or of the wrong kind, no such session, no session found, a
recording exists and ``--force`` was not given, the output cannot be written).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import string
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_hooks.claude.import_transcript import read_transcript, transcripts
from hermes_hooks.claude.tools import tool_table
from hermes_hooks.cli import EXIT_OK
from hermes_hooks.cli._run import print_json
from hermes_hooks.config import read_config, resolve_home
from hermes_hooks.errors import RecordingError
from hermes_hooks.host.import_draft import ImportReport
from hermes_hooks.host.import_hermes import (
    SQLITE_MAGIC,
    claude_code_line,
    read_state_db,
    read_trajectories,
)
from hermes_hooks.host.recording_lines import JsonRefused, decode_limited

if TYPE_CHECKING:
    from hermes_hooks.host.import_draft import Draft


EPILOG = (
    "Rows that cannot be read or placed are reported on stderr with their location and "
    "skipped. Existing recordings are overwritten only with --force. Exit codes: 0 "
    "written; 2 bad usage or input (missing source, wrong kind, no such session, a "
    "recording exists without --force)."
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
    parser.add_argument(
        "--force",
        action="store_true",
        help="overwrite recordings that already exist (default: refuse and write nothing)",
    )


#: Characters a session id may keep in its file name as they are: portable on every
#: file system (no separators, no reserved characters, nothing a shell expands).
_SAFE = frozenset(string.ascii_letters + string.digits + "-_.")
#: The longest session id used whole as a file name; longer ones are cut and hashed
#: (file systems allow 255 bytes, and the name gets a hash and ".jsonl").
_MAX_NAME = 100


def file_name(session_id: str, *, hashed: bool = False) -> str:
    """The file name of a session's recording: ``<id>.jsonl`` when the id is short and
    made of letters, digits, ``-``, ``_`` and ``.`` only (and ``hashed`` is false);
    otherwise the id with every other character replaced by ``_``, cut to its first
    100 characters, then ``-`` and 12 hex digits of the id's SHA-256.  So ``team/a``,
    ``team:a`` and ``team_a`` get three different names, the same id always gets the
    same name (a second import finds the file the first wrote), and no id is too long
    for a file system or needs refusing.
    """
    whole = 0 < len(session_id) <= _MAX_NAME and set(session_id) <= _SAFE
    if whole and not hashed and not session_id.startswith("."):  # no hidden files, no ".."
        return f"{session_id}.jsonl"
    safe = "".join(c if c in _SAFE else "_" for c in session_id[:_MAX_NAME]).lstrip(".")
    digest = hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{safe}-{digest}.jsonl" if safe else f"{digest}.jsonl"


def _hermes(source: Path, report: ImportReport, session: str | None) -> Iterator[tuple[str, Draft]]:

    if source.is_dir():
        _refuse_claude_folder(source)
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


def _refuse_claude_folder(folder: Path) -> None:
    """A folder of Claude Code transcripts (``~/.claude/projects/<project>/``) given to
    ``--from hermes`` is refused with the option that reads it, rather than as a home
    without ``state.db``."""
    if (folder / "state.db").exists():
        return
    first = next(iter(sorted(folder.glob("*.jsonl"))), None)
    if first is None:
        return
    try:
        with first.open(encoding="utf-8") as stream:
            line = next((text for text in stream if text.strip()), "")
        entry = decode_limited(line) if line else None
    except (OSError, UnicodeDecodeError, JsonRefused):
        return
    if claude_code_line(entry):
        raise RecordingError(
            f"{folder}: holds Claude Code transcripts ({first.name}), not a Hermes session "
            "store; import them with --from claude-code"
        )


def _claude(
    source: Path, report: ImportReport, session: str | None, home: str | None
) -> Iterator[tuple[str, Draft]]:

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
    if len(drafts) == 1 and not directory:
        targets = [(output, drafts[0][0], drafts[0][1])]
    else:
        targets = _directory_targets(output, drafts)
    if not args.force:
        _refuse_existing([path for path, _, _ in targets])
    written = [_write(path, lines) for path, _, lines in targets]
    if args.json:
        print_json(
            {
                "written": written,
                "sessions": {session_id: str(path) for path, session_id, _ in targets},
                "skipped": report.problems,
            }
        )
    else:
        for path, session_id, _ in targets:
            # Name the session where the file name does not (an id changed to be a name).
            plain = len(targets) == 1 or path.name == f"{session_id}.jsonl"
            print(f"wrote {path}" if plain else f"wrote {path} (session {session_id!r})")
    return EXIT_OK


def _directory_targets(
    output: Path, drafts: list[tuple[str, list[dict[str, object]]]]
) -> list[tuple[Path, str, list[dict[str, object]]]]:
    """One file per session under ``output``; two sessions never share one."""
    # Names are compared case-blind: on macOS and Windows "A.jsonl" and "a.jsonl" are one
    # file.  Ids that differ only in case get the hashed form of their name.
    plain = [file_name(session_id).casefold() for session_id, _ in drafts]
    shared = {name for name in plain if plain.count(name) > 1}
    targets = []
    taken: set[str] = set()
    for (session_id, lines), folded in zip(drafts, plain, strict=True):
        name = file_name(session_id, hashed=folded in shared)
        stem, number = name.removesuffix(".jsonl"), 1
        # Still taken: the same id in two sources (two transcripts of one session).
        while name.casefold() in taken:
            number += 1
            name = f"{stem}-{number}.jsonl"
        taken.add(name.casefold())
        targets.append((output / name, session_id, lines))
    return targets


def _refuse_existing(paths: list[Path]) -> None:
    """Refuse, before writing anything, when a recording would be overwritten."""

    existing = [path for path in paths if path.exists() or path.is_symlink()]
    if not existing:
        return
    more = len(existing) - 1
    which = f"{existing[0]} already exists" + (
        f" (and {more} more recording{'s' if more > 1 else ''} of this import)" if more else ""
    )
    raise RecordingError(f"{which}; nothing was written (pass --force to overwrite)")


def _write(path: Path, lines: list[dict[str, object]]) -> str:

    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise RecordingError(f"{path}: cannot write ({exc.strerror or exc})") from None
    return str(path)
