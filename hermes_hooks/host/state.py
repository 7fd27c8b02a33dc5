"""The reference host's per-session and per-turn state (shared by its phases).

The session keeps, beside the transcript, what each provider request is built from:
the messages as sent (``api_content`` in place of the clean ``content``), their
sanitised form and the length of the JSON text of the messages sent.  They are
updated message by message, so a request costs the same at the thousandth turn as at
the first; hooks receive these lists directly, because the dispatcher gives every
callback its own copy of a payload's containers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from hermes_hooks.host.payloads import sanitise, sent_message

__all__ = ["SessionState", "TurnState"]


@dataclass
class SessionState:
    """The live session of the host: its id, transcript and turn count, and the
    request forms of the transcript (kept in step by :meth:`append` and
    :meth:`set_content`; change :attr:`history` only through them)."""

    session_id: str
    history: list[dict[str, Any]] = field(default_factory=list)
    turns: int = 0
    sent: list[dict[str, Any]] = field(default_factory=list)
    sanitised: list[Any] = field(default_factory=list)
    _sizes: list[int] = field(default_factory=list, repr=False)
    _chars: int = field(default=0, repr=False)

    def append(self, message: dict[str, Any]) -> None:
        """Add ``message`` to the transcript and to the request forms."""
        sent = sent_message(message)
        size = len(json.dumps(sent, ensure_ascii=False))
        self.history.append(message)
        self.sent.append(sent)
        self.sanitised.append(sanitise(sent))
        self._sizes.append(size)
        self._chars += size

    def set_content(self, index: int, content: Any) -> None:
        """Replace the ``content`` of message ``index`` (a transform replaced it)."""
        message = self.history[index]
        message["content"] = content
        sent = sent_message(message)
        size = len(json.dumps(sent, ensure_ascii=False))
        self.sent[index] = sent
        self.sanitised[index] = sanitise(sent)
        self._chars += size - self._sizes[index]
        self._sizes[index] = size

    @property
    def request_chars(self) -> int:
        """``len(json.dumps(self.sent, ensure_ascii=False))``, without encoding it."""
        count = len(self._sizes)
        return 2 + self._chars + 2 * (count - 1) if count else 2


@dataclass
class TurnState:
    """Per-turn counters and correlation ids."""

    number: int
    turn_id: str
    user_message: str
    api_calls: int = 0
    retries: int = 0
    iteration: int = 0
    api_request_id: str = ""
    changed: set[str] = field(default_factory=set)
    streamed: bool = False
