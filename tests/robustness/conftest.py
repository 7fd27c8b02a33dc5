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

import os
from collections.abc import Iterator

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


#: (test, figure, value) rows recorded by tests, printed at the end of the run.
_FIGURES: list[tuple[str, str, str]] = []


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


@pytest.fixture(autouse=True)
def _probe() -> Iterator[None]:
    """Open every probe gate after each test, so nothing it held stays stuck."""
    from tests.robustness import probe

    probe.reset()
    yield
    probe.reset()
