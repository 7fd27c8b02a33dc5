"""A scripted OpenAI-compatible chat model on 127.0.0.1, for driving hermes-agent's own
loop: each request gets the next scripted reply (a tool call or a text), and every
request body is kept for the test to read."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["ScriptedModel", "text_reply", "tool_reply"]


def tool_reply(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """An assistant message asking for one tool call."""
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
        ],
    }


def text_reply(text: str) -> dict[str, Any]:
    """An assistant message with text only."""
    return {"role": "assistant", "content": text}


class ScriptedModel:
    """Serves ``replies`` in order on ``/v1/chat/completions`` (the last one repeats)."""

    def __init__(self, replies: list[dict[str, Any]]) -> None:
        self.replies = replies
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self.url = ""

    def _next(self, body: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self.requests.append(body)
            return self.replies[min(len(self.requests), len(self.replies)) - 1]

    @contextmanager
    def serving(self) -> Iterator[ScriptedModel]:
        """Run the server on a free port of 127.0.0.1 for the ``with`` block."""
        model = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                payload = json.dumps({"object": "list", "data": [{"id": "scripted"}]})
                self._send(200, "application/json", payload.encode())

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, "application/json", b'{"error": "not scripted"}')
                    return
                message = model._next(body)
                finish = "tool_calls" if message.get("tool_calls") else "stop"
                if body.get("stream"):
                    self._stream(message, finish)
                else:
                    self._send(
                        200, "application/json", json.dumps(_completion(message, finish)).encode()
                    )

            def _send(self, status: int, kind: str, data: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, message: dict[str, Any], finish: str) -> None:
                delta: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
                if message.get("tool_calls"):
                    delta["tool_calls"] = [
                        {"index": i, **call} for i, call in enumerate(message["tool_calls"])
                    ]
                chunks = [
                    _chunk({"choices": [{"index": 0, "delta": delta, "finish_reason": None}]}),
                    _chunk(
                        {
                            "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
                            "usage": _USAGE,
                        }
                    ),
                ]
                data = b"".join(f"data: {json.dumps(c)}\n\n".encode() for c in chunks)
                data += b"data: [DONE]\n\n"
                self._send(200, "text/event-stream", data)

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        self.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        try:
            yield self
        finally:
            server.shutdown()
            server.server_close()
            thread.join()


_USAGE = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}


def _chunk(extra: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "scripted",
        **extra,
    }


def _completion(message: dict[str, Any], finish: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": "scripted",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": _USAGE,
    }
