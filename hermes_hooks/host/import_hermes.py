"""Reading Hermes Agent sessions into recordings: its session store (the SQLite
``state.db``) and its trajectory files (``trajectory_samples.jsonl``).

The session store has a ``sessions`` table (``id``, ``source`` = the platform,
``model``, ``user_id``, ``chat_id``, ``chat_type``, ``thread_id``, ``session_key``,
``cwd``, ``billing_provider``, ``started_at`` ...) and a ``messages`` table (``id``
in insertion order, ``session_id``, ``role``, ``content``, ``tool_calls`` as JSON,
``tool_call_id``, ``tool_name``, ``finish_reason``, ``reasoning``, ``active``).  Rows
a rewind deactivated (``active = 0``) are not part of the conversation and are left
out.  Structured content is stored as ``"\\x00json:"`` + JSON.  The database is
opened read-only.

A trajectory line is ``{"conversations": [{"from": "system" | "human" | "gpt" |
"tool", "value": ...}], "model": ..., "completed": ...}``; ``gpt`` values carry
``<tool_call>{json}</tool_call>`` blocks and ``tool`` values
``<tool_response>{json}</tool_response>`` blocks.  The model's calls carry no ids
there: they are numbered within the session, and responses answer them in order.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hermes_hooks.errors import RecordingError
from hermes_hooks.host.import_draft import Draft, ImportReport
from hermes_hooks.host.recording_lines import JsonRefused, decode_limited

__all__ = ["SQLITE_MAGIC", "read_state_db", "read_trajectories"]

SQLITE_MAGIC = b"SQLite format 3\x00"
_JSON_PREFIX = "\x00json:"
_SESSION_COLUMNS = ("id", "source", "model", "started_at")
_MESSAGE_COLUMNS = ("id", "session_id", "role", "content", "tool_calls", "tool_call_id")
#: Roles that are not conversation turns (kept out of the recording silently).
_NOT_TURNS = frozenset({"system", "session_meta"})


def _text(content: Any) -> str | None:
    """Message content as text: a string, or the text parts of a multimodal list."""
    if isinstance(content, str) and content.startswith(_JSON_PREFIX):
        try:
            content = decode_limited(content[len(_JSON_PREFIX) :])
        except JsonRefused:
            return None
    if content is None or isinstance(content, str):
        return content or ""
    if isinstance(content, list):
        parts = [
            p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"
        ]
        return "\n".join(parts)
    return None


def _calls(raw: Any, where: str, report: ImportReport) -> list[dict[str, Any]] | None:
    """The OpenAI-shaped ``tool_calls`` JSON of a row as recording calls (None: bad)."""
    # Every JSON text of the store is read within the recording reader's limits: a
    # hostile row is skipped with its reason, never a traceback or a bad recording.
    try:
        calls = decode_limited(raw) if isinstance(raw, str) else raw
    except JsonRefused as exc:
        report.skip(where, f"tool_calls: {exc}")
        return None
    if calls in (None, ""):
        return []
    if not isinstance(calls, list):
        report.skip(where, "tool_calls is not a list")
        return None
    result = []
    for index, call in enumerate(calls):
        function = call.get("function") if isinstance(call, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        call_id = call.get("id") if isinstance(call, dict) else None
        if not isinstance(name, str) or not name or not isinstance(call_id, str) or not call_id:
            report.skip(where, f"tool_calls[{index}] has no id or function name")
            return None
        arguments = function.get("arguments", "{}") if isinstance(function, dict) else "{}"
        if isinstance(arguments, str):
            try:
                arguments = decode_limited(arguments) if arguments.strip() else {}
            except JsonRefused as exc:
                report.skip(where, f"tool_calls[{index}].arguments: {exc}")
                return None
        if not isinstance(arguments, dict):
            report.skip(where, f"tool_calls[{index}].arguments is not an object")
            return None
        result.append({"id": call_id, "name": name, "arguments": arguments})
    return result


def _tool_fields(tool: str | None, content: str) -> dict[str, Any]:
    """A tool result's recording fields; a terminal result's JSON (``output``,
    ``exit_code``) becomes ``output``/``returncode`` so its output transform fires."""
    if tool == "terminal":
        try:
            data = decode_limited(content)
        except JsonRefused:
            data = None
        if isinstance(data, dict) and isinstance(data.get("output"), str):
            code = data.get("exit_code")
            returncode = code if isinstance(code, int) and not isinstance(code, bool) else 0
            return {"output": data["output"], "returncode": returncode}
    return {"content": content}


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}


def _open(path: Path) -> sqlite3.Connection:
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        db.row_factory = sqlite3.Row
        sessions, messages = _columns(db, "sessions"), _columns(db, "messages")
    except sqlite3.Error as exc:
        raise RecordingError(f"{path}: cannot read the session store ({exc})") from None
    for table, have, need in (
        ("sessions", sessions, _SESSION_COLUMNS),
        ("messages", messages, _MESSAGE_COLUMNS),
    ):
        missing = [c for c in need if c not in have]
        if missing:
            raise RecordingError(
                f"{path}: not a Hermes Agent session store (table {table} lacks "
                f"{', '.join(missing)})"
            )
    return db


def read_state_db(
    path: Path, report: ImportReport, session: str | None = None
) -> Iterator[tuple[str, Draft]]:
    """``(session id, draft)`` for each session of the store at ``path`` (oldest
    first), or only ``session``."""
    db = _open(path)
    try:
        has_active = "active" in _columns(db, "messages")
        query = "SELECT * FROM sessions"
        params: tuple[Any, ...] = ()
        if session is not None:
            query += " WHERE id = ?"
            params = (session,)
        rows = db.execute(query + " ORDER BY started_at, id", params).fetchall()
        if session is not None and not rows:
            raise RecordingError(f"{path}: no session {session!r} in the session store")
        for row in rows:
            yield row["id"], _session(db, path, row, report, has_active)
    finally:
        db.close()


def _session(
    db: sqlite3.Connection, path: Path, row: sqlite3.Row, report: ImportReport, active: bool
) -> Draft:
    keys = row.keys()

    def column(name: str) -> Any:
        value = row[name] if name in keys else None
        return value if isinstance(value, str) and value else None

    draft = Draft(
        report,
        session_id=row["id"],
        platform=column("source") or "cli",
        model=column("model") or "unknown",
        provider=column("billing_provider"),
        base_url=column("billing_base_url"),
        cwd=column("cwd"),
        user_id=column("user_id"),
        chat_id=column("chat_id"),
        chat_type=column("chat_type"),
        thread_id=column("thread_id"),
        session_key=column("session_key"),
    )
    query = "SELECT * FROM messages WHERE session_id = ?" + (" AND active = 1" if active else "")
    tools: dict[str, str] = {}
    for message in db.execute(query + " ORDER BY id", (row["id"],)):
        where = f"{path}: messages row {message['id']} (session {row['id']})"
        _message(draft, message, where, tools, report)
    return draft


def _message(
    draft: Draft, message: sqlite3.Row, where: str, tools: dict[str, str], report: ImportReport
) -> None:
    role = message["role"]
    keys = message.keys()
    text = _text(message["content"])
    if role in _NOT_TURNS:
        return
    if text is None:
        report.skip(where, "content is neither text nor a list of parts")
        return
    if role == "user":
        draft.user(text, where)
    elif role == "assistant":
        calls = _calls(message["tool_calls"], where, report)
        if calls is None:
            return
        tools.update((call["id"], call["name"]) for call in calls)
        reasoning = message["reasoning"] if "reasoning" in keys else None
        finish = message["finish_reason"] if "finish_reason" in keys else None
        draft.assistant(
            where,
            text,
            calls,
            finish_reason=finish if isinstance(finish, str) else None,
            reasoning=reasoning if isinstance(reasoning, str) else None,
        )
    elif role == "tool":
        call_id = message["tool_call_id"]
        if not isinstance(call_id, str) or not call_id:
            report.skip(where, "tool row without a tool_call_id")
            return
        name = tools.get(call_id) or (message["tool_name"] if "tool_name" in keys else None)
        draft.tool_result(call_id, where, **_tool_fields(name, text))
    else:
        report.skip(where, f"unknown role {role!r}")


# -- trajectories ------------------------------------------------------------------------

_BLOCK = re.compile(r"<(tool_call|tool_response)>\s*(.*?)\s*</\1>", re.DOTALL)
_THINK = re.compile(r"<think>\s*(.*?)\s*</think>\s*", re.DOTALL)


#: The line types of a Claude Code transcript (``~/.claude/projects/<p>/<s>.jsonl``).
_CLAUDE_TYPES = frozenset(
    {"user", "assistant", "summary", "system", "file-history-snapshot", "progress"}
)


def claude_code_line(entry: Any) -> bool:
    """Whether ``entry`` (one decoded JSON line) is a line of a Claude Code transcript:
    one of its line types with its session id, message or summary link."""
    if not isinstance(entry, dict) or entry.get("type") not in _CLAUDE_TYPES:
        return False
    return any(key in entry for key in ("sessionId", "message", "leafUuid"))


def read_trajectories(path: Path, report: ImportReport) -> Iterator[tuple[str, Draft]]:
    """``(session id, draft)`` per line of a trajectory file (``<file stem>-<line>``)."""
    try:
        stream = path.open(encoding="utf-8")
    except OSError as exc:
        raise RecordingError(f"{path}: cannot read ({exc.strerror or exc})") from None
    with stream:
        for number, text in enumerate(stream, start=1):
            if not text.strip():
                continue
            where = f"{path}:{number}"
            try:
                entry = decode_limited(text)
            except JsonRefused as exc:
                report.skip(where, str(exc))
                continue
            turns = entry.get("conversations") if isinstance(entry, dict) else None
            if not isinstance(turns, list) and claude_code_line(entry):
                # The other format: said once, with the option that reads it, rather
                # than "no 'conversations' list" for every line of the file.
                raise RecordingError(
                    f"{where}: this is a Claude Code transcript line, not a Hermes "
                    "trajectory; import it with --from claude-code"
                )
            if not isinstance(turns, list):
                report.skip(where, "no 'conversations' list")
                continue
            session_id = f"{path.stem}-{number}"
            model = entry.get("model") if isinstance(entry.get("model"), str) else "unknown"
            draft = Draft(report, session_id=session_id, platform="cli", model=model)
            for index, turn in enumerate(turns):
                _trajectory_turn(draft, turn, f"{where}: conversations[{index}]", report)
            yield session_id, draft


def _trajectory_turn(draft: Draft, turn: Any, where: str, report: ImportReport) -> None:
    sender = turn.get("from") if isinstance(turn, dict) else None
    value = turn.get("value") if isinstance(turn, dict) else None
    if not isinstance(value, str):
        report.skip(where, "no text 'value'")
        return
    if sender == "system":
        return
    if sender == "human":
        draft.user(value, where)
        return
    if sender == "gpt":
        think = _THINK.search(value)
        body = _THINK.sub("", value, count=1)
        calls: list[dict[str, Any]] = []
        for number, (kind, block) in enumerate(_BLOCK.findall(body)):
            data = _json_block(block)
            name = data.get("name") if isinstance(data, dict) else None
            arguments = data.get("arguments", {}) if isinstance(data, dict) else None
            if kind != "tool_call" or not isinstance(name, str) or not isinstance(arguments, dict):
                report.skip(where, f"tool call block {number} is not {{name, arguments}}")
                return
            # The model's turn names no call ids: number them within the session.
            call_id = f"{draft.header['session_id']}-call-{draft.calls + len(calls) + 1}"
            calls.append({"id": call_id, "name": name, "arguments": arguments})
        text = _BLOCK.sub("", body).strip()
        reasoning = think.group(1) if think and think.group(1) else None
        draft.assistant(where, text, calls, reasoning=reasoning)
        return
    if sender == "tool":
        for number, (_, block) in enumerate(_BLOCK.findall(value)):
            data = _json_block(block)
            if not isinstance(data, dict):
                report.skip(where, f"tool response {number} is not a JSON object")
                continue
            content = data.get("content")
            if not isinstance(content, str):
                content = json.dumps(content, ensure_ascii=False)
            answered = draft.oldest_pending()
            if answered is None:
                report.skip(where, f"tool response {number} answers no open call")
                continue
            draft.tool_result(answered, where, **_tool_fields(data.get("name"), content))
        return
    report.skip(where, f"unknown sender {sender!r}")


def _json_block(text: str) -> Any:
    try:
        return decode_limited(text)
    except JsonRefused:
        return None
