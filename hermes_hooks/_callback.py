"""One registered callback, as the dispatcher sees it.

Whatever its origin (a ``register_hook`` call, a pluggy hookimpl, a shell entry, an
outbound target, a gateway handler), a callback becomes a :class:`Callback`: the
function, who owns it, where it sorts, and which payload names it accepts.

How the dispatcher treats it is the callback's own :class:`CallbackPolicy`, given by
the hook system that registers it: the core never asks which system a callback came
from.
"""

from __future__ import annotations

import enum
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hermes_hooks._workers import BoundedRunner

__all__ = [
    "IN_PROCESS",
    "Answers",
    "Callback",
    "CallbackPolicy",
    "Degraded",
    "Group",
    "describe",
    "signature_problem",
    "signature_text",
]


class Degraded:
    """The return of a callback that ran but failed in a way it handled itself: a
    shell hook whose command was not found or not executable, was killed, timed out
    or printed unreadable output.  ``value`` is what it still contributes (None, or
    a fail-closed block); ``problem`` is what went wrong (already logged once by the
    callback); ``kind`` is ``"error"`` or ``"timeout"``.  The dispatcher aggregates
    ``value`` and reports the run with that verdict, so a missing guard is counted
    as an error (``replay --fail-on error``) instead of passing as "no opinion".
    """

    __slots__ = ("kind", "problem", "value")

    def __init__(self, value: Any, problem: str, kind: str = "error") -> None:
        self.value = value
        self.problem = problem
        self.kind = kind


class Group(enum.IntEnum):
    """The order groups of callbacks, in firing order."""

    TRYFIRST = 0
    PYTHON = 1
    TRYLAST = 2
    SHELL = 3
    WEBHOOK = 4


class Answers(enum.Enum):
    """Which of a callback's return values the hook's selection reads."""

    #: Every return value is an answer (an in-process callback speaks the hook's API).
    ALWAYS = "always"
    #: Only on hooks whose contract honours directives from outside the process
    #: (``ShellUse.DIRECTIVE``); elsewhere the callback observes and its output is
    #: dropped.
    ON_DIRECTIVE_HOOKS = "on-directive-hooks"
    #: Never: the callback only hands the event on (a delivery queued elsewhere).
    NEVER = "never"


@dataclass(frozen=True)
class CallbackPolicy:
    """How the dispatcher runs a callback and reads its result, set by the hook system
    that registers it.

    ``source`` names that system in decision records (``"python"``, ``"shell"``...).
    ``runs_bounded``: the dispatcher runs it under ``hook_callback_timeout`` on a worker
    (False for a callback that bounds itself, such as a subprocess with its own
    timeout, or one that only enqueues).  ``answers``: which of its return values count.
    ``block_message``: the message a block that carries none is given; None means such
    a block is ignored (it must say why).
    """

    source: str
    runs_bounded: bool = True
    answers: Answers = Answers.ALWAYS
    block_message: str | None = None


#: The policy of an in-process Python callback: bounded, every answer read, a block
#: needs its own message.
IN_PROCESS = CallbackPolicy("python")


def describe(function: Callable[..., Any]) -> str:
    """A readable name for a callable: its qualified name, else its repr."""
    return getattr(function, "__qualname__", None) or repr(function)


def _accepted_names(function: Callable[..., Any]) -> tuple[bool, tuple[str, ...], tuple[str, ...]]:
    """Return (accepts_everything, declared names, required names) of ``function``.

    A callable that takes ``**kwargs`` or cannot be inspected gets the whole payload.
    """
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return True, (), ()
    names: list[str] = []
    required: list[str] = []
    for param in signature.parameters.values():
        if param.kind is inspect.Parameter.VAR_KEYWORD:
            return True, (), tuple(required)
        if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.POSITIONAL_ONLY):
            continue
        names.append(param.name)
        if param.default is inspect.Parameter.empty:
            required.append(param.name)
    return False, tuple(names), tuple(required)


def signature_text(function: Callable[..., Any]) -> str | None:
    """``function``'s signature as text, such as ``(tool_name, args, **kwargs)``, for
    errors that name the refused callback; None when it cannot be inspected."""
    try:
        return str(inspect.signature(function))
    except (TypeError, ValueError):
        return None


def signature_problem(function: Callable[..., Any], fields: frozenset[str]) -> str | None:
    """Explain why ``function`` can never be called with a payload of ``fields``.

    Only parameters that are required *and* never passed are a problem; a callback may
    declare a catalogued field the host sometimes omits (that fails at call time).
    """
    if not callable(function):
        return f"{function!r} is not callable"
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    unknown = [
        p.name
        for p in signature.parameters.values()
        if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        and p.default is inspect.Parameter.empty
        and p.name not in fields
    ]
    positional_only = [
        p.name
        for p in signature.parameters.values()
        if p.kind is inspect.Parameter.POSITIONAL_ONLY and p.default is inspect.Parameter.empty
    ]
    if positional_only:
        return (
            f"positional-only parameter(s) {', '.join(positional_only)}: hooks are called "
            "with keyword arguments only"
        )
    if unknown:
        return (
            f"required parameter(s) {', '.join(unknown)} are not payload fields of this "
            "hook; accept **kwargs and read what you need"
        )
    return None


def misspelt_parameters(function: Callable[..., Any], fields: frozenset[str]) -> list[str]:
    """The optional parameters of ``function`` that no payload ever fills but that
    resemble a payload field, each as ``"<parameter>=… (did you mean '<field>'?)"``.

    Such a parameter always gets its default: a guard reading ``tool_nmae=None`` or
    ``arguments=None`` never sees the call it guards.  A parameter close to no field is
    left alone (it may be the plugin's own setting).
    """
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return []
    candidates = [
        p.name
        for p in parameters
        if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        and p.default is not inspect.Parameter.empty
        and p.name not in fields
    ]
    if not candidates:
        return []
    import difflib  # deferred: only a callback with such a parameter needs it

    found = []
    for name in candidates:
        close = difflib.get_close_matches(name, sorted(fields), n=1, cutoff=0.6)
        if close:
            found.append(f"{name}=… (did you mean '{close[0]}'?)")
    return found


class Callback:
    """A callback in dispatch order, with the per-callback runtime state."""

    __slots__ = (
        "accepts_all",
        "answers",
        "block_message",
        "function",
        "group",
        "hook",
        "is_async",
        "name",
        "names",
        "owner",
        "rank",
        "retired",
        "runner",
        "runs_bounded",
        "seq",
        "source",
    )

    def __init__(
        self,
        hook: str,
        function: Callable[..., Any],
        *,
        owner: str,
        group: Group,
        seq: int,
        rank: int = 0,
        policy: CallbackPolicy = IN_PROCESS,
        name: str | None = None,
    ) -> None:
        self.hook = hook
        self.function = function
        self.owner = owner
        self.group = group
        self.seq = seq
        self.rank = rank
        # The policy's fields, copied: the firing loop reads them per callback.
        self.source = policy.source
        self.runs_bounded = policy.runs_bounded
        self.answers = policy.answers
        self.block_message = policy.block_message
        self.name = name or f"{owner}:{describe(function)}"
        self.accepts_all, self.names, _ = _accepted_names(function)
        self.is_async = inspect.iscoroutinefunction(function)
        # The bounded runner, created by the dispatcher on first bounded use.
        self.runner: BoundedRunner | None = None
        # Unregistered: a firing that still holds it (a reload's frozen set) must not
        # leave a worker behind.
        self.retired = False

    @property
    def sort_key(self) -> tuple[int, int, int]:
        """Firing order: group, then plugin (or config list) rank, then registration order."""
        return (int(self.group), self.rank, self.seq)

    def stop(self) -> None:
        """Retire this callback: its idle bounded workers stop now, busy or later ones
        after their call (abandoned ones exit on return)."""
        self.retired = True
        if self.runner is not None:
            self.runner.close()

    def __repr__(self) -> str:
        return f"<Callback {self.name} on {self.hook} ({self.group.name.lower()})>"
