"""The JSON envelope shell hooks read on stdin and outbound webhooks POST.

One function builds it for both, so the two wire formats cannot drift::

    {"hook_event_name", "profile", "tool_name", "tool_input", "session_id", "cwd",
     "extra"}                                  (+ "delivery_id", "timestamp" for webhooks)

``tool_name`` is set only on the tool events; ``tool_input`` is ``args`` when it is a
dict; ``session_id`` is ``session_id``, else ``parent_session_id``, else ``""``; every
other keyword argument goes into ``extra``, with ``telemetry_schema_version``.
Values JSON cannot hold are converted, never dropped: dataclasses field by field, other
objects with ``str()``, lone surrogates as U+FFFD; ``pre_gateway_dispatch`` gets a
plain ``event`` dict and loses its in-process handles.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping
from typing import Any

from hermes_hooks.hookspecs import CATALOGUE, TELEMETRY_FIELD, TELEMETRY_VERSION

__all__ = [
    "DEFAULT_PROFILE",
    "TOOL_EVENTS",
    "build_envelope",
    "dumps",
    "jsonable",
]

#: The events whose ``tool_name`` kwarg is lifted to the top level: the hooks
#: whose catalogue payload carries one.
TOOL_EVENTS = frozenset(name for name, c in CATALOGUE.items() if "tool_name" in c.field_names)
DEFAULT_PROFILE = "default"
_EVENT_SOURCE_KEYS = ("platform", "chat_id", "chat_type", "user_id", "thread_id")
_EVENT_KEYS = ("text", "message_id", "internal")


def jsonable(value: Any) -> Any:
    """``value`` made JSON-safe: containers recursively, dataclasses as dicts of their
    fields, anything else unknown as ``str()``."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


def _plain_event(event: Any) -> dict[str, Any]:
    """The inbound MessageEvent as a plain dict scripts can parse."""

    def read(obj: Any, key: str) -> Any:
        if isinstance(obj, Mapping):
            return obj.get(key)
        return getattr(obj, key, None)

    source = read(event, "source")
    return {
        **{key: jsonable(read(event, key)) for key in _EVENT_KEYS},
        "source": {key: jsonable(read(source, key)) for key in _EVENT_SOURCE_KEYS},
    }


def _cwd() -> str:
    try:
        return os.getcwd()
    except OSError:  # the directory was removed under us
        return ""


def build_envelope(
    event: str, payload: Mapping[str, Any], *, profile: str = DEFAULT_PROFILE
) -> dict[str, Any]:
    """The envelope of one firing of ``event`` with keyword payload ``payload``."""
    extra = dict(payload)
    extra.pop(TELEMETRY_FIELD, None)
    tool_name = extra.pop("tool_name", None) if event in TOOL_EVENTS else None
    args = extra.get("args")
    tool_input = None
    if isinstance(args, Mapping):
        tool_input = jsonable(args)
        del extra["args"]
    session_id = extra.pop("session_id", None)
    if session_id is None:
        session_id = extra.pop("parent_session_id", None)  # subagent_stop names the parent
    if event == "pre_gateway_dispatch":
        extra.pop("gateway", None)
        extra.pop("session_store", None)
        if "event" in extra:
            extra["event"] = _plain_event(extra["event"])
    contract = CATALOGUE.get(event)
    if contract is None or contract.marker:
        extra[TELEMETRY_FIELD] = TELEMETRY_VERSION
    return {
        "hook_event_name": event,
        "profile": profile,
        "tool_name": tool_name if isinstance(tool_name, str) else None,
        "tool_input": tool_input,
        "session_id": session_id if isinstance(session_id, str) else "",
        "cwd": _cwd(),
        "extra": jsonable(extra),
    }


def dumps(document: Mapping[str, Any]) -> bytes:
    """UTF-8 JSON with non-ASCII kept, keys in insertion order.

    Every envelope (shell stdin, webhook bodies, durable outbox rows) is serialised
    here, so this is where text UTF-8 cannot hold is converted: model APIs do emit lone
    surrogates such as ``"\\ud800"``, and a payload holding one must still reach its
    hooks rather than fail the gate or lose the event.  A surrogate pair split into two
    code points becomes its character; a lone surrogate becomes U+FFFD, which every
    JSON parser accepts (a ``\\ud800`` escape is refused by some strict ones).
    """

    text = json.dumps(document, ensure_ascii=False, separators=(", ", ": "))
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # rare: only payloads holding surrogates pay for this
        return _without_lone_surrogates(text).encode("utf-8")


def _without_lone_surrogates(text: str) -> str:
    """``text`` with surrogate pairs joined and lone surrogates replaced by U+FFFD."""
    # UTF-16 round trip: surrogatepass writes every surrogate as its code unit, and
    # the decoder joins valid pairs and replaces what is left over.
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
