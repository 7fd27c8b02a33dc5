"""The ``command:<name>`` decision protocol.

``command:<canonical>`` is the one gateway emission the host awaits, because handlers
may intercept a slash command.  Each handler may return a dict whose ``decision``
(trimmed, lower-case) is:

``deny``      reply ``message``, or ``Command `/<cmd>` was blocked by a hook.``
``handled``   reply ``message``, or nothing; the command does not run
``rewrite``   re-dispatch ``/<command_name> <raw_args>`` (the host re-runs its access
              checks); a ``command_name`` holding whitespace, ``/`` or ``@`` is ignored
``allow``/""  no decision: look at the next result

Every handler runs; the first non-allow decision, in handler order (exact-name
subscribers, then wildcard ones, each by directory name), wins.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from hermes_hooks._log import get_logger

__all__ = ["CommandDecision", "canonical_command", "read_decision"]

log = get_logger("gateway.hooks")

Action = Literal["allow", "deny", "handled", "rewrite"]


@dataclass(frozen=True)
class CommandDecision:
    """What the host does with a slash command after its ``command:`` hooks ran.

    ``reply`` is the text to send back (deny, handled) or None; for ``rewrite``,
    :attr:`text` is the command line to dispatch instead.  ``hook`` names the deciding
    hook (None for allow).
    """

    action: Action = "allow"
    reply: str | None = None
    command_name: str | None = None
    raw_args: str = ""
    hook: str | None = None

    @property
    def allowed(self) -> bool:
        """True when the command runs as typed."""
        return self.action == "allow"

    @property
    def text(self) -> str | None:
        """``/<command_name> <raw_args>`` for a rewrite, else None."""
        if self.action != "rewrite" or self.command_name is None:
            return None
        return f"/{self.command_name} {self.raw_args}".strip()


def canonical_command(name: str) -> str:
    """A command name as the ``command`` key carries it: trimmed, no ``/``, lower-case."""
    return name.strip().lstrip("/").strip().lower()


def _reply(result: dict[str, Any]) -> str | None:
    message = result.get("message")
    return message if isinstance(message, str) and message else None


def read_decision(result: Any, raw_command: str, hook: str) -> CommandDecision | None:
    """The decision one handler's return value makes, or None for "no decision".

    ``raw_command`` fills the default deny reply; ``hook`` labels the decision and the
    warning about an unusable rewrite.
    """
    if not isinstance(result, dict):
        return None
    if "decision" not in result and "action" in result:
        # The plugin hooks' key: a hook that meant to deny lets the command run.
        log.error(
            "[hooks] %s: returned 'action' %r, which is not a command decision; ignored, "
            "so the command runs. Fix: return {'decision': 'deny', 'message': '...'} "
            "(or allow, handled, rewrite)",
            hook,
            result["action"],
        )
        return None
    decision = str(result.get("decision") or "").strip().lower()
    if not decision or decision == "allow":
        return None
    if decision == "deny":
        reply = _reply(result) or f"Command `/{raw_command}` was blocked by a hook."
        return CommandDecision("deny", reply, hook=hook)
    if decision == "handled":
        return CommandDecision("handled", _reply(result), hook=hook)
    if decision == "rewrite":
        raw_name = result.get("command_name")
        # One leading "/" is the command prefix users naturally write ("/help");
        # anything else that could smuggle arguments, paths or a bot address is refused.
        name = str(raw_name).strip() if isinstance(raw_name, str) else ""
        name = name[1:] if name.startswith("/") else name
        if not name or any(c.isspace() or c in "/@" for c in name):
            log.warning(
                "[hooks] %s: rewrite ignored — command_name %r must be one command name "
                "without whitespace, '/' or '@'",
                hook,
                raw_name,
            )
            return None
        raw_args = result.get("raw_args")
        args = raw_args.strip() if isinstance(raw_args, str) else ""
        return CommandDecision("rewrite", command_name=name, raw_args=args, hook=hook)
    # An ERROR: the hook meant to decide, and whatever it meant (a block, say) is lost.
    log.error(
        "[hooks] %s: unknown command decision %r ignored (use allow, deny, handled or rewrite)",
        hook,
        decision,
    )
    return None
