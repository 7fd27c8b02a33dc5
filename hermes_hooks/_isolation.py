"""One isolation path for every call into code we did not write.

The plugin dispatcher and the gateway emitter both run third-party callables bounded
and isolated, and both must treat a failure the same way: tell a hung callable (its
worker cap reached: the call was skipped) from a timed-out one and from one that
raised, log each kind once per callable (WARNING the first time, DEBUG afterwards, so
a callable failing on every firing cannot flood the log), and tell observers what
happened.  This module holds that shared part; each caller keeps only its wording.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar, cast

from hermes_hooks._callback import describe
from hermes_hooks._log import WarnOnce, exception_text, excerpt
from hermes_hooks._workers import Hung, TimedOut

__all__ = ["Fault", "FaultKind", "Listeners", "escapes", "fault_of", "warn_fault"]

#: ``skipped``: not run, the callable is hung; ``timeout``: ran past its limit;
#: ``error``: raised.
FaultKind = Literal["skipped", "timeout", "error"]

R = TypeVar("R")


def escapes(exc: BaseException) -> bool:
    """Whether ``exc``, raised by code we did not write, must still reach the host.

    Every isolated call catches ``BaseException`` and asks this: ``KeyboardInterrupt``
    escapes (the user pressed Ctrl-C), and so does ``asyncio.CancelledError`` while
    the running task is being cancelled (the host or our own bound cancelled the
    await; Python 3.10 cannot tell, so there it always escapes).  Everything else is
    the callable's failure, isolated and logged: ``SystemExit``, ``GeneratorExit``, a
    plugin's own ``BaseException`` subclass, and a ``CancelledError`` raised with no
    cancellation under way (by a sync callback, or by an async one itself).
    """
    if isinstance(exc, KeyboardInterrupt):
        return True
    asyncio = sys.modules.get("asyncio")  # not imported: no CancelledError exists yet
    if asyncio is None or not isinstance(exc, asyncio.CancelledError):
        return False
    try:
        task = asyncio.current_task()
    except RuntimeError:  # no running loop: a sync callback raised it by itself
        return False
    if task is None:
        return False
    cancelling = getattr(task, "cancelling", None)  # 3.11+
    return cancelling is None or cancelling() > 0


@dataclass(frozen=True)
class Fault:
    """How one isolated call failed."""

    kind: FaultKind
    exc: BaseException

    @property
    def text(self) -> str:
        """The exception's message (never raises, see :func:`exception_text`)."""
        return exception_text(self.exc)

    def excerpt(self, limit: int) -> str:
        """The message redacted, then cut to ``limit`` characters, for log lines."""
        return excerpt(self.text, limit)


def fault_of(exc: BaseException) -> Fault:
    """Classify the exception an isolated call ended with."""
    if isinstance(exc, Hung):
        return Fault("skipped", exc)
    if isinstance(exc, TimedOut):
        return Fault("timeout", exc)
    return Fault("error", exc)


def warn_fault(
    warnings: WarnOnce,
    log: logging.Logger,
    who: Hashable,
    fault: Fault,
    message: str,
    *args: object,
) -> None:
    """Log ``message`` for ``fault`` of the callable ``who``, once per kind: a hang or a
    timeout once per callable, an error once per callable, exception type and
    ``detail`` (the last argument, so distinct errors each get their WARNING)."""
    key: tuple[Hashable, ...] = (who, fault.kind)
    if fault.kind == "error":
        key = (*key, cast(Hashable, type(fault.exc)), args[-1] if args else message)
    warnings.warn(log, key, message, *args)


class Listeners(list[Callable[[R], None]], Generic[R]):
    """Observers of call records: ``subscribe`` returns an unsubscribe function, and a
    raising observer is logged and skipped, never stopping the others or the call.

    A list, so that the hot path's ``if listeners:`` costs no method call.
    """

    def __init__(self, log: logging.Logger, what: str) -> None:
        super().__init__()
        self._log = log
        self._what = what

    def subscribe(self, listener: Callable[[R], None]) -> Callable[[], None]:
        """Call ``listener`` with every record; returns an unsubscribe function."""
        self.append(listener)

        def unsubscribe() -> None:
            if listener in self:
                self.remove(listener)

        return unsubscribe

    def emit(self, record: R) -> None:
        """Give ``record`` to every observer, isolating each."""
        for listener in list(self):
            try:
                listener(record)
            except BaseException as exc:
                if escapes(exc):
                    raise
                self._log.exception("%s listener %s failed", self._what, describe(listener))
