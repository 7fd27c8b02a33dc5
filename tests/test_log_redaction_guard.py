"""The redacting filter is on our loggers before anything of ours can log, though
``import hermes_hooks`` does not import ``logging``: every module that logs gets its
logger from ``hermes_hooks._log.get_logger``, which attaches the filter when it loads.
Checked statically (no module asks ``logging`` for a logger by name) and in fresh
interpreters (each module that logs, imported alone, redacts through every logger)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

import hermes_hooks
from hermes_hooks._log import REDACTED_LOGGERS, get_logger
from tests.helpers import importable

REPO = Path(__file__).resolve().parents[1]
PACKAGE = Path(hermes_hooks.__file__).resolve().parent
TOKEN = "sk-ant-api03-" + "Q7" * 20

# Lists our loggers that lack the filter, logs TOKEN through each and lists what reached
# a root handler with TOKEN in it.  It imports nothing of ours itself.
_CHECK = f"""
import logging
seen = []
handler = logging.Handler()
handler.emit = lambda record: seen.append(handler.format(record))
names = {REDACTED_LOGGERS!r}
missing = [n for n in names if not any(
    type(f).__name__ == "RedactingFilter" for f in logging.getLogger(n).filters)]
logging.getLogger().addHandler(handler)
for name in names:
    logging.getLogger(name).warning("key %s", {TOKEN!r})
print("missing", missing)
print("leaked", [line for line in seen if {TOKEN!r} in line])
"""
_ALL_REDACTED = "missing []\nleaked []\n"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _named_logger_calls(tree: ast.AST) -> list[int]:
    """Lines of ``logging.getLogger(<name>)`` (the root logger, with no name, is not ours)."""
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "getLogger"
        and (node.args or node.keywords)
    ]


def _loggers_of(tree: ast.AST) -> bool:
    return any(
        isinstance(node, ast.Call) and getattr(node.func, "id", None) == "get_logger"
        for node in ast.walk(tree)
    )


MODULES = sorted(PACKAGE.rglob("*.py"))


def test_no_module_asks_logging_for_a_named_logger() -> None:
    offenders = {
        _module_name(path): lines
        for path in MODULES
        if path.name != "_log.py"
        and (lines := _named_logger_calls(ast.parse(path.read_text(encoding="utf-8"))))
    }
    assert offenders == {}  # use hermes_hooks._log.get_logger, which redacts


def test_get_logger_refuses_a_name_it_does_not_redact() -> None:
    assert get_logger("hermes_hooks.shell").name == "hermes_hooks.shell"
    with pytest.raises(ValueError) as raised:
        get_logger("hermes_hooks.nope")
    assert str(raised.value) == (
        "'hermes_hooks.nope' is not a redacted logger; add it to REDACTED_LOGGERS"
    )


def _python(code: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env=env,
    )


def test_the_package_import_loads_no_logging() -> None:
    out, err = _python("import sys, hermes_hooks\nprint('logging' in sys.modules)").communicate(
        timeout=60
    )
    assert (out, err) == ("False\n", "")


def test_every_module_that_logs_redacts_when_imported_alone() -> None:
    modules = [
        _module_name(path)
        for path in MODULES
        if path.name != "_log.py" and _loggers_of(ast.parse(path.read_text(encoding="utf-8")))
        if importable(_module_name(path))
    ]
    assert "hermes_hooks.config" in modules and "hermes_hooks.shell.hook" in modules
    answers: dict[str, str] = {}
    for start in range(0, len(modules), 4):  # a few interpreters at a time
        running = [
            (name, _python(f"import {name}\n{_CHECK}")) for name in modules[start : start + 4]
        ]
        for name, process in running:
            out, err = process.communicate(timeout=120)
            answers[name] = out if process.returncode == 0 else err
    assert answers == dict.fromkeys(modules, _ALL_REDACTED)
