"""The proxy when something goes wrong: the upstream crashing, hanging or answering
garbage, a client calling before it listed or sending garbage, and a config the proxy
cannot use.  Real processes on both sides, as in ``test_proxy.py``."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, MCPError
from mcp.client.stdio import stdio_client

from tests.helpers import write_plugin
from tests.integrations.mcp.helpers import (
    ALL_TOOLS,
    RAW_META,
    RAW_VERSION,
    SLOW_GATE,
    alive,
    cancelled,
    noted,
    proxied,
    proxy_params,
    raw_proxy,
    upstream_calls,
)


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
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert alive(pid) is False  # the proxy ended the upstream's process group


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


def test_a_call_before_any_listing_is_still_judged_and_client_garbage_gets_a_parse_error(
    home: Path, tmp_path: Path
) -> None:
    # A client may call from a cached listing: the proxy lists the upstream itself first.
    calls = tmp_path / "calls.jsonl"

    def call(ident: Any, name: str, envelope: dict[str, Any] = RAW_META) -> dict[str, Any]:
        request = {"name": name, "arguments": {"text": "x"}, "_meta": envelope}
        proxy.send({"id": ident, "method": "tools/call", "params": request})
        return proxy.read()

    with raw_proxy(home, calls, tmp_path / "proxy.log") as proxy:  # no --accept-hooks
        # The proxy's own listing carries the call's envelope: an incomplete one gets
        # the upstream's refusal to list, and the call is refused (fail closed).
        unlisted = call("b", "echo", RAW_VERSION)
        unapproved, missing = call("a", "echo"), call(7, "nope")
        garbage = proxy.ask(b"this is not json\n")
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
    assert proxy.returncode == 0
    assert upstream_calls(calls) == []


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
    with raw_proxy(home, calls, tmp_path / "proxy.log", "--accept-hooks") as proxy:
        proxy.send({"id": 1, "method": "tools/call", "params": {"name": "hang", "_meta": RAW_META}})
        deadline = time.monotonic() + 30
        while not upstream_calls(calls) and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(upstream_calls(calls)[0]["arguments"]["pid"], signal.SIGKILL)
        failed = proxy.read()
        proxy.send({"id": 2, "method": "tools/list", "params": {"_meta": RAW_META}})
        listed = proxy.read()
    assert failed["id"] == 1
    assert failed["error"]["message"] == "the upstream server exited (code -9)"
    assert listed["id"] == 2
    assert [tool["name"] for tool in listed["result"]["tools"]] == ALL_TOOLS


def test_a_call_the_client_cancels_while_its_hooks_run_never_reaches_the_upstream(
    home: Path, tmp_path: Path
) -> None:
    # The gate allows the call only after the client has given up on it: sending it on
    # then would run a tool nobody waits for (a delete the user pressed stop on).
    plugin = write_plugin(home / "plugins", "gate", SLOW_GATE)
    calls, errlog = tmp_path / "calls.jsonl", tmp_path / "proxy.log"

    def call(ident: int, text: str) -> None:
        params = {"name": "echo", "arguments": {"text": text}, "_meta": RAW_META}
        proxy.send({"id": ident, "method": "tools/call", "params": params})

    with raw_proxy(home, calls, errlog, "--accept-hooks") as proxy:
        call(7, "wait")
        deadline = time.monotonic() + 30
        while not (plugin / "gating").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert (plugin / "gating").exists(), "the gate never started"
        proxy.send({"method": "notifications/cancelled", "params": {"requestId": 7}})
        # The proxy reads the client's lines in order: the listing's answer shows that
        # it has taken the cancellation in before the gate lets the call go.
        proxy.send({"id": 8, "method": "tools/list", "params": {"_meta": RAW_META}})
        listed = proxy.read()
        (plugin / "release").write_text("")
        settled = noted(plugin, 2)  # post_tool_call of 7 before the next call
        call(9, "after")
        answered = proxy.read()  # no answer to 7 comes first: it gets none
        events = noted(plugin, 5)
    assert listed["id"] == 8
    assert [tool["name"] for tool in listed["result"]["tools"]] == ALL_TOOLS
    assert answered["id"] == 9
    assert answered["result"]["content"][0]["text"] == "echo: after"
    assert upstream_calls(calls) == [{"tool": "echo", "arguments": {"text": "after"}}]
    assert events[:2] == settled
    assert events == [
        *cancelled("7", {"text": "wait"}, "before it reached the upstream"),
        {"hook": "pre_tool_call", "id": "9", "args": {"text": "after"}},
        {
            "hook": "post_tool_call",
            "id": "9",
            "result": "echo: after",
            "status": "ok",
            "error_type": None,
        },
        {"hook": "transform_tool_result", "id": "9"},
    ]
    assert proxy.returncode == 0


LATE = Path(__file__).with_name("late_server.py")


def test_an_upstream_answering_a_call_the_client_cancelled_has_its_answer_dropped(
    home: Path, tmp_path: Path
) -> None:
    # Handed to the client, that late answer would pass a tool result around the hooks
    # that guard results (a transform that redacts it, say).
    plugin = write_plugin(home / "plugins", "gate", SLOW_GATE)
    calls = tmp_path / "calls.jsonl"
    with raw_proxy(home, calls, tmp_path / "proxy.log", "--accept-hooks", upstream=LATE) as proxy:
        params = {"name": "echo", "arguments": {"text": "secret"}, "_meta": RAW_META}
        proxy.send({"id": 7, "method": "tools/call", "params": params})
        deadline = time.monotonic() + 30
        while not upstream_calls(calls) and time.monotonic() < deadline:
            time.sleep(0.02)
        proxy.send({"method": "notifications/cancelled", "params": {"requestId": 7}})
        # The upstream answers 7 as it reads the cancellation, before it reads the ping.
        proxy.send({"id": 8, "method": "ping", "params": {"_meta": RAW_META}})
        pong = proxy.read()
        events = noted(plugin, 2)
    assert pong == {"jsonrpc": "2.0", "id": 8, "result": {}}
    assert upstream_calls(calls) == [{"tool": "echo", "arguments": {"text": "secret"}}]
    assert events == [
        *cancelled("7", {"text": "secret"}, "while the upstream ran it"),
    ]
    assert proxy.returncode == 0


def test_an_answer_after_the_call_timeout_is_dropped_not_relayed(
    home: Path, tmp_path: Path
) -> None:
    calls = tmp_path / "calls.jsonl"
    extra = ("--accept-hooks", "--call-timeout", "0.5")
    with raw_proxy(home, calls, tmp_path / "proxy.log", *extra, upstream=LATE) as proxy:
        params = {"name": "echo", "arguments": {"text": "secret"}, "_meta": RAW_META}
        proxy.send({"id": 7, "method": "tools/call", "params": params})
        timed_out = proxy.read()
        # The proxy told the upstream to stop, and the upstream answered 7 at that:
        # the next line the client gets is the ping's answer.
        proxy.send({"id": 8, "method": "ping", "params": {"_meta": RAW_META}})
        pong = proxy.read()
    assert timed_out == {
        "jsonrpc": "2.0",
        "id": 7,
        "error": {"code": -32001, "message": "the upstream server did not answer within 0.5 s"},
    }
    assert pong == {"jsonrpc": "2.0", "id": 8, "result": {}}
    assert upstream_calls(calls) == [{"tool": "echo", "arguments": {"text": "secret"}}]


def test_a_tools_call_sent_as_a_notification_is_dropped_not_relayed(
    home: Path, tmp_path: Path
) -> None:
    # Without an id no answer can go back, so no gate can stand in its way: a server
    # that ran such a line (this upstream does) would run a tool no hook saw.
    calls, errlog = tmp_path / "calls.jsonl", tmp_path / "proxy.log"
    with raw_proxy(home, calls, errlog, "--accept-hooks", upstream=LATE) as proxy:
        params = {"name": "echo", "arguments": {"text": "unseen"}, "_meta": RAW_META}
        proxy.send({"method": "tools/call", "params": params})
        # Lines reach the upstream in order: once the listing is answered, the upstream
        # has read everything sent before it.
        proxy.send({"id": 1, "method": "tools/list", "params": {"_meta": RAW_META}})
        listed = proxy.read()
    assert [tool["name"] for tool in listed["result"]["tools"]] == ["echo"]
    assert upstream_calls(calls) == []
    assert (
        "WARNING hermes_hooks.mcp: the client sent tools/call without an id (as a "
        "notification); dropped: a tool call goes through the hooks only as a request "
        "with an id"
    ) in errlog.read_text(encoding="utf-8").splitlines()


def test_a_call_goes_upstream_as_the_proxy_read_it_not_as_the_clients_bytes(
    home: Path, tmp_path: Path
) -> None:
    # The name written twice: the proxy (as Python) reads the last, echo, and lets it
    # through; an upstream reading the first would have run delete, which is denied.
    calls = tmp_path / "calls.jsonl"
    upstream = Path(__file__).with_name("first_key_server.py")
    extra = ("--accept-hooks", "--deny-tool", "delete")
    with raw_proxy(home, calls, tmp_path / "proxy.log", *extra, upstream=upstream) as proxy:
        meta = json.dumps(RAW_META)
        line = (
            '{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": '
            '"delete", "arguments": {"path": "/etc"}, "name": "echo", "_meta": ' + meta + "}}\n"
        )
        answered = proxy.ask(line.encode())
    assert answered["id"] == 7
    assert answered["result"]["content"] == [{"type": "text", "text": "ran echo"}]
    assert upstream_calls(calls) == [{"tool": "echo", "arguments": {"path": "/etc"}}]
