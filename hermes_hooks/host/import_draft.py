"""Building a valid recording from another tool's session, one message at a time.

The importers (:mod:`.import_hermes`, :mod:`.import_claude`) read their source and
call :class:`Draft` with users, assistant turns and tool results in order.  The draft
keeps the recording's order rules (a tool result follows the call it answers, a turn
whose calls never got results is marked interrupted) and never invents content: a row
that cannot be placed is reported with its location and skipped.  :meth:`Draft.lines`
returns the recording lines, checked by the recording reader itself.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from hermes_hooks.host.recording import parse_recording, slash_command
from hermes_hooks.host.recording_lines import MAX_LINE_CHARS, check_value
from hermes_hooks.host.recording_writer import RECORDING_VERSION

__all__ = ["Draft", "ImportReport"]


@dataclass
class ImportReport:
    """What an import skipped, each as ``<location>: <reason>; skipped``."""

    problems: list[str] = field(default_factory=list)

    def skip(self, where: str, reason: str) -> None:
        """Record one skipped row (or note)."""
        self.problems.append(f"{where}: {reason}; skipped")

    def note(self, where: str, message: str) -> None:
        """Record something the import did that the user should know about."""
        self.problems.append(f"{where}: {message}")


class Draft:
    """One recording being assembled (see the module docstring)."""

    def __init__(self, report: ImportReport, **header: Any) -> None:
        self.report = report
        self.header = {k: v for k, v in header.items() if v not in (None, "", [], ())}
        self._lines: list[dict[str, Any]] = []
        self._pending: dict[str, str] = {}  # call id -> where the call was made
        self._used: set[str] = set()
        # Why the current exchange takes no more model lines: None (it does), or the
        # reason (no user message yet, interrupted, a slash command).
        self._closed: str | None = "before the first user message"

    @property
    def calls(self) -> int:
        """How many tool calls were added so far."""
        return len(self._used)

    def oldest_pending(self) -> str | None:
        """The id of the earliest call still waiting for its result."""
        return next(iter(self._pending), None)

    @property
    def empty(self) -> bool:
        """No user message was added."""
        return not any(line["type"] == "user" for line in self._lines)

    def _interrupt_pending(self, where: str) -> None:
        if not self._pending:
            return
        calls = ", ".join(sorted(self._pending))
        self.report.note(
            where,
            f"tool call(s) {calls} have no result before this row; the turn is marked "
            "interrupted there",
        )
        self._lines.append({"type": "interrupt", "issuer": "user"})
        self._pending.clear()
        self._closed = "after the turn was interrupted"

    def _fits(self, line: dict[str, Any], where: str) -> bool:
        """Whether ``line`` is within the recording reader's limits; if not, the row
        is reported and skipped here, where its location is known, instead of the
        whole import failing when the recording is checked."""
        problem = check_value(line)
        if problem is None:
            size = len(json.dumps(line, ensure_ascii=False))
            if size > MAX_LINE_CHARS:
                problem = f"{size} characters as a recording line; the limit is {MAX_LINE_CHARS}"
        if problem is not None:
            self.report.skip(where, f"{problem} (as the recording line this row becomes)")
            return False
        return True

    def user(self, text: str, where: str) -> None:
        """A user message (it ends the previous turn)."""
        line = {"type": "user", "text": text}
        if not self._fits(line, where):
            return
        self._interrupt_pending(where)
        self._lines.append(line)
        self._closed = None
        if slash_command(text) is not None:
            self._closed = "after a user message that is a slash command (no model turn)"

    def assistant(
        self,
        where: str,
        text: str = "",
        tool_calls: list[dict[str, Any]] | None = None,
        **optional: Any,
    ) -> None:
        """One model response: text and/or ``{"id", "name", "arguments"}`` calls."""
        self._interrupt_pending(where)
        if self._closed is not None:
            self.report.skip(where, f"assistant message {self._closed}")
            return
        calls = []
        for call in tool_calls or []:
            if call["id"] in self._used:
                self.report.skip(where, f"tool call id {call['id']!r} is used twice")
                return
            calls.append(call)
        line: dict[str, Any] = {"type": "assistant"}
        if text:
            line["text"] = text
        if calls:
            line["tool_calls"] = calls
        line.update({k: v for k, v in optional.items() if v not in (None, "", {}, [])})
        if not self._fits(line, where):
            return
        self._lines.append(line)
        for call in calls:
            self._used.add(call["id"])
            self._pending[call["id"]] = where

    def tool_result(self, call_id: str, where: str, **fields: Any) -> None:
        """The result of pending call ``call_id`` (``content``, ``output``, ...)."""
        if call_id not in self._pending:
            self.report.skip(where, f"tool result for {call_id!r}, which no open call made")
            return
        line = {"type": "tool_result", "tool_call_id": call_id}
        line.update({k: v for k, v in fields.items() if v is not None})
        if not self._fits(line, where):
            return  # the call stays open: the turn is marked interrupted, as for no result
        del self._pending[call_id]
        self._lines.append(line)

    def lines(self) -> list[dict[str, Any]]:
        """The recording lines (header first), validated by the recording reader."""
        header = {"type": "header", "version": RECORDING_VERSION, **self.header}
        lines = [header, *self._lines]
        parse_recording([json.dumps(line, ensure_ascii=False) for line in lines], "<import>")
        return lines
