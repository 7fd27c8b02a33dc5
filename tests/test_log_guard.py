"""Redaction without importing ``logging`` up front: ``import hermes_hooks`` leaves
``logging`` unloaded, and whoever imports it later (us or anyone) finds the redacting
filter already on every one of our loggers.  Each case runs in a fresh interpreter,
since this test run imported ``logging`` long ago."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import hermes_hooks
from hermes_hooks._log import REDACTED_LOGGERS

REPO = Path(__file__).resolve().parents[1]
PACKAGE = Path(hermes_hooks.__file__).resolve().parent
TOKEN = "sk-ant-api03-" + "Q7" * 20

# Prints which of the loggers we redact lack the filter, then logs TOKEN through each
# and prints what reached a handler on the root logger with TOKEN in it.  It imports
# nothing of ours: importing ``_log`` would attach the filter itself.
_CHECK = f"""
import logging, sys
REDACTED_LOGGERS = {REDACTED_LOGGERS!r}
seen = []
handler = logging.Handler()
handler.emit = lambda record: seen.append(handler.format(record))
missing = [n for n in REDACTED_LOGGERS if not any(
    type(f).__name__ == "RedactingFilter" for f in logging.getLogger(n).filters)]
logging.getLogger().addHandler(handler)
for name in REDACTED_LOGGERS:
    logging.getLogger(name).warning("key %s", {TOKEN!r})
print("missing", missing)
print("leaked", [line for line in seen if {TOKEN!r} in line])
print("lines", len(seen) == len(REDACTED_LOGGERS))
"""
_ALL_REDACTED = "missing []\nleaked []\nlines True\n"


def _python(code: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_import_leaves_logging_unloaded_and_a_later_import_attaches_the_filter() -> None:
    code = (
        "import sys\nimport hermes_hooks\n"
        "print('after import', 'logging' in sys.modules, 'hermes_hooks._log' in sys.modules)\n"
        "import logging\n"
        "print('after logging', 'hermes_hooks._log' in sys.modules)\n"
        # logging looks as if nothing came between: its real loader, its source.
        "import inspect\n"
        "print('loader', type(logging.__loader__).__name__,"
        " logging.__spec__.loader is logging.__loader__,"
        " 'class Logger(' in inspect.getsource(logging))\n"
    )
    assert _python(code + _CHECK) == (
        "after import False False\nafter logging True\nloader SourceFileLoader True True\n"
        + _ALL_REDACTED
    )


@pytest.mark.parametrize(
    "first",
    [
        "import logging\nimport hermes_hooks",  # a host that had logging before us
        "import hermes_hooks\nimport logging.handlers",  # a submodule first
        "import hermes_hooks\nfrom logging import getLogger",
        "import hermes_hooks\nimport importlib\nimportlib.import_module('logging')",
    ],
)
def test_every_way_logging_arrives_gets_the_filter(first: str) -> None:
    assert _python(first + _CHECK) == _ALL_REDACTED


def test_a_failing_attach_fails_the_import_of_logging() -> None:
    # Fail closed: a process must not log through our loggers without the filter.
    code = (
        "import sys\nimport hermes_hooks\nfrom hermes_hooks import _log_guard\n"
        "def broken():\n    raise RuntimeError('no filter')\n"
        "_log_guard._attach = broken\n"
        "try:\n    import logging\nexcept RuntimeError as exc:\n    print('refused', exc)\n"
        "print('loaded', 'logging' in sys.modules)\n"
    )
    assert _python(code) == "refused no filter\nloaded False\n"


def test_arming_twice_adds_one_finder() -> None:
    code = (
        "import sys\nimport hermes_hooks\nfrom hermes_hooks import _log_guard\n"
        "_log_guard.arm(); _log_guard.arm()\n"
        "print(sum(isinstance(f, _log_guard._AttachOnLoggingImport) for f in sys.meta_path))\n"
    )
    assert _python(code) == "1\n"


def _logging_modules() -> list[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if re.search(r"\bgetLogger\(", path.read_text(encoding="utf-8")):
            parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def test_every_module_that_logs_redacts_when_imported_alone() -> None:
    # Whatever a process imports first, the filter is on before a line can be logged.
    modules = [m for m in _logging_modules() if m != "hermes_hooks._log"]
    assert "hermes_hooks.config" in modules and "hermes_hooks.adapters.shell.hook" in modules
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    answers = {}
    for start in range(0, len(modules), 4):  # a few interpreters at a time
        running = [
            (
                name,
                subprocess.Popen(
                    [sys.executable, "-c", f"import {name}\n{_CHECK}"],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                    cwd=REPO,
                    env=env,
                ),
            )
            for name in modules[start : start + 4]
        ]
        for name, process in running:
            out, err = process.communicate(timeout=120)
            answers[name] = out if process.returncode == 0 else err
    assert answers == dict.fromkeys(modules, _ALL_REDACTED)
