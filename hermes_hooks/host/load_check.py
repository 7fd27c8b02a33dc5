"""What a replay's ``--fail-on error`` counts at start-up: the policy did not load whole.

A replay used as a CI gate ("replay last week's sessions against the new policy") must
not pass because a guard never ran.  Callback errors are counted as each firing runs;
this module adds what went wrong before any firing: every ERROR the load logged (a
misspelt gate, a broken ``config.yaml``, a guard's answer shape the loader can tell is
wrong), and what the sources' records say did not load or does not run (a plugin or
gateway handler that failed to import, a shell gate nobody approved).  A failed import
is logged as an ERROR too, marked :data:`~hermes_hooks._log.ON_RECORD`: it is counted
once, from its record, which names the plugin.  Nothing is run to find them:
``doctor``'s smoke tests stay in ``doctor``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from hermes_hooks._log import ON_RECORD, get_logger
from hermes_hooks.hookspecs import CATALOGUE

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks

__all__ = ["LoadErrors", "load_problems"]

#: The loggers a load reports through.
_LOGGERS = ("hermes_hooks", "gateway.hooks")
#: The attribute :data:`~hermes_hooks._log.ON_RECORD` sets on a log record.
_ON_RECORD_KEY = next(iter(ON_RECORD))
#: Shell entry states in which the entry does not run.
_NOT_RUNNING = frozenset({"not allowlisted", "declined", "failed"})


class LoadErrors(logging.Handler):
    """Collects the messages of the ERROR records logged while it is attached."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        """Keep the message (records are redacted by the package's filter already),
        unless the failure is kept on a source's record (see :func:`load_problems`)."""
        if not getattr(record, _ON_RECORD_KEY, False):
            self.messages.append(record.getMessage())

    @contextmanager
    def attached(self) -> Iterator[LoadErrors]:
        """Collect while the ``with`` block runs (the load)."""
        loggers = [get_logger(name) for name in _LOGGERS]
        for logger in loggers:
            logger.addHandler(self)
        try:
            yield self
        finally:
            for logger in loggers:
                logger.removeHandler(self)


def load_problems(hooks: Hooks, logged: list[str]) -> list[tuple[str, str]]:
    """(subject, message) for each problem of the load: the ERROR messages ``logged``
    during it, then what failed to load or does not run although configured."""
    found = [("load", message) for message in logged]
    sources = hooks.sources
    python = sources.get("python")
    for record in getattr(python, "records", list)():
        if record.state == "failed":
            found.append((f"plugin {record.key}", f"failed to load: {record.error}"))
    gateway = sources.get("gateway")
    for record in getattr(gateway, "records", list)():
        if record.state == "failed":
            found.append((f"gateway hook {record.key}", f"failed to load: {record.error}"))
    shell = sources.get("shell")
    for record in getattr(shell, "records", list)():
        entry = record.entry
        contract = CATALOGUE.get(entry.event)
        if record.state in _NOT_RUNNING and contract is not None and contract.fail_closed:
            found.append(
                (
                    f"shell hook {entry.where}",
                    f"{entry.command}: {record.state}, so this gate does not run"
                    + (f" ({record.note})" if record.note else ""),
                )
            )
    return found
