"""What a Claude Code hook reads: its stdin document and its environment.

* **stdin** (:func:`input_document`): Claude Code's common fields (``session_id``,
  ``transcript_path``, ``cwd``, ``permission_mode``, ``hook_event_name``) and the
  event's own, in Claude's tool and field names.  ``transcript_path`` is the host's:
  the firing's own, else the path the host registered for the session.
* **environment** (:func:`environment`): the agent's, plus ``CLAUDE_PROJECT_DIR``
  (kept when already set); ``CLAUDE_PLUGIN_ROOT`` and ``CLAUDE_PLUGIN_DATA`` for a
  hook that came from a Claude Code plugin; on SessionStart ``CLAUDE_ENV_FILE``, a
  fresh empty file; and every variable an earlier SessionStart hook of the session
  wrote to its file (:func:`read_env_file`).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import tempfile
import threading
from collections.abc import Callable, Mapping
from typing import Any

from hermes_hooks.claude.tables import (
    PERMISSION_MODE,
    ClaudeSpec,
    text_or,
)
from hermes_hooks.envelope import jsonable

__all__ = [
    "TRANSCRIPTS",
    "TranscriptPaths",
    "environment",
    "input_document",
    "new_env_file",
    "read_env_file",
    "transcript_for",
]

_ENV_LINE = re.compile(r"(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)", re.DOTALL)
_VARIABLE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def _tool_response(result: Any) -> Any:
    """Our ``result`` (usually JSON text) as Claude's ``tool_response``: the decoded
    object when it is JSON, else the text."""
    if isinstance(result, str):
        try:
            decoded = json.loads(result)
        except ValueError:
            return result
        if isinstance(decoded, (dict, list)):
            return decoded
    return jsonable(result)


def _session(payload: Mapping[str, Any]) -> str:
    session = payload.get("session_id")
    if not isinstance(session, str):
        session = payload.get("parent_session_id")
    return session if isinstance(session, str) else ""


class TranscriptPaths:
    """Where hosts say their sessions' transcripts are.

    A host that keeps a Claude Code style transcript adds a provider (session id ->
    path or None) and removes it when the session is over; a provider may write the
    file when asked, so the transcript is current when a hook reads it.
    """

    __slots__ = ("_lock", "_providers")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._providers: list[Callable[[str], str | None]] = []

    def add(self, provider: Callable[[str], str | None]) -> Callable[[], None]:
        """Register ``provider``; returns the function that removes it."""
        with self._lock:
            self._providers.append(provider)

        def remove() -> None:
            with self._lock, contextlib.suppress(ValueError):
                self._providers.remove(provider)

        return remove

    def get(self, session_id: str) -> str | None:
        """The first path a provider gives for ``session_id``."""
        with self._lock:
            providers = list(self._providers)
        for provider in providers:
            found = provider(session_id)
            if isinstance(found, str) and found:
                return found
        return None


#: The process-wide registry the reference host (and any host) feeds.
TRANSCRIPTS = TranscriptPaths()


def transcript_for(spec: ClaudeSpec, payload: Mapping[str, Any]) -> str | None:
    """The transcript path of this firing: the payload's, else the host's for the
    session (its load-time lookup, then :data:`TRANSCRIPTS`), else None (the field is
    then left out: there is no transcript to read)."""
    path = payload.get("transcript_path")
    if isinstance(path, str):
        return path
    session = _session(payload)
    if not session:
        return None
    lookup = spec.context.transcripts
    found = lookup(session) if lookup is not None else None
    if isinstance(found, str) and found:
        return found
    return TRANSCRIPTS.get(session)


def input_document(
    spec: ClaudeSpec,
    payload: Mapping[str, Any],
    cwd: str,
    tool_input: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON a Claude Code hook of ``spec`` reads on stdin for this firing;
    ``tool_input``: one of the Claude inputs the call is shown as (the first when
    not given)."""
    name = spec.event.name
    doc: dict[str, Any] = {"session_id": _session(payload)}
    transcript = transcript_for(spec, payload)
    if transcript is not None:
        doc["transcript_path"] = transcript
    doc["cwd"] = cwd
    doc["permission_mode"] = PERMISSION_MODE
    doc["hook_event_name"] = name
    if spec.event.subject == "tool":
        tools = spec.context.tools
        tool = payload.get("tool_name")
        our_tool = tool if isinstance(tool, str) else ""
        doc["tool_name"] = tools.claude_name(our_tool)
        if tool_input is None:
            args = payload.get("args")
            tool_input = tools.to_claude(our_tool, args if isinstance(args, Mapping) else {}, cwd)
        doc["tool_input"] = tool_input
        if name == "PostToolUse":
            doc["tool_response"] = _tool_response(payload.get("result"))
        doc["tool_use_id"] = text_or(payload.get("tool_call_id"), "")
        if name == "PostToolUseFailure":
            doc["error"] = text_or(payload.get("error_message"), "")
            doc["is_interrupt"] = False
    elif name == "UserPromptSubmit":
        doc["prompt"] = text_or(payload.get("user_message"), "")
    elif name == "Stop":
        attempt = payload.get("attempt")
        # Attempt counts the nudges already applied in this turn.
        doc["stop_hook_active"] = isinstance(attempt, int) and attempt > 0
        doc["last_assistant_message"] = text_or(payload.get("final_response"), "")
    elif name == "SubagentStop":
        doc["stop_hook_active"] = False
        doc["agent_id"] = text_or(payload.get("child_session_id"), "")
        doc["agent_type"] = spec.subject(payload)
        child = TRANSCRIPTS.get(doc["agent_id"]) if doc["agent_id"] else None
        if child is not None:  # the subagent's own transcript, when the host keeps one
            doc["agent_transcript_path"] = child
        doc["last_assistant_message"] = text_or(payload.get("child_summary"), "")
    elif name == "SubagentStart":
        agent = payload.get("child_subagent_id")
        doc["agent_id"] = text_or(agent, text_or(payload.get("child_session_id"), ""))
        doc["agent_type"] = spec.subject(payload)
    elif name == "SessionStart":
        doc["source"] = spec.subject(payload)
        doc["model"] = text_or(payload.get("model"), "")
    elif name == "SessionEnd":
        doc["reason"] = spec.subject(payload)
    return doc


def environment(
    spec: ClaudeSpec, payload: Mapping[str, Any], cwd: str, env_file: str | None = None
) -> dict[str, str] | None:
    """The hook's environment (None: the agent's own, unchanged)."""
    extra: dict[str, str] = dict(spec.context.environments.get(_session(payload)))
    if "CLAUDE_PROJECT_DIR" not in os.environ and cwd:
        extra["CLAUDE_PROJECT_DIR"] = cwd
    options = spec.options
    if options.plugin_root is not None:
        extra["CLAUDE_PLUGIN_ROOT"] = options.plugin_root
    if options.plugin_data is not None:
        extra["CLAUDE_PLUGIN_DATA"] = options.plugin_data
    if env_file is not None:
        extra["CLAUDE_ENV_FILE"] = env_file
    return {**os.environ, **extra} if extra else None


def new_env_file() -> str:
    """A fresh, empty ``CLAUDE_ENV_FILE`` for one SessionStart run (private to us)."""
    descriptor, path = tempfile.mkstemp(prefix="claude-env-", suffix=".sh")
    os.close(descriptor)
    return path


def read_env_file(path: str, known: Mapping[str, str]) -> tuple[dict[str, str], list[str]]:
    """The variables a hook wrote to ``path`` (then removed), and the lines that are not
    ``[export ]NAME=value``.  Values are read as a shell word (quotes removed) with
    ``$NAME`` and ``${NAME}`` taken from earlier lines, then ``known``."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return {}, []
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)
    values: dict[str, str] = {}
    skipped: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        found = _ENV_LINE.fullmatch(line)
        if found is None:
            skipped.append(line)
            continue
        name, value = found.group(1), found.group(2)
        single = value.startswith("'")
        try:
            words = shlex.split(value)
        except ValueError:
            skipped.append(line)
            continue
        text_value = " ".join(words)
        if not single:

            def lookup(match: re.Match[str]) -> str:
                key = match.group(1) or match.group(2)
                return values.get(key, known.get(key, os.environ.get(key, "")))

            text_value = _VARIABLE.sub(lookup, text_value)
        values[name] = text_value
    return values, skipped
