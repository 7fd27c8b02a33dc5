"""The contrib gateway hooks, copied into a home and run for real (BOOT, EX-02..EX-04).

Every HTTP call goes to a real server on 127.0.0.1.
"""

from __future__ import annotations

import json
import logging
import shutil
import sys
import threading
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

import pytest

import hermes_hooks
import hermes_hooks.boot
import hermes_hooks.errors
from hermes_hooks.hooks import Hooks
from tests.gateway.fakes import FakeServer, Request, fake_server
from tests.gateway.helpers import messages, run

CONTRIB = Path(__file__).resolve().parents[2] / "contrib" / "gateway-hooks"

#: BOOT-06, as the spec gives it as a Python expression.
EXPECTED_PROMPT = (
    "You are running a startup boot checklist. Follow the instructions below exactly."
    "\n\n---\n" + "{content}" + "\n---\n\nExecute each instruction. Put any user-facing "
    "summary in your final response — the hook delivers it to the configured channel "
    "(e.g. Discord or Slack); you do not send messages yourself.\nIf nothing needs "
    "attention and there is nothing to report, reply with ONLY: [SILENT]"
)
CHECKLIST = "# Checklist\n\n1. Run `hermes cron list`.\n2. Reply [SILENT] if all is well."


def install(home: Path, *names: str) -> None:
    for name in names:
        shutil.copytree(CONTRIB / name, home / "hooks" / name)


@pytest.fixture
def hermes_home(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test home, also as $HERMES_HOME (BOOT.md and the command log follow it)."""
    monkeypatch.setenv("HERMES_HOME", str(home))
    (home / "hooks").mkdir()
    return home


@pytest.fixture(autouse=True)
def _boot_logs(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    caplog.set_level(logging.INFO, logger="hooks.boot-md")
    yield
    hermes_hooks.boot.set_agent_factory(None)


def emit_all(hooks: Hooks, *events: tuple[str, dict[str, Any]]) -> None:
    async def main() -> None:
        for event, context in events:
            await hooks.gateway.emit(event, context)
        assert await hooks.gateway.drain(10)

    run(main())


def boot_log(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str]]:
    return [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "hooks.boot-md"]


def join_boot_thread() -> None:
    for thread in threading.enumerate():
        if thread.name == "boot-md":
            thread.join(10)


def chat_reply(text: str) -> Any:
    def respond(request: Request) -> tuple[int, Any]:
        return 200, {"choices": [{"message": {"role": "assistant", "content": text}}]}

    return respond


@pytest.fixture
def openai_env(monkeypatch: pytest.MonkeyPatch) -> Any:
    def configure(server: FakeServer) -> None:
        monkeypatch.setenv("BOOT_MD_BASE_URL", server.url + "/v1")
        monkeypatch.setenv("BOOT_MD_MODEL", "test-model")
        monkeypatch.setenv("BOOT_MD_API_KEY_ENV", "BOOT_TEST_KEY")
        monkeypatch.setenv("BOOT_TEST_KEY", "sk-local")

    return configure


# -- boot-md -----------------------------------------------------------------------------


def test_the_boot_prompt_is_byte_exact(hermes_home: Path, load_gateway: Any) -> None:
    install(hermes_home, "boot-md")
    load_gateway()
    handler = sys.modules["hermes_hook_boot-md"]
    assert handler._build_prompt(CHECKLIST) == EXPECTED_PROMPT.format(content=CHECKLIST)
    assert not handler._build_prompt("x").endswith("\n")


def test_the_boot_manifest_is_boot_03(hermes_home: Path) -> None:
    assert (CONTRIB / "boot-md" / "HOOK.yaml").read_text(encoding="utf-8") == (
        "name: boot-md\n"
        "description: Roda o ~/.hermes/BOOT.md na partida do gateway\n"
        "events:\n"
        "  - gateway:startup\n"
    )


@pytest.mark.parametrize("reply", ["[SILENT]", "  silent\n", "NO_REPLY", "no reply", "[Silent]"])
def test_a_silent_reply_reports_nothing(
    hermes_home: Path,
    load_gateway: Any,
    caplog: pytest.LogCaptureFixture,
    openai_env: Any,
    reply: str,
) -> None:
    install(hermes_home, "boot-md")
    (hermes_home / "BOOT.md").write_text(f"\n{CHECKLIST}\n\n", encoding="utf-8")
    hooks = load_gateway()
    with fake_server(chat_reply(reply)) as server:
        openai_env(server)
        emit_all(hooks, ("gateway:startup", {"platforms": ["telegram"]}))
        join_boot_thread()
    assert boot_log(caplog) == [
        ("INFO", f"Running BOOT.md ({len(CHECKLIST)} chars)"),
        ("INFO", "boot-md completed (nothing to report)"),
    ]
    (request,) = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-local"
    assert request.json == {
        "model": "test-model",
        "messages": [{"role": "user", "content": EXPECTED_PROMPT.format(content=CHECKLIST)}],
    }


def test_another_reply_is_logged_up_to_200_characters(
    hermes_home: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture, openai_env: Any
) -> None:
    install(hermes_home, "boot-md")
    (hermes_home / "BOOT.md").write_text(CHECKLIST, encoding="utf-8")
    hooks = load_gateway()
    reply = "2 cron jobs failed overnight: backup, report. " + "x" * 300
    with fake_server(chat_reply(f"  {reply}  ")) as server:
        openai_env(server)
        emit_all(hooks, ("gateway:startup", {"platforms": []}))
        join_boot_thread()
    assert boot_log(caplog)[-1] == ("INFO", f"boot-md completed: {reply[:200]}")


def test_gateway_start_up_does_not_wait_for_the_boot_agent(
    hermes_home: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture, openai_env: Any
) -> None:
    install(hermes_home, "boot-md")
    (hermes_home / "BOOT.md").write_text(CHECKLIST, encoding="utf-8")
    hooks = load_gateway()
    with fake_server(chat_reply("all good: 3 checks passed")) as server:
        server.hold = threading.Event()
        openai_env(server)
        emit_all(hooks, ("gateway:startup", {"platforms": ["discord"]}))
        # The hook has returned and its lane is idle, while the agent's request is
        # still held by the server on the hook's background thread.
        assert server.arrived.wait(5)
        (thread,) = [t for t in threading.enumerate() if t.name == "boot-md"]
        assert thread.daemon and thread.is_alive()
        assert boot_log(caplog) == [("INFO", f"Running BOOT.md ({len(CHECKLIST)} chars)")]
        server.hold.set()
        thread.join(10)
    assert boot_log(caplog)[-1] == ("INFO", "boot-md completed: all good: 3 checks passed")


@pytest.mark.parametrize("text", [None, "", "  \n\t\n"], ids=["missing", "empty", "blank"])
def test_no_checklist_means_silence(
    hermes_home: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture, text: str | None
) -> None:
    install(hermes_home, "boot-md")
    if text is not None:
        (hermes_home / "BOOT.md").write_text(text, encoding="utf-8")
    hooks = load_gateway()
    emit_all(hooks, ("gateway:startup", {"platforms": []}))
    assert [t for t in threading.enumerate() if t.name == "boot-md"] == []
    assert boot_log(caplog) == []
    assert hooks.sources["gateway"].records()[0].state == "loaded"  # stays loaded (BOOT-10)


class ScriptedAgent:
    """A host agent (the reference host would pass its own) answering a fixed text."""

    prompts: ClassVar[list[str]] = []

    def __init__(self, answer: Any) -> None:
        self.answer = answer

    def run_conversation(self, prompt: str) -> dict[str, Any]:
        ScriptedAgent.prompts.append(prompt)
        return {"final_response": self.answer}


@pytest.mark.parametrize(
    ("answer", "line"),
    [
        ("Deploy log: 2 ERROR lines", "boot-md completed: Deploy log: 2 ERROR lines"),
        (None, "boot-md completed: "),
    ],
)
def test_the_host_agent_factory_is_used(
    hermes_home: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture, answer: Any, line: str
) -> None:
    install(hermes_home, "boot-md")
    (hermes_home / "BOOT.md").write_text(CHECKLIST, encoding="utf-8")
    ScriptedAgent.prompts = []
    hermes_hooks.boot.set_agent_factory(lambda: ScriptedAgent(answer))
    hooks = load_gateway()
    emit_all(hooks, ("gateway:startup", {"platforms": []}))
    join_boot_thread()
    assert ScriptedAgent.prompts == [EXPECTED_PROMPT.format(content=CHECKLIST)]
    assert boot_log(caplog)[-1] == ("INFO", line)


def test_agent_failures_are_logged_as_boot_07_says(
    hermes_home: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture
) -> None:
    install(hermes_home, "boot-md")
    (hermes_home / "BOOT.md").write_text(CHECKLIST, encoding="utf-8")
    hooks = load_gateway()  # no factory, no BOOT_MD_* variables
    emit_all(hooks, ("gateway:startup", {"platforms": []}))
    join_boot_thread()
    assert boot_log(caplog)[-1] == (
        "ERROR",
        "boot-md agent failed: BOOT_MD_BASE_URL is not set: the default boot agent needs "
        "BOOT_MD_BASE_URL and BOOT_MD_MODEL (or the host must call "
        "hermes_hooks.boot.set_agent_factory)",
    )


def test_boot_md_lives_in_the_user_home_without_hermes_home(
    caplog: pytest.LogCaptureFixture,
) -> None:
    user_home = Path.home() / ".hermes"
    install(user_home, "boot-md")
    (user_home / "BOOT.md").write_text("Say hi.", encoding="utf-8")
    hermes_hooks.boot.set_agent_factory(lambda: ScriptedAgent("hi"))
    hooks = hermes_hooks.load(user_home, surface="gateway", entry_points=False)
    try:
        emit_all(hooks, ("gateway:startup", {"platforms": []}))
        join_boot_thread()
    finally:
        hooks.close(1.0)
        hooks.unload()
    assert boot_log(caplog) == [
        ("INFO", "Running BOOT.md (7 chars)"),
        ("INFO", "boot-md completed: hi"),
    ]


# -- the default chat agent ----------------------------------------------------------------


@pytest.fixture
def boot_agent() -> Any:
    """The boot-md hook's own ``agent.py``, loaded from contrib as the handler loads it."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "boot_md_agent_under_test", CONTRIB / "boot-md" / "agent.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_chat_agent_sends_no_key_when_none_is_set(
    boot_agent: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with fake_server(chat_reply("ok")) as server:
        monkeypatch.setenv("BOOT_MD_BASE_URL", server.url + "/v1/")
        monkeypatch.setenv("BOOT_MD_MODEL", "local")
        agent = boot_agent.default_agent_factory()
        assert agent.run_conversation("ping") == {"final_response": "ok"}
    (request,) = server.requests
    assert request.path == "/v1/chat/completions"
    assert "authorization" not in request.headers


def test_the_chat_agent_reports_bad_answers(boot_agent: Any) -> None:
    import httpx

    with fake_server(lambda request: (200, {"choices": []})) as server:
        agent = boot_agent.ChatAgent(base_url=server.url, model="m")
        with pytest.raises(ValueError, match=r"answered without choices\[0\]\.message\.content"):
            agent.run_conversation("ping")
    with fake_server(lambda request: (500, {"error": "down"})) as server:
        agent = boot_agent.ChatAgent(base_url=server.url, model="m")
        with pytest.raises(httpx.HTTPStatusError, match="500"):
            agent.run_conversation("ping")


def test_the_default_factory_refuses_to_guess(
    boot_agent: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BOOT_MD_BASE_URL", "http://127.0.0.1:9/v1")
    with pytest.raises(hermes_hooks.errors.BootConfigError, match=r"^BOOT_MD_MODEL is not set"):
        boot_agent.default_agent_factory()
    monkeypatch.setenv("BOOT_MD_MODEL", "m")
    monkeypatch.setenv("BOOT_MD_TIMEOUT", "soon")
    with pytest.raises(hermes_hooks.errors.BootConfigError, match="BOOT_MD_TIMEOUT must be"):
        boot_agent.default_agent_factory()
    monkeypatch.setenv("BOOT_MD_TIMEOUT", "7.5")
    assert boot_agent.default_agent_factory().timeout == 7.5


# -- command-logger (EX-03) ------------------------------------------------------------------


def test_command_logger_appends_one_json_line_per_command(
    hermes_home: Path, load_gateway: Any
) -> None:
    install(hermes_home, "command-logger")
    hooks = load_gateway()
    context = {"platform": "telegram", "user_id": "u1"}

    async def main() -> None:
        assert (await hooks.gateway.emit_command("model", " gpt-5 ", context)).allowed
        await hooks.gateway.emit("command:reset", {**context, "command": "reset", "args": ""})
        assert await hooks.gateway.drain(5)

    run(main())
    lines = (hermes_home / "logs" / "command_usage.jsonl").read_text().splitlines()
    entries = [json.loads(line) for line in lines]
    assert [list(e) for e in entries] == [["ts", "command", "args", "platform", "user"]] * 2
    assert [{k: v for k, v in e.items() if k != "ts"} for e in entries] == [
        {"command": "model", "args": "gpt-5", "platform": "telegram", "user": "u1"},
        {"command": "reset", "args": "", "platform": "telegram", "user": "u1"},
    ]
    assert all(isinstance(datetime.fromisoformat(e["ts"]), datetime) for e in entries)
    assert hooks.sources["gateway"].records()[0].handler == "sync"


# -- long-task-alert (EX-02) -----------------------------------------------------------------


@pytest.fixture
def telegram(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeServer]:
    with fake_server(lambda request: (200, {"ok": True, "result": {}})) as server:
        monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "123:abc")
        monkeypatch.setenv("TELEGRAM_HOME_CHANNEL", "-1001")
        monkeypatch.setenv("TELEGRAM_API_BASE", server.url + "/")
        yield server


def step(iteration: int, **extra: Any) -> tuple[str, dict[str, Any]]:
    context = {
        "platform": "telegram",
        "user_id": "u1",
        "session_id": "s1",
        "iteration": iteration,
        "tool_names": ["terminal", "read_file"],
        **extra,
    }
    return "agent:step", context


def test_long_task_alert_fires_once_at_the_threshold(
    hermes_home: Path, load_gateway: Any, telegram: FakeServer
) -> None:
    install(hermes_home, "long-task-alert")
    hooks = load_gateway()
    emit_all(hooks, step(9), step(10), step(11), step(12))
    (request,) = telegram.requests
    assert request.path == "/bot123:abc/sendMessage"
    assert request.json == {
        "chat_id": "-1001",
        "text": "⚠️ O agente já está rodando há 10 passos. Últimas ferramentas: terminal, read_file",
    }


def test_long_task_alert_replies_in_the_forum_topic(
    hermes_home: Path, load_gateway: Any, telegram: FakeServer
) -> None:
    install(hermes_home, "long-task-alert")
    hooks = load_gateway()
    emit_all(
        hooks,
        step(10, chat_type="forum", thread_id="42"),
        step(10, chat_type="group", thread_id="42"),
        step(10, chat_type="forum", thread_id=""),
    )
    assert [r.json.get("message_thread_id") for r in telegram.requests] == [42, None, None]


def test_long_task_alert_needs_token_and_channel(
    hermes_home: Path, load_gateway: Any, telegram: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TELEGRAM_HOME_CHANNEL")
    install(hermes_home, "long-task-alert")
    hooks = load_gateway()
    emit_all(hooks, step(10))
    assert telegram.requests == []


def test_a_refused_alert_is_logged_by_the_gateway(
    hermes_home: Path, load_gateway: Any, caplog: pytest.LogCaptureFixture, telegram: FakeServer
) -> None:
    telegram.respond = lambda request: (400, {"ok": False})
    install(hermes_home, "long-task-alert")
    hooks = load_gateway()
    emit_all(hooks, step(10))
    path = hermes_home / "hooks" / "long-task-alert" / "handler.py"
    (warning,) = messages(caplog)
    assert warning.startswith(
        f"[hooks] Error in long-task-alert ({path}) handling agent:step: HTTPStatusError: "
        "Client error '400 Bad Request'"
    )


# -- session-webhook (EX-04) -----------------------------------------------------------------


def test_session_webhook_posts_new_and_reset_sessions(
    hermes_home: Path, load_gateway: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(hermes_home, "session-webhook")
    start = {"platform": "slack", "user_id": "u1", "session_id": "s1", "session_key": "k1"}
    reset = {"platform": "slack", "user_id": "u1", "session_key": "k1"}
    with fake_server() as server:
        monkeypatch.setenv("SESSION_WEBHOOK_URL", server.url + "/hermes-events")
        hooks = load_gateway()
        emit_all(
            hooks,
            ("session:start", start),
            ("agent:start", {"platform": "slack"}),
            ("session:reset", reset),
        )
    assert [r.path for r in server.requests] == ["/hermes-events", "/hermes-events"]
    bodies = [r.json for r in server.requests]
    assert bodies == [{"event": "session:start", **start}, {"event": "session:reset", **reset}]
    assert [next(iter(b)) for b in bodies] == ["event", "event"]


def test_session_webhook_defaults_to_the_documented_url() -> None:
    text = (CONTRIB / "session-webhook" / "handler.py").read_text(encoding="utf-8")
    assert '"https://seu-servico.example.com/hermes-events"' in text
    assert "timeout=5" in text
