"""The one set of findings ``doctor`` reports and ``list`` marks its entries with.

``config.yaml`` is checked first, then each hook source (a source that did not load is
asked through its adapter's stand-in), then telemetry, then which hooks would fire twice
or not at all inside Hermes Agent through the bridge.  ``doctor`` prints them all;
``list`` marks every entry that has an error among them ✗, so the two commands cannot
disagree about an entry.  Each finding is printed once: the log lines the load wrote
about the same problems are held back (:class:`HeldLogs`) and only those the report
does not repeat reach stderr.
"""

from __future__ import annotations

import argparse
import logging
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from hermes_hooks.config import check_config, resolve_home
from hermes_hooks.integrations.hermes_agent.doctor import check_bridge, doctor_host
from hermes_hooks.integrations.mcp.pins import check_pins
from hermes_hooks.sources import every_source
from hermes_hooks.telemetry import check_telemetry

if TYPE_CHECKING:
    from hermes_hooks._capabilities import HostCapabilities
    from hermes_hooks.hooks import Hooks
    from hermes_hooks.report import Finding

__all__ = ["HeldLogs", "collect_findings", "entry_errors", "inspect_host"]


def inspect_host(args: argparse.Namespace) -> HostCapabilities | None:
    """What a home is checked with: a home Hermes Agent runs through the bridge has the
    agent's model for prompt hooks, so they are not reported as refused."""
    return doctor_host(resolve_home(getattr(args, "home", None)))


def collect_findings(hooks: Hooks, *, fire: bool) -> list[Finding]:
    """Every finding about ``hooks``' home; ``fire=False`` leaves out the checks that
    run a hook (``list`` only looks)."""
    findings: list[Finding] = check_config(hooks)
    for source in every_source(hooks.sources, hooks.context):
        findings.extend(source.check(fire=fire))
    findings.extend(check_telemetry(hooks))
    findings.extend(check_bridge(hooks))
    findings.extend(check_pins(hooks.home))  # the tool definitions mcp-proxy pinned
    return findings


#: The shortest text taken to name one problem when a log line is matched to the report.
_SAME_PROBLEM = 30
#: A finding's subject that is a place in a file (``config.yaml:4:7``).
_PLACE = re.compile(r":\d+:\d+$")


def entry_errors(findings: Iterable[Finding]) -> dict[str, list[str]]:
    """The error messages of each ``list`` entry that has any, in finding order (after
    their ``file:line:col`` when the finding is about a place in a file)."""
    errors: dict[str, list[str]] = {}
    for finding in findings:
        if finding.level == "error" and finding.entry is not None:
            mine = errors.setdefault(finding.entry, [])
            text = finding.message
            if _PLACE.search(finding.subject):
                text = f"{finding.subject}: {text}"
            if text not in mine:
                mine.append(text)
    return errors


class HeldLogs(logging.Filter):
    """Holds back the WARNING and ERROR lines of ``hermes_hooks`` loggers while a
    command loads and checks a home; on exit, writes those the command's report does
    not already say (:meth:`printed`), so no problem is printed twice."""

    def __init__(self) -> None:
        super().__init__()
        self._held: dict[int, logging.LogRecord] = {}
        self._handlers: list[logging.Handler] = []
        self._printed = ""

    def filter(self, record: logging.LogRecord) -> bool:
        """Hold a warning or error of ours; let everything else through."""
        if record.levelno >= logging.WARNING and record.name.startswith("hermes_hooks"):
            self._held.setdefault(id(record), record)
            return False
        return True

    def printed(self, text: str) -> None:
        """What the report printed: a held line whose problem it shows (the line
        itself, or its text after the place and key it starts with) is dropped."""
        self._printed += text + "\n"

    def _said(self, message: str) -> bool:
        # "config.yaml:8:7: hooks.x[0]: matcher 'Bash' is dropped ..." is said by a
        # report line holding "matcher 'Bash' is dropped ...": the tails of the line
        # at each ": " are tried, down to a length that still names one problem.
        parts = message.split(": ")
        for start in range(len(parts)):
            tail = ": ".join(parts[start:])
            if len(tail) < _SAME_PROBLEM:
                return False
            if tail in self._printed:
                return True
        return False

    def __enter__(self) -> HeldLogs:
        self._handlers = list(logging.getLogger().handlers)
        for handler in self._handlers:
            handler.addFilter(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        for handler in self._handlers:
            handler.removeFilter(self)
        for record in self._held.values():
            if self._said(record.getMessage()):
                continue
            for handler in self._handlers:
                if record.levelno >= handler.level:
                    handler.handle(record)
        self._held.clear()
