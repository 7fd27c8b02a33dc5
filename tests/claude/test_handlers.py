"""Handler options as Claude Code reads them: ``async``/``asyncRewake`` in the
background, ``if:`` rules, ``type: prompt``/``agent`` through the host's model, and
every option we do not honour refused loudly."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.hooks import Hooks
from hermes_hooks.plugins.context import HostCapabilities
from hermes_hooks.shell.background import BACKGROUND
from tests.claude.helpers import configure, corpus, payload
from tests.shell.helpers import problems_of, warnings_of


def eventually(check: Callable[[], bool], limit: float = 30.0) -> bool:
    """Wait for a background effect (never a pass/fail on time: the limit only stops a
    hung test)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return check()


@pytest.fixture
def records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "records"
    path.mkdir()
    monkeypatch.setenv("RECORD_DIR", str(path))
    return path


# -- async ---------------------------------------------------------------------------------


def test_an_async_post_tool_use_handler_does_not_hold_the_call(
    claude: Callable[..., Hooks], records: Path
) -> None:
    hooks = claude("PostToolUse", corpus("async-slow-log.sh"), matcher="Write", **{"async": True})
    marker = records / "async-marker.json"
    done = payload("post_tool_call", "write_file", args={"path": "a.txt", "content": "x"})
    assert hooks.post_tool_call(**done) is None
    # The call is back while the handler still sleeps: its marker is not there yet.
    assert not marker.exists()
    assert eventually(marker.exists)
    assert json.loads(marker.read_text())["tool_input"]["file_path"].endswith("/a.txt")


def test_an_async_pre_tool_use_handler_never_decides(
    claude: Callable[..., Hooks], records: Path
) -> None:
    hooks = claude("PreToolUse", corpus("git-guard.sh"), matcher="Bash", **{"async": True})
    call = payload("pre_tool_call", "terminal", args={"command": "git push --force"})
    assert hooks.pre_tool_call(**call).action == "allow"  # exit 2 in the background
    assert eventually((records / "git-guard.log").exists)


def test_async_output_reaches_the_next_turn(claude: Callable[..., Hooks]) -> None:
    hooks = claude(
        "PostToolUse", corpus("async-system-message.py"), matcher="Write", **{"async": True}
    )
    hooks.post_tool_call(**payload("post_tool_call", "write_file", args={"path": "m.py"}))
    assert BACKGROUND.wait(30.0)
    assert hooks.pre_llm_call(**payload("pre_llm_call")) == (
        f"lint: 1 warning in {Path.cwd() / 'm.py'}\n\nLine 3 is longer than 100 characters."
    )
    assert hooks.pre_llm_call(**payload("pre_llm_call")) is None  # said once


def test_async_rewake_exit_two_wakes_the_next_turn(
    claude: Callable[..., Hooks], project: Path
) -> None:
    hooks = claude("PostToolUse", corpus("async-rewake.sh"), matcher="Edit", asyncRewake=True)
    edit = payload("post_tool_call", "patch", args={"path": "api.py"})
    hooks.post_tool_call(**edit)
    assert BACKGROUND.wait(30.0)
    assert hooks.pre_llm_call(**payload("pre_llm_call")) is None  # green: nothing to say
    (project / ".tests-red").touch()
    hooks.post_tool_call(**edit)
    assert BACKGROUND.wait(30.0)
    assert hooks.pre_llm_call(**payload("pre_llm_call")) == (
        "Background tests failed: 2 failures in tests/test_api.py"
    )


# -- if: -----------------------------------------------------------------------------------


def test_if_spawns_the_hook_only_for_matching_subcommands(
    claude: Callable[..., Hooks], records: Path
) -> None:
    hooks = claude("PreToolUse", corpus("git-guard.sh"), matcher="Bash", **{"if": "Bash(git *)"})
    for command in ("ls", "npm test", "FOO=1 git status", "make && git push -f", "gitk"):
        hooks.pre_tool_call(**payload("pre_tool_call", "terminal", args={"command": command}))
    assert (records / "git-guard.log").read_text().splitlines() == [
        "FOO=1 git status",
        "make && git push -f",
    ]


def test_if_on_file_paths_and_domains(claude: Callable[..., Hooks], records: Path) -> None:
    hooks = claude("PreToolUse", corpus("protect-secrets-dir.py"), **{"if": "Write(*.env)"})
    write = payload("pre_tool_call", "write_file", args={"path": "secrets/x.py", "content": ""})
    assert hooks.pre_tool_call(**write).action == "allow"  # not a .env file: never spawned
    env = payload("pre_tool_call", "write_file", args={"path": "secrets/.prod.env"})
    assert hooks.pre_tool_call(**env).action == "block"
    gate = claude(
        "PreToolUse", corpus("web-domain-gate.py"), **{"if": "WebFetch(domain:evil.example.net)"}
    )
    urls = ["https://other.example/", "https://evil.example.net/x"]
    decision = gate.pre_tool_call(**payload("pre_tool_call", "web_extract", args={"urls": urls}))
    assert (decision.action, decision.message) == (
        "block",
        "evil.example.net is not an allowed host",
    )


def test_a_command_the_analysis_cannot_resolve_always_runs_the_hook(
    claude: Callable[..., Hooks], records: Path
) -> None:
    hooks = claude("PreToolUse", corpus("git-guard.sh"), **{"if": "Bash(git *)"})
    for command in ("echo $(whoami)", "$(which tool) push", "ls; git $(echo push)"):
        hooks.pre_tool_call(**payload("pre_tool_call", "terminal", args={"command": command}))
    # whoami is no git; the program of the second is an expansion; the third runs git
    assert (records / "git-guard.log").read_text().splitlines() == [
        "$(which tool) push",
        "ls; git $(echo push)",
    ]


# -- prompt and agent handlers ---------------------------------------------------------------


class FakeModel:
    """The host's model, as a host supplies it: records prompts, answers from a list."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.calls: list[dict[str, Any]] = []

    def complete(
        self,
        prompt: str,
        *,
        model: str | None = None,
        timeout: float | None = None,
        agent: bool = False,
    ) -> str:
        self.calls.append({"prompt": prompt, "model": model, "timeout": timeout, "agent": agent})
        return self.answers.pop(0)


def test_a_prompt_handler_decides_through_the_hosts_model(
    home: Path, load: Callable[..., Hooks]
) -> None:
    entry = {
        "type": "prompt",
        "prompt": "Is this command safe? $ARGUMENTS",
        "model": "fast",
        "matcher": "Bash",
        "timeout": 20,
    }
    configure(home, {"PreToolUse": [entry]})
    llm = FakeModel('{"ok": true}', '```json\n{"ok": false, "reason": "It wipes the disk"}\n```')
    hooks = load(host=HostCapabilities(hook_model=llm))
    call = payload("pre_tool_call", "terminal", args={"command": "ls"})
    assert hooks.pre_tool_call(**call).action == "allow"
    wipe = payload("pre_tool_call", "terminal", args={"command": "dd of=/dev/sda"})
    decision = hooks.pre_tool_call(**wipe)
    assert (decision.action, decision.message) == ("block", "It wipes the disk")
    first = llm.calls[0]
    assert (first["model"], first["timeout"], first["agent"]) == ("fast", 20.0, False)
    arguments = json.loads(first["prompt"].split("Is this command safe? ")[1].split("\n\n")[0])
    assert (arguments["tool_name"], arguments["tool_input"]) == ("Bash", {"command": "ls"})


def test_an_agent_handler_keeps_the_turn_going(home: Path, load: Callable[..., Hooks]) -> None:
    configure(home, {"Stop": [{"type": "agent", "prompt": "Do the tests pass?"}]})
    llm = FakeModel('{"ok": false, "reason": "Two tests fail"}', "I think so")
    hooks = load(host=HostCapabilities(hook_model=llm))
    directive = hooks.pre_verify(**payload("pre_verify"))
    assert directive is not None and directive.message == "Two tests fail"
    assert llm.calls[0]["agent"] is True
    assert llm.calls[0]["prompt"].startswith("Do the tests pass?\n\n{")


def test_a_model_answer_that_is_not_ok_json_fails_a_fail_closed_gate(
    home: Path, load: Callable[..., Hooks]
) -> None:
    entry = {"type": "prompt", "prompt": "Safe? $ARGUMENTS", "fail_closed": True}
    configure(home, {"PreToolUse": [entry]})
    hooks = load(host=HostCapabilities(hook_model=FakeModel("Sure, looks fine.")))
    decision = hooks.pre_tool_call(**payload("pre_tool_call", "terminal"))
    assert (decision.action, decision.message) == (
        "block",
        "hook prompt: Safe? $ARGUMENTS failed closed: exit code 1",
    )


def test_prompt_handlers_without_a_host_model_are_refused_naming_the_entry(
    home: Path, load: Callable[..., Hooks], caplog: pytest.LogCaptureFixture
) -> None:
    configure(home, {"PreToolUse": [{"type": "prompt", "prompt": "Safe? $ARGUMENTS"}]})
    hooks = load()
    assert warnings_of(caplog) == [
        f"{home}/config.yaml: hooks.PreToolUse[0] (prompt: Safe? $ARGUMENTS): a type: prompt "
        "handler is answered by the host's model, and this host supplies none "
        "(load(..., host=HostCapabilities(hook_model=...))); refused"
    ]
    assert not hooks.has_callbacks("pre_tool_call")


# -- refused options --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            {"shell": "powershell"},
            "shell 'powershell' is not supported here: only bash runs hooks on this host; use "
            "shell: bash or remove 'shell'; skipped",
        ),
        (
            {"args": ["--fix"]},
            "'args' is not honoured here (write the arguments into 'command' (import-claude "
            "does this for you)); skipped",
        ),
        (
            {"async": True, "fail_closed": True},
            "fail_closed cannot apply to an async hook: it never decides the call; skipped",
        ),
        (
            {"if": "Bash(git *)", "matcher": None, "_key": "Stop"},
            "if: is only evaluated on tool events; on Stop Claude Code never runs such a hook; "
            "skipped",
        ),
        (
            {"if": "Glob"},
            None,  # a bare tool name is a rule: accepted
        ),
        (
            {"if": "WebSearch(react)"},
            "if: 'WebSearch(react)': a specifier on WebSearch is not one this dialect "
            "evaluates (Bash, file tools, WebFetch(domain:...), Task/Agent); skipped",
        ),
        ({"async": "yes"}, "async must be true or false, got 'yes'; skipped"),
        ({"type": "http"}, "type 'http' is not supported (command, prompt or agent); skipped"),
    ],
)
def test_options_that_cannot_be_honoured_refuse_the_entry(
    home: Path,
    load: Callable[..., Hooks],
    caplog: pytest.LogCaptureFixture,
    entry: dict[str, Any],
    message: str | None,
) -> None:
    caplog.set_level(logging.WARNING)
    key = entry.pop("_key", "PreToolUse")
    entry = {k: v for k, v in entry.items() if v is not None}
    configure(home, {key: [{"command": "/bin/true", **entry}]})
    hooks = load()
    if message is None:
        assert problems_of(caplog) == []
        return
    # A PreToolUse entry refused is a gate dropped: an ERROR; on Stop a warning.
    level = "ERROR" if key == "PreToolUse" else "WARNING"
    assert problems_of(caplog) == [(level, f"{home}/config.yaml:3:5: hooks.{key}[0]: {message}")]
    assert not hooks.manager.callbacks("pre_tool_call")
    assert not hooks.manager.callbacks("pre_verify")


def test_an_unknown_key_is_refused_with_the_known_ones(
    home: Path, load: Callable[..., Hooks], caplog: pytest.LogCaptureFixture
) -> None:
    configure(home, {"PreToolUse": [{"command": "/bin/true", "retry": 3}]})
    load()
    [(level, warning)] = problems_of(caplog)
    assert level == "ERROR"  # the gate entry is dropped
    assert warning.startswith(
        f"{home}/config.yaml:3:5: hooks.PreToolUse[0]: 'retry' is not a claude-code entry key "
        "(known: async, asyncRewake, async_rewake, command, dialect, failClosed, fail_closed, "
    )


def test_list_shows_the_handler_options(home: Path, load: Callable[..., Hooks]) -> None:
    from hermes_hooks.shell.report import describe_entry

    entry = {
        "command": "/bin/true",
        "matcher": "Bash",
        "if": "Bash(git *)",
        "asyncRewake": True,
        "plugin_root": "/opt/plugin",
    }
    configure(home, {"PostToolUse": [entry]})
    [parsed] = load().sources["shell"].parsed.entries  # type: ignore[attr-defined]
    assert describe_entry(parsed) == (
        "matcher='Bash' dialect=claude-code (PostToolUse) asyncRewake if='Bash(git *)' "
        "plugin=/opt/plugin timeout=60s"
    )


def test_a_failing_async_hook_is_warned_about_once(
    claude: Callable[..., Hooks], caplog: pytest.LogCaptureFixture
) -> None:
    command = corpus("crash.py")
    hooks = claude("PostToolUse", command, **{"async": True})
    for _ in range(2):
        hooks.post_tool_call(**payload("post_tool_call", "terminal"))
        assert BACKGROUND.wait(30.0)
    assert warnings_of(caplog) == [
        f"async shell hook hooks.PostToolUse[0] ({command}): exit code 1"
    ]


def test_test_and_doctor_run_an_async_hook_in_line(
    claude: Callable[..., Hooks], records: Path
) -> None:
    hooks = claude("PreToolUse", corpus("git-guard.sh"), **{"async": True})
    [record] = hooks.sources["shell"].records()  # type: ignore[attr-defined]
    call = payload("pre_tool_call", "terminal", args={"command": "git push -f"})
    outcome = record.hook.run(call)
    assert outcome.directive == {"action": "block", "message": "Force pushes are not allowed"}
    assert hooks.pre_tool_call(**call).action == "allow"  # fired, it never decides
    assert BACKGROUND.wait(30.0)
    assert (records / "git-guard.log").read_text() == "git push -f\ngit push -f\n"


def test_doctor_reports_a_refused_prompt_handler(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.claude.test_import import cli

    configure(home, {"Stop": [{"type": "agent", "prompt": "Done?"}]})
    code, out, _ = cli(home, capsys, "doctor", "--json")
    errors = [f for f in json.loads(out)["findings"] if f["level"] == "error"]
    assert code == 1
    assert errors == [
        {
            "level": "error",
            "subject": "shell hooks.Stop[0] agent: Done?",
            "message": "not loaded: a type: agent handler is answered by the host's model, and "
            "this host supplies none (load(..., host=HostCapabilities(hook_model=...))); refused",
            "entry": "shell hooks.Stop[0]",
        }
    ]
