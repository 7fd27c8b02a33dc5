"""``hermes-hooks listen``: a local receiver that verifies and prints each delivery.

For people debugging their ``hooks.outbound`` config: point a target's ``url`` at
``http://127.0.0.1:<port>/`` and watch what Hermes sends.  The first output line is
``listening on http://<host>:<port>/ ...`` (with ``--port 0`` the system picks the
port).  With ``--secret-env VAR`` every delivery is verified with
:func:`hermes_hooks.webhooks.verify` (signature, 5-minute timestamp tolerance,
duplicate ids) and answered 401 when it fails; without it signatures are not checked.
``--count N`` exits after N requests.  It binds 127.0.0.1 unless ``--host`` says
otherwise.

Exit codes: 0 served until interrupted or ``--count`` was reached; 1 the address
cannot be bound (the port is in use, the host is not an address of this machine, no
permission); 2 bad usage (a port outside 0-65535, ``--secret-env`` names an unset
variable).  Each problem is one line on stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from hermes_hooks._escape import escape, escape_json
from hermes_hooks.cli import EXIT_FAILURE, EXIT_USAGE
from hermes_hooks.cli._codes import EXIT_INTERRUPTED
from hermes_hooks.webhooks import Deduplicator, VerificationError, verify

_MAX_BODY = 10 * 1024 * 1024

EPILOG = (
    "Exit codes: 0 served until interrupted or --count was reached; 1 the address cannot "
    "be bound (port in use, not an address of this machine); 2 bad usage (a port outside "
    "0-65535, --secret-env names an unset variable)."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``listen [--host H] [--port P] [--secret-env VAR] [--count N]``."""
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8765, help="port (0 = any free port)")
    parser.add_argument("--secret-env", help="environment variable holding the secret(s)")
    parser.add_argument(
        "--tolerance",
        type=float,
        default=300.0,
        help="seconds a delivery's timestamp may be off (default 300; 0 = not checked)",
    )
    parser.add_argument("--count", type=int, default=0, help="exit after N requests")


class _Receiver:
    """State shared by the request handlers: verification settings and output."""

    def __init__(self, args: argparse.Namespace, secrets: list[str] | None) -> None:

        self.args = args
        self.secrets = secrets
        self.dedupe = Deduplicator()
        self.lock = threading.Lock()
        self.handled = 0
        self.done = threading.Event()

    def check(self, body: bytes, headers: Any) -> tuple[int, dict[str, Any]]:
        """The status to answer and the record to print for one request."""

        record: dict[str, Any] = {
            "event": headers.get("X-Hermes-Event"),
            "delivery_id": headers.get("X-Hermes-Delivery"),
        }
        if self.secrets is not None:
            tolerance = self.args.tolerance or None
            try:
                verified = verify(
                    body, headers, self.secrets, tolerance=tolerance, dedupe=self.dedupe
                )
            except VerificationError as exc:
                record.update(verified=False, error=str(exc))
                return 401, record
            record.update(verified=True, scheme=verified.scheme, duplicate=verified.duplicate)
        try:
            record["body"] = json.loads(body)
        except ValueError:
            record.update(body=body.decode("utf-8", errors="replace"), error="not JSON")
            return 400, record
        return 204, record

    def emit(self, record: dict[str, Any]) -> None:
        """Print one request (a block of text, or one JSON line with ``--json``)."""
        with self.lock:
            if self.args.json:
                print(escape_json(json.dumps(record, ensure_ascii=False)), flush=True)
            else:
                print(_text(record), flush=True)
            self.handled += 1
            if self.args.count and self.handled >= self.args.count:
                self.done.set()


def _text(record: dict[str, Any]) -> str:
    if record.get("verified") is False:
        mark, note = "✗", f"REJECTED: {record.get('error')}"
    elif record.get("verified"):
        mark, note = "✓", f"signature ok ({record.get('scheme')})"
    else:
        mark, note = "•", "signature not checked (no --secret-env)"
    if record.get("duplicate"):
        note += ", DUPLICATE delivery id (a retry): acknowledge, do not process again"
    head = escape(f"{mark} {record.get('event')}  {record.get('delivery_id')}  {note}")
    body = record.get("body")
    if body is None:
        return head
    if isinstance(body, str):  # not JSON: shown as sent, but no control redraws the screen
        return f"{head}\n{escape(body, keep_newlines=True)}"
    return f"{head}\n{escape_json(json.dumps(body, indent=2, ensure_ascii=False))}"


def _handler(receiver: _Receiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the delivery lanes use it

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if length > _MAX_BODY:
                self._answer(413)
                return
            body = self.rfile.read(length)
            status, record = receiver.check(body, self.headers)
            self._answer(status)
            receiver.emit(record)

        def _answer(self, status: int) -> None:
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            return  # the receiver prints its own lines

    return Handler


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted (or ``--count`` requests were handled)."""

    if not 0 <= args.port <= 65535:
        print(
            f"hermes-hooks listen: --port {args.port} is not a port; use 1-65535, or 0 "
            "for any free port",
            file=sys.stderr,
        )
        return EXIT_USAGE
    secrets: list[str] | None = None
    if args.secret_env:
        value = os.environ.get(args.secret_env, "")
        if not value.strip():
            print(
                f"hermes-hooks listen: environment variable {args.secret_env} is not set",
                file=sys.stderr,
            )
            return EXIT_USAGE
        secrets = [value, *value.split()] if " " in value.strip() else [value]
    receiver = _Receiver(args, secrets)
    try:
        server = ThreadingHTTPServer((args.host, args.port), _handler(receiver))
    except OSError as exc:  # in use, not an address here, no permission, unknown host
        reason = exc.strerror or str(exc)
        print(
            f"hermes-hooks listen: cannot listen on {args.host}:{args.port}: {reason}; "
            "choose another --port (0 picks a free one) or --host",
            file=sys.stderr,
        )
        return EXIT_FAILURE
    server.daemon_threads = True
    host, port = args.host, server.server_address[1]
    checking = f"verifying with ${args.secret_env}" if secrets else "signatures not checked"
    print(f"listening on http://{host}:{port}/ ({checking})", flush=True)
    thread = threading.Thread(target=server.serve_forever, name="hermes-listen", daemon=True)
    thread.start()
    try:
        while not receiver.done.wait(0.5):
            pass
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED  # the convention for a command stopped with Ctrl-C
    finally:
        server.shutdown()
        server.server_close()
    return 0
