"""``hermes-hooks import-session`` run as a real command: one file per session whatever
the id looks like, no overwrite without ``--force``, and hostile JSON in a session
store or transcript reported and skipped, never a traceback."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.imports.state_db import StateDb

REPO = Path(__file__).resolve().parents[2]
LONG_ID = "s" * 150 + "/" + "é" * 249  # 400 characters, a separator and non-ASCII ones


def cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hermes_hooks", *argv],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def store(path: Path, *ids: str) -> Path:
    """A session store with one short conversation per id."""
    db = StateDb(path)
    for session_id in ids:
        db.session(session_id, "cli", model="m")
        db.message(session_id, "user", f"hello from {session_id[:20]}")
        db.message(session_id, "assistant", "Hi!", finish_reason="stop")
    db.close()
    return path


def header(path: Path) -> dict[str, Any]:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    return dict(json.loads(first))


def digest(session_id: str) -> str:
    return hashlib.sha256(session_id.encode("utf-8")).hexdigest()[:12]


def test_ids_that_look_alike_get_three_files_and_a_second_import_needs_force(
    tmp_path: Path,
) -> None:
    source = store(tmp_path / "state.db", "team/a", "team:a", "team_a")
    out = tmp_path / "recordings"
    first = cli("import-session", "--from", "hermes", str(source), "-o", str(out))
    assert first.returncode == 0, first.stderr
    names = {
        "team/a": f"team_a-{digest('team/a')}.jsonl",
        "team:a": f"team_a-{digest('team:a')}.jsonl",
        "team_a": "team_a.jsonl",
    }
    assert first.stdout.splitlines() == [
        f"wrote {out / names['team/a']} (session 'team/a')",
        f"wrote {out / names['team:a']} (session 'team:a')",
        f"wrote {out / names['team_a']}",
    ]
    assert sorted(p.name for p in out.iterdir()) == sorted(names.values())
    for session_id, name in names.items():
        assert header(out / name)["session_id"] == session_id
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    again = cli("import-session", "--from", "hermes", str(source), "-o", str(out))
    assert again.returncode == 2
    assert again.stdout == ""
    assert again.stderr == (
        f"hermes-hooks: {out / names['team/a']} already exists (and 2 more recordings of "
        "this import); nothing was written (pass --force to overwrite)\n"
    )
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before

    (out / names["team:a"]).write_text("edited by hand\n", encoding="utf-8")
    forced = cli("import-session", "--from", "hermes", str(source), "-o", str(out), "--force")
    assert forced.returncode == 0, forced.stderr
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_one_session_to_an_existing_file_is_refused_without_force(tmp_path: Path) -> None:
    source = store(tmp_path / "state.db", "only")
    out = tmp_path / "mine.jsonl"
    out.write_text("my notes\n", encoding="utf-8")
    done = cli("import-session", "--from", "hermes", str(source), "-o", str(out))
    assert done.returncode == 2
    assert done.stderr == (
        f"hermes-hooks: {out} already exists; nothing was written (pass --force to overwrite)\n"
    )
    assert out.read_text(encoding="utf-8") == "my notes\n"
    forced = cli("import-session", "--from", "hermes", str(source), "-o", str(out), "--force")
    assert forced.returncode == 0, forced.stderr
    assert forced.stdout == f"wrote {out}\n"
    assert header(out)["session_id"] == "only"


def test_a_400_character_id_gets_a_short_unique_name_that_replays(
    tmp_path: Path, home: Path
) -> None:
    # A shortened name, not an error: the id comes from the agent and cannot be changed,
    # and the hash keeps the name unique and the same on every import.
    assert len(LONG_ID) == 400
    source = store(tmp_path / "state.db", LONG_ID, "short")
    out = tmp_path / "recordings"
    done = cli("import-session", "--json", "--from", "hermes", str(source), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    name = f"{'s' * 100}-{digest(LONG_ID)}.jsonl"
    data = json.loads(done.stdout)
    assert data["sessions"] == {LONG_ID: str(out / name), "short": str(out / "short.jsonl")}
    assert len(name.encode()) < 255
    assert header(out / name)["session_id"] == LONG_ID
    replayed = cli("--home", str(home), "replay", "--json", "--jobs", "1", str(out / name))
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout)["replays"][0]["session_id"] == LONG_ID


def test_hostile_tool_call_arguments_in_a_store_are_skipped_with_the_reason(
    tmp_path: Path,
) -> None:
    db = StateDb(tmp_path / "state.db")
    db.session("s1", "cli", model="m")
    db.message("s1", "user", "go")
    deep = '{"a":' * 5000 + "1" + "}" * 5000
    huge = '{"n": ' + "7" * 5000 + "}"
    for row, arguments in enumerate((deep, huge)):
        calls = [
            {"id": f"c{row}", "type": "function", "function": {"name": "t", "arguments": arguments}}
        ]
        db.message("s1", "assistant", "", tool_calls=json.dumps(calls))
    db.message("s1", "assistant", "done", finish_reason="stop")
    db.close()
    out = tmp_path / "s1.jsonl"
    done = cli("import-session", "--from", "hermes", str(tmp_path / "state.db"), "-o", str(out))
    assert done.returncode == 0, done.stderr
    where = f"{tmp_path / 'state.db'}: messages row"
    assert done.stderr.splitlines() == [
        f"hermes-hooks: {where} 2 (session s1): tool_calls[0].arguments: nested deeper than "
        "64 levels; skipped",
        f"hermes-hooks: {where} 3 (session s1): tool_calls[0].arguments: integer with 5000 "
        "digits is out of range (at most 2**63 - 1); skipped",
    ]
    assert [json.loads(line)["type"] for line in out.read_text().splitlines()] == [
        "header",
        "user",
        "assistant",
    ]


def test_a_hostile_transcript_line_is_skipped_with_its_location(tmp_path: Path, home: Path) -> None:
    transcript = tmp_path / "session.jsonl"
    user = {
        "type": "user",
        "sessionId": "abc",
        "message": {"role": "user", "content": "hello"},
    }
    transcript.write_text(
        json.dumps(user) + "\n" + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8"
    )
    out = tmp_path / "out.jsonl"
    done = cli(
        "--home", str(home), "import-session", "--from", "claude-code", str(transcript),
        "-o", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr == (f"hermes-hooks: {transcript}:2: nested deeper than 64 levels; skipped\n")
    assert header(out)["session_id"] == "abc"


def test_arguments_within_the_limits_alone_but_too_deep_in_a_line_skip_that_row(
    tmp_path: Path,
) -> None:
    # 63 levels read fine on their own, but the arguments sit three levels down in a
    # recording line: the row is skipped where it is known, not the whole import.
    db = StateDb(tmp_path / "state.db")
    db.session("s1", "cli", model="m")
    db.message("s1", "user", "go")
    arguments = '{"a":' * 63 + "1" + "}" * 63
    calls = [{"id": "c1", "type": "function", "function": {"name": "t", "arguments": arguments}}]
    db.message("s1", "assistant", "", tool_calls=json.dumps(calls))
    db.message("s1", "assistant", "done", finish_reason="stop")
    db.close()
    out = tmp_path / "s1.jsonl"
    done = cli("import-session", "--from", "hermes", str(tmp_path / "state.db"), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stderr == (
        f"hermes-hooks: {tmp_path / 'state.db'}: messages row 2 (session s1): nested deeper "
        "than 64 levels (as the recording line this row becomes); skipped\n"
    )
    assert [json.loads(line) for line in out.read_text().splitlines()][1:] == [
        {"type": "user", "text": "go"},
        {"type": "assistant", "text": "done", "finish_reason": "stop"},
    ]
