"""Serve the persistent shell hook protocol from a Python hook script.

Copy this file next to your hook script (``~/.hermes/agent-hooks/``) and write::

    #!/usr/bin/env python3
    from hermes_persistent import serve

    POLICY = load_the_expensive_policy()      # runs once, not once per firing

    def decide(event):
        if event["tool_name"] == "terminal" and "rm -rf /" in event["tool_input"]["command"]:
            return {"action": "block", "message": "rm -rf / is not allowed"}
        return None                           # no opinion

    serve(decide)

with ``persistent: true`` on its ``hooks:`` entry.  ``decide`` receives the JSON
document a per-firing hook reads on stdin and returns the answer a per-firing hook
would print (a dict), or None for no answer.

The same script also works without ``persistent: true``: a document without an ``id``
is answered once, without an ``id``, and the script exits.

What :func:`serve` does for you:

* reads one request line at a time and answers each with one line carrying its ``id``,
  flushed at once;
* sends anything ``decide`` prints to stderr, so a stray ``print`` cannot corrupt the
  answer stream;
* exits cleanly when the agent closes its stdin;
* if ``decide`` raises, prints the traceback to stderr and exits with status 1: the
  agent counts the firing as failed (a ``fail_closed`` gate blocks) and starts the
  script again on the next firing.

Only the standard library is used (Python 3.10+).
"""

from __future__ import annotations

import contextlib
import json
import sys
import traceback
from collections.abc import Callable
from typing import Any, BinaryIO

__all__ = ["serve"]

Handler = Callable[[dict[str, Any]], dict[str, Any] | None]


def _answer(out: BinaryIO, answer: dict[str, Any] | None, ident: Any) -> None:
    document: dict[str, Any] = {} if ident is None else {"id": ident}
    if answer:
        document.update((k, v) for k, v in answer.items() if k != "id")
    if ident is None and not answer:
        return  # a one-shot hook with nothing to say prints nothing
    out.write(json.dumps(document, ensure_ascii=False).encode("utf-8") + b"\n")
    out.flush()


def _call(decide: Handler, event: dict[str, Any]) -> dict[str, Any] | None:
    with contextlib.redirect_stdout(sys.stderr):
        answer = decide(event)
    if answer is not None and not isinstance(answer, dict):
        raise TypeError(f"the hook returned {type(answer).__name__}; return a dict or None")
    return answer


def serve(decide: Handler, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> int:
    """Answer firings with ``decide`` until stdin ends; return (and, when called with the
    process's own streams, exit with) the exit status."""
    own = stdin is None and stdout is None
    source = stdin if stdin is not None else sys.stdin.buffer
    out = stdout if stdout is not None else sys.stdout.buffer
    status = 0
    for raw in source:
        if not raw.strip():
            continue
        try:
            event = json.loads(raw)
            if not isinstance(event, dict):
                raise ValueError("the request is not a JSON object")
            ident = event.pop("id", None)
            answer = _call(decide, event)
        except Exception:
            traceback.print_exc(file=sys.stderr)
            status = 1
            break
        _answer(out, answer, ident)
        if ident is None:
            break  # started per firing: one document, one answer
    if own:
        sys.exit(status)
    return status
