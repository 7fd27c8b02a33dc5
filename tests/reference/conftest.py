"""Collects every comparison so the run closes with its figures."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from typing import Any

from tests.reference.compare import COMPARED
from tests.reference.plugins import REAL

# hermes-agent fixes some paths (its state.db among them) from HERMES_HOME when a module
# is first imported, which may happen while no test has set it: point it at a folder of
# this run's own before any test imports the agent, so nothing lands in the real
# ~/.hermes. Each test still sets its own home.
_RUN_HOME = tempfile.mkdtemp(prefix="hermes-reference-home-")
os.environ.setdefault("HERMES_HOME", _RUN_HOME)
atexit.register(shutil.rmtree, _RUN_HOME, ignore_errors=True)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Print the closing figures: plugins compared, identical, listed differences."""
    if not COMPARED:
        return
    identical = sum(1 for c in COMPARED if not c.differences)
    differing = len(COMPARED) - identical
    listed = sum(len(c.differences) for c in COMPARED)
    real = sum(1 for c in COMPARED if c.plugin in REAL)
    terminalreporter.section("reference conformance")
    for c in COMPARED:
        state = "identical" if not c.differences else f"{len(c.differences)} difference(s)"
        terminalreporter.write_line(f"  {c.plugin}: {state}")
        for path in c.differences:
            terminalreporter.write_line(f"      {path}")
    terminalreporter.write_line(
        f"plugins compared: {len(COMPARED)} ({real} real, {len(COMPARED) - real} fixtures), "
        f"identical: {identical}, with listed differences: {differing} "
        f"({listed} differing values, each listed in docs/compatibility.md)"
    )
