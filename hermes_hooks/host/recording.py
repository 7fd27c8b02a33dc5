"""Session recordings: the versioned JSON Lines format that drives the reference host.

A recording is one JSON object per line (blank lines are ignored).  Every object has a
``type``; the first line is the ``header``.  Version 1 knows six types::

    header       version, session_id, platform, model (+ optional routing fields)
    user         a user message; "/new", "/model x", ... are slash commands
    assistant    one provider attempt: text and/or tool_calls, or an error
    tool_result  the recorded result of one tool call of the preceding assistant line
    subagent     one child agent of a delegate_task call (before that call's result)
    interrupt    the user (or system) interrupted the turn here

``docs/host-and-replay.md`` documents every field and ``hookspecs/recording.schema.json``
is the JSON Schema.  Unknown keys are ignored, so later versions may add fields.

:func:`load_recording` reads and validates a file; a malformed one raises
:class:`~hermes_hooks.errors.RecordingError` whose message is ``<file>:<line>: <reason>``.
:class:`RecordingWriter` writes the format (the contrib ``session-recorder`` uses it).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from hermes_hooks.errors import RecordingError
from hermes_hooks.host.recording_lines import JsonRefused, decode_limited, read_line
from hermes_hooks.host.recording_writer import RECORDING_VERSION, RecordingWriter

__all__ = [
    "LINE_TYPES",
    "RECORDING_VERSION",
    "RESET_COMMANDS",
    "ApiError",
    "AssistantLine",
    "Exchange",
    "Header",
    "Interrupt",
    "ModelStep",
    "Recording",
    "RecordingWriter",
    "SubagentLine",
    "ToolCall",
    "ToolResultLine",
    "UserLine",
    "iter_recording",
    "load_recording",
    "open_recording",
    "parse_recording",
    "scan_recording",
    "slash_command",
]


#: Every line type of version 1, in the order the docs present them.
LINE_TYPES = ("header", "user", "assistant", "tool_result", "subagent", "interrupt")

#: Slash commands that close the session and start a new one.
RESET_COMMANDS = frozenset({"new", "reset"})

_COMMAND = re.compile(r"^/([A-Za-z][A-Za-z0-9_-]*)(?:\s+(.*))?$", re.DOTALL)


def slash_command(text: str) -> tuple[str, str] | None:
    """``(name, args)`` when ``text`` is a slash command (``/model gpt-5``), else None.

    The name is lower-cased (the canonical form, without the ``/``); the arguments
    are the rest of the text, trimmed.
    """
    match = _COMMAND.match(text.strip())
    if match is None:
        return None
    return match.group(1).lower(), (match.group(2) or "").strip()


# -- the parsed model ----------------------------------------------------------------------


@dataclass(frozen=True)
class Header:
    """The first line: who, where and with which model the session ran."""

    session_id: str
    platform: str
    model: str
    provider: str = ""
    cwd: str | None = None
    user_id: str = ""
    chat_id: str = ""
    chat_type: str = ""
    thread_id: str = ""
    session_key: str | None = None
    base_url: str = ""
    api_mode: str = "chat_completions"
    env_type: str = "local"
    coding: bool = True
    tools: tuple[str, ...] = ()
    max_tokens: int | None = None
    max_retries: int = 3
    context_length: int | None = None
    line: int = 1


@dataclass(frozen=True)
class UserLine:
    """A user message (or slash command)."""

    text: str
    line: int
    message_id: str | None = None


@dataclass(frozen=True)
class ToolCall:
    """One tool call the model asked for; ``arguments`` is always a dict."""

    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class ApiError:
    """A failed provider attempt."""

    message: str
    status_code: int | None = None
    type: str | None = None
    code: str | None = None
    body: Any = None
    retryable: bool | None = None


@dataclass(frozen=True)
class AssistantLine:
    """One provider attempt: a response (text and/or tool calls) or an error."""

    line: int
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str | None = None
    stream: bool = False
    deltas: tuple[str, ...] | None = None
    reasoning: str | None = None
    error: ApiError | None = None
    usage: dict[str, Any] | None = None
    duration: float | None = None


@dataclass(frozen=True)
class ToolResultLine:
    """The recorded result of one tool call.

    ``content`` is the result string the tool returned.  A ``terminal`` result may
    instead carry ``output`` and ``returncode`` (the captured foreground output, which
    then passes ``transform_terminal_output``).  ``blocked`` marks a call that a hook
    blocked while recording: there is no real result to replay.
    """

    tool_call_id: str
    line: int
    content: str | None = None
    status: str = "ok"
    error: str | None = None
    output: str | None = None
    returncode: int | None = None
    background: bool = False
    duration_ms: int | None = None
    changed_paths: tuple[str, ...] = ()
    blocked: bool = False


@dataclass(frozen=True)
class SubagentLine:
    """One child agent run by a ``delegate_task`` call."""

    tool_call_id: str
    line: int
    goal: str
    role: str | None = None
    child_session_id: str | None = None
    child_subagent_id: str = ""
    summary: str | None = None
    status: str = "completed"
    duration_ms: int = 0
    tool_calls: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class Interrupt:
    """The turn was interrupted at this point (``issuer``: ``user`` or ``system``)."""

    line: int
    issuer: str = "user"


@dataclass
class ModelStep:
    """One assistant line with the results (and children) of its tool calls."""

    assistant: AssistantLine
    results: dict[str, ToolResultLine] = field(default_factory=dict)
    subagents: dict[str, list[SubagentLine]] = field(default_factory=dict)


@dataclass
class Exchange:
    """One user line and everything recorded until the next one."""

    user: UserLine
    steps: list[ModelStep] = field(default_factory=list)
    interrupt: Interrupt | None = None

    @property
    def command(self) -> tuple[str, str] | None:
        """``(name, args)`` when the user line is a slash command."""
        return slash_command(self.user.text)


@dataclass
class Recording:
    """A validated recording.

    ``exchanges`` is a list for :func:`parse_recording` and :func:`load_recording`;
    :func:`open_recording` gives a re-readable stream instead, so a long recording is
    never held in memory whole.
    """

    path: str
    header: Header
    exchanges: Iterable[Exchange]

    @property
    def tool_call_count(self) -> int:
        """How many tool calls the recording holds."""
        return sum(len(s.assistant.tool_calls) for e in self.exchanges for s in e.steps)


# -- reading -------------------------------------------------------------------------------


class _Line:
    """One JSON object of the file, with helpers that fail with the line number."""

    def __init__(self, path: str, number: int, data: dict[str, Any]) -> None:
        self.path = path
        self.number = number
        self.data = data
        self.type = data.get("type")

    def fail(self, reason: str) -> RecordingError:
        return RecordingError(f"{self.path}:{self.number}: {reason}")

    def _where(self, key: str) -> str:
        return f"{self.type} line: '{key}'"

    def string(self, key: str, *, required: bool = False, empty: bool = True) -> str | None:
        value = self.data.get(key)
        if value is None:
            if required:
                raise self.fail(f"{self._where(key)} is required (a string)")
            return None
        if not isinstance(value, str) or (not empty and not value.strip()):
            kind = "a non-empty string" if not empty else "a string"
            raise self.fail(f"{self._where(key)} must be {kind}, not {json.dumps(value)}")
        return value

    def required_string(self, key: str, *, empty: bool = True) -> str:
        value = self.string(key, required=True, empty=empty)
        assert value is not None
        return value

    def integer(self, key: str, *, minimum: int | None = None) -> int | None:
        value = self.data.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(f"{self._where(key)} must be an integer, not {json.dumps(value)}")
        if minimum is not None and value < minimum:
            raise self.fail(f"{self._where(key)} must be at least {minimum}, not {value}")
        return value

    def seconds(self, key: str) -> float | None:
        value = self.data.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise self.fail(f"{self._where(key)} must be a number >= 0, not {json.dumps(value)}")
        return float(value)

    def boolean(self, key: str, default: bool = False) -> bool:
        value = self.data.get(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.fail(f"{self._where(key)} must be true or false, not {json.dumps(value)}")
        return value

    def strings(self, key: str) -> tuple[str, ...] | None:
        value = self.data.get(key)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(f"{self._where(key)} must be a list of strings")
        return tuple(value)

    def mapping(self, key: str) -> dict[str, Any] | None:
        value = self.data.get(key)
        if value is None:
            return None
        if not isinstance(value, dict):
            raise self.fail(f"{self._where(key)} must be an object, not {json.dumps(value)}")
        return value


def _header(line: _Line) -> Header:
    version = line.data.get("version")
    if version != RECORDING_VERSION:
        if isinstance(version, int) and not isinstance(version, bool):
            raise line.fail(
                f"unsupported recording version {version} (this hermes-hooks reads "
                f"version {RECORDING_VERSION})"
            )
        raise line.fail(f"header line: 'version' must be {RECORDING_VERSION}")
    return Header(
        session_id=line.required_string("session_id", empty=False),
        platform=line.required_string("platform", empty=False),
        model=line.required_string("model", empty=False),
        provider=line.string("provider") or "",
        cwd=line.string("cwd"),
        user_id=line.string("user_id") or "",
        chat_id=line.string("chat_id") or "",
        chat_type=line.string("chat_type") or "",
        thread_id=line.string("thread_id") or "",
        session_key=line.string("session_key"),
        base_url=line.string("base_url") or "",
        api_mode=line.string("api_mode") or "chat_completions",
        env_type=line.string("env_type") or "local",
        coding=line.boolean("coding", default=True),
        tools=line.strings("tools") or (),
        max_tokens=line.integer("max_tokens", minimum=1),
        max_retries=_default(line.integer("max_retries", minimum=0), 3),
        context_length=line.integer("context_length", minimum=1),
        line=line.number,
    )


def _default(value: int | None, default: int) -> int:
    return default if value is None else value


def _tool_call(line: _Line, index: int, raw: Any) -> ToolCall:
    where = f"assistant line: tool_calls[{index}]"
    if not isinstance(raw, dict):
        raise line.fail(f"{where} must be an object with id, name and arguments")
    call_id, name = raw.get("id"), raw.get("name")
    if not isinstance(call_id, str) or not call_id.strip():
        raise line.fail(f"{where}.id must be a non-empty string")
    if not isinstance(name, str) or not name.strip():
        raise line.fail(f"{where}.name must be a non-empty string")
    arguments = raw.get("arguments", {})
    if isinstance(arguments, str):  # the OpenAI wire form: a JSON text
        # Read within the same limits as the line itself: the text inside it is just as
        # foreign, and a deep nest or a huge number would fail later stages the same way.
        try:
            arguments = decode_limited(arguments) if arguments.strip() else {}
        except JsonRefused as exc:
            raise line.fail(f"{where}.arguments: {exc}") from None
    if not isinstance(arguments, dict):
        raise line.fail(f"{where}.arguments must be an object (or a JSON text of one)")
    return ToolCall(call_id, name, arguments)


def _api_error(line: _Line, raw: Any) -> ApiError:
    if isinstance(raw, str):
        raw = {"message": raw}
    if not isinstance(raw, dict):
        raise line.fail("assistant line: 'error' must be an object with a 'message'")
    message = raw.get("message")
    if not isinstance(message, str) or not message.strip():
        raise line.fail("assistant line: error.message must be a non-empty string")
    status = raw.get("status_code")
    if status is not None and (isinstance(status, bool) or not isinstance(status, int)):
        raise line.fail("assistant line: error.status_code must be an integer")
    retryable = raw.get("retryable")
    if retryable is not None and not isinstance(retryable, bool):
        raise line.fail("assistant line: error.retryable must be true or false")
    kind, code = raw.get("type"), raw.get("code")
    return ApiError(
        message=message,
        status_code=status,
        type=kind if isinstance(kind, str) else None,
        code=str(code) if code is not None else None,
        body=raw.get("body"),
        retryable=retryable,
    )


def _assistant(line: _Line) -> AssistantLine:
    raw_calls = line.data.get("tool_calls") or []
    if not isinstance(raw_calls, list):
        raise line.fail("assistant line: 'tool_calls' must be a list")
    calls = tuple(_tool_call(line, i, raw) for i, raw in enumerate(raw_calls))
    error = line.data.get("error")
    text = line.string("text") or ""
    if error is not None and (calls or text):
        raise line.fail("assistant line: an 'error' attempt carries no text or tool_calls")
    return AssistantLine(
        line=line.number,
        text=text,
        tool_calls=calls,
        finish_reason=line.string("finish_reason"),
        stream=line.boolean("stream"),
        deltas=line.strings("deltas"),
        reasoning=line.string("reasoning"),
        error=_api_error(line, error) if error is not None else None,
        usage=line.mapping("usage"),
        duration=line.seconds("duration"),
    )


def _tool_result(line: _Line) -> ToolResultLine:
    status = line.string("status") or "ok"
    if status not in ("ok", "error"):
        raise line.fail(f'tool_result line: \'status\' must be "ok" or "error", not {status!r}')
    content = line.data.get("content")
    if content is not None and not isinstance(content, str):
        content = json.dumps(content, ensure_ascii=False)  # a JSON value: its text
    return ToolResultLine(
        tool_call_id=line.required_string("tool_call_id", empty=False),
        line=line.number,
        content=content,
        status=status,
        error=line.string("error"),
        output=line.string("output"),
        returncode=line.integer("returncode"),
        background=line.boolean("background"),
        duration_ms=line.integer("duration_ms", minimum=0),
        changed_paths=line.strings("changed_paths") or (),
        blocked=line.boolean("blocked"),
    )


def _subagent(line: _Line) -> SubagentLine:
    history = line.data.get("tool_calls") or []
    if not isinstance(history, list) or not all(isinstance(h, dict) for h in history):
        raise line.fail("subagent line: 'tool_calls' must be a list of objects")
    status = line.string("status") or "completed"
    if status not in ("completed", "failed", "interrupted", "error"):
        raise line.fail(
            "subagent line: 'status' must be completed, failed, interrupted or error, "
            f"not {status!r}"
        )
    return SubagentLine(
        tool_call_id=line.required_string("tool_call_id", empty=False),
        line=line.number,
        goal=line.required_string("goal"),
        role=line.string("role"),
        child_session_id=line.string("child_session_id"),
        child_subagent_id=line.string("child_subagent_id") or "",
        summary=line.string("summary"),
        status=status,
        duration_ms=_default(line.integer("duration_ms", minimum=0), 0),
        tool_calls=tuple(history),
    )


class _Builder:
    """Assembles lines into exchanges and checks the order rules."""

    def __init__(self, path: str, check_ids: bool = True) -> None:
        self.path = path
        self.exchange: Exchange | None = None  # the one being assembled
        self.call_ids: dict[str, int] = {}  # every tool call id -> its line
        # The only state that grows with the file; a second pass over a validated
        # file (a replay) skips it, so replaying runs in constant memory.
        self.check_ids = check_ids

    def pending(self) -> tuple[ModelStep, list[ToolCall]] | None:
        """The last model step and its calls that have no result yet."""
        exchange = self.exchange
        if exchange is None or not exchange.steps:
            return None
        step = exchange.steps[-1]
        return step, [c for c in step.assistant.tool_calls if c.id not in step.results]

    def close_step(self, line: _Line) -> None:
        """A new user or assistant line: every call of the last step needs its result."""
        found = self.pending()
        exchange = self.exchange
        if found and found[1] and (exchange is None or exchange.interrupt is None):
            call = found[1][0]
            raise line.fail(
                f"tool call '{call.id}' ({call.name}, line {found[0].assistant.line}) has no "
                "tool_result before this line; add one, or an interrupt line"
            )

    def add(self, line: _Line) -> Exchange | None:
        """Take one line; return the exchange a user line just completed, if any."""
        kind = line.type
        exchange = self.exchange
        if kind == "user":
            self.close_step(line)
            user = UserLine(
                text=line.required_string("text"),
                line=line.number,
                message_id=line.string("message_id"),
            )
            done, self.exchange = exchange, Exchange(user)
            return done
        if exchange is None:
            raise line.fail(f"{kind} line before the first user line")
        if exchange.interrupt is not None:
            raise line.fail(
                f"{kind} line after the interrupt on line {exchange.interrupt.line}; "
                "an interrupted turn ends there"
            )
        if kind == "interrupt":
            issuer = line.string("issuer") or "user"
            exchange.interrupt = Interrupt(line.number, issuer)
            return None
        command = exchange.command
        if command is not None:
            raise line.fail(
                f"{kind} line after the slash command /{command[0]} on line "
                f"{exchange.user.line}; a command does not start a model turn"
            )
        if kind == "assistant":
            self.close_step(line)
            assistant = _assistant(line)
            for call in assistant.tool_calls if self.check_ids else ():
                if call.id in self.call_ids:
                    raise line.fail(
                        f"tool call id '{call.id}' is already used on line {self.call_ids[call.id]}"
                    )
                self.call_ids[call.id] = line.number
            exchange.steps.append(ModelStep(assistant))
            return None
        found = self.pending()
        parsed = _tool_result(line) if kind == "tool_result" else _subagent(line)
        call_id = parsed.tool_call_id
        if found is None or call_id not in {c.id for c in found[0].assistant.tool_calls}:
            raise line.fail(
                f"{kind} line for tool call '{call_id}', which the preceding assistant line "
                "did not make"
            )
        step = found[0]
        if call_id in step.results:
            raise line.fail(
                f"tool call '{call_id}' already has a tool_result on line "
                f"{step.results[call_id].line}"
            )
        if isinstance(parsed, ToolResultLine):
            step.results[call_id] = parsed
        else:
            step.subagents.setdefault(call_id, []).append(parsed)
        return None


def iter_recording(
    lines: Iterable[str], path: str = "<recording>", *, check_ids: bool = True
) -> Iterator[Header | Exchange]:
    """Validate recording text line by line: yield the :class:`Header`, then each
    :class:`Exchange` as soon as the next user line (or the end) completes it.

    Raises :class:`RecordingError` naming ``path:line`` at the first bad line.  Only
    the exchange being assembled is held in memory, and the tool-call ids seen (to
    refuse a reused one) unless ``check_ids=False``, for a file already validated.
    """
    header: Header | None = None
    builder = _Builder(path, check_ids)
    number = 0
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        data = read_line(path, number, text)
        if not isinstance(data, dict):
            raise RecordingError(
                f"{path}:{number}: each line must be a JSON object, not {type(data).__name__}"
            )
        line = _Line(path, number, data)
        if line.type not in LINE_TYPES:
            found = json.dumps(line.type) if "type" in data else "missing"
            raise line.fail(f"'type' is {found}; expected one of {', '.join(LINE_TYPES)}")
        if header is None:
            if line.type != "header":
                raise line.fail('the first line must be the header ("type": "header")')
            header = _header(line)
            yield header
            continue
        if line.type == "header":
            raise line.fail(f"a second header (the header is on line {header.line})")
        done = builder.add(line)
        if done is not None:
            yield done
    if header is None:
        raise RecordingError(f"{path}:{max(number, 1)}: empty recording; it needs a header line")
    if builder.exchange is not None:
        yield builder.exchange


def parse_recording(lines: Iterable[str] | IO[str], path: str = "<recording>") -> Recording:
    """Parse and validate recording text; raise :class:`RecordingError` naming the line."""
    items = iter_recording(lines, path)
    header = next(items)
    assert isinstance(header, Header)
    exchanges = [item for item in items if isinstance(item, Exchange)]
    return Recording(path=path, header=header, exchanges=exchanges)


def _file_lines(name: str) -> Iterator[str]:
    """The lines of ``name`` (UTF-8, a BOM tolerated), read lazily; an unreadable file
    raises :class:`RecordingError`."""
    number = 0
    try:
        with open(name, encoding="utf-8-sig", newline="") as stream:
            for text in stream:
                number += 1
                yield text.rstrip("\r\n")
    except FileNotFoundError:
        raise RecordingError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise RecordingError(f"{name}: is a directory, not a recording") from None
    except UnicodeDecodeError as exc:
        raise RecordingError(f"{name}:{number + 1}: not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise RecordingError(f"{name}: cannot read ({exc.strerror or exc})") from None


def load_recording(path: str | os.PathLike[str]) -> Recording:
    """Read and validate the recording at ``path`` (UTF-8, a BOM is tolerated)."""
    name = os.fspath(path)
    return parse_recording(_file_lines(name), name)


def scan_recording(path: str | os.PathLike[str]) -> tuple[Header, int]:
    """Validate the whole file at ``path`` without keeping it: its header and how many
    exchanges it holds.  Raises :class:`RecordingError` at the first bad line."""
    name = os.fspath(path)
    items = iter_recording(_file_lines(name), name)
    header = next(items)
    assert isinstance(header, Header)
    return header, sum(1 for _ in items)


class _Reread:
    """The exchanges of a validated file, read again from disk on each iteration."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __iter__(self) -> Iterator[Exchange]:
        items = iter_recording(_file_lines(self.name), self.name, check_ids=False)
        next(items)
        for item in items:
            assert isinstance(item, Exchange)
            yield item


def open_recording(path: str | os.PathLike[str], header: Header | None = None) -> Recording:
    """A :class:`Recording` of the file at ``path`` whose exchanges are streamed from
    the file, for replaying long recordings in constant memory.

    The whole file is validated first (before anything runs), unless ``header`` is
    given: then the caller has already validated it with :func:`scan_recording`.
    """
    name = os.fspath(path)
    if header is None:
        header, _ = scan_recording(name)
    return Recording(path=name, header=header, exchanges=_Reread(name))
