"""``type: prompt`` and ``type: agent`` handlers, answered by the host's model.

Claude Code sends a prompt handler's text (``$ARGUMENTS`` replaced by the hook's JSON
input, or the input appended when the text has no placeholder) to a model and reads a
yes/no answer: ``{"ok": true}`` lets the action go on, ``{"ok": false, "reason": ...}``
blocks it where the event can block.  An agent handler is the same with a model that
may use tools.  hermes-hooks has no model of its own: the host supplies one
(:class:`HostModel`, the ``hook_model`` of the
:class:`~hermes_hooks.plugins.context.HostCapabilities` passed to ``load(host=...)``).
Without one such entries are refused when loaded, naming the entry.

The answer becomes the stdout a command hook would have printed
(:func:`model_result`), so it is read by the same rules, ``fail_closed`` included.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

# The protocol lives beside the capabilities that carry it; named here too, where the
# handlers that use it are.
from hermes_hooks._capabilities import HostModel

if TYPE_CHECKING:
    from hermes_hooks.shell.run import RunResult

__all__ = [
    "ANSWER_INSTRUCTION",
    "HostModel",
    "host_capabilities",
    "model_prompt",
    "model_result",
]

#: What the model is told about the answer it must give.
ANSWER_INSTRUCTION = (
    'Answer with one JSON object and nothing else: {"ok": true} to let it proceed, or '
    '{"ok": false, "reason": "<why>"} to stop it.'
)


def host_capabilities(
    host: Any,
) -> tuple[HostModel | None, Callable[[str], str | None] | None]:
    """(the host's model, its transcript lookup) from what the host lends:
    ``host.hook_model`` and ``host.transcript_path``."""
    llm = getattr(host, "hook_model", None)
    transcripts = getattr(host, "transcript_path", None)
    if llm is not None and not isinstance(llm, HostModel):
        shape = "complete(prompt, *, model, timeout, agent) -> str"
        raise TypeError(f"hook_model must have {shape}, got {type(llm).__name__}")
    return llm, transcripts if callable(transcripts) else None


def model_prompt(text: str, document: dict[str, Any]) -> str:
    """The prompt sent to the model for a handler whose text is ``text``."""
    arguments = json.dumps(document, ensure_ascii=False)
    body = (
        text.replace("$ARGUMENTS", arguments) if "$ARGUMENTS" in text else f"{text}\n\n{arguments}"
    )
    return f"{body}\n\n{ANSWER_INSTRUCTION}"


def _answer(reply: str) -> dict[str, Any] | None:
    """The JSON object in the model's reply (a fenced block or the first object)."""
    text = reply.strip()
    if text.startswith("```"):
        text = text.strip("`").removeprefix("json").strip()
    start = text.find("{")
    if start < 0:
        return None
    try:
        doc, _ = json.JSONDecoder().raw_decode(text[start:])
    except ValueError:
        return None
    return doc if isinstance(doc, dict) else None


def model_result(
    llm: HostModel,
    claude_event: str,
    prompt: str,
    *,
    model: str | None,
    timeout: float,
    agent: bool,
) -> RunResult:
    """Ask ``llm`` and turn its answer into the run of a command hook: ``ok: false``
    is a deny (PreToolUse) or ``decision: block`` (elsewhere) with the reason; an
    answer that is not ``{"ok": ...}`` (nor Claude Code's older ``decision``) is a
    failed run, so a ``fail_closed`` gate blocks."""
    # Deferred: host_capabilities, asked by every shell load, should not pull in the
    # subprocess runner.
    from hermes_hooks.shell.run import RunResult

    started = time.monotonic()
    try:
        reply = llm.complete(prompt, model=model, timeout=timeout, agent=agent)
    except Exception as exc:  # the host's model failed: no verdict
        return RunResult(error=f"the host's model failed ({type(exc).__name__}: {exc})")
    elapsed = time.monotonic() - started
    doc = _answer(reply) if isinstance(reply, str) else None
    ok = doc.get("ok") if doc is not None else None
    if doc is not None and ok is None and doc.get("decision") in ("approve", "block"):
        ok = doc["decision"] == "approve"  # the older answer shape
    if doc is None or not isinstance(ok, bool):
        shown = reply[:200] if isinstance(reply, str) else repr(reply)
        message = f'the model\'s answer is not {{"ok": true|false}}: {shown}'
        return RunResult(returncode=1, stderr=message.encode("utf-8"), elapsed=elapsed)
    if ok:
        return RunResult(returncode=0, elapsed=elapsed)
    reason = doc.get("reason") if isinstance(doc.get("reason"), str) else None
    if claude_event == "PreToolUse":
        answer: dict[str, Any] = {
            "hookSpecificOutput": {
                "hookEventName": claude_event,
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }
        }
    else:
        answer = {"decision": "block", "reason": reason}
    stdout = json.dumps(answer, ensure_ascii=False).encode("utf-8")
    return RunResult(returncode=0, stdout=stdout, elapsed=elapsed)
