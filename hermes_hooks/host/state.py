"""The reference host's per-session and per-turn state (shared by its phases)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["SessionState", "TurnState"]


@dataclass
class SessionState:
    """The live session of the host: its id, transcript and turn count."""

    session_id: str
    history: list[dict[str, Any]] = field(default_factory=list)
    turns: int = 0


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
