"""The gateway event catalogue (Table GW-T1) and wildcard matching (D-04)."""

from __future__ import annotations

import pytest

import hermes_hooks
from hermes_hooks.gateway import events
from hermes_hooks.gateway.events import (
    GATEWAY_EVENTS,
    context_keys,
    is_known_event,
    matches,
    suggest_event,
    truncate_text,
)

AGENT_START = ("platform", "user_id", "chat_id", "thread_id", "chat_type", "session_id", "message")
REACTION = (
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


def test_the_catalogue_is_table_gw_t1() -> None:
    table_gw_t1 = {
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
        "agent:start": AGENT_START,
        "agent:step": ("platform", "user_id", "session_id", "iteration", "tool_names"),
        "agent:end": (*AGENT_START, "response"),
        "reaction:added": REACTION,
        "reaction:removed": REACTION,
        "command:*": ("platform", "user_id", "command", "args", "raw_command", "raw_args"),
    }
    assert table_gw_t1 == GATEWAY_EVENTS


def test_the_package_exports_the_catalogue_lazily() -> None:
    assert hermes_hooks.GATEWAY_EVENTS is GATEWAY_EVENTS
    assert "GATEWAY_EVENTS" in hermes_hooks.__all__


@pytest.mark.parametrize(
    ("pattern", "event", "expected"),
    [
        ("agent:start", "agent:start", True),
        ("agent:start", "agent:end", False),
        ("command:*", "command:model", True),
        ("command:*", "command:reset", True),
        ("agent:*", "agent:step", True),
        ("session:*", "session:compress", True),
        ("reaction:*", "reaction:removed", True),
        ("gateway:*", "gateway:startup", True),
        ("agent:*", "agents:start", False),
        ("agent:*", "agent", False),
        ("agent", "agent:start", False),  # no bare-prefix subscription
        ("*", "agent:start", False),  # no global wildcard
        ("agent:*:x", "agent:start:x", False),  # no multi-level wildcard
        ("a*:*", "a*:x", False),
    ],
)
def test_wildcards_are_general_but_one_level(pattern: str, event: str, expected: bool) -> None:
    assert matches(pattern, event) is expected


@pytest.mark.parametrize(
    ("name", "known"),
    [
        ("agent:start", True),
        ("command:*", True),
        ("command:model", True),
        ("command:my-plugin-cmd", True),
        ("agent:*", True),
        ("reaction:*", True),
        ("agnet:start", False),
        ("agnet:*", False),
        ("*", False),
        ("command:", False),
        ("command:two words", False),
        ("message:pre_route", False),
    ],
)
def test_known_events(name: str, known: bool) -> None:
    assert is_known_event(name) is known


def test_suggestions_follow_d03() -> None:
    assert suggest_event("agnet:start") == "did you mean 'agent:start'?"
    assert suggest_event("sesion:*") == "did you mean 'session:*'?"
    valid = ", ".join(sorted(set(GATEWAY_EVENTS) | events.WILDCARDS))
    assert suggest_event("zzz") == f"(valid: {valid})"
    assert "agent:*" in valid and "gateway:startup" in valid


def test_context_keys_cover_every_command() -> None:
    assert context_keys("command:model") == GATEWAY_EVENTS["command:*"]
    assert context_keys("agent:end")[-1] == "response"
    assert context_keys("nope:x") == ()


def test_messages_are_cut_at_500_characters() -> None:
    assert truncate_text("x" * 501) == "x" * 500
    assert truncate_text("short") == "short"
