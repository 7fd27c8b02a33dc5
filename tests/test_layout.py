"""The test suite's own layout: helpers live in ``helpers`` modules, never imported
from a ``conftest`` (pytest loads conftests itself; importing one runs it twice under
two module names)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_CONFTEST_IMPORT = re.compile(
    r"^\s*(?:from\s+[\w.]*conftest\s+import|import\s+[\w.]*conftest)", re.M
)


def test_no_test_imports_from_a_conftest() -> None:
    offenders = [
        str(path.relative_to(ROOT))
        for folder in ("tests", "contrib", "bench")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if _CONFTEST_IMPORT.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []
