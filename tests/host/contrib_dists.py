"""Make the contrib plugin packages loadable through their entry points in any test run.

tox installs them (``tox.ini``); a bare ``python3 -m pytest`` on a machine where they are
not installed gets the same entry points from the packages' own ``pyproject.toml``: a
minimal ``.dist-info`` per missing package in a temporary directory on ``sys.path``, and
the package source directory beside it.  Installed packages are left alone.
"""

from __future__ import annotations

import atexit
import importlib
import re
import shutil
import sys
import tempfile
from pathlib import Path

import importlib_metadata

CONTRIB = Path(__file__).resolve().parents[2] / "contrib" / "python-plugins"
_ENTRY = re.compile(r'^(\S+) = "([^"]+)"', re.M)
_SECTION = re.compile(r'^\[project\.entry-points\."?([^"\]]+)"?\]\n((?:[^\[\n].*\n?)*)', re.M)


def _field(text: str, key: str) -> str:
    match = re.search(rf'^{key} = "([^"]+)"', text, re.M)
    assert match is not None, f"pyproject.toml has no {key}"
    return match[1]


def provide(root: Path) -> list[str]:
    """Write the dist-info of every contrib package that is not installed into ``root``;
    return the ``sys.path`` entries that make them importable and discoverable."""
    paths: list[str] = []
    for package in sorted(p for p in CONTRIB.iterdir() if (p / "pyproject.toml").exists()):
        text = (package / "pyproject.toml").read_text(encoding="utf-8")
        name, version = _field(text, "name"), _field(text, "version")
        try:
            importlib_metadata.distribution(name)
            continue
        except importlib_metadata.PackageNotFoundError:
            pass
        info = root / f"{name.replace('-', '_')}-{version}.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8"
        )
        groups = "".join(
            f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in _ENTRY.findall(body)) + "\n"
            for group, body in _SECTION.findall(text)
        )
        (info / "entry_points.txt").write_text(groups, encoding="utf-8")
        paths.append(str(package))
    if paths:
        paths.insert(0, str(root))
    return paths


_provided: list[str] | None = None


def ensure() -> None:
    """Provide the missing contrib packages once per process (called when a conftest is
    imported: test modules import the plugin packages at collection time)."""
    global _provided
    if _provided is not None:
        return
    root = Path(tempfile.mkdtemp(prefix="hermes-contrib-dists-"))
    atexit.register(shutil.rmtree, root, True)
    _provided = provide(root)
    sys.path[:0] = _provided
    importlib.invalidate_caches()
