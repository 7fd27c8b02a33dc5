"""``mcp-proxy --listen``: SDK streamable-HTTP client sessions against the proxy as a
real process on 127.0.0.1, each session relayed to its own SDK-built upstream child."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client
from mcp.types import ElicitResult

from tests.helpers import write_plugin
from tests.integrations.mcp.helpers import (
    ALL_TOOLS,
    ROOT,
    SLOW_GATE,
    UPSTREAM,
    alive,
    cancelled,
    noted,
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


def gate(tool_name, args, session_id, **kw):
    _note(hook="pre_tool_call", tool=tool_name, session=session_id)
    if tool_name == "mcp__fx__delete":
        return {"action": "block", "message": "deleting is not allowed here"}
    return None


def start(session_id, platform, **kw):
    _note(hook="on_session_start", session=session_id, platform=platform)


def end(session_id, turn_exit_reason, **kw):
    _note(hook="on_session_end", session=session_id, reason=turn_exit_reason)


def register(ctx):
    ctx.register_hook("pre_tool_call", gate)
    ctx.register_hook("on_session_start", start)
    ctx.register_hook("on_session_end", end)
"""


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    write_plugin(path / "plugins", "gate", GATE)
    return path


def _events(home: Path) -> list[dict[str, Any]]:
    path = home / "plugins" / "gate" / "events.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _proxy_command(home: Path) -> list[str]:
    return [sys.executable, "-m", "hermes_hooks", "mcp-proxy", "--home", str(home)]


def _children(pid: int) -> list[int]:
    """The live (not zombie) processes whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text(encoding="utf-8")
        except OSError:
            continue
        fields = stat.rpartition(")")[2].split()
        if fields[0] != "Z" and int(fields[1]) == pid:
            found.append(int(entry.name))
    return sorted(found)


def _wait_for(condition: Any, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)


@contextmanager
def listening(
    home: Path, tmp_path: Path, *extra: str, upstream: list[str] | None = None
) -> Iterator[tuple[str, Any]]:
    """The proxy listening on 127.0.0.1 (a port it picks), started as a client's
    operator would; yields its URL and process, and stops it with SIGTERM."""
    calls = tmp_path / "calls.jsonl"
    errlog = tmp_path / "proxy.log"
    command = [*_proxy_command(home), "--name", "fx", "--accept-hooks", "--listen"]
    command += ["127.0.0.1:0", *extra]
    if "--upstream-url" not in extra:
        command += ["--", *(upstream or [sys.executable, str(UPSTREAM), str(calls)])]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with errlog.open("a", encoding="utf-8") as err:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stderr=err, env=env)
    try:
        found: list[str] = []

        def announced() -> bool:
            text = errlog.read_text(encoding="utf-8")
            found[:] = re.findall(r"listening on (http://127\.0\.0\.1:\d+/mcp)", text)
            return bool(found) or process.poll() is not None

        _wait_for(announced, 60)
        assert found, errlog.read_text(encoding="utf-8")
        yield found[0], process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)


def test_a_gate_blocks_one_tool_over_http_passes_another_and_the_session_end_ends_its_upstream(
    home: Path, tmp_path: Path
) -> None:
    calls = tmp_path / "calls.jsonl"
    record = ("--record", str(tmp_path / "rec.jsonl"))
    with listening(home, tmp_path, *record) as (url, proxy):
        assert _children(proxy.pid) == []  # no upstream before a client session

        async def session() -> tuple[list[str], Any, Any, list[int]]:
            async with Client(streamable_http_client(url)) as client:
                names = [t.name for t in (await client.list_tools()).tools]
                blocked = await client.call_tool("delete", {"path": "/etc"})
                passed = await client.call_tool("echo", {"text": "hello"})
                return names, blocked, passed, _children(proxy.pid)

        names, blocked, passed, upstreams = asyncio.run(session())
        # Leaving the client sends DELETE: the session ends, and its upstream with it.
        _wait_for(lambda: not _children(proxy.pid))
        assert _children(proxy.pid) == []
        assert len(upstreams) == 1
        assert proxy.poll() is None  # the proxy itself keeps listening
    assert proxy.returncode == 0
    log = (tmp_path / "proxy.log").read_text(encoding="utf-8")
    assert log == f"hermes-hooks: mcp-proxy listening on {url}\n"  # and nothing went wrong
    assert names == ALL_TOOLS
    assert (blocked.is_error, texts(blocked)) == (True, ["deleting is not allowed here"])
    assert (passed.is_error, texts(passed)) == (False, ["echo: hello"])
    assert upstream_calls(calls) == [{"tool": "echo", "arguments": {"text": "hello"}}]
    events = _events(home)
    session_id = events[0]["session"]
    assert re.fullmatch(r"[0-9a-f]{32}", session_id)  # the Mcp-Session-Id the client sent
    assert events == [
        {"hook": "on_session_start", "session": session_id, "platform": "mcp"},
        {"hook": "pre_tool_call", "tool": "mcp__fx__delete", "session": session_id},
        {"hook": "pre_tool_call", "tool": "mcp__fx__echo", "session": session_id},
        {"hook": "on_session_end", "session": session_id, "reason": "mcp_client_disconnected"},
    ]
    # One recording per session, named by it (sessions would overwrite one file).
    assert sorted(tmp_path.glob("rec*")) == [tmp_path / f"rec.{session_id}.jsonl"]
    recorded = (tmp_path / f"rec.{session_id}.jsonl").read_text(encoding="utf-8")
    assert ("mcp__fx__delete" in recorded, "mcp__fx__echo" in recorded) == (True, True)


def test_progress_elicitation_resources_and_prompts_pass_through_over_http(
    home: Path, tmp_path: Path
) -> None:
    progress: list[tuple[float, float | None, str | None]] = []
    asked: list[str] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    async def on_elicit(_context: Any, params: Any) -> ElicitResult:
        asked.append(params.message)
        return ElicitResult(action="accept", content={"name": "Ada"})

    with listening(home, tmp_path) as (url, _proxy):

        async def session() -> tuple[Any, Any, str, str]:
            client = Client(streamable_http_client(url), elicitation_callback=on_elicit)
            async with client:
                steps = await client.call_tool("steps", {}, progress_callback=on_progress)
                ask = await client.call_tool("ask", {})
                read = await client.read_resource("fixture://greeting")
                prompt = await client.get_prompt("review", {"path": "a.py"})
                return steps, ask, read.contents[0].text, prompt.messages[0].content.text

        steps, ask, greeting, review = asyncio.run(session())
    assert texts(steps) == ["done"]
    # On the call's own SSE stream, tied to it by its progress token.
    assert progress == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]
    assert texts(ask) == ["accept: Ada"]  # the upstream's request reached the client
    assert asked == ["Who is asking?"]
    assert (greeting, review) == ("hello from the upstream", "Please review a.py.")


def test_each_http_session_gets_its_own_upstream_and_a_sigterm_ends_them_all(
    home: Path, tmp_path: Path
) -> None:
    with listening(home, tmp_path) as (url, proxy):
        first_seen: list[int] = []
        both_seen: list[int] = []

        async def sessions() -> tuple[Any, Any]:
            async with Client(streamable_http_client(url)) as first:
                one = await first.call_tool("echo", {"text": "one"})
                first_seen.extend(_children(proxy.pid))
                async with Client(streamable_http_client(url)) as second:
                    two = await second.call_tool("echo", {"text": "two"})
                    both_seen.extend(_children(proxy.pid))
                    # The proxy stops while both sessions are open.
                    proxy.send_signal(signal.SIGTERM)
                    await asyncio.to_thread(proxy.wait, 30)
                    return one, two

        one, two = asyncio.run(sessions())
    assert (texts(one), texts(two)) == (["echo: one"], ["echo: two"])
    assert proxy.returncode == 0
    assert len(first_seen) == 1
    assert len(both_seen) == 2 and first_seen[0] in both_seen
    for pid in both_seen:
        _wait_for(lambda pid=pid: not alive(pid))
        assert alive(pid) is False
    events = _events(home)
    started = [e["session"] for e in events if e["hook"] == "on_session_start"]
    ended = sorted(e["session"] for e in events if e["hook"] == "on_session_end")
    assert len(set(started)) == 2
    assert ended == sorted(started)


def test_a_client_that_vanishes_without_ending_its_session_has_it_ended_when_idle(
    home: Path, tmp_path: Path
) -> None:
    with listening(home, tmp_path, "--idle-timeout", "1") as (url, proxy):

        async def vanish() -> tuple[list[str], list[int]]:
            # No DELETE on leaving: as a client that crashed or lost the network.
            transport = streamable_http_client(url, terminate_on_close=False)
            async with Client(transport) as client:
                answer = await client.call_tool("echo", {"text": "bye"})
                return texts(answer), _children(proxy.pid)

        answer, upstreams = asyncio.run(vanish())
        _wait_for(lambda: _events(home)[-1:] and _events(home)[-1]["hook"] == "on_session_end")
        remaining = _children(proxy.pid)
        assert proxy.poll() is None
    assert answer == ["echo: bye"]
    assert len(upstreams) == 1
    assert remaining == []
    log = (tmp_path / "proxy.log").read_text(encoding="utf-8")
    assert log == f"hermes-hooks: mcp-proxy listening on {url}\n"
    assert [e["hook"] for e in _events(home)] == [
        "on_session_start",
        "pre_tool_call",
        "on_session_end",
    ]


def test_the_upstream_killed_mid_call_gives_the_http_client_an_error_and_the_session_goes_on(
    home: Path, tmp_path: Path
) -> None:
    calls = tmp_path / "calls.jsonl"
    with listening(home, tmp_path) as (url, _proxy):

        async def session() -> tuple[str, list[str]]:
            async with Client(streamable_http_client(url)) as client:
                await client.list_tools()
                call = asyncio.create_task(client.call_tool("hang", {}))
                await asyncio.to_thread(_wait_for, lambda: bool(upstream_calls(calls)), 30)
                os.kill(upstream_calls(calls)[0]["arguments"]["pid"], signal.SIGKILL)
                with pytest.raises(MCPError) as failed:
                    await call
                return str(failed.value), [t.name for t in (await client.list_tools()).tools]

        failed, after = asyncio.run(session())
    assert failed == "the upstream server exited (code -9)"
    assert after == ALL_TOOLS  # from the last listing: the session is kept
    log = (tmp_path / "proxy.log").read_text(encoding="utf-8")
    assert log.count("the upstream server exited (code -9)") == 1  # logged once


def _leaves(error: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups, or ``error`` itself."""
    inner = getattr(error, "exceptions", None)
    if inner is None:
        return [error]
    return [leaf for each in inner for leaf in _leaves(each)]


def test_an_upstream_that_cannot_start_fails_that_session_with_a_clear_error_only(
    home: Path, tmp_path: Path
) -> None:
    missing = str(tmp_path / "no-such-server")
    with listening(home, tmp_path, upstream=[missing]) as (url, proxy):

        async def connect() -> None:
            async with Client(streamable_http_client(url)):
                pass

        with pytest.raises(BaseException) as failed:
            asyncio.run(connect())
        still_serving = proxy.poll() is None
    leaves = _leaves(failed.value)
    assert [(type(e).__name__, str(e)) for e in leaves] == [
        (
            "MCPError",
            "the proxy cannot start the upstream server: "
            f"[Errno 2] No such file or directory: '{missing}'",
        )
    ]
    assert still_serving is True  # one session failing does not stop the proxy
    log = (tmp_path / "proxy.log").read_text(encoding="utf-8").splitlines()
    assert len(log) == 2
    assert re.fullmatch(
        r"ERROR hermes_hooks\.mcp: session [0-9a-f]{32}: cannot start the upstream server: "
        + re.escape(f"[Errno 2] No such file or directory: '{missing}'"),
        log[1],
    )
    assert _events(home) == []


def test_an_http_upstream_behind_an_http_listener_is_guarded_the_same(
    home: Path, tmp_path: Path
) -> None:
    calls = tmp_path / "calls.jsonl"
    with socket.socket() as probe:  # a free port on the loopback interface
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, str(UPSTREAM), str(calls), "original", str(port)],
        stderr=subprocess.DEVNULL,
    )
    try:

        def up() -> bool:
            with socket.socket() as attempt:
                return attempt.connect_ex(("127.0.0.1", port)) == 0

        _wait_for(up, 30)
        upstream_url = f"http://127.0.0.1:{port}/mcp"
        with listening(home, tmp_path, "--upstream-url", upstream_url) as (url, _proxy):

            async def session() -> tuple[Any, Any]:
                async with Client(streamable_http_client(url)) as client:
                    blocked = await client.call_tool("delete", {"path": "/etc"})
                    return blocked, await client.call_tool("echo", {"text": "hi"})

            blocked, passed = asyncio.run(session())
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert (blocked.is_error, texts(blocked)) == (True, ["deleting is not allowed here"])
    assert texts(passed) == ["echo: hi"]
    assert upstream_calls(calls) == [{"tool": "echo", "arguments": {"text": "hi"}}]


def test_a_request_naming_another_host_is_refused_before_any_upstream_starts(
    home: Path, tmp_path: Path
) -> None:
    # What a web page reaching 127.0.0.1 through a rebound DNS name would send.
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "page", "version": "1"},
        },
    }
    started = tmp_path / "upstream-started"
    upstream = ["sh", "-c", f": > '{started}'; exec sleep 60"]
    with listening(home, tmp_path, upstream=upstream) as (url, _proxy):
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            connection.request(
                "POST",
                "/mcp",
                json.dumps(initialize),
                {
                    "Host": f"attacker.example:{port}",
                    "Content-Type": "application/json",
                    "Accept": "application/json, text/event-stream",
                },
            )
            answer = connection.getresponse()
            status, body = answer.status, answer.read()
        finally:
            connection.close()
    assert (status, body) == (421, b"Invalid Host header")
    assert started.exists() is False  # no upstream was started for it
    assert (tmp_path / "proxy.log").read_text(encoding="utf-8").splitlines() == [
        f"hermes-hooks: mcp-proxy listening on {url}",
        f"WARNING mcp.server.transport_security: Invalid Host header: attacker.example:{port}",
    ]
    assert _events(home) == []


@pytest.mark.parametrize(
    ("listen", "message"),
    [
        (
            "0.0.0.0:8931",
            "hermes-hooks: --listen 0.0.0.0:8931: 0.0.0.0 is not a loopback address, so "
            "other machines could call the tools without any authentication; listen on "
            "127.0.0.1, or add --allow-remote if that network is trusted\n",
        ),
        ("8931", "hermes-hooks: --listen '8931': expected HOST:PORT, such as 127.0.0.1:8931\n"),
    ],
)
def test_a_listen_address_it_must_not_or_cannot_use_is_refused_before_anything_starts(
    home: Path, tmp_path: Path, listen: str, message: str
) -> None:
    started = tmp_path / "upstream-started"
    upstream = [sys.executable, "-c", f"open({str(started)!r}, 'w')"]
    done = subprocess.run(
        [*_proxy_command(home), "--name", "fx", "--listen", listen, "--", *upstream],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (2, "", message)
    assert started.exists() is False


def _sse_messages(lines: Iterator[str]) -> list[dict[str, Any]]:
    """The JSON-RPC messages of an SSE stream's ``data:`` lines, until it ends."""
    return [json.loads(line[5:]) for line in lines if line.startswith("data:")]


class _RawSession:
    """A client session through the proxy spoken as plain HTTP, initialized."""

    VERSION = "2025-06-18"

    def __init__(self, http: httpx.Client, url: str) -> None:
        self.http, self.url = http, url
        self.headers = {"accept": "application/json, text/event-stream"}
        initialize = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": self.VERSION,
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"},
            },
        }
        opened = http.post(url, json=initialize, headers=self.headers)
        assert opened.status_code == 200, opened.text
        self.headers["mcp-session-id"] = opened.headers["mcp-session-id"]
        self.headers["mcp-protocol-version"] = self.VERSION
        initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert http.post(url, json=initialized, headers=self.headers).status_code == 202

    def cancel(self, request_id: int) -> None:
        """Send ``notifications/cancelled`` for ``request_id``, as a user pressing stop."""
        cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled"}
        cancel["params"] = {"requestId": request_id, "reason": "the user pressed stop"}
        response = self.http.post(self.url, json=cancel, headers=self.headers)
        assert response.status_code == 202


@contextmanager
def _raw_session(home: Path, tmp_path: Path) -> Iterator[_RawSession]:
    """The proxy listening, and a raw HTTP session opened on it."""
    with listening(home, tmp_path) as (url, _proxy), httpx.Client(timeout=30) as http:
        yield _RawSession(http, url)


def test_a_call_the_http_client_cancels_is_answered_and_its_stream_ends(
    home: Path, tmp_path: Path
) -> None:
    # The upstream never answers a cancelled call (hang sleeps a minute): without an
    # answer from the proxy, the call's SSE stream stayed open until the session ended.
    calls = tmp_path / "calls.jsonl"
    with _raw_session(home, tmp_path) as session:
        http, url, headers = session.http, session.url, session.headers
        listing = http.post(
            url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=headers
        )
        assert listing.status_code == 200, listing.text
        call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call"}
        call["params"] = {"name": "hang", "arguments": {}}
        with http.stream("POST", url, json=call, headers=headers) as stream:
            _wait_for(lambda: [c["tool"] for c in upstream_calls(calls)] == ["hang"])
            assert [c["tool"] for c in upstream_calls(calls)] == ["hang"]
            session.cancel(7)
            # Read on a thread: the transport keeps an open stream alive with pings, so
            # a stream that never ends would hang the test instead of failing it.
            messages: list[dict[str, Any]] = []

            def read() -> None:
                with contextlib.suppress(httpx.TransportError):  # torn down on failure
                    messages.extend(_sse_messages(stream.iter_lines()))

            reader = threading.Thread(target=read, daemon=True)
            reader.start()
            reader.join(30)
            assert not reader.is_alive(), "the cancelled call's stream is still open"
    assert messages == [
        {"jsonrpc": "2.0", "id": 7, "error": {"code": -32800, "message": "Request cancelled"}}
    ]


def test_a_call_the_http_client_cancels_in_its_hooks_is_answered_and_never_runs(
    home: Path, tmp_path: Path
) -> None:
    # The same rule as over stdio: the gate lets the call go only after the client has
    # given up, and the proxy then keeps it from the upstream.
    slow = write_plugin(home / "plugins", "slow", SLOW_GATE)
    calls = tmp_path / "calls.jsonl"

    def call(ident: int, text: str) -> dict[str, Any]:
        params = {"name": "echo", "arguments": {"text": text}}
        return {"jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": params}

    with _raw_session(home, tmp_path) as session:
        http, url, headers = session.http, session.url, session.headers
        with http.stream("POST", url, json=call(7, "wait"), headers=headers) as stream:
            _wait_for(lambda: (slow / "gating").exists())
            assert (slow / "gating").exists(), "the gate never started"
            session.cancel(7)
            ended = _sse_messages(stream.iter_lines())
        (slow / "release").write_text("")
        settled = noted(slow, 2)  # post_tool_call of 7 before the next call
        answered = _sse_messages(
            http.post(url, json=call(8, "after"), headers=headers).text.splitlines()
        )
    assert ended == [
        {"jsonrpc": "2.0", "id": 7, "error": {"code": -32800, "message": "Request cancelled"}}
    ]
    assert settled == [
        *cancelled("7", {"text": "wait"}, "before it reached the upstream"),
    ]
    assert [m["id"] for m in answered] == [8]
    assert [block["text"] for block in answered[0]["result"]["content"]] == ["echo: after"]
    assert upstream_calls(calls) == [{"tool": "echo", "arguments": {"text": "after"}}]


def test_a_request_gets_one_answer_however_the_cancellation_and_the_upstream_race() -> None:
    from mcp.shared.message import SessionMessage
    from mcp_types.jsonrpc import jsonrpc_message_adapter

    from hermes_hooks.integrations.mcp.listen import _HttpEnd

    def incoming(line: str) -> SessionMessage:
        return SessionMessage(jsonrpc_message_adapter.validate_json(line))

    async def main() -> list[dict[str, Any]]:
        to_proxy, read = anyio.create_memory_object_stream[Any](10)
        write, from_proxy = anyio.create_memory_object_stream[Any](10)
        end = _HttpEnd(read, write)
        pump = asyncio.ensure_future(end.pump())
        for line in (
            '{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "a"}}',
            '{"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "b"}}',
            '{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}',
            '{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}}',
        ):
            await to_proxy.send(incoming(line))
            await end.receive()  # what the relay would forward upstream
        # The upstream answers both anyway: 7 was answered already, 8 was not.
        end.send(b'{"jsonrpc": "2.0", "id": 7, "result": {"content": []}}\n')
        end.send(b'{"jsonrpc": "2.0", "id": 8, "result": {"content": []}}\n')
        end.send(b'{"jsonrpc": "2.0", "id": 8, "result": {"content": []}}\n')
        sent = []
        with anyio.fail_after(10):
            for _ in range(2):
                message = await from_proxy.receive()
                sent.append(message.message.model_dump(by_alias=True, exclude_unset=True))
        await asyncio.sleep(0.05)  # anything more would be queued by now
        pump.cancel()
        assert from_proxy.statistics().current_buffer_used == 0
        for stream in (to_proxy, read, write, from_proxy):
            stream.close()
        return sent

    assert asyncio.run(main()) == [
        {"jsonrpc": "2.0", "id": 7, "error": {"code": -32800, "message": "Request cancelled"}},
        {"jsonrpc": "2.0", "id": 8, "result": {"content": []}},
    ]
