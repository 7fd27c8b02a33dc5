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
    UPSTREAM,
    proxied,
    proxy_params,
    texts,
    upstream_calls,
)

#: The fixture upstream's tools, in its order.
ALL_TOOLS = ["echo", "delete", "noop", "hang", "steps", "ask"]

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


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


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


def test_the_upstream_killed_mid_call_gives_an_error_and_tools_list_keeps_working(
    home: Path, tmp_path: Path
) -> None:
    calls, errlog = tmp_path / "calls.jsonl", tmp_path / "proxy.log"

    async def session() -> tuple[str, list[str], str]:
        async with proxied(home, calls, errlog, "--accept-hooks") as client:
            await client.list_tools()
            call = asyncio.create_task(client.call_tool("hang", {}))
            deadline = time.monotonic() + 30
            while not upstream_calls(calls) and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            os.kill(upstream_calls(calls)[0]["arguments"]["pid"], signal.SIGKILL)
            with pytest.raises(MCPError) as failed:
                await call
            after = [t.name for t in (await client.list_tools()).tools]
            with pytest.raises(MCPError) as later:
                await client.call_tool("echo", {"text": "x"})
            return str(failed.value), after, str(later.value)

    failed, after, later = asyncio.run(session())
    assert failed == "the upstream server exited (code -9)"
    assert after == ALL_TOOLS
    assert later == "the upstream server exited (code -9)"
    log = errlog.read_text(encoding="utf-8")
    assert log.count("the upstream server exited (code -9)") == 1  # logged once


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


def test_a_hanging_upstream_gives_a_timeout_error_and_the_client_leaving_ends_it(
    home: Path, tmp_path: Path
) -> None:
    calls, errlog = tmp_path / "calls.jsonl", tmp_path / "proxy.log"

    async def session() -> str:
        async with proxied(home, calls, errlog, "--accept-hooks", "--call-timeout", "1") as c:
            with pytest.raises(MCPError) as hung:
                await c.call_tool("hang", {})
            return str(hung.value)

    assert asyncio.run(session()) == "the upstream server did not answer within 1.0 s"
    pid = upstream_calls(calls)[0]["arguments"]["pid"]
    deadline = time.monotonic() + 20
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _alive(pid) is False  # the proxy ended the upstream's process group


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie waiting to be reaped counts as ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
    except FileNotFoundError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def test_an_upstream_answering_garbage_gives_the_waiting_call_an_error(
    home: Path, tmp_path: Path
) -> None:
    errlog = tmp_path / "proxy.log"
    garbled = Path(__file__).with_name("garbled_server.py")

    async def session() -> tuple[str, list[str]]:
        params = proxy_params(home, tmp_path / "calls.jsonl", "--accept-hooks")
        params.args[params.args.index("--") + 1 :] = [sys.executable, str(garbled)]
        with errlog.open("a", encoding="utf-8") as err:
            async with Client(stdio_client(params, errlog=err)) as client:
                with pytest.raises(MCPError) as garbage:
                    await client.call_tool("echo", {})
                names = [t.name for t in (await client.list_tools()).tools]
                return str(garbage.value), names

    message, names = asyncio.run(session())
    assert message == "the upstream server answered with a line that is not JSON-RPC"
    assert names == ["echo"]  # the session goes on
    assert (
        "ERROR hermes_hooks.mcp: upstream fx wrote a line that is not JSON-RPC: "
        "b'Traceback (most recent call last): oops\\n'; the waiting calls get an error"
    ) in errlog.read_text(encoding="utf-8").splitlines()


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
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _alive(pid) is False
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


def test_a_call_before_any_listing_is_still_judged_and_client_garbage_gets_a_parse_error(
    home: Path, tmp_path: Path
) -> None:
    # A client may call from a cached listing: the proxy lists the upstream itself first.
    version = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    meta = {
        **version,
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    params = proxy_params(home, tmp_path / "calls.jsonl")  # no --accept-hooks
    with (tmp_path / "proxy.log").open("w", encoding="utf-8") as err:
        proxy = subprocess.Popen(
            [params.command, *params.args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
            env=params.env,
        )
        assert proxy.stdin is not None and proxy.stdout is not None

        def ask(line: bytes) -> dict[str, Any]:
            assert proxy.stdin is not None and proxy.stdout is not None
            proxy.stdin.write(line)
            proxy.stdin.flush()
            return json.loads(proxy.stdout.readline())

        def call(ident: Any, name: str, envelope: dict[str, Any] = meta) -> dict[str, Any]:
            request = {"name": name, "arguments": {"text": "x"}, "_meta": envelope}
            message = {"jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": request}
            return ask(json.dumps(message).encode() + b"\n")

        # The proxy's own listing carries the call's envelope: an incomplete one gets
        # the upstream's refusal to list, and the call is refused (fail closed).
        unlisted = call("b", "echo", version)
        unapproved, missing = call("a", "echo"), call(7, "nope")
        garbage = ask(b"this is not json\n")
        proxy.stdin.close()
        code = proxy.wait(timeout=30)
        proxy.stdout.close()
    assert unlisted["result"]["content"][0]["text"] == (
        "tool mcp__fx__echo is refused: the upstream did not list its tools (params._meta is "
        "missing the required envelope key(s): io.modelcontextprotocol/clientCapabilities)"
    )
    assert unapproved == {
        "jsonrpc": "2.0",
        "id": "a",
        "result": {
            "content": [
                {
                    "type": "text",
                    "text": "tool mcp__fx__echo has not been approved; it is hidden and "
                    "refused (approve it with: hermes-hooks approve mcp__fx__echo)",
                }
            ],
            "isError": True,
            "resultType": "complete",
        },
    }
    assert missing["id"] == 7
    assert missing["result"]["content"][0]["text"] == (
        "tool mcp__fx__nope is not offered by the upstream"
    )
    assert garbage == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": "not a JSON-RPC message"},
    }
    assert code == 0
    assert upstream_calls(tmp_path / "calls.jsonl") == []


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


def test_a_config_it_cannot_use_stops_the_proxy_before_the_upstream_starts(
    home: Path, tmp_path: Path
) -> None:
    # Serving the client without the gates config.yaml names would be a silent bypass.
    (home / "config.yaml").write_text("hooks:\n  pre_tool_call: [\n", encoding="utf-8")
    started = tmp_path / "upstream-started"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    upstream = [sys.executable, "-c", f"open({str(started)!r}, 'w')"]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "hermes_hooks",
            "mcp-proxy",
            "--home",
            str(home),
            "--name",
            "fx",
            "--",
            *upstream,
        ],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith(f"hermes-hooks: {home}/config.yaml:")
    assert "not valid YAML" in done.stderr
    assert started.exists() is False


def test_a_listing_the_proxy_made_for_an_early_call_is_served_after_a_crash(
    home: Path, tmp_path: Path
) -> None:
    # A client calling from its cache never lists through the proxy: the listing the
    # proxy made to judge the call is the one it answers with once the upstream is gone.
    calls = tmp_path / "calls.jsonl"
    version = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    meta = {
        **version,
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    params = proxy_params(home, calls, "--accept-hooks")
    with (tmp_path / "proxy.log").open("w", encoding="utf-8") as err:
        proxy = subprocess.Popen(
            [params.command, *params.args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
            env=params.env,
        )
        assert proxy.stdin is not None and proxy.stdout is not None

        def send(message: dict[str, Any]) -> None:
            assert proxy.stdin is not None
            proxy.stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
            proxy.stdin.flush()

        send({"id": 1, "method": "tools/call", "params": {"name": "hang", "_meta": meta}})
        deadline = time.monotonic() + 30
        while not upstream_calls(calls) and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(upstream_calls(calls)[0]["arguments"]["pid"], signal.SIGKILL)
        failed = json.loads(proxy.stdout.readline())
        send({"id": 2, "method": "tools/list", "params": {"_meta": meta}})
        listed = json.loads(proxy.stdout.readline())
        proxy.stdin.close()
        proxy.wait(timeout=30)
        proxy.stdout.close()
    assert failed["id"] == 1
    assert failed["error"]["message"] == "the upstream server exited (code -9)"
    assert listed["id"] == 2
    assert [tool["name"] for tool in listed["result"]["tools"]] == ALL_TOOLS
