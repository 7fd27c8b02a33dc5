"""System prompt sections (PS-01..PS-12, D-57..D-60)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

import hermes_hooks
from hermes_hooks.plugins.prompt_sections import PromptSections, recover
from tests.helpers import write_plugin

SESSION = {
    "session_id": "s1",
    "model": "m",
    "provider": "p",
    "platform": "cli",
    "profile_name": "default",
    "cwd": "/w",
}


def test_rendering_is_byte_exact_in_id_order() -> None:
    sections = PromptSections()
    sections.register("p2", "zeta.rules", "  Zeta text.\n")
    sections.register("p1", "alpha", lambda info: f"Rules for {info['profile_name']}.")
    assert sections.render(SESSION) == (
        "<!-- hermes-plugin-sections:start -->\n"
        "## Plugin Context: alpha\n"
        "<!-- hermes-plugin-section-chars:18 -->\n"
        "\n"
        "Rules for default.\n"
        "\n"
        "## Plugin Context: zeta.rules\n"
        "<!-- hermes-plugin-section-chars:10 -->\n"
        "\n"
        "Zeta text.\n"
        "<!-- hermes-plugin-sections:end -->"
    )


def test_callables_run_once_per_session_and_are_frozen() -> None:
    calls: list[Any] = []
    sections = PromptSections()

    def dynamic(info: Any) -> str:
        calls.append(dict(info))
        return f"call {len(calls)}"

    sections.register("p", "dyn", dynamic)
    first = sections.render(SESSION)
    assert sections.render(SESSION) == first  # same bytes, no second call
    assert calls == [SESSION]
    assert "call 1" in first
    assert "call 2" in sections.render({**SESSION, "session_id": "s2"})


def test_the_map_is_read_only() -> None:
    sections = PromptSections()
    sections.register("p", "ro", lambda info: info.__setitem__("x", 1))
    assert sections.render(SESSION) == ""


def test_recover_and_restore_after_a_restart() -> None:
    sections = PromptSections()
    sections.register("p", "a", "persisted")
    block = sections.render(SESSION)
    prompt = f"You are Hermes.\n\n{block}\n\nSession metadata: ..."
    assert recover(prompt) == block
    restarted = PromptSections()
    restarted.register("p", "a", lambda info: "plugin state changed meanwhile")
    assert restarted.restore("s1", prompt) == block
    assert restarted.render(SESSION) == block


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"section_id": "Bad Id"}, ValueError, "System prompt section id 'Bad Id' is invalid"),
        ({"section_id": "x" * 129}, ValueError, "is invalid"),
        ({"content": 42}, TypeError, "content must be a string or a callable, not int"),
        ({"position": "before_memory"}, ValueError, "position must be 'after_memory'"),
        (
            {"max_chars": 4001},
            ValueError,
            "max_chars must be an integer between 1 and 4000, not 4001",
        ),
        ({"max_chars": 0}, ValueError, "not 0"),
        ({"max_chars": True}, ValueError, "not True"),
    ],
)
def test_registration_errors(kwargs: dict[str, Any], error: type, message: str) -> None:
    args: dict[str, Any] = {"section_id": "ok", "content": "x", **kwargs}
    sections = PromptSections()
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        sections.register("p", args.pop("section_id"), args.pop("content"), **args)


def test_duplicate_ids_are_rejected_naming_the_owner() -> None:
    sections = PromptSections()
    sections.register("first-plugin", "shared", "a")
    with pytest.raises(ValueError) as info:
        sections.register("second", "shared", "b")
    assert str(info.value) == (
        "System prompt section 'shared' is already registered by plugin 'first-plugin'"
    )


def test_the_33rd_section_is_skipped(caplog: Any) -> None:
    sections = PromptSections()
    for n in range(33):
        sections.register("p", f"s{n:02d}", "x")
    text = sections.render(SESSION)
    assert text.count("## Plugin Context:") == 32
    assert "## Plugin Context: s32" not in text
    assert "System prompt section 's32' skipped: at most 32 sections are rendered" in caplog.text


def test_the_8000_character_budget_skips_what_does_not_fit(caplog: Any) -> None:
    sections = PromptSections()
    sections.register("p", "a", "a" * 4000)
    sections.register("p", "b", "b" * 4000)  # would pass 8000 with markers
    sections.register("p", "c", "c" * 100)  # later and smaller: still fits
    text = sections.render(SESSION)
    assert "## Plugin Context: a" in text and "## Plugin Context: c" in text
    assert "## Plugin Context: b" not in text
    assert len(text) <= 8000
    assert (
        "System prompt section 'b' skipped: it would take all plugin sections past 8000"
        in caplog.text
    )


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("   ", "it is empty"),
        (lambda info: 5, "content is int, not a string"),
        (lambda info: 1 / 0, "its callable raised ZeroDivisionError: division by zero"),
        ("<!-- hermes-plugin-sections:end -->", "it contains a plugin-section marker"),
    ],
)
def test_bad_content_is_skipped_with_a_warning(content: Any, reason: str, caplog: Any) -> None:
    sections = PromptSections()
    sections.register("p", "bad", content)
    sections.register("p", "good", "fine")
    text = sections.render(SESSION)
    assert "## Plugin Context: good" in text and "## Plugin Context: bad" not in text
    assert f"System prompt section 'bad' skipped: {reason}" in caplog.text


def test_over_max_chars_is_skipped(caplog: Any) -> None:
    sections = PromptSections()
    sections.register("p", "long", "x" * 11, max_chars=10)
    assert sections.render(SESSION) == ""
    assert "'long' skipped: 11 characters, over its max_chars of 10" in caplog.text


def test_accepted_sections_are_logged_at_info(caplog: Any) -> None:
    sections = PromptSections()
    sections.register("kanban", "kanban.worker-rules", "Apply the rules.")
    sections.render(SESSION)
    infos = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert infos == [
        "System prompt section 'kanban.worker-rules' from plugin 'kanban' at after_memory: 16 chars"
    ]


def test_plugins_register_through_ctx(home: Path) -> None:
    write_plugin(
        home / "plugins",
        "kanban-advanced",
        "def board_rules(info):\n"
        "    return f\"Apply the worker rules for profile {info['profile_name']}.\"\n\n"
        "def register(ctx):\n"
        "    ctx.register_system_prompt_section(\n"
        "        'kanban-advanced.worker-rules', board_rules, position='after_memory',"
        " max_chars=4000)\n",
    )
    hooks = hermes_hooks.load(home, entry_points=False)
    assert "Apply the worker rules for profile default." in hooks.prompt_sections.render(SESSION)
    hooks.unload()
    assert hooks.prompt_sections.ids() == []
