"""Contrib plugin tests: make the packages loadable even when they are not installed."""

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # so the shared helper imports from any runner
    sys.path.insert(0, str(REPO))

from tests.host.contrib_dists import ensure  # noqa: E402

ensure()
