"""The Hermes Agent bridge under the real agent: hermes-agent 0.19.0's own loop
(``AIAgent``) against a scripted model on 127.0.0.1, with hermes-hooks installed and
enabled as an agent plugin.  Nothing inside the agent is replaced; the agent runs in a
process of its own (``agent_worker``), started as the ``hermes`` CLI starts.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.cli import main
from hermes_hooks.webhooks import verify
from tests.reference.scripted_model import ScriptedModel, text_reply, tool_reply

# Looked up, not imported: importing the agent here, before any test sets HERMES_HOME,
# would create its home under the real ~/.hermes.
if importlib.util.find_spec("run_agent") is None:
    pytest.skip("needs hermes-agent installed", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[2]
SECRET = "bridge-test-signing-secret"

CLAUDE_GATE = """#!/bin/sh
# A Claude Code PreToolUse hook, unchanged: exit 2 denies with stderr as the reason.
input=$(cat)
printf '%s\\n' "$input" >> "$(dirname "$0")/claude.log"
case "$input" in *"rm -rf"*) echo "claude gate: rm -rf refused" >&2; exit 2;; esac
exit 0
"""

PERSISTENT_GATE = """import json, os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hermes_persistent import serve

LOG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "persistent.log")


def decide(event):
    with open(LOG, "a") as log:
        log.write(json.dumps({"pid": os.getpid(), "event": event}) + "\\n")
    if "rm -rf" in event["tool_input"].get("command", ""):
        return {"action": "block", "message": "persistent gate: rm -rf refused"}
    return None


serve(decide)
"""

COUNTER_PLUGIN = """import json, os

LOG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "counter.log")


def count(tool_name, tool_call_id="", status="", **kwargs):
    with open(LOG, "a") as log:
        log.write(json.dumps([tool_name, tool_call_id, status]) + "\\n")


def register(ctx):
    ctx.register_hook("post_tool_call", count)
"""


def _lines(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@contextmanager
def _receiver() -> Iterator[tuple[str, list[tuple[bytes, dict[str, str]]]]]:
    """A webhook receiver on 127.0.0.1 keeping every body and its headers."""
    received: list[tuple[bytes, dict[str, str]]] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            received.append((body, {k.lower(): v for k, v in self.headers.items()}))
            self.send_response(204)
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hermes", received
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _home(tmp_path: Path, hooks_block: str) -> Path:
    home = tmp_path / "home"
    hook_dir = home / "agent-hooks"
    hook_dir.mkdir(parents=True)
    shutil.copy(ROOT / "contrib" / "shell-hooks" / "hermes_persistent.py", hook_dir)
    (hook_dir / "claude-gate.sh").write_text(CLAUDE_GATE)
    (hook_dir / "claude-gate.sh").chmod(0o755)
    (hook_dir / "persistent-gate.py").write_text(PERSISTENT_GATE)
    plugin = home / "plugins" / "tool-counter"
    plugin.mkdir(parents=True)
    (plugin / "plugin.yaml").write_text("name: tool-counter\nversion: 1.0.0\n")
    (plugin / "__init__.py").write_text(COUNTER_PLUGIN)
    (home / "config.yaml").write_text(
        "plugins:\n  enabled: [hermes-hooks, tool-counter]\n" + hooks_block
    )
    return home


def _run_agent(tmp_path: Path, home: Path, model: ScriptedModel) -> dict[str, Any]:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "TMPDIR": str(tmp_path),
        "HERMES_HOME": str(home),
        "HERMES_ACCEPT_HOOKS": "1",
        "PYTHONPATH": str(ROOT),
        "TERMINAL_CWD": str(work),
        "OPENAI_API_KEY": "scripted",
    }
    done = subprocess.run(
        [sys.executable, "-m", "tests.reference.agent_worker", model.url, "tidy up"],
        env=env,
        cwd=work,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return {"stderr": done.stderr, **json.loads(done.stdout.strip().splitlines()[-1])}


def _tool_messages(model: ScriptedModel) -> list[dict[str, Any]]:
    """The tool results each model request carried last, in request order."""
    return [r["messages"][-1] for r in model.requests if r["messages"][-1]["role"] == "tool"]


def test_the_agent_loop_is_guarded_by_hermes_hooks_through_the_bridge(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "keep.txt").write_text("precious\n")
    model = ScriptedModel(
        [
            tool_reply("call_rm", "terminal", {"command": f"rm -rf {scratch}"}),
            tool_reply("call_ls", "terminal", {"command": f"ls {scratch}"}),
            text_reply("all done"),
        ]
    )
    with _receiver() as (url, received), model.serving():
        home = _home(
            tmp_path,
            f"""hooks:
  PreToolUse:
    - matcher: Bash
      command: agent-hooks/claude-gate.sh
  pre_tool_call:
    - matcher: terminal
      command: {sys.executable} agent-hooks/persistent-gate.py
      persistent: true
      fail_closed: true
  outbound:
    - name: receiver
      url: {url}
      secret: {SECRET}
      events: [post_tool_call]
      timeout: 5
""",
        )
        outcome = _run_agent(tmp_path, home, model)

    assert outcome["final_response"] == "all done"
    assert outcome["bridged"] is True
    # hermes-agent registered the plugin's callback and the hooks: entry it knows on its
    # own manager too; the counts below show that neither fired from there.
    assert outcome["native_hooks"] == ["post_tool_call", "pre_tool_call"]
    # The dangerous call never ran; the model's next request carries the block message.
    assert (scratch / "keep.txt").read_text() == "precious\n"
    rm_result, ls_result = _tool_messages(model)
    assert rm_result["tool_call_id"] == "call_rm"
    assert json.loads(rm_result["content"]) == {"error": "claude gate: rm -rf refused"}
    # The harmless call ran.
    assert ls_result["tool_call_id"] == "call_ls"
    assert json.loads(ls_result["content"])["output"] == "keep.txt"
    # Each hook fired once per tool call: the Claude Code gate ...
    claude = _lines(home / "agent-hooks" / "claude.log")
    assert [(c["tool_name"], c["tool_use_id"], c["tool_input"]["command"]) for c in claude] == [
        ("Bash", "call_rm", f"rm -rf {scratch}"),
        ("Bash", "call_ls", f"ls {scratch}"),
    ]
    # ... the persistent gate, one process for both firings ...
    persistent = _lines(home / "agent-hooks" / "persistent.log")
    assert [p["event"]["tool_input"]["command"] for p in persistent] == [
        f"rm -rf {scratch}",
        f"ls {scratch}",
    ]
    assert len({p["pid"] for p in persistent}) == 1
    # ... the plugin both hermes-agent and hermes-hooks loaded ...
    assert _lines(home / "plugins" / "tool-counter" / "counter.log") == [
        ["terminal", "call_rm", "blocked"],
        ["terminal", "call_ls", "ok"],
    ]
    # ... and the post_tool_call webhook, signed, once per call.
    bodies = []
    for body, headers in received:
        assert headers["x-hermes-signature-256"].startswith("sha256=")
        bodies.append(verify(body, headers, SECRET).payload)  # raises on a bad signature
    assert [
        (b["hook_event_name"], b["extra"]["tool_call_id"], b["extra"]["status"]) for b in bodies
    ] == [
        ("post_tool_call", "call_rm", "blocked"),
        ("post_tool_call", "call_ls", "ok"),
    ]

    # The user replays the session the agent just stored, against the same home.
    sessions = tmp_path / "sessions"
    db = home / "state.db"
    assert main(["import-session", "--from", "hermes", str(db), "-o", str(sessions)]) == 0
    capsys.readouterr()
    code = main(["--home", str(home), "replay", "--json", "--fail-on", "block", str(sessions)])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    summary = report["summary"]
    assert (summary["tool_calls"], summary["calls_blocked"]) == (2, 1)
    entries = report["replays"][0]["entries"]
    gates = [s for e in entries for s in e.get("steps", []) if s["hook"] == "pre_tool_call"]
    assert [(g["outcome"], [(r["callback"], r["verdict"]) for r in g["runs"]]) for g in gates] == [
        (
            "BLOCKED: claude gate: rm -rf refused",
            [
                ("shell hooks.PreToolUse[0] agent-hooks/claude-gate.sh", "block"),
                (
                    f"shell hooks.pre_tool_call[0] {sys.executable} agent-hooks/persistent-gate.py",
                    "block",
                ),
            ],
        ),
        (
            "",
            [
                ("shell hooks.PreToolUse[0] agent-hooks/claude-gate.sh", "none"),
                (
                    f"shell hooks.pre_tool_call[0] {sys.executable} agent-hooks/persistent-gate.py",
                    "none",
                ),
            ],
        ),
    ]


def test_a_gate_that_cannot_start_blocks_fail_closed_and_is_a_doctor_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "keep.txt").write_text("precious\n")
    model = ScriptedModel(
        [
            tool_reply("call_rm", "terminal", {"command": f"rm -rf {scratch}"}),
            text_reply("stopped"),
        ]
    )
    hooks_block = """hooks:
  pre_tool_call:
    - matcher: terminal
      command: agent-hooks/missing-gate.py
      persistent: true
      fail_closed: true
"""
    with model.serving():
        home = _home(tmp_path, hooks_block)
        outcome = _run_agent(tmp_path, home, model)

    assert outcome["final_response"] == "stopped"
    assert (scratch / "keep.txt").read_text() == "precious\n"
    (rm_result,) = _tool_messages(model)
    assert json.loads(rm_result["content"]) == {
        "error": "hook agent-hooks/missing-gate.py failed closed: command not found"
    }

    monkeypatch.setenv("HERMES_HOME", str(home))
    assert main(["doctor", "--json"]) == 1
    findings = json.loads(capsys.readouterr().out)["findings"]
    errors = [f for f in findings if f["level"] == "error"]
    assert [(f["subject"], f["message"]) for f in errors] == [
        (
            "shell hooks.pre_tool_call[0] agent-hooks/missing-gate.py",
            f"{home}/agent-hooks/missing-gate.py not found",
        )
    ]


def test_a_claude_code_prompt_hook_asks_the_agents_own_model(tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "keep.txt").write_text("precious\n")
    # One model serves the agent: its loop asks for the call, the prompt hook asks it
    # whether the call may run, and the loop goes on with the answer.
    model = ScriptedModel(
        [
            tool_reply("call_rm", "terminal", {"command": f"rm -rf {scratch}"}),
            text_reply('{"ok": false, "reason": "judge: deleting is not ok"}'),
            text_reply("understood"),
        ]
    )
    with model.serving():
        home = _home(
            tmp_path,
            """hooks:
  PreToolUse:
    - matcher: Bash
      type: prompt
      prompt: "May this run? $ARGUMENTS"
""",
        )
        outcome = _run_agent(tmp_path, home, model)

    assert outcome["final_response"] == "understood"
    assert (scratch / "keep.txt").read_text() == "precious\n"
    loop_first, judged, loop_last = model.requests
    assert loop_first["messages"][-1] == {"role": "user", "content": "tidy up"}
    (question,) = judged["messages"]
    assert (judged["model"], question["role"]) == ("scripted", "user")
    assert question["content"].startswith("May this run? {")
    asked, _ = json.JSONDecoder().raw_decode(question["content"].removeprefix("May this run? "))
    assert (asked["hook_event_name"], asked["tool_name"], asked["tool_input"]) == (
        "PreToolUse",
        "Bash",
        {"command": f"rm -rf {scratch}"},
    )
    assert loop_last["messages"][-1]["tool_call_id"] == "call_rm"
    assert json.loads(loop_last["messages"][-1]["content"]) == {
        "error": "judge: deleting is not ok"
    }
