"""Each plugin loaded under hermes-agent 0.19.0 and under hermes-hooks, compared.

Load errors, every registration of every kind, the decision and raw results of each
hook on the shared payloads, middleware effects and files left behind must match,
except where ``docs/compatibility.md`` lists the difference with its reason.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.reference.compare import COMPARED, allowed_differences, compare
from tests.reference.plugins import FIXTURES, REAL

ALLOWED = allowed_differences()


def test_real_plugins_are_many_enough() -> None:
    assert len(REAL) >= 15


@pytest.mark.parametrize("plugin", [*REAL, *FIXTURES])
def test_plugin_behaves_as_under_hermes_agent(plugin: str, tmp_path: Path) -> None:
    result = compare(plugin, tmp_path)
    COMPARED.append(result)
    assert result.hermes["load"]["state"] != "missing", f"{plugin} is not installed"
    unlisted = [d for d in result.differences if not any(a.covers(plugin, d) for a in ALLOWED)]
    assert unlisted == [], (
        f"{plugin}: differences not listed in docs/compatibility.md: {unlisted}\n"
        f"hermes-agent: {result.hermes}\nhermes-hooks: {result.hooks}"
    )
    stale = [
        a.difference
        for a in ALLOWED
        if a.plugin == plugin
        and not a.varies
        and not any(a.covers(plugin, d) for d in result.differences)
    ]
    assert stale == [], (
        f"{plugin}: docs/compatibility.md lists differences that no longer occur: {stale}"
    )
