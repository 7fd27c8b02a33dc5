"""What every proxy test starts from."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """An empty Hermes home in the test's own folder."""
    path = tmp_path / "home"
    path.mkdir()
    return path
