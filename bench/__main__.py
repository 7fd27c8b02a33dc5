"""``python -m bench`` (``tox -e bench``): run every benchmark and print its ratios.

Each ``bench_*`` module exposes ``run() -> list[tuple[str, float]]``.  Pass module
names (``dispatch``, ``shell`` ...) to run only those.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    """Run the selected benchmarks; print ``label: ratio`` lines."""
    names = sorted(
        m.name.removeprefix("bench_")
        for m in pkgutil.iter_modules([str(Path(__file__).parent)])
        if m.name.startswith("bench_")
    )
    for name in argv or names:
        print(f"[{name}]")
        module = importlib.import_module(f"bench.bench_{name}")
        for label, value in module.run():
            print(f"{label}: {value:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
