"""``emit`` and ``listen`` as real commands: ``emit --json`` stdout stays JSON when a
gateway handler prints, and ``listen`` on an address it cannot use says so in one line."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

CHATTY = """\
import os

print("chatty: imported")


def handle(event_type, context):
    print("chatty: handling " + event_type)
    os.system("echo chatty: from a child process")
    return {"seen": event_type}
"""


def cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hermes_hooks", *argv],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def chatty_home(home: Path) -> Path:
    hook = home / "hooks" / "chatty"
    hook.mkdir(parents=True)
    (hook / "HOOK.yaml").write_text("name: chatty\nevents: [agent:start]\n", encoding="utf-8")
    (hook / "handler.py").write_text(CHATTY, encoding="utf-8")
    return home


def test_emit_json_stays_json_when_a_handler_prints(chatty_home: Path) -> None:
    # The handler's output goes to stderr, as in replay: it cannot be told apart per
    # handler (child processes write to the same descriptor), and stdout is the report.
    done = cli("--home", str(chatty_home), "emit", "--json", "agent:start", "--context", "{}")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["event"] == "agent:start"
    assert [(h["hook"], h["outcome"], h["result"]) for h in data["hooks"]] == [
        ("chatty", "ok", {"seen": "agent:start"})
    ]
    assert done.stderr.splitlines()[:3] == [
        "chatty: imported",
        "chatty: handling agent:start",
        "chatty: from a child process",
    ]


def test_emit_text_keeps_the_report_on_stdout(chatty_home: Path) -> None:
    done = cli("--home", str(chatty_home), "emit", "agent:start")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "agent:start → 1 gateway hook(s)"
    assert "chatty:" not in done.stdout
    assert "chatty: handling agent:start" in done.stderr


def test_listen_on_a_busy_port_is_one_line_and_exit_1() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = cli("listen", "--port", str(port))
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == (
        f"hermes-hooks listen: cannot listen on 127.0.0.1:{port}: Address already in use; "
        "choose another --port (0 picks a free one) or --host\n"
    )


@pytest.mark.parametrize("port", ["99999", "-1"])
def test_listen_on_a_port_out_of_range_is_one_line_and_exit_2(port: str) -> None:
    done = cli("listen", "--port", port)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        f"hermes-hooks listen: --port {port} is not a port; use 1-65535, or 0 for any free port\n"
    )
