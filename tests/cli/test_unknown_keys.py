"""Unknown and duplicate keys in config.yaml, HOOK.yaml and plugin.yaml are reported
with their line and a did-you-mean; a misspelling that weakens a gate is an error."""

from __future__ import annotations

import logging
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.cli import main
from hermes_hooks.errors import ConfigError
from hermes_hooks.hooks import Hooks
from tests.helpers import write_plugin

CONFIG = textwrap.dedent(
    """\
    hoooks:
      pre_tool_call:
        - command: ./gate.sh
    hooks:
      pre_tool_call:
        - command: ./gate.sh
          fail_close: true
          matchr: terminal
      outbound:
        - url: https://example.invalid/
          events: [on_session_end]
          secret_envv: HOOK_SECRET
          retries: 3
    plugins:
      disabeld: [noisy]
      my-plugin: {colour: blue}
      hook_callback_timeout: 5
      hook_callback_timeout: 6
    hooks_auto_acept: true
    model: some-model
    """
)


def doctor(capsys: Any, home: Path) -> tuple[int, list[str]]:
    code = main(["--home", str(home), "--no-entry-points", "doctor"])
    return code, capsys.readouterr().out.splitlines()


def test_doctor_shows_every_unknown_key_with_its_line(home: Path, capsys: Any) -> None:
    (home / "config.yaml").write_text(CONFIG, encoding="utf-8")
    code, lines = doctor(capsys, home)
    config = str(home / "config.yaml")
    assert code == 1
    assert [line for line in lines if config in line] == [
        f"✗ {config}:1:1: hoooks: unknown key 'hoooks' — did you mean 'hooks'? As written, "
        "no shell hook or outbound webhook of this file loads; the value is ignored. Fix: "
        "rename it to 'hooks'",
        f"✗ {config}:7:7: hooks.pre_tool_call[0].fail_close: unknown key 'fail_close' — did "
        "you mean 'fail_closed'? As written, this hook fails open: a crash or a timeout "
        "lets the tool call through; the value is ignored. Fix: rename it to 'fail_closed'",
        f"⚠ {config}:8:7: hooks.pre_tool_call[0].matchr: unknown key 'matchr' — did you mean "
        "'matcher'? It is ignored. Fix: rename it to 'matcher'",
        f"✗ {config}:12:7: hooks.outbound[0].secret_envv: unknown key 'secret_envv' — did "
        "you mean 'secret_env'? As written, deliveries are not signed; the value is "
        "ignored. Fix: rename it to 'secret_env'",
        f"⚠ {config}:13:7: hooks.outbound[0].retries: unknown key 'retries' is ignored "
        "(known here: durable, events, matcher, name, retry_schedule, secret, secret_env, "
        "signature, timeout, url). Fix: remove it or correct its name",
        f"✗ {config}:15:3: plugins.disabeld: unknown key 'disabeld' — did you mean "
        "'disabled'? As written, the plugins listed here are not disabled; the value is "
        "ignored. Fix: rename it to 'disabled'",
        f"⚠ {config}:18:3: plugins.hook_callback_timeout: duplicate key "
        "'hook_callback_timeout' (also on line 17); the later value wins. Fix: keep one of "
        "them",
        f"⚠ {config}:19:1: hooks_auto_acept: unknown key 'hooks_auto_acept' — did you mean "
        "'hooks_auto_accept'? It is ignored. Fix: rename it to 'hooks_auto_accept'",
    ]


def test_load_logs_them_and_strict_refuses_a_weakened_gate(
    home: Path, load: Callable[..., Hooks], caplog: pytest.LogCaptureFixture
) -> None:
    (home / "config.yaml").write_text(
        "hooks:\n  pre_tool_call:\n    - command: ./gate.sh\n      fail_close: true\n",
        encoding="utf-8",
    )
    message = (
        f"{home / 'config.yaml'}:4:7: hooks.pre_tool_call[0].fail_close: unknown key "
        "'fail_close' — did you mean 'fail_closed'? As written, this hook fails open: a "
        "crash or a timeout lets the tool call through; the value is ignored. Fix: rename "
        "it to 'fail_closed'"
    )
    load(inspect=True)
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR] == [message]
    with pytest.raises(ConfigError) as raised:
        load(strict=True)
    assert str(raised.value) == message


def test_a_plugin_section_and_hermes_own_keys_are_not_reported(home: Path, capsys: Any) -> None:
    (home / "config.yaml").write_text(
        "model: some-model\ntoolsets: [web]\nplugins:\n  my-plugin: {colour: blue}\n"
        "  entries: {x: {llm: {}}}\n  enabled: [a]\n",
        encoding="utf-8",
    )
    code, lines = doctor(capsys, home)
    assert code == 0
    assert not [line for line in lines if "config.yaml" in line]


def test_a_hooks_block_indented_under_another_key_is_reported_where_it_is(
    home: Path, capsys: Any
) -> None:
    # Nobody reads it there: its gates never run, which must fail doctor.
    (home / "config.yaml").write_text(
        textwrap.dedent(
            """\
            plugins:
              hook_callback_timeout: 30
              hooks:
                pre_tool_call:
                  - command: ./gate.sh
            agent:
              hooks:
                post_tool_call:
                  - command: ./log.sh
            hooks:
              PreToolUse:
                - matcher: terminal
                  hooks: [{type: command, command: ./claude-gate.sh}]
            """
        ),
        encoding="utf-8",
    )
    code, lines = doctor(capsys, home)
    config = str(home / "config.yaml")
    assert code == 1
    # The Claude Code entry's own "hooks" list is where it belongs: not reported here.
    assert [line for line in lines if config in line] == [
        f"✗ {config}:3:3: plugins.hooks: 'hooks' under 'plugins' is not read: shell hooks "
        "and outbound webhooks are read only from the top-level 'hooks:' key, so none of "
        "these ever runs, gates included; the value is ignored. Fix: move 'hooks:' to the "
        "top level of config.yaml (no indentation)",
        f"⚠ {config}:7:3: agent.hooks: 'hooks' under 'agent' is not read: shell hooks and "
        "outbound webhooks are read only from the top-level 'hooks:' key, so none of these "
        "ever runs. Fix: move 'hooks:' to the top level of config.yaml (no indentation)",
        # ... but the shell reader says where the matcher group is, which it skips
        f"✗ {config}:12:7: hooks.PreToolUse[0]: is a Claude Code settings.json matcher "
        "group (a 'hooks' list inside the entry); each entry here is one command, so it "
        "is skipped. Fix: write one '- matcher: ...' / 'command: ...' entry per command, "
        "or convert the file with hermes-hooks import-claude",
    ]


def test_hook_yaml_unknown_keys(home: Path, capsys: Any) -> None:
    directory = home / "hooks" / "audit"
    directory.mkdir(parents=True)
    manifest = directory / "HOOK.yaml"
    manifest.write_text("events: [agent:start]\nenabeld: false\ndescrption: x\n", "utf-8")
    (directory / "handler.py").write_text("def handle(event, context):\n    pass\n", "utf-8")
    code, lines = doctor(capsys, home)
    assert code == 1
    assert [line for line in lines if line.startswith(("✗ gateway", "⚠ gateway"))] == [
        f"✗ gateway hook audit: {manifest} (key 'enabeld'): Skipping audit: {manifest}:2:1: "
        "enabeld: unknown key 'enabeld' — did you mean 'enabled'? As written, the hook "
        "would run; it is skipped until this is fixed; fix: rename it to 'enabled'",
        f"⚠ gateway hook audit: {manifest} (key 'descrption'): audit: {manifest}:3:1: "
        "descrption: unknown key 'descrption' — did you mean 'description'? It is "
        "ignored; fix: rename it to 'description'",
    ]


def test_plugin_yaml_unknown_keys_warn_in_doctor_and_list(home: Path, capsys: Any) -> None:
    path = write_plugin(
        home / "plugins",
        "tidy",
        "def register(ctx):\n    pass\n",
        manifest="name: tidy\nversoin: 1\nprovides_tools: [a]\nname: tidy\n",
    )
    manifest = path / "plugin.yaml"
    code, lines = doctor(capsys, home)
    assert code == 0  # a plugin.yaml typo weakens no gate
    assert [line for line in lines if line.startswith("⚠ plugin tidy")] == [
        f"⚠ plugin tidy: {manifest}:2:1: versoin: unknown key 'versoin' — did you mean "
        "'version'? It is ignored. Fix: rename it to 'version'",
        f"⚠ plugin tidy: {manifest}:4:1: name: duplicate key 'name' (also on line 1); the "
        "later value wins. Fix: keep one of them",
        "⚠ plugin tidy: loaded but registered nothing (often an optional import inside it "
        "failed, or it found no configuration)",
    ]
    main(["--home", str(home), "--no-entry-points", "list"])
    listed = capsys.readouterr().out.splitlines()
    assert (
        f"      warning: {manifest}:2:1: versoin: unknown key 'versoin' — did you mean "
        "'version'? It is ignored. Fix: rename it to 'version'"
    ) in listed
