"""The README's plugin example is the example home's plugin, and it works."""

from __future__ import annotations

import re
from pathlib import Path

import hermes_hooks

REPO = Path(__file__).resolve().parents[1]


def test_readme_example_matches_the_example_plugin() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    match = re.search(
        r"<!-- example: (?P<path>\S+) -->\n```python\n(?P<code>.*?)```", readme, re.DOTALL
    )
    assert match is not None
    assert (REPO / match["path"]).read_text(encoding="utf-8") == match["code"]


def test_readme_commands_are_the_documented_two() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "python3 -m pip install tox && tox" in readme
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "tox" in ci


def test_the_example_plugin_counts_and_injects_context() -> None:
    hooks = hermes_hooks.load(REPO / "examples" / "home", entry_points=False)
    llm = {
        "session_id": "s",
        "task_id": "",
        "turn_id": "",
        "user_message": "hi",
        "conversation_history": [],
        "is_first_turn": True,
        "model": "m",
        "platform": "cli",
        "parent_session_id": None,
        "sender_id": None,
    }
    assert hooks.pre_llm_call(**llm) is None
    for tool in ("terminal", "read_file", "terminal"):
        hooks.post_tool_call(
            tool_name=tool,
            args={},
            result="{}",
            task_id="",
            session_id="s",
            tool_call_id="c",
            turn_id="",
            api_request_id="",
            duration_ms=1,
            status="ok",
            error_type=None,
            error_message=None,
            middleware_trace=[],
        )
    assert hooks.pre_llm_call(**llm) == "Tool calls so far: read_file=1, terminal=2"
    hooks.close()
