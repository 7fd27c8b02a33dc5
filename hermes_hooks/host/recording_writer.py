"""Writing session recordings (the format :mod:`hermes_hooks.host.recording` reads).

The contrib ``session-recorder`` plugin and ``hermes-hooks import-session`` use
:class:`RecordingWriter`.
"""

from __future__ import annotations

import json
from typing import IO, Any

__all__ = ["RECORDING_VERSION", "RecordingWriter"]

#: The format version this package reads and writes.
RECORDING_VERSION = 1


def _compact(data: dict[str, Any]) -> dict[str, Any]:
    """Drop optional keys that hold nothing, so recordings stay short."""
    return {k: v for k, v in data.items() if v is not None and v != () and v != []}


class RecordingWriter:
    """Write recording lines to a text stream, one JSON object per line.

    The caller writes the header first; the writer does not buffer or reorder.
    """

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def write(self, data: dict[str, Any]) -> None:
        """Write one line (``data`` must carry ``type``) and flush it."""
        self._stream.write(json.dumps(data, ensure_ascii=False) + "\n")
        self._stream.flush()

    def header(self, session_id: str, platform: str, model: str, **optional: Any) -> None:
        """The header line (``provider``, ``cwd``, ``user_id``, ... as keywords)."""
        self.write(
            _compact(
                {
                    "type": "header",
                    "version": RECORDING_VERSION,
                    "session_id": session_id,
                    "platform": platform,
                    "model": model,
                    **optional,
                }
            )
        )

    def user(self, text: str) -> None:
        """A user message or slash command."""
        self.write({"type": "user", "text": text})

    def assistant(
        self,
        text: str = "",
        tool_calls: list[dict[str, Any]] | None = None,
        **optional: Any,
    ) -> None:
        """A provider response; ``tool_calls`` are ``{"id", "name", "arguments"}``."""
        data: dict[str, Any] = {"type": "assistant"}
        if text:
            data["text"] = text
        if tool_calls:
            data["tool_calls"] = tool_calls
        self.write({**data, **_compact(optional)})

    def error(self, message: str, status_code: int | None = None, **optional: Any) -> None:
        """A failed provider attempt."""
        error = _compact({"message": message, "status_code": status_code, **optional})
        self.write({"type": "assistant", "error": error})

    def tool_result(self, tool_call_id: str, **fields: Any) -> None:
        """A tool result (``content``, ``status``, ``error``, ``output``, ...)."""
        self.write({"type": "tool_result", "tool_call_id": tool_call_id, **_compact(fields)})

    def subagent(self, tool_call_id: str, goal: str, **fields: Any) -> None:
        """One child of a ``delegate_task`` call."""
        self.write(
            {"type": "subagent", "tool_call_id": tool_call_id, "goal": goal, **_compact(fields)}
        )

    def interrupt(self, issuer: str = "user") -> None:
        """The turn was interrupted here."""
        self.write({"type": "interrupt", "issuer": issuer})
