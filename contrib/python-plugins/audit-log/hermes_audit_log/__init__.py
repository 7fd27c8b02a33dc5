"""audit-log: append every tool call and its outcome to a JSON Lines audit log.

Two lines per tool call: ``pre_tool_call`` (the arguments about to run, after every
earlier ``modify``) and ``post_tool_call`` (status, duration, error), both carrying the
``tool_call_id`` that ties them together.  Results are not logged, only their size:
they may hold secrets.

The log file is, in order of precedence: ``$HERMES_AUDIT_LOG``, ``audit_log.path`` in
``<home>/config.yaml`` (relative paths are relative to the home), or
``<home>/logs/audit.jsonl``.  A failing write is logged once and never blocks a call:
a ``pre_tool_call`` callback that raised would fail closed.
"""

from __future__ import annotations

import datetime
import json
import logging
import os
import threading
from pathlib import Path
from typing import Any

import yaml

__all__ = ["ENV_VAR", "AuditLog", "audit_log_path", "register"]

log = logging.getLogger("hermes_audit_log")

#: Environment variable that overrides the log path.
ENV_VAR = "HERMES_AUDIT_LOG"

#: Serialised arguments longer than this are stored truncated, as a string.
MAX_ARGS_CHARS = 2000


def _config_section(home: Path, key: str) -> dict[str, Any]:
    """``<home>/config.yaml``'s ``key`` mapping, or {} (a bad file only warns)."""
    try:
        data = yaml.safe_load((home / "config.yaml").read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        return {}
    except (OSError, yaml.YAMLError) as exc:
        log.warning("audit-log: cannot read %s (%s); using defaults", home / "config.yaml", exc)
        return {}
    section = data.get(key) if isinstance(data, dict) else None
    return section if isinstance(section, dict) else {}


def audit_log_path(home: Path) -> Path:
    """Where the audit log of ``home`` goes (see the module docstring)."""
    configured = os.environ.get(ENV_VAR, "").strip()
    if not configured:
        value = _config_section(home, "audit_log").get("path")
        configured = value.strip() if isinstance(value, str) else ""
    if not configured:
        return home / "logs" / "audit.jsonl"
    path = Path(configured).expanduser()
    return path if path.is_absolute() else home / path


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")


def _args_value(args: Any) -> tuple[Any, bool]:
    """The arguments as logged: the object, or a truncated string when very large."""
    text = json.dumps(args, ensure_ascii=False, default=str)
    if len(text) <= MAX_ARGS_CHARS:
        return json.loads(text), False
    return text[:MAX_ARGS_CHARS], True


class AuditLog:
    """Writes audit lines to one file; safe to call from several worker threads."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._failed = False

    def write(self, record: dict[str, Any]) -> None:
        """Append one JSON line; a failure is logged once and swallowed."""
        line = json.dumps(record, ensure_ascii=False, default=str) + "\n"
        with self._lock:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with self.path.open("a", encoding="utf-8") as stream:
                    stream.write(line)
            except OSError as exc:
                if not self._failed:
                    log.warning(
                        "audit-log: cannot write %s (%s); audit lines are lost", self.path, exc
                    )
                self._failed = True

    def pre_tool_call(
        self,
        tool_name: str = "",
        args: Any = None,
        session_id: str = "",
        tool_call_id: str = "",
        **kwargs: Any,
    ) -> None:
        """Log the call about to run; returns nothing, so the call is unaffected."""
        value, truncated = _args_value(args if args is not None else {})
        record = {
            "ts": _now(),
            "event": "pre_tool_call",
            "session_id": session_id,
            "tool_call_id": tool_call_id,
            "tool": tool_name,
            "args": value,
        }
        if truncated:
            record["args_truncated"] = True
        self.write(record)

    def post_tool_call(
        self,
        tool_name: str = "",
        result: Any = None,
        session_id: str = "",
        tool_call_id: str = "",
        status: str = "ok",
        duration_ms: int = 0,
        error_type: str | None = None,
        error_message: str | None = None,
        **kwargs: Any,
    ) -> None:
        """Log the outcome (never the result itself, only its size)."""
        self.write(
            {
                "ts": _now(),
                "event": "post_tool_call",
                "session_id": session_id,
                "tool_call_id": tool_call_id,
                "tool": tool_name,
                "status": status,
                "duration_ms": duration_ms,
                "error_type": error_type,
                "error_message": error_message[:200] if error_message else error_message,
                "result_chars": len(result) if isinstance(result, str) else None,
            }
        )


def register(ctx: Any) -> None:
    """Register the audit callbacks; ``pre_tool_call`` runs last among Python plugins,
    so it logs the arguments after their ``modify`` directives."""
    audit = AuditLog(audit_log_path(Path(ctx.home)))
    ctx.register_hook("pre_tool_call", audit.pre_tool_call, trylast=True)
    ctx.register_hook("post_tool_call", audit.post_tool_call)
