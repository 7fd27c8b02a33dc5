"""session-recorder: write live sessions in the recording format ``hermes-hooks replay``
reads (``docs/host-and-replay.md``).

It only observes: every callback returns None.  One file per session,
``<dir>/<session id>.jsonl``; after ``/new`` the new session continues in the same file
(the recording format has ``/new`` as a user line).  What it records, from which hook:

* header: ``on_session_start`` / ``pre_llm_call`` (id, model, platform) completed by the
  first ``pre_api_request`` (provider, base URL, API mode, max tokens);
* user lines: ``pre_llm_call`` (the user's own message, without injected context) and
  ``pre_command`` (slash commands);
* assistant lines: ``post_api_request`` (the normalised message, finish reason, usage)
  and ``api_request_error`` (failed attempts);
* tool results: ``post_tool_call`` (the raw result, before ``transform_tool_result``);
  for ``terminal`` the raw output and return code from ``transform_terminal_output``;
  a call blocked by a hook is recorded as ``blocked`` (it has no real result); a
  successful ``write_file`` or ``patch`` call records its ``path`` as ``changed_paths``
  (no hook reports edits, so this is inferred);
* subagent lines: ``subagent_start`` / ``subagent_stop``, written before the result of
  their ``delegate_task`` call;
* interrupt lines: ``on_session_end`` with ``interrupted=True``.

Off unless enabled: ``session_recorder: {enabled: true, dir: <path>}`` in
``<home>/config.yaml`` (``dir`` defaults to ``<home>/recordings``), or the environment
variable ``HERMES_SESSION_RECORDER_DIR`` (enables it and names the directory).

Limitation: slash commands carry no session id, so they go to the session that was
active last; a gateway serving several chats at once should not use this recorder.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import yaml

from hermes_hooks.host.recording import RecordingWriter

__all__ = ["ENV_VAR", "SessionRecorder", "recorder_directory", "register"]

log = logging.getLogger("hermes_session_recorder")

#: Environment variable that enables the recorder and names its directory.
ENV_VAR = "HERMES_SESSION_RECORDER_DIR"

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")

#: Tools whose ``path`` argument names a file they edit (recorded as ``changed_paths``,
#: which makes the replay fire ``pre_verify`` as the live agent did).
EDITING_TOOLS = frozenset({"write_file", "patch"})


def recorder_directory(home: Path) -> Path | None:
    """The directory recordings go to, or None when the recorder is not enabled."""
    configured = os.environ.get(ENV_VAR, "").strip()
    if configured:
        return Path(configured).expanduser()
    try:
        data = yaml.safe_load((home / "config.yaml").read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        return None
    except (OSError, yaml.YAMLError) as exc:
        log.warning(
            "session-recorder: cannot read %s (%s); not recording", home / "config.yaml", exc
        )
        return None
    section = data.get("session_recorder") if isinstance(data, dict) else None
    if not isinstance(section, dict) or section.get("enabled") is not True:
        return None
    value = section.get("dir")
    if not isinstance(value, str) or not value.strip():
        return home / "recordings"
    path = Path(value.strip()).expanduser()
    return path if path.is_absolute() else home / path


def _tool_calls(message: Any) -> list[dict[str, Any]]:
    """Tool calls of a normalised assistant message (OpenAI shape or flat)."""
    calls = message.get("tool_calls") if isinstance(message, dict) else None
    found = []
    for call in calls or []:
        if not isinstance(call, dict):
            continue
        function = call.get("function") if isinstance(call.get("function"), dict) else call
        arguments: Any = function.get("arguments", {})
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments) if arguments.strip() else {}
            except json.JSONDecodeError:
                arguments = {"_raw": arguments}
        found.append({"id": call.get("id"), "name": function.get("name"), "arguments": arguments})
    return found


def _edited_path(tool_name: str, args: Any) -> str | None:
    """The file a file-editing tool call changed (no hook reports edits: inferred)."""
    if tool_name not in EDITING_TOOLS or not isinstance(args, dict):
        return None
    path = args.get("path")
    return path if isinstance(path, str) and path else None


@dataclass
class _Recording:
    """One open recording file and what is still waiting to be written."""

    path: Path
    session_id: str
    platform: str = ""
    model: str = ""
    stream: IO[str] | None = None
    writer: RecordingWriter | None = None
    waiting: list[dict[str, Any]] = field(default_factory=list)  # until the header
    terminal: dict[str, tuple[str, int]] = field(default_factory=dict)  # task -> capture
    children: list[dict[str, Any]] = field(default_factory=list)  # of the running delegate

    def line(self, data: dict[str, Any]) -> None:
        if self.writer is None:
            self.waiting.append(data)
        else:
            self.writer.write(data)

    def open(self, **header: Any) -> None:
        """Write the header (with what is known now) and the lines that waited for it."""
        if self.writer is not None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.stream = self.path.open("w", encoding="utf-8")
        self.writer = RecordingWriter(self.stream)
        self.writer.header(
            self.session_id, self.platform or "cli", self.model or "unknown", **header
        )
        for data in self.waiting:
            self.writer.write(data)
        self.waiting.clear()

    def close(self) -> None:
        self.open(cwd=os.getcwd())
        if self.stream is not None:
            self.stream.close()
            self.stream = None


class SessionRecorder:
    """The callbacks; one instance per load."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._lock = threading.Lock()
        self._open: dict[str, _Recording] = {}  # session id (or alias) -> recording
        self._active: str | None = None
        self._finalized: str | None = None

    def _get(self, session_id: Any, platform: str = "", model: str = "") -> _Recording | None:
        if not isinstance(session_id, str) or not session_id:
            return None
        recording = self._open.get(session_id)
        if recording is None:
            name = _UNSAFE.sub("_", session_id)
            recording = _Recording(self.directory / f"{name}.jsonl", session_id)
            self._open[session_id] = recording
        recording.platform = recording.platform or platform
        recording.model = recording.model or model
        self._active = session_id
        return recording

    def _safely(self, what: str, action: Any) -> None:
        # An observer must never disturb the agent: log and carry on.
        with self._lock:
            try:
                action()
            except Exception:
                log.warning("session-recorder: %s failed", what, exc_info=True)

    # -- session and messages ----------------------------------------------------------

    def on_session_start(
        self, session_id: Any = None, model: str = "", platform: str = "", **kw: Any
    ) -> None:
        """Open the recording of a new session."""
        self._safely("on_session_start", lambda: self._get(session_id, platform, model))

    def pre_llm_call(
        self,
        session_id: Any = None,
        user_message: Any = "",
        model: str = "",
        platform: str = "",
        **kw: Any,
    ) -> None:
        """Record the user's message (the clean text, without injected context)."""

        def act() -> None:
            recording = self._get(session_id, platform, model)
            if recording is not None:
                recording.line({"type": "user", "text": str(user_message)})

        self._safely("pre_llm_call", act)

    def pre_command(self, command: str = "", args_raw: str = "", **kw: Any) -> None:
        """Record a slash command in the active session."""

        def act() -> None:
            recording = self._open.get(self._active or "")
            if recording is not None:
                text = f"/{command} {args_raw}".strip()
                recording.line({"type": "user", "text": text})

        self._safely("pre_command", act)

    def pre_api_request(self, session_id: Any = None, **kw: Any) -> None:
        """The first request completes the header: provider, base URL, API mode."""

        def act() -> None:
            recording = self._get(session_id)
            if recording is not None and recording.writer is None:
                recording.open(
                    provider=kw.get("provider") or None,
                    base_url=kw.get("base_url") or None,
                    api_mode=kw.get("api_mode") or None,
                    max_tokens=kw.get("max_tokens"),
                    cwd=os.getcwd(),
                )

        self._safely("pre_api_request", act)

    def post_api_request(
        self,
        session_id: Any = None,
        assistant_message: Any = None,
        finish_reason: Any = None,
        usage: Any = None,
        **kw: Any,
    ) -> None:
        """Record the provider's response."""

        def act() -> None:
            recording = self._get(session_id)
            if recording is None:
                return
            message = assistant_message if isinstance(assistant_message, dict) else {}
            content = message.get("content")
            data: dict[str, Any] = {"type": "assistant"}
            if isinstance(content, str) and content:
                data["text"] = content
            calls = _tool_calls(message)
            if calls:
                data["tool_calls"] = calls
            if isinstance(finish_reason, str):
                data["finish_reason"] = finish_reason
            if isinstance(usage, dict):
                data["usage"] = usage
            recording.line(data)

        self._safely("post_api_request", act)

    def api_request_error(
        self,
        session_id: Any = None,
        status_code: Any = None,
        error: Any = None,
        retryable: Any = None,
        **kw: Any,
    ) -> None:
        """Record a failed provider attempt."""

        def act() -> None:
            recording = self._get(session_id)
            if recording is None:
                return
            failure: dict[str, Any] = {"message": str(error or "provider error")}
            if isinstance(status_code, int):
                failure["status_code"] = status_code
            if isinstance(retryable, bool):
                failure["retryable"] = retryable
            recording.line({"type": "assistant", "error": failure})

        self._safely("api_request_error", act)

    # -- tools -------------------------------------------------------------------------

    def transform_terminal_output(
        self, output: Any = "", returncode: Any = 0, task_id: Any = "", **kw: Any
    ) -> None:
        """Keep the raw terminal capture for the ``post_tool_call`` that follows."""

        def act() -> None:
            # task_id is the session id in the reference host; else the active session.
            recording = self._open.get(str(task_id)) or self._open.get(self._active or "")
            if recording is not None:
                recording.terminal[str(task_id)] = (str(output), int(returncode or 0))

        self._safely("transform_terminal_output", act)

    def subagent_start(self, parent_session_id: Any = None, **kw: Any) -> None:
        """Note a child of the running ``delegate_task`` call."""

        def act() -> None:
            recording = self._open.get(str(parent_session_id))
            if recording is not None:
                recording.children.append(
                    {
                        "goal": kw.get("child_goal") or "",
                        "role": kw.get("child_role"),
                        "child_session_id": kw.get("child_session_id"),
                        "child_subagent_id": kw.get("child_subagent_id") or None,
                    }
                )

        self._safely("subagent_start", act)

    def subagent_stop(
        self, parent_session_id: Any = None, child_session_id: Any = None, **kw: Any
    ) -> None:
        """Complete the child's line with its outcome."""

        def act() -> None:
            recording = self._open.get(str(parent_session_id))
            if recording is None:
                return
            child = next(
                (
                    c
                    for c in recording.children
                    if c["child_session_id"] == child_session_id and "status" not in c
                ),
                None,
            )
            if child is None:
                child = {
                    "goal": "",
                    "child_session_id": child_session_id,
                    "role": kw.get("child_role"),
                }
                recording.children.append(child)
            child.update(
                summary=kw.get("child_summary"),
                status=kw.get("child_status") or "completed",
                duration_ms=int(kw.get("duration_ms") or 0),
                tool_calls=list(kw.get("tool_call_history") or []),
            )

        self._safely("subagent_stop", act)

    def post_tool_call(
        self,
        session_id: Any = None,
        tool_call_id: str = "",
        tool_name: str = "",
        result: Any = None,
        status: str = "ok",
        error_message: Any = None,
        duration_ms: Any = None,
        task_id: Any = "",
        **kw: Any,
    ) -> None:
        """Record the tool's raw result (and its children, for ``delegate_task``)."""

        def act() -> None:
            recording = self._get(session_id)
            if recording is None:
                return
            for child in recording.children:
                recording.line(
                    {
                        "type": "subagent",
                        "tool_call_id": tool_call_id,
                        **{k: v for k, v in child.items() if v is not None},
                    }
                )
            recording.children.clear()
            data: dict[str, Any] = {"type": "tool_result", "tool_call_id": tool_call_id}
            capture = recording.terminal.pop(str(task_id), None)
            if status == "blocked":
                data["blocked"] = True
            elif tool_name == "terminal" and capture is not None:
                data["output"], data["returncode"] = capture
            else:
                data["content"] = result if isinstance(result, str) else json.dumps(result)
            if status == "error":
                data["status"] = "error"
                if isinstance(error_message, str):
                    data["error"] = error_message
            if isinstance(duration_ms, int) and status != "blocked":
                data["duration_ms"] = duration_ms
            edited = _edited_path(tool_name, kw.get("args"))
            if edited is not None and status == "ok":
                data["changed_paths"] = [edited]
            recording.line(data)

        self._safely("post_tool_call", act)

    # -- turn and session ends -----------------------------------------------------------

    def on_session_end(self, session_id: Any = None, interrupted: Any = False, **kw: Any) -> None:
        """An interrupted turn ends with an interrupt line."""

        def act() -> None:
            recording = self._get(session_id)
            if recording is not None and interrupted is True:
                recording.line({"type": "interrupt", "issuer": "user"})

        self._safely("on_session_end", act)

    def on_session_finalize(self, session_id: Any = None, reason: Any = None, **kw: Any) -> None:
        """``/new`` keeps the file open for the next session; any other end closes it."""

        def act() -> None:
            self._finalized = session_id if isinstance(session_id, str) else None
            if reason == "new_session":
                return
            recording = self._open.get(str(session_id))
            if recording is None:
                return
            recording.close()
            for key in [k for k, v in self._open.items() if v is recording]:
                del self._open[key]

        self._safely("on_session_finalize", act)

    def on_session_reset(
        self, session_id: Any = None, old_session_id: Any = None, **kw: Any
    ) -> None:
        """The new session continues the recording of the one it replaces."""

        def act() -> None:
            old = old_session_id if isinstance(old_session_id, str) else self._finalized
            recording = self._open.get(str(old))
            if recording is not None and isinstance(session_id, str):
                self._open[session_id] = recording
                self._active = session_id

        self._safely("on_session_reset", act)

    def close(self) -> None:
        """Close every open file (the host is going away without a finalize)."""
        with self._lock:
            for recording in {id(r): r for r in self._open.values()}.values():
                recording.close()
            self._open.clear()


_HOOKS = (
    "on_session_start",
    "pre_llm_call",
    "pre_command",
    "pre_api_request",
    "post_api_request",
    "api_request_error",
    "transform_terminal_output",
    "subagent_start",
    "subagent_stop",
    "post_tool_call",
    "on_session_end",
    "on_session_finalize",
    "on_session_reset",
)


def register(ctx: Any) -> None:
    """Register the recorder when it is enabled for this home (see the module doc)."""
    directory = recorder_directory(Path(ctx.home))
    if directory is None:
        log.debug("session-recorder: not enabled for %s", ctx.home)
        return
    recorder = SessionRecorder(directory)
    for name in _HOOKS:
        ctx.register_hook(name, getattr(recorder, name))
