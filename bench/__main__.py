"""``python -m bench`` (``tox -e bench``): run every benchmark and print its ratios.

Each ``bench_*`` module exposes ``run() -> list[tuple[str, figure]]`` where a figure is
one ratio or a list of ratios from repetitions (printed as median, min and max, with
the issue's target when the label carries one).  Pass module names (``dispatch``,
``shell`` ...) to run only those.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Sequence
from pathlib import Path

from bench._timing import spread


def format_figure(label: str, value: float | Sequence[float]) -> str:
    """``label: ratio`` or ``label: median (min .. max, n runs)``."""
    if isinstance(value, (int, float)):
        return f"{label}: {value:.3f}"
    low, middle, high = spread(value)
    return f"{label}: median {middle:.3f} (min {low:.3f}, max {high:.3f}, {len(value)} runs)"


def main(argv: list[str]) -> int:
    """Run the selected benchmarks; print ``label: ratio`` lines."""
    names = sorted(
        m.name.removeprefix("bench_")
        for m in pkgutil.iter_modules([str(Path(__file__).parent)])
        if m.name.startswith("bench_")
    )
    for name in argv or names:
        print(f"[{name}]", flush=True)
        module = importlib.import_module(f"bench.bench_{name}")
        for label, value in module.run():
            print(format_figure(label, value), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
