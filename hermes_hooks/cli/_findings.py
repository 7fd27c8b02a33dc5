"""The one set of findings ``doctor`` reports and ``list`` marks its entries with.

``config.yaml`` is checked first, then each hook source (a source that did not load is
asked through its adapter's stand-in), then telemetry.  ``doctor`` prints them all;
``list`` marks every entry that has an error among them ✗, so the two commands cannot
disagree about an entry.  Each finding is printed once: the log lines the load wrote
about the same problems are held back (:class:`HeldLogs`) and only those the report
does not repeat reach stderr.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from hermes_hooks.config import check_config
from hermes_hooks.sources import every_source
from hermes_hooks.telemetry import check_telemetry

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks
    from hermes_hooks.report import Finding

__all__ = ["HeldLogs", "collect_findings", "entry_errors"]


def collect_findings(hooks: Hooks, *, fire: bool) -> list[Finding]:
    """Every finding about ``hooks``' home; ``fire=False`` leaves out the checks that
    run a hook (``list`` only looks)."""
    findings: list[Finding] = check_config(hooks)
    for source in every_source(hooks.sources, hooks.context):
        findings.extend(source.check(fire=fire))
    findings.extend(check_telemetry(hooks))
    return findings


def entry_errors(findings: Iterable[Finding]) -> dict[str, list[str]]:
    """The error messages of each ``list`` entry that has any, in finding order."""
    errors: dict[str, list[str]] = {}
    for finding in findings:
        if finding.level == "error" and finding.entry is not None:
            mine = errors.setdefault(finding.entry, [])
            if finding.message not in mine:
                mine.append(finding.message)
    return errors


class HeldLogs(logging.Filter):
    """Holds back the WARNING and ERROR lines of ``hermes_hooks`` loggers while a
    command loads and checks a home; on exit, writes those the command's report does
    not already say (:meth:`printed`), so no problem is printed twice."""

    def __init__(self) -> None:
        super().__init__()
        self._held: dict[int, logging.LogRecord] = {}
        self._handlers: list[logging.Handler] = []
        self._printed: list[str] = []

    def filter(self, record: logging.LogRecord) -> bool:
        """Hold a warning or error of ours; let everything else through."""
        if record.levelno >= logging.WARNING and record.name.startswith("hermes_hooks"):
            self._held.setdefault(id(record), record)
            return False
        return True

    def printed(self, messages: Iterable[str]) -> None:
        """The finding messages the report printed: a held line containing one of
        them says the same thing and is dropped."""
        self._printed.extend(m for m in messages if m)

    def __enter__(self) -> HeldLogs:
        self._handlers = list(logging.getLogger().handlers)
        for handler in self._handlers:
            handler.addFilter(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        for handler in self._handlers:
            handler.removeFilter(self)
        for record in self._held.values():
            text = record.getMessage()
            if any(message in text for message in self._printed):
                continue
            for handler in self._handlers:
                if record.levelno >= handler.level:
                    handler.handle(record)
        self._held.clear()
