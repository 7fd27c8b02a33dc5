"""docs/writing-plugins.md: its directory-plugin example works as the page says."""

from __future__ import annotations

import re
from pathlib import Path

import hermes_hooks
from tests.helpers import write_plugin

PAGE = Path(__file__).resolve().parents[1] / "docs" / "writing-plugins.md"


def test_the_directory_plugin_example_blocks_and_registers_its_tool(home: Path) -> None:
    example = re.findall(r"```python\n# __init__.py\n(.*?)```", PAGE.read_text("utf-8"), re.S)
    assert len(example) == 1
    write_plugin(home / "plugins", "disk-guard", example[0])
    hooks = hermes_hooks.load(home, entry_points=False)
    decision = hooks.pre_tool_call(
        tool_name="terminal",
        args={"command": "rm -rf /"},
        task_id="",
        session_id="s",
        tool_call_id="c",
        turn_id="t",
        api_request_id="",
        middleware_trace=[],
    )
    tool = hooks.registry.tools["disk_usage"]
    hooks.close()
    assert (decision.action, decision.message) == (
        "block",
        "disk-guard: refusing to wipe the disk",
    )
    assert (tool.plugin, tool.toolset) == ("disk-guard", "disk")


def test_every_ctx_member_of_hermes_agent_is_documented() -> None:
    from hermes_hooks.plugins.context import PluginContext

    text = PAGE.read_text("utf-8")
    members = [m for m in dir(PluginContext) if not m.startswith("_")] + ["manifest"]
    assert [m for m in members if f"`{m}" not in text] == []
