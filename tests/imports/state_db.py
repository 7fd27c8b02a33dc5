"""A Hermes Agent ``state.db`` with the session store's exact ``sessions`` and
``messages`` tables (schema version 22, as hermes-agent 0.19.0 creates them), written
row by row the way the agent stores a conversation."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    user_id TEXT,
    session_key TEXT,
    chat_id TEXT,
    chat_type TEXT,
    thread_id TEXT,
    display_name TEXT,
    origin_json TEXT,
    expiry_finalized INTEGER DEFAULT 0,
    model TEXT,
    model_config TEXT,
    system_prompt TEXT,
    parent_session_id TEXT,
    started_at REAL NOT NULL,
    ended_at REAL,
    end_reason TEXT,
    message_count INTEGER DEFAULT 0,
    tool_call_count INTEGER DEFAULT 0,
    input_tokens INTEGER DEFAULT 0,
    output_tokens INTEGER DEFAULT 0,
    cache_read_tokens INTEGER DEFAULT 0,
    cache_write_tokens INTEGER DEFAULT 0,
    reasoning_tokens INTEGER DEFAULT 0,
    cwd TEXT,
    git_branch TEXT,
    git_repo_root TEXT,
    billing_provider TEXT,
    billing_base_url TEXT,
    billing_mode TEXT,
    estimated_cost_usd REAL,
    actual_cost_usd REAL,
    cost_status TEXT,
    cost_source TEXT,
    pricing_version TEXT,
    title TEXT,
    api_call_count INTEGER DEFAULT 0,
    handoff_state TEXT,
    handoff_platform TEXT,
    handoff_error TEXT,
    compression_failure_cooldown_until REAL,
    compression_failure_error TEXT,
    compression_fallback_streak INTEGER NOT NULL DEFAULT 0,
    profile_name TEXT,
    rewind_count INTEGER NOT NULL DEFAULT 0,
    archived INTEGER NOT NULL DEFAULT 0,
    FOREIGN KEY (parent_session_id) REFERENCES sessions(id)
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL,
    content TEXT,
    tool_call_id TEXT,
    tool_calls TEXT,
    tool_name TEXT,
    effect_disposition TEXT,
    timestamp REAL NOT NULL,
    token_count INTEGER,
    finish_reason TEXT,
    reasoning TEXT,
    reasoning_content TEXT,
    reasoning_details TEXT,
    codex_reasoning_items TEXT,
    codex_message_items TEXT,
    platform_message_id TEXT,
    observed INTEGER DEFAULT 0,
    active INTEGER NOT NULL DEFAULT 1,
    compacted INTEGER NOT NULL DEFAULT 0,
    api_content TEXT
);
CREATE INDEX idx_messages_session ON messages(session_id, timestamp);
INSERT INTO schema_version (version) VALUES (22);
"""


class StateDb:
    """Write sessions and messages into a new ``state.db`` at ``path``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.db = sqlite3.connect(path)
        self.db.executescript(SCHEMA)
        self.clock = 1_760_000_000.0

    def session(self, session_id: str, source: str = "cli", **columns: Any) -> None:
        self.clock += 1
        values = {"id": session_id, "source": source, "started_at": self.clock, **columns}
        names = ", ".join(values)
        marks = ", ".join("?" for _ in values)
        self.db.execute(f"INSERT INTO sessions ({names}) VALUES ({marks})", tuple(values.values()))

    def message(self, session_id: str, role: str, content: Any = None, **columns: Any) -> int:
        self.clock += 1
        if isinstance(content, (list, dict)):  # structured content, as the agent stores it
            content = "\x00json:" + json.dumps(content)
        if isinstance(columns.get("tool_calls"), list):
            columns["tool_calls"] = json.dumps(columns["tool_calls"])
        values = {
            "session_id": session_id,
            "role": role,
            "content": content,
            "timestamp": self.clock,
            **columns,
        }
        names = ", ".join(values)
        marks = ", ".join("?" for _ in values)
        cursor = self.db.execute(
            f"INSERT INTO messages ({names}) VALUES ({marks})", tuple(values.values())
        )
        return int(cursor.lastrowid or 0)

    def close(self) -> None:
        self.db.commit()
        self.db.close()


def call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """One OpenAI-shaped tool call, as ``messages.tool_calls`` holds it."""
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }
