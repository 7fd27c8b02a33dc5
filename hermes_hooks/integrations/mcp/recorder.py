"""Recording proxied traffic as a session recording that ``hermes-hooks replay`` runs.

A proxied session becomes one turn: the header (platform ``mcp``), one user line naming
the proxied server, then for each ``tools/call`` an assistant line carrying the call
(the tool under its ``mcp__`` name, the client's own arguments: the replay runs the
hooks again on them) and its ``tool_result`` (the upstream's answer, before any
transform; a call blocked while recording is marked ``blocked``, having no real
result), and a closing assistant line when the client ends the session.  Calls are
written when they finish, each call and its result together, so concurrent calls never
interleave.  A policy can then be tested in CI against real MCP
traffic: ``hermes-hooks replay --fail-on block recording.jsonl``.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from hermes_hooks.host.recording_writer import RecordingWriter

__all__ = ["Recorder"]


class Recorder:
    """Append the calls of one proxied session to a recording file."""

    def __init__(self, path: Path, session_id: str, server: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file = path.open("w", encoding="utf-8")
        self._writer = RecordingWriter(self._file)
        self._lock = threading.Lock()
        self._writer.header(session_id, "mcp", "mcp-proxy")
        self._writer.user(f"(MCP client session through hermes-hooks mcp-proxy --name {server})")

    def call(
        self,
        call_id: str,
        tool: str,
        arguments: dict[str, Any],
        content: str,
        *,
        status: str = "ok",
        duration_ms: int = 0,
        blocked: bool = False,
    ) -> None:
        """One finished call and its result."""
        with self._lock:
            self._writer.assistant(
                tool_calls=[{"id": call_id, "name": tool, "arguments": arguments}],
                finish_reason="tool_calls",
            )
            fields: dict[str, Any] = {"content": content, "status": status}
            fields["duration_ms"] = duration_ms
            if blocked:
                fields["blocked"] = True
            self._writer.tool_result(call_id, **fields)

    def close(self) -> None:
        """End the turn (the client closed the session) and close the file."""
        with self._lock:
            self._writer.assistant("(the MCP client closed the session)", finish_reason="stop")
            self._file.close()
