"""The proxy end to end: an SDK client session, ``hermes-hooks mcp-proxy`` as a real
process, and an SDK-built upstream server as its child."""

from __future__ import annotations

import asyncio
import http.server
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, MCPError
from mcp.client.stdio import stdio_client
from mcp.types import ElicitResult

from hermes_hooks.cli import main
from tests.helpers import write_plugin
from tests.integrations.mcp.helpers import (
    ALL_TOOLS,
    UPSTREAM,
    alive,
    proxied,
    proxy_params,
    texts,
    upstream_calls,
)

GATE = """
import json
from pathlib import Path

EVENTS = Path(__file__).parent / "events.jsonl"


def _note(**fields):
    with EVENTS.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(fields, sort_keys=True) + "\\n")


def gate(tool_name, args, tool_call_id, **kw):
    _note(hook="pre_tool_call", tool=tool_name, args=args)
    if tool_name == "mcp__fx__delete":
        return {"action": "block", "message": "deleting is not allowed here"}
    if args.get("text") == "secret":
        return {"action": "modify", "args": {"text": "[redacted]"}}
    return None


def after(tool_name, result, status, **kw):
    _note(hook="post_tool_call", tool=tool_name, result=result, status=status)


def shout(tool_name, result, **kw):
    return result.upper() if tool_name == "mcp__fx__echo" else None


def start(session_id, platform, **kw):
    _note(hook="on_session_start", platform=platform)


def end(session_id, turn_exit_reason, **kw):
    _note(hook="on_session_end", reason=turn_exit_reason)


def register(ctx):
    ctx.register_hook("pre_tool_call", gate)
    ctx.register_hook("post_tool_call", after)
    ctx.register_hook("transform_tool_result", shout)
    ctx.register_hook("on_session_start", start)
    ctx.register_hook("on_session_end", end)
"""


def _events(home: Path) -> list[dict[str, Any]]:
    path = home / "plugins" / "gate" / "events.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_gate_blocks_one_tool_rewrites_another_and_a_transform_rewrites_its_result(
    home: Path, tmp_path: Path
) -> None:
    write_plugin(home / "plugins", "gate", GATE)
    calls, errlog = tmp_path / "calls.jsonl", tmp_path / "proxy.log"

    async def session() -> tuple[Any, Any, Any, list[str]]:
        async with proxied(home, calls, errlog, "--accept-hooks") as client:
            names = [t.name for t in (await client.list_tools()).tools]
            blocked = await client.call_tool("delete", {"path": "/etc"})
            passed = await client.call_tool("echo", {"text": "hello"})
            modified = await client.call_tool("echo", {"text": "secret"})
            return blocked, passed, modified, names

    blocked, passed, modified, names = asyncio.run(session())
    assert names == ALL_TOOLS  # passed through, unrenamed
    assert blocked.is_error is True
    assert texts(blocked) == ["deleting is not allowed here"]
    assert texts(passed) == ["ECHO: HELLO"]
    assert passed.structured_content == {"result": "ECHO: HELLO"}
    assert texts(modified) == ["ECHO: [REDACTED]"]
    # The upstream never saw the blocked call, and saw the rewritten arguments.
    assert upstream_calls(calls) == [
        {"tool": "echo", "arguments": {"text": "hello"}},
        {"tool": "echo", "arguments": {"text": "[redacted]"}},
    ]
    assert _events(home) == [
        {"hook": "on_session_start", "platform": "mcp"},
        {"hook": "pre_tool_call", "tool": "mcp__fx__delete", "args": {"path": "/etc"}},
        {
            "hook": "post_tool_call",
            "tool": "mcp__fx__delete",
            "result": "deleting is not allowed here",
            "status": "blocked",
        },
        {"hook": "pre_tool_call", "tool": "mcp__fx__echo", "args": {"text": "hello"}},
        {
            "hook": "post_tool_call",
            "tool": "mcp__fx__echo",
            "result": "echo: hello",
            "status": "ok",
        },
        {"hook": "pre_tool_call", "tool": "mcp__fx__echo", "args": {"text": "secret"}},
        {
            "hook": "post_tool_call",
            "tool": "mcp__fx__echo",
            "result": "echo: [redacted]",
            "status": "ok",
        },
        {"hook": "on_session_end", "reason": "mcp_client_disconnected"},
    ]


CLAUDE_GATE = """\
import json, sys
from pathlib import Path
event = json.load(sys.stdin)
with (Path(__file__).parent / "seen.jsonl").open("a") as handle:
    seen = [event["hook_event_name"], event["tool_name"], event["tool_input"]]
    handle.write(json.dumps(seen) + "\\n")
if event["tool_name"] == "mcp__fx__delete":
    print("no deletes through MCP", file=sys.stderr)
    sys.exit(2)
"""


def test_a_claude_code_pre_tool_use_entry_for_mcp_tools_fires_unchanged(
    home: Path, tmp_path: Path
) -> None:
    (home / "gate.py").write_text(CLAUDE_GATE, encoding="utf-8")
    (home / "config.yaml").write_text(
        "hooks:\n"
        "  PreToolUse:\n"
        "    - matcher: 'mcp__.*'\n"
        f"      command: {sys.executable} gate.py\n",
        encoding="utf-8",
    )
    calls, errlog = tmp_path / "calls.jsonl", tmp_path / "proxy.log"

    async def session() -> tuple[Any, Any]:
        async with proxied(home, calls, errlog, "--accept-hooks") as client:
            blocked = await client.call_tool("delete", {"path": "/srv"})
            passed = await client.call_tool("echo", {"text": "hi"})
            return blocked, passed

    blocked, passed = asyncio.run(session())
    assert blocked.is_error is True
    assert texts(blocked) == ["no deletes through MCP"]
    assert texts(passed) == ["echo: hi"]
    assert upstream_calls(calls) == [{"tool": "echo", "arguments": {"text": "hi"}}]
    seen = (home / "seen.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in seen] == [
        ["PreToolUse", "mcp__fx__delete", {"path": "/srv"}],
        ["PreToolUse", "mcp__fx__echo", {"text": "hi"}],
    ]


def test_resources_and_prompts_pass_through(home: Path, tmp_path: Path) -> None:
    calls, errlog = tmp_path / "calls.jsonl", tmp_path / "proxy.log"

    async def session() -> tuple[Any, Any, Any, Any]:
        async with proxied(home, calls, errlog, "--accept-hooks") as client:
            resources = await client.list_resources()
            read = await client.read_resource("fixture://greeting")
            prompts = await client.list_prompts()
            prompt = await client.get_prompt("review", {"path": "a.py"})
            return resources, read, prompts, prompt

    resources, read, prompts, prompt = asyncio.run(session())
    assert [(r.name, str(r.uri)) for r in resources.resources] == [
        ("greeting", "fixture://greeting")
    ]
    assert [c.text for c in read.contents] == ["hello from the upstream"]
    assert [(p.name, p.description) for p in prompts.prompts] == [
        ("review", "Ask for a review of a file.")
    ]
    assert [m.content.text for m in prompt.messages] == ["Please review a.py."]


def test_a_changed_description_is_hidden_and_refused_until_approved(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    calls, errlog = tmp_path / "calls.jsonl", tmp_path / "proxy.log"

    async def session(variant: str, *extra: str) -> tuple[list[str], Any]:
        async with proxied(home, calls, errlog, *extra, variant=variant) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            return names, await client.call_tool("echo", {"text": "hi"})

    names, first = asyncio.run(session("original", "--accept-hooks"))
    assert names == ALL_TOOLS
    assert texts(first) == ["echo: hi"]

    names, refused = asyncio.run(session("changed"))
    assert names == ALL_TOOLS[1:]
    message = (
        "tool mcp__fx__echo changed its description since it was approved; it is hidden "
        "and refused until approved again (approve it with: hermes-hooks approve "
        "mcp__fx__echo)"
    )
    assert refused.is_error is True
    assert texts(refused) == [message]
    assert f"ERROR hermes_hooks.mcp: {message}" in errlog.read_text(encoding="utf-8").splitlines()
    assert upstream_calls(calls) == [{"tool": "echo", "arguments": {"text": "hi"}}]
    capsys.readouterr()
    assert main(["--home", str(home), "doctor", "--json"]) == 1  # loud outside the proxy too
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert {"level": "error", "subject": "mcp__fx__echo", "message": message, "entry": None} in (
        findings
    )

    assert main(["--home", str(home), "approve", "mcp__fx__echo"]) == 0
    assert capsys.readouterr().out == "Approved MCP tool definition: mcp__fx__echo\n"
    names, approved = asyncio.run(session("changed"))
    assert names == ALL_TOOLS
    assert texts(approved) == ["echo: hi"]


GUARD = """
def guard(tool_name, args, **kw):
    if tool_name == "mcp__fx__delete":
        return {"action": "block", "message": "deleting is not allowed here"}
    if tool_name == "mcp__fx__noop":
        return {"action": "approve", "message": "noop needs a human"}


def register(ctx):
    ctx.register_hook("pre_tool_call", guard)
"""


def test_a_recorded_session_replays_and_the_policy_fails_it_in_ci(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    calls, errlog, recording = (
        tmp_path / "calls.jsonl",
        tmp_path / "proxy.log",
        tmp_path / "r.jsonl",
    )

    async def session() -> None:
        async with proxied(home, calls, errlog, "--accept-hooks", "--record", str(recording)) as c:
            await c.call_tool("echo", {"text": "hi"})
            await c.call_tool("delete", {"path": "/x"})

    asyncio.run(session())  # recorded with no hooks: both calls ran
    lines = [json.loads(line) for line in recording.read_text(encoding="utf-8").splitlines()]
    assert [line["type"] for line in lines] == [
        "header",
        "user",
        "assistant",
        "tool_result",
        "assistant",
        "tool_result",
        "assistant",
    ]
    assert lines[2]["tool_calls"][0]["name"] == "mcp__fx__echo"
    assert lines[3] == {
        "type": "tool_result",
        "tool_call_id": lines[2]["tool_calls"][0]["id"],
        "content": "echo: hi",
        "status": "ok",
        "duration_ms": lines[3]["duration_ms"],
    }
    assert lines[4]["tool_calls"][0]["arguments"] == {"path": "/x"}
    assert lines[5]["content"] == "deleted /x"

    write_plugin(home / "plugins", "guard", GUARD)  # the new policy, tried on the traffic
    capsys.readouterr()
    code = main(["--home", str(home), "replay", str(recording), "--fail-on", "block"])
    out = capsys.readouterr().out
    assert code == 1
    assert "pre_tool_call  → BLOCKED: deleting is not allowed here" in out
    assert "calls blocked          1  (block answers: python 1)" in out


def test_an_approval_request_fails_closed_and_the_filter_hides_tools(
    home: Path, tmp_path: Path
) -> None:
    write_plugin(home / "plugins", "guard", GUARD)
    calls, errlog = tmp_path / "calls.jsonl", tmp_path / "proxy.log"

    async def session(*extra: str) -> tuple[list[str], Any, Any]:
        async with proxied(home, calls, errlog, "--accept-hooks", *extra) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            return names, await client.call_tool("noop", {}), await client.call_tool("hang", {})

    names, noop, hang = asyncio.run(session("--deny-tool", "hang"))
    assert names == ["echo", "delete", "noop", "steps", "ask"]
    assert (noop.is_error, texts(noop)) == (
        True,
        ["BLOCKED: plugin approval required for mcp__fx__noop"],
    )
    assert (hang.is_error, texts(hang)) == (
        True,
        ["tool mcp__fx__hang is not allowed through this proxy"],
    )
    assert upstream_calls(calls) == []

    allowed = ("--allow-tool", "mcp__fx__noop", "--allow-tool", "echo", "--deny-tool", "hang")
    names, noop, hang = asyncio.run(session("--approve", "allow", *allowed))
    assert names == ["echo", "noop"]
    assert (noop.is_error, texts(noop)) == (False, ["ok"])
    assert hang.is_error is True


def test_progress_and_an_elicitation_from_the_upstream_pass_through_both_ways(
    home: Path, tmp_path: Path
) -> None:
    # The handshake-era protocol, where the server sends the client requests of its own.
    errlog = tmp_path / "proxy.log"
    progress: list[tuple[float, float | None, str | None]] = []
    asked: list[str] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    async def on_elicit(_context: Any, params: Any) -> ElicitResult:
        asked.append(params.message)
        return ElicitResult(action="accept", content={"name": "Ada"})

    async def session() -> tuple[Any, Any]:
        params = proxy_params(home, tmp_path / "calls.jsonl", "--accept-hooks")
        with errlog.open("a", encoding="utf-8") as err:
            client = Client(
                stdio_client(params, errlog=err), mode="legacy", elicitation_callback=on_elicit
            )
            async with client:
                steps = await client.call_tool("steps", {}, progress_callback=on_progress)
                return steps, await client.call_tool("ask", {})

    steps, ask = asyncio.run(session())
    assert texts(steps) == ["done"]
    assert progress == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]
    assert texts(ask) == ["accept: Ada"]
    assert asked == ["Who is asking?"]


def test_a_sigterm_to_the_proxy_ends_the_upstream_and_the_session_first(
    home: Path, tmp_path: Path
) -> None:
    write_plugin(home / "plugins", "gate", GATE)
    calls, errlog = tmp_path / "calls.jsonl", tmp_path / "proxy.log"

    async def session() -> str:
        async with proxied(home, calls, errlog, "--accept-hooks") as client:
            call = asyncio.create_task(client.call_tool("hang", {}))
            deadline = time.monotonic() + 30
            while not upstream_calls(calls) and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            os.kill(upstream_calls(calls)[0]["arguments"]["parent"], signal.SIGTERM)
            with pytest.raises(MCPError) as closed:
                await call
            return str(closed.value)

    assert asyncio.run(session()) == "Connection closed"
    pid = upstream_calls(calls)[0]["arguments"]["pid"]
    deadline = time.monotonic() + 20
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert alive(pid) is False
    assert _events(home)[-1] == {"hook": "on_session_end", "reason": "mcp_client_disconnected"}


def test_an_upstream_over_streamable_http_is_guarded_the_same(home: Path, tmp_path: Path) -> None:
    write_plugin(home / "plugins", "gate", GATE)
    calls, errlog = tmp_path / "calls.jsonl", tmp_path / "proxy.log"
    with socket.socket() as probe:  # a free port on the loopback interface
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, str(UPSTREAM), str(calls), "original", str(port)],
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with socket.socket() as attempt:
                if attempt.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)

        async def session() -> tuple[list[str], Any, Any, Any]:
            params = proxy_params(home, calls, "--accept-hooks")
            cut = params.args.index("--")
            params.args[cut:] = ["--upstream-url", f"http://127.0.0.1:{port}/mcp"]
            with errlog.open("a", encoding="utf-8") as err:
                async with Client(stdio_client(params, errlog=err)) as client:
                    names = [t.name for t in (await client.list_tools()).tools]
                    blocked = await client.call_tool("delete", {"path": "/etc"})
                    passed = await client.call_tool("echo", {"text": "hello"})
                    read = await client.read_resource("fixture://greeting")
                    return names, blocked, passed, read

        names, blocked, passed, read = asyncio.run(session())
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert names == ALL_TOOLS
    assert (blocked.is_error, texts(blocked)) == (True, ["deleting is not allowed here"])
    assert texts(passed) == ["ECHO: HELLO"]
    assert [c.text for c in read.contents] == ["hello from the upstream"]
    assert upstream_calls(calls) == [{"tool": "echo", "arguments": {"text": "hello"}}]


def test_an_outbound_webhook_receives_the_proxied_tool_call(home: Path, tmp_path: Path) -> None:
    received: list[dict[str, Any]] = []

    class Receiver(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers["Content-Length"])
            received.append(json.loads(self.rfile.read(length)))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        (home / "config.yaml").write_text(
            "hooks:\n"
            "  outbound:\n"
            "    - name: monitor\n"
            f"      url: http://127.0.0.1:{server.server_address[1]}/events\n"
            "      events: [post_tool_call]\n"
            "      matcher: 'mcp__.*'\n",
            encoding="utf-8",
        )
        calls, errlog = tmp_path / "calls.jsonl", tmp_path / "proxy.log"

        async def session() -> None:
            async with proxied(home, calls, errlog, "--accept-hooks") as client:
                await client.call_tool("echo", {"text": "hi"})

        asyncio.run(session())  # the proxy flushes its lanes when the session ends
    finally:
        server.shutdown()
        server.server_close()
    assert [
        (r["hook_event_name"], r["tool_name"], r["tool_input"], r["extra"]["result"])
        for r in received
    ] == [("post_tool_call", "mcp__fx__echo", {"text": "hi"}, "echo: hi")]
