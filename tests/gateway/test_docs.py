"""docs/gateway-hooks.md agrees with the code, and carries the D-86..D-88 wording."""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path

import hermes_hooks
from tests.gateway.helpers import run
from tests.gateway.test_contrib import EXPECTED_PROMPT

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "gateway-hooks.md").read_text(encoding="utf-8")
EXAMPLES = dict(re.findall(r"<!-- example: (\S+) -->\n```\w+\n(.*?)```", DOC, re.DOTALL))


def flat(text: str) -> str:
    """Markdown paragraphs wrap lines; compare with single spaces."""
    return " ".join(text.split())


def test_the_boot_prompt_in_the_docs_is_byte_exact() -> None:
    (block,) = re.findall(r"```text\n(You are running.*?)\n```", DOC, re.DOTALL)
    assert block == EXPECTED_PROMPT


def test_the_documented_boot_handler_is_the_shipped_one() -> None:
    shipped = (ROOT / "contrib" / "gateway-hooks" / "boot-md" / "handler.py").read_text()
    assert EXAMPLES["contrib/gateway-hooks/boot-md/handler.py"] == shipped


def test_the_docs_say_the_hook_logs_instead_of_delivering() -> None:  # no delivery API (D-86)
    sentence = (
        "the hook logs your final response; to post it, add a delivery step such as the "
        "Telegram POST of the `long-task-alert` hook"
    )
    assert flat(DOC).count(sentence) == 2  # the pattern's parts, and checklist item 2
    assert "delivers your final response to the configured destination" not in flat(DOC)


def test_the_docs_describe_the_silence_rule_as_d87_says() -> None:
    rule = (
        "the whole reply is `[SILENT]` (case and surrounding whitespace ignored; `SILENT`, "
        "`NO_REPLY` and `NO REPLY` also work)"
    )
    assert flat(DOC).count(rule) == 2
    assert "exact silence token" not in DOC


def test_the_day_aware_extension_is_natural_language() -> None:  # evaluates nothing (D-88)
    assert "datetime.now().weekday()" not in DOC
    assert '"If today is Monday, also check the weekly deploy log"' in flat(DOC)
    assert "The agent learns the date with a tool call such as `date`." in flat(DOC)


def test_the_documented_events_are_the_catalogue() -> None:
    rows = re.findall(r"^\| `([a-z]+:[a-z*]+)` \|", DOC, re.MULTILINE)
    assert rows == list(hermes_hooks.GATEWAY_EVENTS)


def test_the_activity_logger_example_works() -> None:
    """EX-01: the docs' meu-hook, copied into a home, logs one JSON line per event."""
    home = Path.home() / ".hermes"
    directory = home / "hooks" / "meu-hook"
    directory.mkdir(parents=True)
    (directory / "HOOK.yaml").write_text(EXAMPLES["meu-hook/HOOK.yaml"], encoding="utf-8")
    (directory / "handler.py").write_text(EXAMPLES["meu-hook/handler.py"], encoding="utf-8")
    hooks = hermes_hooks.load(home, surface="gateway", entry_points=False)
    start = {"platform": "telegram", "user_id": "u1", "message": "hi"}
    step = {"platform": "telegram", "iteration": 1, "tool_names": ["terminal"]}

    async def main() -> None:
        await hooks.gateway.emit("agent:start", start)
        await hooks.gateway.emit("agent:step", step)
        await hooks.gateway.emit("session:start", {"platform": "telegram"})
        assert await hooks.gateway.drain(5)

    try:
        run(main())
    finally:
        hooks.close(1.0)
        hooks.unload()
    entries = [json.loads(line) for line in (directory / "activity.log").read_text().splitlines()]
    assert [{k: v for k, v in e.items() if k != "timestamp"} for e in entries] == [
        {"event": "agent:start", **start},
        {"event": "agent:step", **step},
    ]
    assert all(isinstance(datetime.fromisoformat(e["timestamp"]), datetime) for e in entries)
