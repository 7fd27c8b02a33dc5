"""Selection rules: how the results of one firing become one answer.

One :class:`Aggregator` subclass per :class:`~hermes_hooks._contract.Selection`.  The
dispatcher creates one per firing, reads the payload the next callback sees from
:attr:`Aggregator.current`, feeds it each callback's result or failure in callback
order, and finally asks for the :meth:`Aggregator.answer`.  Each ``add``/``fail``
returns the verdict and reason that go into the decision record.
"""

from __future__ import annotations

from typing import Any, ClassVar

from hermes_hooks._callback import Callback
from hermes_hooks._contract import Contract, Selection
from hermes_hooks._log import get_logger
from hermes_hooks.types import (
    FAILOVER_REASONS,
    DispatchDecision,
    ErrorClassification,
    ToolDecision,
    TranscriptionRequest,
    Verdict,
    VerifyDirective,
)

__all__ = [
    "AGGREGATORS",
    "ALLOW_WORDS",
    "Aggregator",
    "Failure",
    "Ignored",
]

log = get_logger("hermes_hooks.dispatch")

Outcome = tuple[Verdict, str | None]
_NONE: Outcome = ("none", None)

#: Action words that mean "go ahead" on a gate: ignored without a word, as any answer
#: that is not a directive is.
ALLOW_WORDS = frozenset({"", "allow", "continue", "proceed", "pass", "ok", "none", "noop"})


#: Keys of a returned dict that show it meant to stop or steer the call, in another
#: system's words (Claude Code's shell answers), when it has no ``action``.  An ``allow``
#: key is no such sign: letting the call through is what happens anyway.
_DECISION_KEYS = frozenset(
    {"decision", "permissionDecision", "hookSpecificOutput", "block", "deny"}
)


class Ignored(str):
    """The reason recorded for a directive-shaped answer that was ignored, so what the
    callback meant (to block, to rewrite the arguments) did not happen; ``fix`` says
    what it should return.  On a hook that fails closed the dispatcher logs it as an
    ERROR and records the run as an error (the answer stays ignored): a guard answering
    in a shape it does not know is a guard switched off."""

    fix: str

    def __new__(cls, reason: str, fix: str) -> Ignored:
        ignored = super().__new__(cls, reason)
        ignored.fix = fix
        return ignored


class Failure:
    """A callback that did not return: it raised, timed out, or was skipped."""

    __slots__ = ("kind", "message")

    def __init__(self, kind: Verdict, message: str) -> None:
        self.kind = kind  # "error", "timeout" or "skipped"
        self.message = message

    def __repr__(self) -> str:
        return f"Failure({self.kind!r}, {self.message!r})"


def directive_word(value: Any) -> str:
    """A directive word, trimmed and lower-cased; ``""`` if not a string.  The
    shell and Claude Code output readers use it too, so every dialect compares alike."""
    return value.strip().lower() if isinstance(value, str) else ""


def first_text(*values: Any) -> str | None:
    """The first non-blank string among ``values``, else None."""
    for value in values:
        if isinstance(value, str) and value.strip():
            return value
    return None


def _action(value: Any, key: str = "action") -> str:
    """The directive word under ``key`` of a returned dict."""
    return directive_word(value.get(key) if isinstance(value, dict) else None)


class Aggregator:
    """Base class: observers (return values ignored)."""

    __slots__ = ("contract", "current", "original")
    #: Whether the answer can block the guarded action, so a hook whose policy fails
    #: closed may use this selection (checked when the dispatcher plans each hook).
    can_block: ClassVar[bool] = False

    def __init__(self, contract: Contract, payload: dict[str, Any]) -> None:
        self.contract = contract
        self.original = payload
        #: The payload the next callback receives (before per-callback copying); an
        #: attribute, not a method, because the firing loop reads it per callback.
        self.current = payload

    def add(self, callback: Callback, value: Any) -> Outcome:
        """Take one callback's return value; say what it contributed."""
        if isinstance(value, dict) and "action" in value:
            log.debug(
                "%s: directive-shaped return from %s ignored", self.contract.name, callback.name
            )
        return _NONE

    def fail(self, callback: Callback, failure: Failure, *, closed: bool = False) -> Outcome:
        """Take one callback's failure (already logged by the dispatcher); ``closed``
        is the hook's policy: the failure blocks the guarded action."""
        return failure.kind, failure.message

    def answer(self) -> Any:
        """The aggregated answer of the firing."""
        return None


class ToolDecisionAggregator(Aggregator):
    """``pre_tool_call``: block beats approve beats modify."""

    __slots__ = ("approve", "args", "block", "modified")
    can_block = True

    def __init__(self, contract: Contract, payload: dict[str, Any]) -> None:
        self.contract = contract
        self.original = self.current = payload
        args = payload.get("args")
        # Never handed to a callback (each gets a copy); a modify builds a new dict.
        self.args: dict[str, Any] = args if type(args) is dict else {}
        self.block: str | None = None
        self.approve: tuple[str | None, str, str] | None = None
        self.modified = False

    def add(self, callback: Callback, value: Any) -> Outcome:
        if value is None:  # no opinion (a shell hook that failed open hands None on)
            return _NONE
        action = _action(value)
        if action == "block":
            message = first_text(value.get("message"))
            if message is None:  # the callback's own default, if it has one
                message = callback.block_message
            if message is None:  # a message-less Python block is ignored
                return (
                    "none",
                    Ignored(
                        "block without a message ignored",
                        "give the block a non-empty 'message' (it is shown to the model)",
                    ),
                )
            if self.block is None:
                self.block = message
            return ("block", message)
        if action == "approve":
            if self.approve is None:
                message = value.get("message")
                rule_key = first_text(value.get("rule_key"))
                review = _action(value, "review")
                self.approve = (
                    message if isinstance(message, str) else None,
                    rule_key.strip() if rule_key else str(self.original.get("tool_name", "")),
                    "smart" if review == "smart" else "human",
                )
            return (
                "approve",
                value.get("message") if isinstance(value.get("message"), str) else None,
            )
        if action == "modify":
            args = value.get("args")
            if not isinstance(args, dict) or not args:
                return (
                    "none",
                    Ignored(
                        "modify without a non-empty args dict ignored",
                        "return {'action': 'modify', 'args': {...}} with the new arguments",
                    ),
                )
            if self.block is not None:  # modifies stop at the first valid block
                return ("none", "modify after a block discarded")
            # "replace": the whole input instead of a shallow merge (Claude Code's
            # updatedInput); later modifies merge over it as usual.
            self.args = dict(args) if value.get("replace") is True else {**self.args, **args}
            self.modified = True
            self.current = {**self.original, "args": self.args}
            return ("modify", ", ".join(sorted(map(str, args))))
        if action not in ALLOW_WORDS:  # "deny", "reject": meant to stop the call
            return (
                "none",
                Ignored(
                    f"unknown action {value['action']!r} ignored",
                    "return {'action': 'block', 'message': '...'} to block "
                    "(or 'approve' or 'modify')",
                ),
            )
        if isinstance(value, dict):
            decided = _DECISION_KEYS.intersection(value)
            if "action" in value or not decided:
                return _NONE
            shape = f"a dict with {', '.join(map(repr, sorted(decided)))} but no 'action'"
        else:  # "block", True, a tuple: nothing a Python callback may answer with
            shape = f"a {type(value).__name__} return"
        return (
            "none",
            Ignored(
                f"{shape} ignored",
                "return {'action': 'block', 'message': '...'} to block, or None to allow",
            ),
        )

    def fail(self, callback: Callback, failure: Failure, *, closed: bool = False) -> Outcome:
        # When the policy fails closed the failure blocks; the first block's
        # message is used.
        if closed and self.block is None:
            self.block = failure.message
        return failure.kind, failure.message

    def answer(self) -> ToolDecision:
        if self.block is not None:
            return ToolDecision("block", self.args, self.block, modified=self.modified)
        if self.approve is not None:
            message, rule_key, review = self.approve
            return ToolDecision("approve", self.args, message, rule_key, review, self.modified)
        return ToolDecision("allow", self.args, modified=self.modified)


class ContextAggregator(Aggregator):
    """``pre_llm_call``: every valid piece, joined with one blank line."""

    __slots__ = ("pieces",)
    SEPARATOR: ClassVar[str] = "\n\n"

    def __init__(self, contract: Contract, payload: dict[str, Any]) -> None:
        super().__init__(contract, payload)
        self.pieces: list[str] = []

    def add(self, callback: Callback, value: Any) -> Outcome:
        if isinstance(value, dict):
            value = value.get("context")
            if value is not None and not isinstance(value, str):
                value = str(value)
        if isinstance(value, str) and value.strip():
            self.pieces.append(value)
            return ("context", value)
        return _NONE

    def answer(self) -> str | None:
        return self.SEPARATOR.join(self.pieces) if self.pieces else None


class FirstStringAggregator(Aggregator):
    """Tool and terminal transforms: the first ``str`` wins, ``""`` included."""

    __slots__ = ("winner",)
    accept_empty: ClassVar[bool] = True

    def __init__(self, contract: Contract, payload: dict[str, Any]) -> None:
        super().__init__(contract, payload)
        self.winner: str | None = None

    def add(self, callback: Callback, value: Any) -> Outcome:
        if not isinstance(value, str) or (not value and not self.accept_empty):
            return _NONE
        if self.winner is not None:
            return ("none", "a replacement from an earlier callback won")
        self.winner = value
        return ("replaced", value)

    def answer(self) -> str | None:
        return self.winner


class FirstNonEmptyStringAggregator(FirstStringAggregator):
    """``transform_llm_output``: the first non-empty string wins."""

    __slots__ = ()
    accept_empty = False


class FieldMergeAggregator(Aggregator):
    """``pre_transcription``: string fields applied in order, last writer wins."""

    __slots__ = ("fields",)
    FIELDS: ClassVar[tuple[str, ...]] = ("prompt", "language", "model")

    def __init__(self, contract: Contract, payload: dict[str, Any]) -> None:
        super().__init__(contract, payload)
        self.fields = {name: payload.get(name) for name in self.FIELDS}

    def add(self, callback: Callback, value: Any) -> Outcome:
        if not isinstance(value, dict):
            return _NONE
        if "file_path" in value:
            log.warning(
                "pre_transcription: %s tried to change file_path; file_path is read-only",
                callback.name,
            )
        changed = [name for name in self.FIELDS if isinstance(value.get(name), str)]
        for name in changed:
            self.fields[name] = value[name]
        return ("replaced", ", ".join(changed)) if changed else _NONE

    def answer(self) -> TranscriptionRequest:
        final = {name: (v if v != "" else None) for name, v in self.fields.items()}
        return TranscriptionRequest(**final)


class VerifyAggregator(Aggregator):
    """``pre_verify``: the first valid continue (or block-the-stop) message."""

    __slots__ = ("directive",)

    def __init__(self, contract: Contract, payload: dict[str, Any]) -> None:
        super().__init__(contract, payload)
        self.directive: VerifyDirective | None = None

    def add(self, callback: Callback, value: Any) -> Outcome:
        message = None
        if _action(value) == "continue":
            message = first_text(value.get("message"))
        elif _action(value, "decision") == "block":
            message = first_text(value.get("reason"))
        if message is None:
            return _NONE
        if self.directive is None:
            self.directive = VerifyDirective(message)
            return ("context", message)
        return ("none", "an earlier continue directive won")

    def answer(self) -> VerifyDirective | None:
        return self.directive


def _classification(value: Any) -> ErrorClassification | None:
    """A dict with a known ``reason`` becomes a classification; else None."""
    reason = _action(value, "reason")
    if reason not in FAILOVER_REASONS:
        return None

    def flag(key: str) -> bool | None:
        return bool(value[key]) if key in value and value[key] is not None else None

    message = value.get("message")
    context = value.get("error_context")
    return ErrorClassification(
        reason=reason,
        retryable=flag("retryable"),
        should_compress=flag("should_compress"),
        should_rotate_credential=flag("should_rotate_credential"),
        should_fallback=flag("should_fallback"),
        message=message.strip()[:500] if isinstance(message, str) else None,
        error_context=context if isinstance(context, dict) else None,
    )


class ClassificationAggregator(Aggregator):
    """``transform_api_error_classification``: first valid dict wins."""

    __slots__ = ("losers", "winner")

    def __init__(self, contract: Contract, payload: dict[str, Any]) -> None:
        super().__init__(contract, payload)
        self.winner: ErrorClassification | None = None
        self.losers = 0

    def add(self, callback: Callback, value: Any) -> Outcome:
        if value is None:
            return _NONE
        found = _classification(value)
        if found is None:
            return ("none", "not a valid classification")
        if self.winner is not None:
            self.losers += 1
            return ("none", "an earlier classification won")
        self.winner = found
        return ("replaced", found.reason)

    def answer(self) -> ErrorClassification | None:
        if self.losers:
            log.warning(
                "transform_api_error_classification: skipped %d valid classification(s)",
                self.losers,
            )
        return self.winner


class DispatchAggregator(Aggregator):
    """``pre_gateway_dispatch``: the first recognised action dict decides."""

    __slots__ = ("decision",)

    def __init__(self, contract: Contract, payload: dict[str, Any]) -> None:
        super().__init__(contract, payload)
        self.decision: DispatchDecision | None = None

    def add(self, callback: Callback, value: Any) -> Outcome:
        action = _action(value)
        found: DispatchDecision | None = None
        if action == "skip":
            reason = value.get("reason")
            found = DispatchDecision("skip", reason=reason if isinstance(reason, str) else None)
        elif action == "rewrite":
            text = value.get("text")
            if not isinstance(text, str):
                log.warning(
                    "pre_gateway_dispatch: %s returned rewrite without a string 'text'; ignored",
                    callback.name,
                )
                return ("none", "rewrite without text ignored")
            found = DispatchDecision("rewrite", text=text)
        elif action == "allow":
            found = DispatchDecision("allow")
        if found is None:
            return _NONE
        if self.decision is not None:
            return ("none", "an earlier decision won")
        self.decision = found
        verdict: Verdict = (
            "block" if action == "skip" else "modify" if action == "rewrite" else "approve"
        )
        return (verdict, found.reason or found.text)

    def answer(self) -> DispatchDecision | None:
        return self.decision


#: Selection -> aggregator class; a test asserts every Selection has one.
AGGREGATORS: dict[Selection, type[Aggregator]] = {
    Selection.IGNORE: Aggregator,
    Selection.TOOL_DECISION: ToolDecisionAggregator,
    Selection.COLLECT_CONTEXT: ContextAggregator,
    Selection.FIRST_STRING: FirstStringAggregator,
    Selection.FIRST_NONEMPTY_STRING: FirstNonEmptyStringAggregator,
    Selection.FIELD_MERGE: FieldMergeAggregator,
    Selection.VERIFY_DIRECTIVE: VerifyAggregator,
    Selection.ERROR_CLASSIFICATION: ClassificationAggregator,
    Selection.DISPATCH_ACTION: DispatchAggregator,
}
