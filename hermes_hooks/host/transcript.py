"""The reference host's session transcript, in Claude Code's JSONL format.

Claude Code gives every hook a ``transcript_path``: a JSON Lines file holding the
conversation so far, one object per message (``type`` ``user`` or ``assistant``, the
``message`` with its ``role`` and ``content`` blocks, ``sessionId``, ``uuid``,
``parentUuid``, ``timestamp``, ``cwd``).  Scripts written for Claude Code read it, for
example to find the last assistant message.  During a replay the host keeps one such
file per session and hands its path to Claude Code hooks: :class:`SessionTranscript`
writes the messages the session holds when a hook asks for the path, so the file is
current at every firing.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
import uuid
import weakref
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from hermes_hooks.host.state import SessionState

__all__ = ["SessionTranscript", "claude_lines"]

_NAMESPACE = uuid.UUID("6f1e1c52-4f0c-4c55-9d8e-6b2a7c1d0e11")


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return json.dumps(content, ensure_ascii=False, default=str)


def _blocks(message: dict[str, Any]) -> tuple[str, Any]:
    """(the Claude line type, the message content) of one of our history messages."""
    role = message.get("role")
    if role == "assistant":
        blocks: list[dict[str, Any]] = []
        if message.get("content"):
            blocks.append({"type": "text", "text": _text(message["content"])})
        for call in message.get("tool_calls") or []:
            function = call.get("function", {}) if isinstance(call, dict) else {}
            arguments = function.get("arguments")
            try:
                data = json.loads(arguments) if isinstance(arguments, str) else arguments
            except ValueError:
                data = arguments
            blocks.append(
                {
                    "type": "tool_use",
                    "id": call.get("id", ""),
                    "name": function.get("name", ""),
                    "input": data if data is not None else {},
                }
            )
        return "assistant", blocks
    if role == "tool":
        result = {
            "type": "tool_result",
            "tool_use_id": message.get("tool_call_id", ""),
            "content": _text(message.get("content", "")),
        }
        return "user", [result]
    return "user", _text(message.get("content", ""))


def claude_lines(
    session_id: str, messages: list[dict[str, Any]], start: int, cwd: str
) -> list[dict[str, Any]]:
    """Claude Code transcript lines for ``messages[start:]`` of ``session_id``."""
    lines = []
    for index in range(start, len(messages)):
        kind, content = _blocks(messages[index])
        role = "assistant" if kind == "assistant" else "user"
        parent = str(uuid.uuid5(_NAMESPACE, f"{session_id}/{index - 1}")) if index else None
        lines.append(
            {
                "parentUuid": parent,
                "sessionId": session_id,
                "cwd": cwd,
                "type": kind,
                "message": {"role": role, "content": content},
                "uuid": str(uuid.uuid5(_NAMESPACE, f"{session_id}/{index}")),
                "timestamp": datetime.now(tz=timezone.utc).isoformat(timespec="milliseconds"),
            }
        )
    return lines


class SessionTranscript:
    """The transcript files of one replay: one per session, in a private directory."""

    def __init__(self, session: Callable[[], SessionState]) -> None:
        self._session = session
        self._lock = threading.Lock()
        self._written: dict[str, int] = {}
        self.directory = Path(tempfile.mkdtemp(prefix="hermes-transcripts-"))
        # Removed by close(), or when this object is collected (a host whose finish()
        # was never called), or at the latest when the interpreter exits.
        self._remove = weakref.finalize(self, shutil.rmtree, self.directory, ignore_errors=True)

    def path(self, session_id: str) -> str | None:
        """The transcript of ``session_id`` with every message so far, or None when it
        is not the live session (a transcript provider)."""
        state = self._session()
        target = self.directory / f"{session_id}.jsonl"
        if state.session_id != session_id:  # an ended session keeps its file
            return str(target) if target.exists() else None
        history = list(state.history)
        with self._lock:
            start = self._written.get(session_id, 0)
            try:
                cwd = os.getcwd()
            except OSError:
                cwd = ""
            with target.open("a", encoding="utf-8") as handle:
                for line in claude_lines(session_id, history, start, cwd):
                    handle.write(json.dumps(line, ensure_ascii=False) + "\n")
            self._written[session_id] = len(history)
        return str(target)

    def close(self) -> None:
        """Remove the transcript files."""
        self._remove()
