"""The guarding MCP proxy: a message relay between one client and one upstream server.

Design (measured by ``python -m bench mcp``): the proxy relays JSON-RPC lines and
decodes every line with the SDK's own message types
(:data:`mcp_types.jsonrpc.jsonrpc_message_adapter`), instead of running an SDK server
session in front of an SDK client session.  The lines come from a front end's
:class:`ClientEnd`: plain asyncio streams over stdio (:mod:`.stdio`), the SDK's
server-side streamable HTTP transport per session (:mod:`.listen`); every hook, pin and
filter decision is made here, once, for both.  Only ``tools/call`` and ``tools/list`` are
acted on (a ``tools/call`` goes on re-encoded from what the hooks judged, not as the
client's bytes); every other message (resources, prompts, notifications, progress,
cancellation, sampling and elicitation requests from the upstream, and the answers to
them) is forwarded as the very bytes that arrived, ids untouched, in both directions.
A session-level proxy would have to re-implement each of those methods and would hand
every line to a worker thread, which costs more than the hooks do.

Faults: the upstream exiting, or a line from it that is not JSON-RPC, is logged once
and every call waiting on it gets a JSON-RPC error; afterwards the proxy still answers
``tools/list`` (from the last listing it saw) and ``ping``, and answers anything else
with an error naming the exit: it restarts nothing behind the client's back.  The
client closing its end fires ``on_session_end`` and ends the upstream's process group.
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import json
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import anyio
from mcp_types.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    PARSE_ERROR,
    REQUEST_TIMEOUT,
    JSONRPCError,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
    jsonrpc_message_adapter,
)
from pydantic import ValidationError

from hermes_hooks._log import get_logger, warn_once
from hermes_hooks.integrations.mcp import calls
from hermes_hooks.integrations.mcp.inflight import Cancelled, InFlight
from hermes_hooks.integrations.mcp.naming import hook_tool_name
from hermes_hooks.integrations.mcp.pins import ToolPins, Verdict
from hermes_hooks.integrations.mcp.recorder import Recorder
from hermes_hooks.integrations.mcp.results import block_result, replace_result, result_text
from hermes_hooks.integrations.mcp.upstreams import LINE_LIMIT, Upstream

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks

__all__ = ["UPSTREAM_GONE", "ClientEnd", "Options", "Proxy"]

log = get_logger("hermes_hooks.mcp")

_T = TypeVar("_T")
#: The JSON-RPC error code of a call the upstream can no longer answer.
UPSTREAM_GONE = INTERNAL_ERROR
#: The ``_meta`` key that stateless protocol versions put on every request.
_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
_GARBLED = "the upstream server answered with a line that is not JSON-RPC"


@dataclass(slots=True)
class Options:
    """How one proxy runs (the ``mcp-proxy`` command line)."""

    server: str
    accept: bool = False  # --accept-hooks: pin every definition seen in this run
    approve: str = "deny"  # the approval policy: "deny" (fail closed) or "allow"
    allow: tuple[str, ...] = ()  # tool patterns listed and callable (empty: all)
    deny: tuple[str, ...] = ()  # tool patterns hidden and refused
    call_timeout: float = 0.0  # seconds per tools/call; 0: wait as long as the client
    record: Path | None = None  # write the session as a recording for ``replay``


class _UpstreamGone(Exception):
    """The upstream cannot answer a request (any more); ``code`` for the client."""

    def __init__(self, message: str, code: int = INTERNAL_ERROR) -> None:
        super().__init__(message)
        self.code = code


@dataclass(slots=True)
class _Session:
    session_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    started: bool = False


def _dump(message: dict[str, Any]) -> bytes:
    return (json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def _error(request_id: Any, code: int, message: str) -> bytes:
    return _dump({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})


def _result(request_id: Any, result: dict[str, Any]) -> bytes:
    return _dump({"jsonrpc": "2.0", "id": request_id, "result": result})


class ClientEnd(Protocol):
    """The client's side of one session, as JSON-RPC lines (what a front end gives the
    relay: :mod:`.stdio` over this process's pipes, :mod:`.listen` over HTTP)."""

    async def receive(self) -> bytes:
        """The client's next line; ``b""`` once the client has gone.  Raises
        ``ValueError`` for a line over :data:`LINE_LIMIT`."""

    def send(self, data: bytes) -> None:
        """Queue one line for the client without waiting (dropped once it has gone)."""


class Proxy:
    """One client session relayed to one upstream server, with the hooks of ``hooks``.

    The one core both front ends share: every hook, pin and filter decision is made
    here, on lines, whatever carries them to the client."""

    def __init__(
        self,
        hooks: Hooks,
        options: Options,
        pins: ToolPins,
        upstream: Upstream,
        session_id: str | None = None,
    ) -> None:
        self.hooks = hooks
        self.upstream = upstream
        self.options = options
        self.pins = pins
        self._session = _Session(session_id) if session_id else _Session()
        self._in_flight = InFlight()
        self._verdicts: dict[str, Verdict | None] = {}  # None: allowed
        self._last_listing: dict[str, Any] | None = None
        self._own_ids = 0
        self._gone: str | None = None  # why the upstream cannot answer, once it cannot
        self._tasks: set[asyncio.Task[Any]] = set()
        self._client: ClientEnd | None = None
        self._recorder: Recorder | None = None
        self._closing = False  # the client has gone: the upstream's exit is expected

    # -- running ---------------------------------------------------------------------

    async def serve(self, client: ClientEnd) -> int:
        """Start the upstream, then :meth:`relay` until the client's end closes; 0."""
        await self.start()
        return await self.relay(client)

    async def start(self) -> None:
        """Start (connect to) the upstream; raises ``OSError`` when it cannot."""
        await self.upstream.start()

    async def relay(self, client: ClientEnd) -> int:
        """Relay until the client's end closes, then end the upstream and the session;
        return 0.  The ending runs shielded: a front end cancelling the session (an
        idle HTTP session, the server shutting down) still ends the upstream's process
        group and fires ``on_session_end``."""
        self._client = client
        from_upstream = asyncio.create_task(self._from_upstream())
        try:
            await self._from_client(client)
        finally:
            with anyio.CancelScope(shield=True):
                self._closing = True
                await self.upstream.stop()
                await self._end_session()
                from_upstream.cancel()
                for task in list(self._tasks):
                    task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await from_upstream
        return 0

    async def _from_client(self, client: ClientEnd) -> None:
        while True:
            try:
                line = await client.receive()
            except ValueError:  # longer than LINE_LIMIT: unrecoverable framing
                log.error("a message from the client exceeds %d bytes; closing", LINE_LIMIT)
                return
            if not line:
                return
            if line.strip():
                await self._client_line(line)

    async def _client_line(self, line: bytes) -> None:
        try:
            message = jsonrpc_message_adapter.validate_json(line)
        except ValidationError as exc:
            code = PARSE_ERROR if "json_invalid" in str(exc) else INVALID_REQUEST
            warn_once(log, ("client-garbage",), "the client sent a line that is not JSON-RPC")
            self._send(_error(None, code, "not a JSON-RPC message"))
            return
        if not self._session.started:
            await self._start_session()
        if isinstance(message, JSONRPCRequest):
            self._in_flight.reused(message.id)
            if message.method == "tools/call":
                self._spawn(self._tool_call(message))
                return
            if self._gone is not None:
                self._answer_locally(message)
                return
            if message.method == "tools/list":
                self._spawn(self._tool_list(message, line))
                return
        elif isinstance(message, JSONRPCNotification) and message.method == "tools/call":
            # Without an id it could not be answered, so it could not be gated either:
            # relayed, a server that runs it anyway would run a tool no hook saw.
            warn_once(
                log,
                ("client-call-notification",),
                "the client sent tools/call without an id (as a notification); dropped: "
                "a tool call goes through the hooks only as a request with an id",
            )
            return
        elif (
            isinstance(message, JSONRPCNotification)
            and message.method == "notifications/cancelled"
            and self._in_flight.cancel((message.params or {}).get("requestId"))
        ):
            return  # the upstream never saw that request
        elif self._gone is not None:
            return  # notifications and answers have nowhere to go
        await self._to_upstream(line)

    async def _from_upstream(self) -> None:
        while True:
            try:
                line = await self.upstream.receive()
            except ValueError:
                self._lost(f"the upstream sent a message over {LINE_LIMIT} bytes")
                return
            if not line:
                self._lost(self.upstream.ended())
                return
            if not line.strip():
                continue
            try:
                message = jsonrpc_message_adapter.validate_json(line)
            except ValidationError:
                self._garbage(line)
                continue
            answer = isinstance(message, JSONRPCResponse | JSONRPCError)
            if answer and self._in_flight.answered(message.id, (message, line)):
                continue  # waited for, or given up on: never relayed as it is
            self._send(line)

    # -- tools -----------------------------------------------------------------------

    async def _tool_list(self, request: JSONRPCRequest, line: bytes) -> None:
        try:
            answer, _ = await self._request_upstream(request, line)
        except _UpstreamGone as exc:
            self._answer_locally(request, str(exc))
            return
        if isinstance(answer, JSONRPCError):
            self._send(_dump(answer.model_dump(mode="json", exclude_unset=True)))
            return
        listing = self._screen(answer.result)
        if not (request.params or {}).get("cursor"):  # the first page, as served later
            self._last_listing = listing
        self._send(_result(request.id, listing))

    def _screen(self, listing: dict[str, Any]) -> dict[str, Any]:
        """``listing`` without the tools that are filtered out or not approved; pins
        what ``--accept-hooks`` accepts, records what waits for approval."""
        tools = [t for t in listing.get("tools") or [] if isinstance(t, dict)]
        self._judge({t["name"]: t for t in tools if isinstance(t.get("name"), str)})
        shown = [t for t in tools if self._verdicts.get(str(t.get("name"))) is None]
        if len(shown) == len(listing.get("tools") or []):
            return listing
        return {**listing, "tools": shown}

    def _judge(self, tools: dict[str, dict[str, Any]]) -> None:
        """Set the refusal of each tool (a :class:`Verdict`; None: allowed), write the
        definitions that are not approved to the pins, and say why each is refused."""
        verdicts = {
            name: self.pins.check(hook_tool_name(self.options.server, name), definition)
            for name, definition in tools.items()
        }
        unapproved = {v.tool: tools[n] for n, v in verdicts.items() if not v.allowed}
        if unapproved:
            try:
                self.pins.record(unapproved, approve=self.options.accept)
            except OSError as exc:
                log.error("cannot write %s: %s; its tools stay refused", self.pins.path, exc)
            else:
                if self.options.accept:
                    for verdict in verdicts.values():
                        if verdict.state == "changed":
                            log.warning("%s; accepted by --accept-hooks", verdict.message())
                    verdicts = {n: Verdict(v.tool, "approved") for n, v in verdicts.items()}
        for name, verdict in verdicts.items():
            refusal: Verdict | None = None
            if not verdict.allowed:
                # A changed definition is the attack this guards against: an ERROR.
                level = logging.ERROR if verdict.state == "changed" else logging.WARNING
                warn_once(
                    log, ("refused", verdict.tool, verdict.state), verdict.message(), level=level
                )
                refusal = verdict
            elif not self._filtered_in(name, verdict.tool):
                refusal = Verdict(verdict.tool, "filtered")
            self._verdicts[name] = refusal

    def _filtered_in(self, name: str, hooked: str) -> bool:
        """True when the allow/deny lists let the tool through (patterns match either
        the upstream name or the ``mcp__`` name)."""

        def match(patterns: tuple[str, ...]) -> bool:
            return any(fnmatch.fnmatchcase(n, p) for p in patterns for n in (name, hooked))

        if self.options.allow and not match(self.options.allow):
            return False
        return not match(self.options.deny)

    async def _refusal(self, name: str, meta: dict[str, Any] | None) -> str | None:
        """Why ``name`` may not be called, or None; lists the upstream's tools first
        when the proxy has not seen the tool yet (a client may call from its cache)."""
        tool = hook_tool_name(self.options.server, name)
        if name not in self._verdicts:
            failed = await self._list_upstream(meta)
            if failed is not None:  # its definition cannot be checked: fail closed
                return f"tool {tool} is refused: the upstream did not list its tools ({failed})"
        if name not in self._verdicts:
            return f"tool {tool} is not offered by the upstream"
        verdict = self._verdicts[name]
        if verdict is None:
            return None
        if verdict.state == "filtered":
            return f"tool {verdict.tool} is not allowed through this proxy"
        return verdict.message()

    async def _list_upstream(self, meta: dict[str, Any] | None) -> str | None:
        """List the upstream's tools (every page) and judge them; the upstream's error
        message when it would not list them."""
        cursor: str | None = None
        while True:
            params: dict[str, Any] = {"_meta": meta} if meta else {}
            if cursor:
                params["cursor"] = cursor
            self._own_ids += 1
            request = JSONRPCRequest(
                jsonrpc="2.0",
                id=f"hermes-hooks-{self._own_ids}",
                method="tools/list",
                params=params,
            )
            answer, _ = await self._request_upstream(request, None)
            if isinstance(answer, JSONRPCError):
                return str(answer.error.message)
            listing = self._screen(answer.result)
            if not cursor and self._last_listing is None:
                # Kept as the client's own listing would be: served if the upstream dies.
                self._last_listing = listing
            cursor = answer.result.get("nextCursor")
            if not cursor:
                return None

    async def _tool_call(self, request: JSONRPCRequest) -> None:
        try:
            await self._guarded_call(request)
        except Exception as exc:  # the client must get an answer whatever failed here
            log.error("the proxy failed on tools/call %r: %r", request.id, exc)
            self._send(_error(request.id, INTERNAL_ERROR, f"the proxy failed: {exc}"))

    async def _guarded_call(self, request: JSONRPCRequest) -> None:
        self._in_flight.call_started(request.id)
        try:
            await self._judged_call(request)
        finally:
            self._in_flight.call_ended(request.id)

    async def _judged_call(self, request: JSONRPCRequest) -> None:
        """The call through its hooks, then to the upstream unless they stopped it (or
        the client cancelled it meanwhile), then its answer through the hooks."""
        params = request.params or {}
        name = params.get("name")
        if not isinstance(name, str):
            self._send(_error(request.id, INVALID_REQUEST, "tools/call needs a tool name"))
            return
        args = asked = params.get("arguments") or {}
        meta = params.get("_meta")
        modern = isinstance(meta, dict) and _VERSION_KEY in meta
        tool = hook_tool_name(self.options.server, name)
        ids = calls.CallIds(self._session.session_id, str(request.id))
        try:
            refusal = await self._refusal(name, meta if isinstance(meta, dict) else None)
        except _UpstreamGone as exc:
            self._send(_error(request.id, UPSTREAM_GONE, str(exc)))
            return
        if refusal is not None:
            self._send(_result(request.id, block_result(refusal, modern)))
            return
        decision = await self._fire(
            "pre_tool_call", lambda: calls.before(self.hooks, tool, args, ids)
        )
        args = decision.args
        blocked = (decision.message or "") if decision.action == "block" else None
        if decision.action == "approve":
            blocked = await asyncio.to_thread(
                calls.approval, self.hooks, tool, args, decision, ids, self.options.approve
            )
        if blocked is not None:
            message = blocked or f"{tool} was blocked by a hook"
            outcome = calls.Outcome(message, "blocked", 0, "plugin_block", message)
            await self._fire(
                "post_tool_call", lambda: calls.after(self.hooks, tool, args, ids, outcome)
            )
            self._send(_result(request.id, block_result(message, modern)))
            self._record(ids, tool, asked, message, "ok", 0, blocked=True)
            return
        if self._in_flight.cancelled_in_hooks(request.id):
            # The client gave up while the hooks ran: the tool must not run after all.
            log.info(
                "tools/call %r, cancelled by the client in its hooks, is not sent on", request.id
            )
            await self._cancelled_call(
                ids,
                tool,
                args,
                asked,
                "the client cancelled the call before it reached the upstream",
            )
            return
        if decision.modified:
            request = request.model_copy(update={"params": {**params, "arguments": args}})
        started = time.perf_counter()
        self._in_flight.sent_on(request.id)
        try:
            # Sent as the proxy read it, never as the client's own bytes: a line that
            # two JSON readers take differently (a key written twice) could otherwise
            # be judged as one tool, or one set of arguments, and run as another.
            answer, raw = await self._request_upstream(request, None, self.options.call_timeout)
        except _UpstreamGone as exc:
            self._send(_error(request.id, exc.code, str(exc)))
            return
        except Cancelled:
            message = "the client cancelled the call while the upstream ran it"
            await self._cancelled_call(ids, tool, args, asked, message)
            return
        duration = int((time.perf_counter() - started) * 1000)
        if isinstance(answer, JSONRPCError):
            outcome = calls.Outcome(
                answer.error.message, "error", duration, "tool_error", answer.error.message
            )
            await self._fire(
                "post_tool_call", lambda: calls.after(self.hooks, tool, args, ids, outcome)
            )
            self._send(raw)
            self._record(ids, tool, asked, answer.error.message, "error", duration)
            return
        result = answer.result
        if result.get("resultType") == "input_required":
            # Not the tool's result yet: the client answers the embedded requests and
            # calls again (and pre_tool_call fires again on that call).
            self._send(raw)
            return
        error = bool(result.get("isError"))
        text = result_text(result)
        outcome = calls.Outcome(
            text,
            "error" if error else "ok",
            duration,
            "tool_error" if error else None,
            text if error else None,
        )
        self._record(ids, tool, asked, text, outcome.status, duration)
        replaced = await self._fire(
            "post_tool_call",
            lambda: calls.after(self.hooks, tool, args, ids, outcome),
            "transform_tool_result",
        )
        if replaced is None:
            self._send(raw)  # the upstream's own bytes: nothing to re-encode
        else:
            self._send(_result(request.id, replace_result(result, replaced)))

    async def _cancelled_call(
        self, ids: calls.CallIds, tool: str, args: dict[str, Any], asked: Any, message: str
    ) -> None:
        """A call the client cancelled: nothing goes back (a cancelled request gets no
        answer over stdio, and the HTTP end has answered it), and ``post_tool_call``
        still pairs the ``pre_tool_call`` it had."""
        outcome = calls.Outcome(message, "error", 0, calls.CANCELLED, message)
        await self._fire(
            "post_tool_call", lambda: calls.after(self.hooks, tool, args, ids, outcome)
        )
        self._record(ids, tool, asked, message, "error", 0)

    def _record(
        self,
        ids: calls.CallIds,
        tool: str,
        args: dict[str, Any],
        content: str,
        status: str,
        duration_ms: int,
        *,
        blocked: bool = False,
    ) -> None:
        if self._recorder is not None:
            call_id = f"mcp-{ids.tool_call_id}"
            self._recorder.call(
                call_id,
                tool,
                args,
                content,
                status=status,
                duration_ms=duration_ms,
                blocked=blocked,
            )

    # -- the upstream ----------------------------------------------------------------

    async def _request_upstream(
        self, request: JSONRPCRequest, line: bytes | None, timeout: float = 0.0
    ) -> tuple[JSONRPCResponse | JSONRPCError, bytes]:
        """Send ``request`` (as ``line`` when given) and wait for its answer (decoded,
        and the line it came as, to forward untouched when nothing changes it)."""
        if self._gone is not None:
            raise _UpstreamGone(self._gone)
        waiter = self._in_flight.wait(request.id)
        if line is None:
            line = _dump(request.model_dump(mode="json", exclude_unset=True))
        await self._to_upstream(line)
        try:
            if timeout > 0:
                return await asyncio.wait_for(asyncio.shield(waiter), timeout)
            return await waiter
        except asyncio.TimeoutError:
            self._in_flight.give_up(request.id)  # an answer after the error is dropped
            log.error(
                "upstream %s did not answer %s within %s s; the client gets an error",
                self.options.server,
                request.method,
                timeout,
            )
            cancel = {
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": request.id},
            }
            await self._to_upstream(_dump(cancel))
            message = f"the upstream server did not answer within {timeout} s"
            raise _UpstreamGone(message, REQUEST_TIMEOUT) from None

    async def _to_upstream(self, line: bytes) -> None:
        if self._gone is None:
            await self.upstream.send(line)

    def _garbage(self, line: bytes) -> None:
        """A line from the upstream that is no JSON-RPC message: it cannot be matched to
        a request, so every call waiting on the upstream gets an error (the client
        would otherwise wait for an answer that came garbled); later lines relay as
        before."""
        warn_once(
            log,
            ("upstream-garbage", self.options.server),
            "upstream %s wrote a line that is not JSON-RPC: %r; the waiting calls get an error",
            self.options.server,
            line[:200],
            level=logging.ERROR,
        )
        self._in_flight.fail_all(lambda: _UpstreamGone(_GARBLED))

    def _lost(self, why: str) -> None:
        """The upstream can answer nothing more: say so once, fail what waits."""
        if self._gone is not None:
            return
        self._gone = why
        if self._closing:
            return
        log.error(
            "%s: %s; calls get an error, tools/list answers from the last listing",
            self.options.server,
            why,
        )
        self._in_flight.fail_all(lambda: _UpstreamGone(why))

    def _answer_locally(self, request: JSONRPCRequest, why: str | None = None) -> None:
        """Answer a request the upstream cannot: the last listing, a ping, or an error."""
        if request.method == "tools/list" and self._last_listing is not None:
            self._send(_result(request.id, self._last_listing))
        elif request.method == "ping":
            self._send(_result(request.id, {}))
        else:
            self._send(
                _error(request.id, UPSTREAM_GONE, why or self._gone or "the upstream is gone")
            )

    # -- the session and the hooks ---------------------------------------------------

    async def _start_session(self) -> None:
        self._session.started = True
        session_id = self._session.session_id
        if self.options.record is not None:
            try:
                self._recorder = Recorder(self.options.record, session_id, self.options.server)
            except OSError as exc:
                log.error("cannot record to %s: %s; not recording", self.options.record, exc)
        await self._fire(
            "on_session_start",
            lambda: self.hooks.on_session_start(session_id=session_id, model="", platform="mcp"),
        )

    async def _end_session(self) -> None:
        if not self._session.started:
            return
        if self._recorder is not None:
            self._recorder.close()
        session_id = self._session.session_id
        failed = self._gone is not None
        await self._fire(
            "on_session_end",
            lambda: self.hooks.on_session_end(
                session_id=session_id,
                task_id=session_id,
                turn_id="",
                completed=not failed,
                failed=failed,
                interrupted=False,
                turn_exit_reason="mcp_client_disconnected",
                model="",
                platform="mcp",
            ),
        )

    async def _fire(self, hook: str, call: Callable[[], _T], *more: str) -> _T:
        """Run ``call`` (which fires ``hook`` and ``more``) in a worker thread when any
        of them has callbacks, inline otherwise (it then only builds the default)."""
        if any(self.hooks.has_callbacks(name) for name in (hook, *more)):
            return await asyncio.to_thread(call)
        return call()

    # -- plumbing --------------------------------------------------------------------

    def _send(self, data: bytes) -> None:
        if self._client is not None:
            self._client.send(data)

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("the proxy failed on a request: %r", task.exception())


def line_of(message: JSONRPCError | JSONRPCResponse | JSONRPCNotification) -> bytes:
    """``message`` as one line of the stdio transport."""
    return _dump(message.model_dump(mode="json", exclude_unset=True))
