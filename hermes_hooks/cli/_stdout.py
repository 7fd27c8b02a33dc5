"""Keeping a command's stdout for its report while hooks run.

Hooks print: a plugin's ``print``, a gateway handler's debug line, a child process
writing to file descriptor 1.  A command whose stdout is a report (``--json`` above
all) sends all of that to stderr while the hooks run, and writes the report to the
real stdout, which :func:`hook_output_to_stderr` hands back.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

__all__ = ["hook_output_to_stderr"]


@contextmanager
def hook_output_to_stderr() -> Iterator[IO[str]]:
    """Send everything hooks print (Python ``print``, child processes writing to file
    descriptor 1) to stderr inside the block; yield the real stdout for the report."""
    stdout = sys.stdout
    try:
        fd = stdout.fileno()
    except (AttributeError, OSError, ValueError):
        fd = -1
    if fd != 1:  # not the process's stdout (captured in tests): Python level only
        sys.stdout = sys.stderr
        try:
            yield stdout
        finally:
            sys.stdout = stdout
        return
    stdout.flush()
    saved = os.dup(1)
    report = os.fdopen(saved, "w", encoding="utf-8", closefd=True)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        yield report
    finally:
        report.flush()
        sys.stdout = stdout
        os.dup2(saved, 1)
        report.close()
