"""Reading Claude Code transcripts into recordings.

Claude Code keeps one JSON Lines file per session under
``~/.claude/projects/<project>/<session>.jsonl``.  Lines of ``type`` ``user`` and
``assistant`` carry a ``message`` with ``content`` (a string, or blocks: ``text``,
``thinking``, ``tool_use`` ``{id, name, input}``, ``tool_result`` ``{tool_use_id,
content, is_error}``), plus ``sessionId``, ``cwd`` and ``isSidechain``.  One model
response may be written as several lines sharing ``message.id`` (one per block); they
are joined.  Tool names and input fields are mapped to ours through the Claude Code
tool table (``Bash`` → ``terminal``, ``Read.file_path`` → ``read_file.path``, and
the home's ``hooks_claude_tools:``); a tool the table does not list keeps its name.
Meta lines (``isMeta``: command echoes, caveats), sub-agent side chains and the
bookkeeping types (``summary``, ``system``, ``file-history-snapshot``) are not
conversation turns and are left out.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hermes_hooks.claude.tools import ToolTable
from hermes_hooks.errors import RecordingError
from hermes_hooks.host.import_draft import Draft, ImportReport
from hermes_hooks.host.recording_lines import JsonRefused, decode_limited

__all__ = ["read_transcript"]

#: Line types that are not conversation turns.
_BOOKKEEPING = frozenset({"summary", "system", "file-history-snapshot", "progress"})
#: Input fields of Claude Code's tools that no tool of ours takes: ``Bash``'s
#: ``description`` is the model's note to the user about the command, not part of it.
_CLAUDE_ONLY = {"Bash": frozenset({"description"})}
#: Claude's stop reasons → the provider finish reasons a recording uses.
_FINISH = {"tool_use": "tool_calls", "end_turn": "stop", "max_tokens": "length"}


def _blocks(content: Any) -> list[dict[str, Any]] | None:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list) and all(isinstance(b, dict) for b in content):
        return content
    return None


def _result_text(content: Any) -> str:
    """A ``tool_result`` block's content as text (a string, or its text blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
        )
    return "" if content is None else json.dumps(content, ensure_ascii=False)


class _Reader:
    """Turns the lines of one transcript into draft calls."""

    def __init__(self, path: Path, table: ToolTable, report: ImportReport) -> None:
        self.path = path
        self.report = report
        self.by_claude = {row.claude: row.tool for row in table.rows}
        self.table = table
        self.draft: Draft | None = None
        self.assistant: dict[str, Any] | None = None  # the response being joined
        self.names: dict[str, str] = {}  # call id -> our tool name

    def start(self, data: dict[str, Any], model: str) -> Draft:
        if self.draft is None:
            session = data.get("sessionId")
            self.draft = Draft(
                self.report,
                session_id=session if isinstance(session, str) and session else self.path.stem,
                platform="cli",
                model=model or "unknown",
                provider="anthropic",
                cwd=data.get("cwd") if isinstance(data.get("cwd"), str) else None,
            )
        return self.draft

    def flush(self) -> None:
        """Hand the joined assistant response to the draft."""
        pending, self.assistant = self.assistant, None
        if pending is None or self.draft is None:
            return
        self.draft.assistant(
            pending["where"],
            "\n".join(pending["text"]),
            pending["calls"],
            finish_reason=pending["finish"],
            reasoning="\n".join(pending["thinking"]) or None,
        )

    def call(self, block: dict[str, Any], where: str) -> dict[str, Any] | None:
        call_id, name, given = block.get("id"), block.get("name"), block.get("input", {})
        if not isinstance(call_id, str) or not isinstance(name, str) or not isinstance(given, dict):
            self.report.skip(where, "tool_use block without an id, a name and an input object")
            return None
        tool = self.by_claude.get(name, name)
        if tool != name:  # mapped to ours: what only Claude's tool takes is left out
            dropped = _CLAUDE_ONLY.get(name, frozenset())
            given = {key: value for key, value in given.items() if key not in dropped}
        arguments = self.table.from_claude(tool, given) if tool != name else dict(given)
        self.names[call_id] = tool
        return {"id": call_id, "name": tool, "arguments": arguments}

    def assistant_line(self, data: dict[str, Any], message: dict[str, Any], where: str) -> None:
        blocks = _blocks(message.get("content"))
        if blocks is None:
            self.report.skip(where, "assistant content is neither text nor blocks")
            return
        model = message.get("model")
        self.start(data, model if isinstance(model, str) else "")
        ident = message.get("id")
        if self.assistant is None or ident is None or self.assistant["id"] != ident:
            self.flush()
            self.assistant = {"id": ident, "where": where, "text": [], "thinking": [],
                              "calls": [], "finish": None}  # fmt: skip
        current = self.assistant
        stop = message.get("stop_reason")
        if isinstance(stop, str):
            current["finish"] = _FINISH.get(stop, stop)
        for block in blocks:
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                current["text"].append(block["text"])
            elif kind == "thinking" and isinstance(block.get("thinking"), str):
                current["thinking"].append(block["thinking"])
            elif kind == "tool_use":
                call = self.call(block, where)
                if call is not None:
                    current["calls"].append(call)
            elif kind != "redacted_thinking":
                self.report.skip(where, f"unknown assistant block type {kind!r}")

    def user_line(self, data: dict[str, Any], message: dict[str, Any], where: str) -> None:
        blocks = _blocks(message.get("content"))
        if blocks is None:
            self.report.skip(where, "user content is neither text nor blocks")
            return
        self.flush()
        draft = self.start(data, "")
        texts = []
        for block in blocks:
            kind = block.get("type")
            if kind == "tool_result":
                call_id = block.get("tool_use_id")
                if not isinstance(call_id, str):
                    self.report.skip(where, "tool_result block without a tool_use_id")
                    continue
                text = _result_text(block.get("content"))
                if block.get("is_error") is True:
                    draft.tool_result(call_id, where, status="error", error=text or "error")
                else:
                    draft.tool_result(call_id, where, content=text)
            elif kind == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif kind not in ("image", "document"):
                self.report.skip(where, f"unknown user block type {kind!r}")
        if texts:
            draft.user("\n".join(texts), where)


def read_transcript(path: Path, table: ToolTable, report: ImportReport) -> Draft | None:
    """The draft recording of the Claude Code transcript at ``path`` (None when it
    holds no conversation)."""
    try:
        stream = path.open(encoding="utf-8")
    except OSError as exc:
        raise RecordingError(f"{path}: cannot read ({exc.strerror or exc})") from None
    reader = _Reader(path, table, report)
    with stream:
        for number, text in enumerate(stream, start=1):
            if text.strip():
                _line(reader, text, f"{path}:{number}")
    reader.flush()
    draft = reader.draft
    if draft is not None and draft.header.get("model") == "unknown":
        model = _first_model(path)
        if model:
            draft.header["model"] = model
    return draft


def _line(reader: _Reader, text: str, where: str) -> None:
    # Read within the recording reader's limits: a hostile line is skipped with its
    # reason, never a traceback or a recording that replay would refuse.
    try:
        data = decode_limited(text)
    except JsonRefused as exc:
        reader.report.skip(where, str(exc))
        return
    if not isinstance(data, dict):
        reader.report.skip(where, "not a JSON object")
        return
    kind = data.get("type")
    if kind is None and isinstance(data.get("conversations"), list):
        # The other format: said once, with the option that reads it.
        raise RecordingError(
            f"{where}: this is a Hermes trajectory line, not a Claude Code transcript; "
            "import it with --from hermes"
        )
    if kind in _BOOKKEEPING or data.get("isMeta") is True or data.get("isSidechain") is True:
        return
    message = data.get("message")
    if kind not in ("user", "assistant") or not isinstance(message, dict):
        reader.report.skip(where, f"unknown line type {kind!r}")
        return
    if kind == "assistant":
        reader.assistant_line(data, message, where)
    else:
        reader.user_line(data, message, where)


def _first_model(path: Path) -> str | None:
    """The model of the first assistant message (the header needs it up front)."""
    with path.open(encoding="utf-8") as stream:
        for text in stream:
            try:
                data = decode_limited(text)
            except JsonRefused:
                continue
            message = data.get("message") if isinstance(data, dict) else None
            if isinstance(message, dict) and isinstance(message.get("model"), str):
                return str(message["model"])
    return None


def transcripts(source: Path) -> Iterator[Path]:
    """The transcript files of ``source``: itself, or every ``*.jsonl`` under it."""
    if source.is_dir():
        yield from sorted(p for p in source.rglob("*.jsonl") if p.is_file())
    else:
        yield source
