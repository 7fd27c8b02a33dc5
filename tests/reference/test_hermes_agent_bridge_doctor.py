"""``hermes-hooks doctor`` on a home hermes-agent runs: hooks that would fire twice or
not at all, with hermes-agent 0.19.0 installed beside hermes-hooks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.cli import main

pytest.importorskip("hermes_cli", reason="needs hermes-agent installed")

SUBJECT = "hermes-agent bridge"


def _bridge_findings(home: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[Any]]:
    code = main(["doctor", "--json", "--home", str(home)])
    findings = json.loads(capsys.readouterr().out)["findings"]
    return code, [(f["level"], f["message"]) for f in findings if f["subject"] == SUBJECT]


def test_gates_only_hermes_hooks_runs_are_an_error_while_the_bridge_is_off(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "guard.sh").write_text("#!/bin/sh\nexit 0\n")
    (tmp_path / "guard.sh").chmod(0o755)
    (tmp_path / "config.yaml").write_text(
        f"""hooks:
  PreToolUse:
    - matcher: Bash
      command: {tmp_path}/guard.sh
  pre_tool_call:
    - command: {tmp_path}/guard.sh
      fail_closed: true
  post_tool_call:
    - command: {tmp_path}/guard.sh
"""
    )
    code, found = _bridge_findings(tmp_path, capsys)
    assert code == 1
    assert found == [
        (
            "error",
            "hermes-agent is installed but does not load the bridge, so inside the agent "
            "these never fire: hooks.PreToolUse[0], hooks.pre_tool_call[0] (fails open in "
            f"hermes-agent). Fix: add hermes-hooks to plugins.enabled in {tmp_path}/config.yaml",
        )
    ]


def test_a_bundled_plugin_enabled_under_the_bridge_would_never_fire(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "config.yaml").write_text("plugins:\n  enabled: [hermes-hooks, disk-cleanup]\n")
    code, found = _bridge_findings(tmp_path, capsys)
    assert code == 1
    assert found == [
        (
            "error",
            f"{tmp_path}/config.yaml: plugins.enabled lists 'disk-cleanup', a plugin bundled "
            "with hermes-agent; hermes-hooks does not load bundled plugins, so under the "
            f"bridge its hooks never fire. Fix: copy its folder into {tmp_path}/plugins (both "
            "then load that copy), or remove it from plugins.enabled",
        )
    ]


def test_a_distribution_seen_through_both_groups_fires_twice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    (site / "both_ways").mkdir(parents=True)
    (site / "both_ways" / "__init__.py").write_text(
        "import hermes_hooks\n\n\n"
        "@hermes_hooks.hookimpl\n"
        "def post_tool_call(tool_name):\n    return None\n\n\n"
        "def register(ctx):\n    ctx.register_hook('post_tool_call', post_tool_call)\n"
    )
    meta = site / "both_ways-1.0.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: both-ways\nVersion: 1.0\n")
    (meta / "entry_points.txt").write_text(
        "[hermes_hooks]\nboth-pluggy = both_ways\n\n"
        "[hermes_agent.plugins]\nboth-agent = both_ways\n"
    )
    monkeypatch.syspath_prepend(str(site))
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(
        "plugins:\n  enabled: [hermes-hooks, both-pluggy, both-agent]\n"
    )
    code, found = _bridge_findings(home, capsys)
    assert found == [
        (
            "warn",
            "'both-ways' registers post_tool_call under two entry points ('both-agent' and "
            "'both-pluggy'), so each post_tool_call fires it twice. Fix: disable one of them "
            "in plugins.disabled",
        )
    ]
    assert code == 0


def test_a_clean_bridged_home_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "config.yaml").write_text("plugins:\n  enabled: [hermes-hooks]\n")
    code, found = _bridge_findings(tmp_path, capsys)
    assert (code, found) == (
        0,
        [
            (
                "ok",
                "enabled: hermes-agent fires every hook of this home once, through hermes-hooks",
            )
        ],
    )


def test_gateway_hooks_of_a_bridged_home_are_named_as_taken_over(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "config.yaml").write_text("plugins:\n  enabled: [hermes-hooks]\n")
    for name, enabled in [("audit", "true"), ("muted", "false"), ("notify", "true")]:
        folder = tmp_path / "hooks" / name
        folder.mkdir(parents=True)
        (folder / "HOOK.yaml").write_text(f"events: [agent:end]\nenabled: {enabled}\n")
        (folder / "handler.py").write_text("def handle(event_type, context):\n    pass\n")
    code, found = _bridge_findings(tmp_path, capsys)
    assert (code, found) == (
        0,
        [
            (
                "ok",
                "enabled: hermes-agent fires every hook of this home once, through hermes-hooks",
            ),
            (
                "ok",
                "gateway hooks audit, notify: in hermes-agent's gateway they fire once, on "
                "hermes-hooks' lanes (the agent's own hook registry loads none of them)",
            ),
        ],
    )


@pytest.mark.parametrize("bridged", [True, False])
def test_prompt_hooks_of_a_bridged_home_have_the_agents_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bridged: bool
) -> None:
    enabled = "plugins:\n  enabled: [hermes-hooks]\n" if bridged else ""
    (tmp_path / "config.yaml").write_text(
        enabled + "hooks:\n  PreToolUse:\n    - matcher: Bash\n      type: prompt\n"
        '      prompt: "ok? $ARGUMENTS"\n'
    )
    main(["doctor", "--json", "--home", str(tmp_path)])
    findings = json.loads(capsys.readouterr().out)["findings"]
    refused = [
        f["message"]
        for f in findings
        if f["subject"] == "shell hooks.PreToolUse[0] prompt: ok? $ARGUMENTS"
        and "this host supplies none" in f["message"]
    ]
    assert len(refused) == (0 if bridged else 1)
