"""command:<name>: the awaited emission and its decision protocol (D-02, D-05, D-06)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.gateway.commands import CommandDecision
from hermes_hooks.hooks import Hooks
from tests.gateway import probe
from tests.gateway.helpers import messages, run, write_hook


def returns(value: Any, *, sync: bool = False) -> str:
    """A handler that records its call and returns ``value``."""
    return f"""
from tests.gateway import probe

{"def" if sync else "async def"} handle(event_type, context):
    probe.record(__name__, event_type, dict(context))
    return {value!r}
"""


def decide(hooks: Hooks, command: str = "reset", args: str = "", **kw: Any) -> CommandDecision:
    async def main() -> CommandDecision:
        return await hooks.gateway.emit_command(
            command, args, {"platform": "telegram", "user_id": "u1"}, **kw
        )

    result: CommandDecision = run(main())
    return result


def test_exact_handlers_run_before_wildcard_handlers(hooks_dir: Path, load_gateway: Any) -> None:
    write_hook(hooks_dir, "a-all", events=["command:*"], body=returns(None))
    write_hook(hooks_dir, "z-reset", events=["command:reset"], body=returns(None, sync=True))
    write_hook(hooks_dir, "m-model", events=["command:model"], body=returns(None))
    hooks = load_gateway()
    assert decide(hooks) == CommandDecision("allow")
    assert [(key, event) for key, event, _ in probe.calls] == [
        ("z-reset", "command:reset"),
        ("a-all", "command:reset"),
    ]


def test_deny_without_a_message_uses_the_default_reply(hooks_dir: Path, load_gateway: Any) -> None:
    write_hook(hooks_dir, "gate", events=["command:reset"], body=returns({"decision": "deny"}))
    write_hook(hooks_dir, "logger", events=["command:*"], body=returns(None, sync=True))
    hooks = load_gateway()
    decision = decide(hooks)
    assert decision == CommandDecision(
        "deny", "Command `/reset` was blocked by a hook.", hook="gate"
    )
    assert not decision.allowed
    assert [key for key, _, _ in probe.calls] == ["gate", "logger"]  # every handler runs


def test_the_default_reply_names_the_command_as_typed(hooks_dir: Path, load_gateway: Any) -> None:
    write_hook(hooks_dir, "gate", events=["command:new"], body=returns({"decision": " DENY "}))
    hooks = load_gateway()
    decision = decide(hooks, "New", "", raw_command="/Reset")
    assert decision.reply == "Command `/reset` was blocked by a hook."


def test_deny_with_a_message(hooks_dir: Path, load_gateway: Any) -> None:
    body = returns({"decision": "deny", "message": "Not on weekends."}, sync=True)
    write_hook(hooks_dir, "gate", events=["command:*"], body=body)
    hooks = load_gateway()
    assert decide(hooks).reply == "Not on weekends."


@pytest.mark.parametrize(
    ("result", "reply"),
    [
        ({"decision": "handled", "message": "Done by a hook."}, "Done by a hook."),
        ({"decision": "Handled"}, None),
    ],
)
def test_handled_replies_with_its_message_or_nothing(
    hooks_dir: Path, load_gateway: Any, result: dict[str, str], reply: str | None
) -> None:
    write_hook(hooks_dir, "handler", events=["command:reset"], body=returns(result))
    hooks = load_gateway()
    assert decide(hooks) == CommandDecision("handled", reply, hook="handler")


def test_rewrite_re_dispatches_another_command(hooks_dir: Path, load_gateway: Any) -> None:
    result = {"decision": "rewrite", "command_name": " /help ", "raw_args": "  topics  "}
    write_hook(hooks_dir, "alias", events=["command:reset"], body=returns(result))
    hooks = load_gateway()
    decision = decide(hooks)
    assert decision == CommandDecision(
        "rewrite", command_name="help", raw_args="topics", hook="alias"
    )
    assert decision.text == "/help topics"
    assert CommandDecision("rewrite", command_name="status").text == "/status"
    assert CommandDecision("deny", "no").text is None


@pytest.mark.parametrize("name", ["two words", "a/b", "cmd@my_bot", "", "   ", None, 7, "//x"])
def test_a_rewrite_with_an_unusable_name_is_ignored(
    hooks_dir: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture, name: Any
) -> None:
    result = {"decision": "rewrite", "command_name": name, "raw_args": "x"}
    write_hook(hooks_dir, "a-bad", events=["command:reset"], body=returns(result))
    write_hook(hooks_dir, "b-deny", events=["command:*"], body=returns({"decision": "deny"}))
    hooks = load_gateway()
    assert decide(hooks).hook == "b-deny"
    assert messages(caplog) == [
        f"[hooks] a-bad: rewrite ignored — command_name {name!r} must be one command name "
        "without whitespace, '/' or '@'"
    ]


def test_the_first_non_allow_decision_wins(hooks_dir: Path, load_gateway: Any) -> None:
    write_hook(hooks_dir, "a-allow", events=["command:reset"], body=returns({"decision": "allow"}))
    write_hook(hooks_dir, "b-empty", events=["command:reset"], body=returns({"decision": ""}))
    write_hook(hooks_dir, "c-other", events=["command:reset"], body=returns(["not", "a", "dict"]))
    write_hook(
        hooks_dir, "d-handled", events=["command:reset"], body=returns({"decision": "handled"})
    )
    write_hook(hooks_dir, "e-deny", events=["command:*"], body=returns({"decision": "deny"}))
    hooks = load_gateway()
    assert decide(hooks) == CommandDecision("handled", None, hook="d-handled")
    assert [key for key, _, _ in probe.calls] == [
        "a-allow",
        "b-empty",
        "c-other",
        "d-handled",
        "e-deny",
    ]


def test_an_unknown_decision_is_no_decision_and_an_error(
    hooks_dir: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture
) -> None:
    write_hook(hooks_dir, "odd", events=["command:reset"], body=returns({"decision": "block"}))
    hooks = load_gateway()
    assert decide(hooks).allowed  # still no decision: the command runs, loudly
    assert messages(caplog, logging.ERROR) == [
        "[hooks] odd: unknown command decision 'block' ignored "
        "(use allow, deny, handled or rewrite)"
    ]


def test_the_plugin_hooks_action_key_is_no_decision_and_an_error(
    hooks_dir: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture
) -> None:
    write_hook(
        hooks_dir,
        "plugin-style",
        events=["command:reset"],
        body=returns({"action": "block", "message": "not here"}),
    )
    hooks = load_gateway()
    assert decide(hooks).allowed
    assert messages(caplog, logging.ERROR) == [
        "[hooks] plugin-style: returned 'action' 'block', which is not a command decision; "
        "ignored, so the command runs. Fix: return {'decision': 'deny', 'message': '...'} "
        "(or allow, handled, rewrite)"
    ]


def test_a_failing_or_hung_handler_counts_as_no_decision(
    hooks_dir: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture
) -> None:
    write_hook(
        hooks_dir,
        "a-raises",
        events=["command:reset"],
        body="def handle(e, c):\n    raise OSError('disk')\n",
    )
    hang = """
    from tests.gateway import probe

    def handle(event_type, context):
        probe.gate("hang").wait(10)
        return {"decision": "deny", "message": "too late"}
    """
    write_hook(hooks_dir, "b-hangs", events=["command:reset"], body=hang)
    write_hook(
        hooks_dir,
        "c-decides",
        events=["command:*"],
        body=returns({"decision": "handled", "message": "ok"}),
    )
    hooks = load_gateway(timeout=0.2)
    assert decide(hooks) == CommandDecision("handled", "ok", hook="c-decides")
    warnings = messages(caplog)
    assert warnings[0].endswith("handling command:reset: OSError: disk")
    assert warnings[1].endswith(
        "timed out after 0.2 s handling command:reset — abandoned on its thread"
    )


def test_the_context_follows_d06(hooks_dir: Path, load_gateway: Any) -> None:
    mutate = """
    from tests.gateway import probe

    def handle(event_type, context):
        probe.record(__name__, event_type, dict(context))
        context["command"] = "hijacked"
    """
    write_hook(hooks_dir, "a-mutates", events=["command:reset"], body=mutate)
    write_hook(hooks_dir, "b-reads", events=["command:*"], body=returns(None))
    hooks = load_gateway()
    decide(hooks, "/RESET", "  now please ", raw_command="/New", raw_args="  now please ")
    expected = {
        "platform": "telegram",
        "user_id": "u1",
        "command": "reset",
        "args": "now please",
        "raw_command": "new",
        "raw_args": "  now please ",
    }
    assert probe.calls == [
        ("a-mutates", "command:reset", expected),
        ("b-reads", "command:reset", expected),
    ]


def test_raw_keys_default_to_what_the_host_passed(hooks_dir: Path, load_gateway: Any) -> None:
    write_hook(hooks_dir, "reader", events=["command:*"], body=returns(None))
    hooks = load_gateway()
    decide(hooks, "Model", " gpt ")
    ((_, event, context),) = probe.calls
    assert event == "command:model"
    assert (context["command"], context["args"]) == ("model", "gpt")
    assert (context["raw_command"], context["raw_args"]) == ("model", " gpt ")


def test_no_subscriber_means_allow(
    hooks_dir: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture
) -> None:
    write_hook(hooks_dir, "other", events=["command:model"], body=returns({"decision": "deny"}))
    hooks = load_gateway()
    assert decide(hooks, "reset") == CommandDecision()
    assert decide(hooks, "   ") == CommandDecision()
    assert probe.calls == []
    assert messages(caplog, logging.ERROR) == []
