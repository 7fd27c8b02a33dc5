"""The handler options of a ``dialect: claude-code`` entry, as Claude Code reads them.

Besides ``command``, ``matcher``, ``timeout`` and ``fail_closed`` (every shell
hook's), a Claude Code entry may carry the fields of a Claude Code hook handler:

* ``type``: ``command`` (the default), ``prompt`` or ``agent``; the last two are
  answered by the host's model (``prompt`` holds the text, ``model`` the model);
* ``async: true``: run in the background; the hook never holds or decides the call;
* ``asyncRewake: true`` (or ``async_rewake``): as ``async``, and an exit code 2 wakes
  the agent: stderr (stdout when stderr is empty) reaches the session's next turn;
* ``if``: a permission rule (``Bash(git *)``) the call must match for the hook to run;
* ``plugin_root`` (and ``plugin_data``): the Claude Code plugin the hook came from;
  the hook gets ``CLAUDE_PLUGIN_ROOT`` (and ``CLAUDE_PLUGIN_DATA``) in its
  environment, as Claude Code gives a plugin's hooks;
* ``shell: bash``: the command runs through bash, as Claude Code runs it (a script
  without a ``#!`` line, shell syntax); see :mod:`.shells`;
* ``statusMessage``: Claude Code's spinner text; there is no spinner, it is accepted.

Any other key, and any option this dialect cannot honour, refuses the entry with a
warning naming the key (:class:`EntryRefused`): nothing is silently dropped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hermes_hooks.claude.rules import PermissionRule, parse_rule
from hermes_hooks.claude.shells import SHELL_KEY, shell_program
from hermes_hooks.shell.entry import EntryRefused

__all__ = [
    "ASYNC",
    "COMMAND",
    "ENTRY_KEYS",
    "MODEL_KINDS",
    "REWAKE",
    "HandlerOptions",
    "read_options",
]

COMMAND = "command"
#: Handler types answered by the host's model.
MODEL_KINDS = frozenset({"prompt", "agent"})
ASYNC = "async"
REWAKE = "rewake"
#: Every key a claude-code entry may hold.
ENTRY_KEYS = frozenset(
    {
        "command",
        "dialect",
        "matcher",
        "timeout",
        "fail_closed",
        "failClosed",
        "type",
        "prompt",
        "model",
        "async",
        "asyncRewake",
        "async_rewake",
        "if",
        "plugin_root",
        "plugin_data",
        "statusMessage",
        "status_message",
        SHELL_KEY,
    }
)
#: Keys of Claude Code handlers this dialect does not honour, and why.
_UNHONOURED = {
    "args": "write the arguments into 'command' (import-claude does this for you)",
    "once": "Claude Code honours it only in skill frontmatter; remove it",
    "url": "http handlers are not supported",
    "headers": "http handlers are not supported",
    "allowedEnvVars": "http handlers are not supported",
    "server": "mcp_tool handlers are not supported",
    "tool": "mcp_tool handlers are not supported",
    "input": "mcp_tool handlers are not supported",
}
_TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure"})
# Claude Code runs prompt and agent handlers on these events only (not SessionStart).
_NO_MODEL_EVENTS = frozenset({"SessionStart"})


@dataclass(frozen=True)
class HandlerOptions:
    """What a claude-code entry asks beyond running its command in line."""

    kind: str = COMMAND
    prompt: str | None = None
    model: str | None = None
    background: str | None = None  # None, ASYNC or REWAKE
    condition: PermissionRule | None = None
    plugin_root: str | None = None
    plugin_data: str | None = None
    #: The shell the command runs through (an absolute path), None: no shell.
    shell: str | None = None


def _flag(raw: Mapping[str, Any], *keys: str) -> bool:
    for key in keys:
        value = raw.get(key)
        if value is None:
            continue
        if not isinstance(value, bool):
            raise EntryRefused(f"{key} must be true or false, got {value!r}; skipped")
        if value:
            return True
    return False


def _text(raw: Mapping[str, Any], key: str) -> str | None:
    value = raw.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise EntryRefused(f"{key} must be a non-empty string, got {value!r}; skipped")
    return value.strip()


def read_options(claude_event: str, raw: Mapping[str, Any]) -> HandlerOptions:
    """The options of one claude-code entry of ``claude_event``; :class:`EntryRefused`
    (its message says which key and why) when it holds one this dialect cannot
    honour."""
    for key in raw:
        name = str(key)
        if name in _UNHONOURED:
            raise EntryRefused(f"'{name}' is not honoured here ({_UNHONOURED[name]}); skipped")
        if name not in ENTRY_KEYS:
            known = ", ".join(sorted(ENTRY_KEYS))
            raise EntryRefused(f"'{name}' is not a claude-code entry key (known: {known}); skipped")
    kind = raw.get("type", COMMAND)
    if kind not in (COMMAND, *sorted(MODEL_KINDS)):
        raise EntryRefused(f"type {kind!r} is not supported (command, prompt or agent); skipped")
    prompt, model = _text(raw, "prompt"), _text(raw, "model")
    if kind == COMMAND and (prompt is not None or model is not None):
        raise EntryRefused("'prompt' and 'model' belong to type: prompt or agent; skipped")
    if kind in MODEL_KINDS:
        if prompt is None:
            raise EntryRefused(f"type: {kind} needs a 'prompt'; skipped")
        if claude_event in _NO_MODEL_EVENTS:
            raise EntryRefused(f"Claude Code runs no {kind} handler on {claude_event}; skipped")
    rewake = _flag(raw, "asyncRewake", "async_rewake")
    background = REWAKE if rewake else (ASYNC if _flag(raw, "async") else None)
    if background is not None:
        if kind != COMMAND:
            raise EntryRefused("async applies to type: command only, as in Claude Code; skipped")
        if _flag(raw, "fail_closed", "failClosed"):
            raise EntryRefused(
                "fail_closed cannot apply to an async hook: it never decides the call; skipped"
            )
    condition = None
    if "if" in raw:
        if claude_event not in _TOOL_EVENTS:
            raise EntryRefused(
                f"if: is only evaluated on tool events; on {claude_event} Claude Code never "
                "runs such a hook; skipped"
            )
        try:
            condition = parse_rule(raw["if"])
        except ValueError as exc:
            raise EntryRefused(f"{exc}; skipped") from None
    shell = None
    if SHELL_KEY in raw:
        if kind != COMMAND:
            raise EntryRefused(f"shell applies to type: command only, not {kind}; skipped")
        shell = shell_program(raw[SHELL_KEY])
    return HandlerOptions(
        kind=str(kind),
        prompt=prompt,
        model=model,
        background=background,
        condition=condition,
        plugin_root=_text(raw, "plugin_root"),
        plugin_data=_text(raw, "plugin_data"),
        shell=shell,
    )
