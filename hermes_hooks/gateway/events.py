"""The gateway event catalogue and subscription matching.

:data:`GATEWAY_EVENTS` maps every event the gateway emits to the context keys its
handlers receive.  ``command:*`` stands for every ``command:<canonical>`` event.

A subscription is an exact event name or a ``<prefix>:*`` wildcard, which matches every
event whose text before the first ``:`` is ``<prefix>``.  There is no global
``*``, no bare-prefix subscription and no multi-level wildcard.
"""

from __future__ import annotations

from hermes_hooks._manager import suggest_hook

__all__ = [
    "COMMAND_PREFIX",
    "GATEWAY_EVENTS",
    "MESSAGE_LIMIT",
    "WILDCARDS",
    "context_keys",
    "event_prefix",
    "is_known_event",
    "is_wildcard",
    "matches",
    "suggest_event",
    "truncate_text",
    "wildcard_prefix",
]

_AGENT_START = (
    "platform",
    "user_id",
    "chat_id",
    "thread_id",
    "chat_type",
    "session_id",
    "message",
)
_REACTION = (
    "platform",
    "reaction",
    "user_id",
    "item_user_id",
    "item_type",
    "channel_id",
    "message_ts",
    "team_id",
    "event_ts",
    "raw_event",
)

#: Event -> context keys (``command:*`` adds the raw command and arguments as typed).
GATEWAY_EVENTS: dict[str, tuple[str, ...]] = {
    "gateway:startup": ("platforms",),
    "session:start": ("platform", "user_id", "session_id", "session_key"),
    "session:end": ("platform", "user_id", "session_key"),
    "session:reset": ("platform", "user_id", "session_key"),
    "session:compress": (
        "platform",
        "session_id",
        "old_session_id",
        "in_place",
        "compression_count",
    ),
    "agent:start": _AGENT_START,
    "agent:step": ("platform", "user_id", "session_id", "iteration", "tool_names"),
    "agent:end": (*_AGENT_START, "response"),
    "reaction:added": _REACTION,
    "reaction:removed": _REACTION,
    "command:*": ("platform", "user_id", "command", "args", "raw_command", "raw_args"),
}

COMMAND_PREFIX = "command:"

#: ``agent:start.message`` and ``agent:end.response`` are cut at this length.
MESSAGE_LIMIT = 500

#: The wildcard of every event family: ``agent:*``, ``command:*``, ...
WILDCARDS: frozenset[str] = frozenset(f"{name.split(':', 1)[0]}:*" for name in GATEWAY_EVENTS)
_PREFIXES = frozenset(w[:-2] for w in WILDCARDS)
_SUGGESTIONS = tuple(sorted(set(GATEWAY_EVENTS) | WILDCARDS))


def event_prefix(event: str) -> str | None:
    """The family of ``event`` (text before the first ``:``), or None without a ``:``."""
    prefix, colon, _ = event.partition(":")
    return prefix if colon and prefix else None


def wildcard_prefix(pattern: str) -> str | None:
    """``agent`` for ``agent:*``; None when ``pattern`` is not a ``<prefix>:*`` wildcard."""
    if not pattern.endswith(":*"):
        return None
    prefix = pattern[:-2]
    if not prefix or ":" in prefix or "*" in prefix:
        return None
    return prefix


def is_wildcard(pattern: str) -> bool:
    """Whether ``pattern`` has the ``<prefix>:*`` form."""
    return wildcard_prefix(pattern) is not None


def matches(pattern: str, event: str) -> bool:
    """Whether a subscription ``pattern`` receives ``event`` (exact, or ``<prefix>:*``)."""
    if pattern == event:
        return True
    prefix = wildcard_prefix(pattern)
    return prefix is not None and event_prefix(event) == prefix


def is_known_event(name: str) -> bool:
    """Whether ``name`` is worth subscribing to without a warning.

    Known: every event of :data:`GATEWAY_EVENTS`, any ``command:<name>`` (plugins add commands),
    and the wildcard of every event family.
    """
    if name in GATEWAY_EVENTS:
        return True
    if name.startswith(COMMAND_PREFIX):
        rest = name[len(COMMAND_PREFIX) :]
        return bool(rest) and not any(c.isspace() for c in rest) and ":" not in rest
    prefix = wildcard_prefix(name)
    return prefix is not None and prefix in _PREFIXES


def meant_a_command(name: str) -> bool:
    """Whether the unknown event ``name`` was most likely meant as a slash command
    (``comand:deploy``, ``Command:deploy``, ``commands:*``): its prefix resembles
    ``command``.  A command hook can deny the command, so one that never fires is a
    guard switched off."""
    import difflib  # only for an unknown event name: not loaded with the package

    prefix = name.split(":", 1)[0].strip().lower()
    word = COMMAND_PREFIX[:-1]
    return difflib.SequenceMatcher(None, prefix, word).ratio() >= 0.8


def suggest_event(name: str) -> str:
    """The did-you-mean tail: ``did you mean 'x'?`` (similarity >= 0.6), else ``(valid: ...)``."""
    return suggest_hook(name, _SUGGESTIONS)


def context_keys(event: str) -> tuple[str, ...]:
    """The context keys :data:`GATEWAY_EVENTS` promises for ``event`` (empty for unknown events)."""
    keys = GATEWAY_EVENTS.get(event)
    if keys is not None:
        return keys
    if event.startswith(COMMAND_PREFIX):
        return GATEWAY_EVENTS["command:*"]
    return ()


def truncate_text(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """``text`` cut to ``limit`` characters, as hosts must for message/response."""
    return text[:limit]
