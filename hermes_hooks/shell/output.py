"""What a finished shell hook means: the one interpretation core every dialect shares.

:func:`interpret` turns one :class:`~hermes_hooks.shell.run.RunResult` into an
:class:`Outcome`: the canonical directive the dispatcher's aggregators understand (or
``None``) and the problem a warning reported.  The parts every dialect agrees on live
here, once:

* a hook that could not start or ran out of time is a failure with no verdict;
* every failure logs one WARNING per distinct hook and reason (repeats at DEBUG), with
  an excerpt of stderr that is redacted *before* it is cut, so a secret straddling the
  cut is never shown half-redacted;
* ``fail_closed`` on ``pre_tool_call``: a failure the dialect reports blocks the call
  unless the hook's own answer already blocks.

How stdout and the exit code are read (JSON fields, exit code 2, plain text) is the
dialect's: a reader given to :func:`interpret` (see
:mod:`hermes_hooks.shell.dialect`).  The failure table is in
``docs/shell-hooks.md``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from hermes_hooks._callback import Answers, CallbackPolicy, Degraded
from hermes_hooks._log import excerpt, get_logger, warn_once
from hermes_hooks.hookspecs import CATALOGUE
from hermes_hooks.shell.entry import ShellEntry
from hermes_hooks.shell.run import STREAM_CAP, RunResult

__all__ = [
    "BLOCK_EXIT_CODE",
    "DEFAULT_BLOCK_MESSAGE",
    "SHELL_CALLBACKS",
    "STDERR_MESSAGE_LIMIT",
    "Directive",
    "Outcome",
    "Reader",
    "Reading",
    "decode_stdout",
    "delivered",
    "interpret",
    "trim",
]

log = get_logger("hermes_hooks.shell")

#: Exit code 2 blocks a ``pre_tool_call`` (Claude Code / Cursor convention).
BLOCK_EXIT_CODE = 2
#: How much of stderr becomes a block message (and shows in a warning).
STDERR_MESSAGE_LIMIT = 400
#: The message of a block that carries none (no message on stdout, nothing on stderr).
DEFAULT_BLOCK_MESSAGE = "Blocked by shell hook."
#: How the dispatcher runs a shell hook: unbounded (the hook bounds its own process),
#: read only on hooks that honour shell directives, a bare block given
#: the default message.
SHELL_CALLBACKS = CallbackPolicy(
    "shell",
    runs_bounded=False,
    answers=Answers.ON_DIRECTIVE_HOOKS,
    block_message=DEFAULT_BLOCK_MESSAGE,
)

#: A canonical directive: ``{"action": "block", "message": ...}``, ``{"context": ...}``...
Directive = dict[str, Any]


class Outcome:
    """A finished firing, interpreted: the directive and why."""

    __slots__ = ("directive", "problem", "result", "unparseable")

    def __init__(
        self,
        result: RunResult,
        directive: Directive | None,
        problem: str | None,
        unparseable: bool = False,
    ) -> None:
        self.result = result
        self.directive = directive  # what the dispatcher receives (None = nothing)
        self.problem = problem  # the failure a warning reported, if any
        self.unparseable = unparseable  # stdout was not something the dialect reads

    def __repr__(self) -> str:
        return f"Outcome({self.directive!r}, problem={self.problem!r})"


def delivered(value: Any, outcome: Outcome) -> Any:
    """What the dispatcher receives for a run: the dialect's ``value`` as it is, or,
    when the run failed (not found, not executable, killed, timed out, unreadable
    output, refused), a :class:`~hermes_hooks._callback.Degraded` carrying it, so the
    failure is reported as the error it was (``replay --fail-on error``) while the
    value (None, or a fail-closed block) still counts."""
    if outcome.problem is None:
        return value
    return Degraded(value, outcome.problem, "timeout" if outcome.result.timed_out else "error")


#: What JavaScript's ``String.prototype.trim`` removes besides ``str.isspace`` characters:
#: the byte-order mark.  Claude Code reads hook output after that trim, so a leading BOM
#: (PowerShell and some Windows editors write one) never hides a JSON answer.
_BOM = "\ufeff"


def trim(text: str) -> str:
    """``text`` without leading and trailing whitespace and byte-order marks."""
    start, end = 0, len(text)
    while start < end and (text[start].isspace() or text[start] == _BOM):
        start += 1
    while end > start and (text[end - 1].isspace() or text[end - 1] == _BOM):
        end -= 1
    return text[start:end]


def decode_stdout(result: RunResult) -> tuple[str | None, str | None]:
    """(the hook's stdout as trimmed text, None), or (None, why it cannot be read):
    cut at the capture cap, or not UTF-8.  Every dialect reads its answer from here."""
    if result.stdout_truncated:
        return None, f"stdout exceeded {STREAM_CAP} bytes"
    try:
        return trim(result.stdout.decode("utf-8")), None
    except UnicodeDecodeError:
        return None, "stdout is not UTF-8 text"


def stderr_text(result: RunResult) -> str:
    """The hook's stderr as text (undecodable bytes replaced), trimmed."""
    return result.stderr.decode("utf-8", errors="replace").strip()


def exit_reason(result: RunResult) -> str:
    """``exit code N`` or ``killed by signal N``: why a run counts as failed."""
    signal = result.signal
    return f"killed by signal {signal}" if signal is not None else f"exit code {result.returncode}"


class Reading:
    """One finished run being read: the entry, the result, and what went wrong.

    A dialect's reader calls :meth:`warn` for every failure it reports, :meth:`fail`
    for a failure that makes a fail-closed hook block, and sets :attr:`unparseable`
    when stdout was not something it reads.
    """

    __slots__ = ("entry", "failure", "payload", "problem", "result", "unparseable")

    def __init__(self, entry: ShellEntry, result: RunResult, payload: Any = None) -> None:
        self.entry = entry
        self.result = result
        self.payload = payload  # the firing's keyword payload, when the dialect needs it
        self.problem: str | None = None  # the last failure warned about
        self.failure: str | None = None  # why a fail-closed hook blocks, if it does
        self.unparseable = False

    @property
    def gate(self) -> bool:
        """Whether this hook can block: the catalogue says which hooks fail closed."""
        contract = CATALOGUE.get(self.entry.event)
        return contract is not None and contract.fail_closed

    def warn(self, problem: str, level: int = logging.WARNING) -> None:
        """A failure: logged once per hook and reason (at ``level``), with a redacted
        stderr excerpt."""
        entry = self.entry
        self.problem = problem
        stderr = stderr_text(self.result)
        warn_once(
            log,
            ("shell", entry.event, entry.index, entry.command, problem),
            "shell hook %s (%s): %s%s",
            entry.where,
            entry.command,
            problem,
            f"; stderr: {excerpt(stderr, STDERR_MESSAGE_LIMIT)}" if stderr else "",
            level=level,
        )

    def fail(self, problem: str, reason: str | None = None, level: int = logging.WARNING) -> None:
        """A failure that blocks a fail-closed hook: log ``problem`` (at ``level``); the
        block message names ``reason`` (``problem`` when not given)."""
        self.warn(problem, level)
        self.failure = reason or problem

    def exit_two_blocks(self, directive: Directive) -> None:
        """Log (at INFO) that exit code 2 blocked the call with ``directive``."""
        entry = self.entry
        log.info(
            "shell hook %s (%s) exited 2 — blocking: %s",
            entry.where,
            entry.command,
            directive["message"],
        )

    def stderr_message(self) -> str | None:
        """The block message stderr carries on exit 2: its first characters, or None."""
        return stderr_text(self.result)[:STDERR_MESSAGE_LIMIT].strip() or None

    def outcome(self, directive: Directive | None) -> Outcome:
        """The finished :class:`Outcome`, with the fail-closed rule applied: only a clean
        answer lets a fail-closed call through, and a block it gave wins."""
        entry = self.entry
        if (
            self.failure is not None
            and entry.fail_closed
            and self.gate
            and (directive is None or directive.get("action") != "block")
        ):
            message = f"hook {entry.command} failed closed: {self.failure}"
            directive = {"action": "block", "message": message}
        return Outcome(self.result, directive, self.problem, self.unparseable)


#: How a dialect reads a run that started and finished in time: exit code and stdout.
Reader = Callable[[Reading], "Directive | None"]


def interpret(entry: ShellEntry, result: RunResult, read: Reader, payload: Any = None) -> Outcome:
    """Apply the shared rules to one finished run of ``entry``, reading its answer
    with ``read`` (the entry's dialect).  Never raises for anything the hook did."""
    reading = Reading(entry, result, payload)
    # The hook never produced a verdict: it could not start, or ran out of time.
    if result.error is not None:
        reading.fail(result.error)
        return reading.outcome(None)
    if result.timed_out:
        reason = f"timed out after {entry.timeout}s"
        reading.fail(f"{reason} (process group killed)", reason)
        return reading.outcome(None)
    return reading.outcome(read(reading))
