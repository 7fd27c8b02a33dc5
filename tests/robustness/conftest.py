"""Robustness tests: Hypothesis profiles, sizes, log capture and the figures report.

Profiles (``HYPOTHESIS_PROFILE``):

* ``robust`` (default, the normal suite): few examples, derandomised, so every run
  tests the same inputs and a failure reproduces;
* ``fuzz`` (``tox -e fuzz``): many examples (``HYPOTHESIS_MAX_EXAMPLES``, default
  5000) from a random seed; Hypothesis prints the seed and the minimal failing input.

Sizes (``HERMES_ROBUST_SCALE``): ``small`` (default) keeps the leak and concurrency
tests fast enough for the normal suite; ``full`` runs the sizes the issue names
(``tox -e leaks``).  With ``HERMES_ROBUST_FIGURES=1`` the resource figures each test
recorded are printed at the end of the run.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, settings

_SLOW_OK = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]

settings.register_profile(
    "robust",
    max_examples=40,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=_SLOW_OK,
)
settings.register_profile(
    "fuzz",
    max_examples=int(os.environ.get("HYPOTHESIS_MAX_EXAMPLES", "5000")),
    database=None,
    deadline=None,
    suppress_health_check=_SLOW_OK,
    print_blob=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "robust"))

FULL = os.environ.get("HERMES_ROBUST_SCALE", "small") == "full"

#: (test, figure, value) rows recorded by tests, printed at the end of the run.
_FIGURES: list[tuple[str, str, str]] = []


def scale(small: int, full: int) -> int:
    """``full`` under ``HERMES_ROBUST_SCALE=full``, else ``small``."""
    return full if FULL else small


@pytest.fixture
def figures(request: pytest.FixtureRequest) -> Iterator[dict[str, object]]:
    """A dict a test fills with figures (resource counts before/after, mismatches)."""
    recorded: dict[str, object] = {}
    yield recorded
    for name, value in recorded.items():
        _FIGURES.append((request.node.name, name, str(value)))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Print the recorded figures when asked (``HERMES_ROBUST_FIGURES=1``)."""
    if not _FIGURES or os.environ.get("HERMES_ROBUST_FIGURES") != "1":
        return
    terminalreporter.section("robustness figures")
    for test, name, value in _FIGURES:
        terminalreporter.write_line(f"{test}: {name} = {value}")


class Captured:
    """Log records captured by :func:`capture_logs`."""

    def __init__(self) -> None:
        self.records: list[logging.LogRecord] = []

    def messages(self, level: int | None = None) -> list[str]:
        """The formatted messages, optionally only those at ``level``."""
        return [r.getMessage() for r in self.records if level is None or r.levelno == level]

    def text(self) -> str:
        """Everything a log handler would write: messages and formatted tracebacks."""
        formatter = logging.Formatter("%(levelname)s %(name)s %(message)s")
        return "\n".join(formatter.format(r) for r in self.records)


class _ListHandler(logging.Handler):
    def __init__(self, sink: Captured) -> None:
        super().__init__(logging.DEBUG)
        self.sink = sink

    def emit(self, record: logging.LogRecord) -> None:
        self.sink.records.append(record)


@contextmanager
def capture_logs(names: Iterable[str] = ("hermes_hooks", "gateway.hooks")) -> Iterator[Captured]:
    """Capture every record (DEBUG and up) of the named loggers and their children.

    Usable inside Hypothesis examples, where function-scoped fixtures such as
    ``caplog`` are not reset between examples.
    """
    sink = Captured()
    handler = _ListHandler(sink)
    loggers = [logging.getLogger(name) for name in names]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
    try:
        yield sink
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.removeHandler(handler)
            logger.setLevel(level)


@pytest.fixture(autouse=True)
def _probe() -> Iterator[None]:
    """Open every probe gate after each test, so nothing it held stays stuck."""
    from tests.robustness import probe

    probe.reset()
    yield
    probe.reset()
