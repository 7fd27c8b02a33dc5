"""The per-hook contract: what kind of hook it is and how a firing is run.

Every catalogued hook has exactly one :class:`Contract`.  Two halves make it up:

* the hookspec decorator in :mod:`hermes_hooks.hookspecs` says what the hook *means*
  (its kind, how results are selected, which adapters may implement it and why not,
  whether a tool matcher applies, whether it switches on streaming, its payload);
* :data:`POLICY` below says how callbacks are *run* (bounded or not, fail open or
  closed, on which thread).  It is the single table of those rules, read by the
  decorator; a test asserts it covers ``VALID_HOOKS`` exactly.

Everything else reads these facts from the contract: the dispatcher (timeouts, failure,
selection), the adapters (which hooks shell hooks and outbound webhooks may take, where
a matcher or ``fail_closed`` means something), the facade, the docs and the CLI.  None
of them keeps its own list of hook names.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = [
    "KIND_SENTENCES",
    "POLICY",
    "Contract",
    "Field",
    "Kind",
    "OnError",
    "OptIn",
    "Policy",
    "Selection",
    "ShellUse",
    "Thread",
]


class Kind(str, enum.Enum):
    """The category of a hook."""

    OBSERVER = "observer"
    DIRECTIVE = "directive"
    TRANSFORM = "transform"
    STREAM = "stream observer"


#: The fixed first sentence of every hookspec docstring, per kind (checked by a test).
KIND_SENTENCES: dict[Kind, str] = {
    Kind.OBSERVER: "Observer: the return value is ignored.",
    Kind.DIRECTIVE: "Directive: documented return shapes change the agent's flow.",
    Kind.TRANSFORM: "Transform: a valid return value replaces content.",
    Kind.STREAM: (
        "Stream observer: delivered through a bounded per-callback queue; "
        "the return value is ignored."
    ),
}


class Selection(str, enum.Enum):
    """How the results of one firing become one answer (see ``_select``)."""

    IGNORE = "ignore"
    TOOL_DECISION = "tool_decision"  # pre_tool_call
    COLLECT_CONTEXT = "collect_context"  # pre_llm_call
    FIRST_STRING = "first_string"  # tool / terminal transforms, "" counts
    FIRST_NONEMPTY_STRING = "first_nonempty_string"  # transform_llm_output
    FIELD_MERGE = "field_merge"  # pre_transcription: last writer wins per field
    VERIFY_DIRECTIVE = "verify_directive"  # pre_verify: first continue message
    ERROR_CLASSIFICATION = "error_classification"  # first dict with a known reason
    DISPATCH_ACTION = "dispatch_action"  # pre_gateway_dispatch


class OnError(str, enum.Enum):
    """What a failed (raising or timed-out) Python callback means for the firing."""

    FAIL_OPEN = "fail_open"
    FAIL_CLOSED = "fail_closed"


class Thread(str, enum.Enum):
    """Where Python callbacks of a hook run."""

    WORKER = "worker"  # bounded by hook_callback_timeout on a long-lived worker
    CALLER = "caller"  # the calling thread, never time-limited
    QUEUE = "queue"  # a dedicated queue worker per callback
    LOOP = "loop"  # async on the gateway loop, sync on a worker


class ShellUse(str, enum.Enum):
    """What a shell hook may do on an event."""

    REFUSED = "refused"  # registration refused with a warning at config read
    OBSERVE = "observe"  # runs; its output is ignored
    DIRECTIVE = "directive"  # runs; its block/modify/approve, context or continue is honoured


@dataclass(frozen=True)
class Policy:
    """One row of the timeout and failure table (decisions, end)."""

    bounded: bool
    on_error: OnError
    thread: Thread


_WORKER_OPEN = Policy(True, OnError.FAIL_OPEN, Thread.WORKER)

#: The single timeout/failure table, keyed by hook name (a hook missing from it gets
#: :data:`DEFAULT_POLICY`: bounded, fail-open).
POLICY: dict[str, Policy] = {
    "pre_tool_call": Policy(True, OnError.FAIL_CLOSED, Thread.WORKER),
    "post_tool_call": _WORKER_OPEN,
    "transform_tool_result": _WORKER_OPEN,
    "transform_terminal_output": _WORKER_OPEN,
    "pre_transcription": _WORKER_OPEN,
    "pre_llm_call": _WORKER_OPEN,
    "post_llm_call": _WORKER_OPEN,
    "transform_llm_output": _WORKER_OPEN,
    "pre_verify": _WORKER_OPEN,
    "pre_api_request": _WORKER_OPEN,
    "post_api_request": _WORKER_OPEN,
    "api_request_error": _WORKER_OPEN,
    "on_stream_start": Policy(False, OnError.FAIL_OPEN, Thread.QUEUE),
    "on_stream_delta": Policy(False, OnError.FAIL_OPEN, Thread.QUEUE),
    "on_stream_end": Policy(False, OnError.FAIL_OPEN, Thread.QUEUE),
    "on_interim_message": Policy(False, OnError.FAIL_OPEN, Thread.QUEUE),
    "transform_api_error_classification": _WORKER_OPEN,
    "on_session_start": _WORKER_OPEN,
    "on_session_end": _WORKER_OPEN,
    "on_session_finalize": _WORKER_OPEN,
    "on_session_reset": _WORKER_OPEN,
    "on_skill_lifecycle": _WORKER_OPEN,
    "subagent_start": _WORKER_OPEN,
    "subagent_stop": Policy(False, OnError.FAIL_OPEN, Thread.CALLER),
    "pre_gateway_dispatch": Policy(True, OnError.FAIL_OPEN, Thread.LOOP),
    "gateway_platform_event": _WORKER_OPEN,
    "pre_command": _WORKER_OPEN,
    "pre_approval_request": _WORKER_OPEN,
    "post_approval_response": _WORKER_OPEN,
    "kanban_task_claimed": _WORKER_OPEN,
    "kanban_task_completed": _WORKER_OPEN,
    "kanban_task_blocked": _WORKER_OPEN,
    "on_kanban_worker_spawned": _WORKER_OPEN,
    "on_kanban_worker_exited": _WORKER_OPEN,
    "on_kanban_worker_stale_claim": _WORKER_OPEN,
    "on_kanban_task_updated": _WORKER_OPEN,
    "on_kanban_dispatch_tick": _WORKER_OPEN,
}

#: A hook missing from the table is bounded and fail-open.
DEFAULT_POLICY = _WORKER_OPEN


@dataclass(frozen=True)
class OptIn:
    """A kind of firing the facade drops unless a setting asks for it.

    ``on_stream_delta`` firings whose ``kind`` is ``"reasoning"`` reach callbacks only
    with ``plugins.stream_reasoning_deltas: true``: reasoning text is often longer and
    more sensitive than the answer, so hosts fire it and users opt in.
    """

    field: str  # the payload field to look at
    value: str  # the value that marks an opt-in firing
    setting: str  # the Settings attribute that must be true for it to pass


@dataclass(frozen=True)
class Field:
    """One payload field of a hook: its name and its type as written in the spec."""

    name: str
    type: str


@dataclass(frozen=True)
class Contract:
    """Everything the runtime knows about one catalogued hook."""

    name: str
    kind: Kind
    selection: Selection
    policy: Policy
    shell: ShellUse
    tool_scoped: bool
    fields: tuple[Field, ...]
    doc: str
    marker: bool = True  # Whether callbacks get telemetry_schema_version
    #: Why shell hooks may not take this hook (set exactly when ``shell`` is REFUSED).
    shell_refusal: str | None = None
    #: Why outbound webhooks may not subscribe to this hook; None when they may.
    webhook_refusal: str | None = None
    #: A registered callback makes provider calls use the streaming transport.
    streaming: bool = False
    #: Firings the facade drops unless a setting opts in (see :class:`OptIn`).
    opt_in: OptIn | None = None

    @property
    def field_names(self) -> frozenset[str]:
        """The names of the payload fields (plus the envelope marker)."""
        return frozenset(f.name for f in self.fields)

    @property
    def bounded(self) -> bool:
        """Whether Python callbacks obey ``plugins.hook_callback_timeout``."""
        return self.policy.bounded

    @property
    def fail_closed(self) -> bool:
        """Whether a failed Python callback blocks the guarded action.

        It is also the one place a shell hook's ``fail_closed: true`` means something:
        only a hook that guards an action can block it when its hook fails."""
        return self.policy.on_error is OnError.FAIL_CLOSED

    @property
    def matcher(self) -> bool:
        """Whether a ``matcher`` (a regular expression on the tool name) filters the
        firings of shell hooks and outbound webhooks on this hook."""
        return self.tool_scoped

    @property
    def method_doc(self) -> str:
        """The docstring of the facade method: what the call does, then the spec's."""
        verb = (
            "return the selected answer"
            if self.selection is not Selection.IGNORE
            else ("return None")
        )
        return f"Fire ``{self.name}``: run its callbacks and {verb}.\n\n{self.doc}"

    @property
    def webhooks(self) -> bool:
        """Whether outbound webhooks may subscribe to this hook."""
        return self.webhook_refusal is None
