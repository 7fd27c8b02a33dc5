"""The look before the entry-point scan: ``importlib_metadata`` is imported and asked
only when an installed distribution may declare one of our groups, and the look never
hides a plugin ``importlib_metadata`` would find (real metadata directories on a real
search path, compared with what ``importlib_metadata`` itself reads there)."""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

import importlib_metadata
import pytest

import hermes_hooks
from hermes_hooks.plugins.entry_points import may_declare
from hermes_hooks.plugins.source import ENTRY_POINT_GROUPS


def dist(root: Path, folder: str, entry_points: str | bytes | None) -> Path:
    """A metadata directory ``root/folder`` with METADATA and ``entry_points.txt``."""
    path = root / folder
    path.mkdir(parents=True)
    name = folder.rpartition(".")[0].partition("-")[0]
    (path / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    if isinstance(entry_points, bytes):
        (path / "entry_points.txt").write_bytes(entry_points)
    elif entry_points is not None:
        (path / "entry_points.txt").write_text(entry_points, encoding="utf-8")
    return path


def found_by_importlib_metadata(paths: list[str]) -> list[tuple[str, str]]:
    """(group, name) of our groups' entry points, as ``importlib_metadata`` reads ``paths``."""
    return sorted(
        (ep.group, ep.name)
        for d in importlib_metadata.distributions(path=paths)
        for ep in d.entry_points
        if ep.group in ENTRY_POINT_GROUPS
    )


@pytest.fixture
def search_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """``sys.path`` replaced by two real directories (one of them missing)."""
    site = tmp_path / "site"
    site.mkdir()
    # importlib_metadata imports some modules on first use (zipp for zip files): let
    # it do so while its site-packages is still on the path.
    primer = tmp_path / "primer.zip"
    with zipfile.ZipFile(primer, "w") as zf:
        zf.writestr("primer-1.0.dist-info/entry_points.txt", "[x]\ny = z\n")
    assert found_by_importlib_metadata([str(primer)]) == []
    paths = [str(site), str(tmp_path / "missing")]
    monkeypatch.setattr(sys, "path", list(paths))
    return paths


def test_distributions_without_our_groups_are_not_scanned(
    tmp_path: Path, search_path: list[str]
) -> None:
    site = tmp_path / "site"
    dist(site, "tool-1.0.dist-info", "[console_scripts]\ntool = tool:main\n")
    # Our group names as values, keys or comments are not sections.
    dist(site, "hermes_hooks-0.1.0.dist-info", "[pytest11]\nhermes_hooks = hermes_hooks.testing\n")
    dist(site, "other-2.0.dist-info", "# [hermes_agent.plugins]\n[x]\nhermes_agent.plugins = m\n")
    dist(site, "bare-1.0.dist-info", None)  # no entry_points.txt at all
    (site / "legacy-1.0.egg-info").write_text("Name: legacy\n")  # an old egg-info file
    assert found_by_importlib_metadata(search_path) == []
    assert may_declare(ENTRY_POINT_GROUPS) is False


def test_the_hermes_agent_bridge_hermes_hooks_declares_is_not_a_reason_to_scan(
    tmp_path: Path, search_path: list[str]
) -> None:
    # hermes-hooks' own metadata declares the bridge in hermes-agent's group; discovery
    # never loads it, so a section holding only it declares nothing to scan for.
    bridge = "[hermes_agent.plugins]\nhermes-hooks = hermes_hooks.integrations.hermes_agent\n"
    dist(tmp_path / "site", "hermes_hooks-0.1.0.dist-info", "[pytest11]\nx = y\n\n" + bridge)
    assert found_by_importlib_metadata(search_path) == [("hermes_agent.plugins", "hermes-hooks")]
    assert may_declare(ENTRY_POINT_GROUPS) is False
    dist(tmp_path / "site", "plug-1.0.dist-info", bridge + "# a comment\nplug = plug:register\n")
    assert may_declare(ENTRY_POINT_GROUPS) is True


@pytest.mark.parametrize(
    ("folder", "text"),
    [
        ("plug-1.0.dist-info", "[hermes_agent.plugins]\nplug = plug\n"),
        ("Plug-1.0.DIST-INFO", "[console_scripts]\nx = y:z\n\n  [hermes_hooks]  \nplug = plug\n"),
        ("plug-1.0.egg-info", "[hermes_hooks]\nplug = plug\n"),
        ("plug-1.0.dist-info", "[[hermes_hooks]]\nplug = plug\n"),  # read as hermes_hooks
    ],
)
def test_a_distribution_declaring_one_of_our_groups_is_scanned(
    tmp_path: Path, search_path: list[str], folder: str, text: str
) -> None:
    dist(tmp_path / "site", folder, text)
    assert len(found_by_importlib_metadata(search_path)) == 1
    assert may_declare(ENTRY_POINT_GROUPS) is True


def test_what_it_cannot_read_itself_is_left_to_importlib_metadata(
    tmp_path: Path, search_path: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    dist(site, "tool-1.0.dist-info", "[console_scripts]\ntool = tool:main\n")
    assert may_declare(ENTRY_POINT_GROUPS) is False
    # A zip file on the path may hold metadata directories.
    archive = tmp_path / "plugins.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("plug-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: plug\n")
        zf.writestr("plug-1.0.dist-info/entry_points.txt", "[hermes_hooks]\nplug = plug\n")
    monkeypatch.setattr(sys, "path", [*search_path, str(archive)])
    assert found_by_importlib_metadata(sys.path) == [("hermes_hooks", "plug")]
    assert may_declare(ENTRY_POINT_GROUPS) is True
    # An egg directory on the path.
    egg = tmp_path / "old.egg"
    egg.mkdir()
    monkeypatch.setattr(sys, "path", [*search_path, str(egg)])
    assert may_declare(ENTRY_POINT_GROUPS) is True
    # A file that is not UTF-8 text.
    monkeypatch.setattr(sys, "path", list(search_path))
    dist(site, "odd-1.0.dist-info", b"[x]\ny = \xff\n")
    assert may_declare(ENTRY_POINT_GROUPS) is True


def test_an_unknown_metadata_finder_is_asked_through_importlib_metadata(
    tmp_path: Path, search_path: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    class Finder:
        """A finder that knows distributions of its own (as an app bundle may)."""

        @staticmethod
        def find_spec(*args: object) -> None:
            return None

        @staticmethod
        def find_distributions(context: object = None) -> list[object]:
            return []

    assert may_declare(ENTRY_POINT_GROUPS) is False
    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, Finder()])
    assert may_declare(ENTRY_POINT_GROUPS) is True


def test_load_skips_importlib_metadata_when_nothing_declares_our_groups(
    tmp_path: Path, home: Path, search_path: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    dist(tmp_path / "site", "tool-1.0.dist-info", "[console_scripts]\ntool = tool:main\n")
    # Importing importlib_metadata would now fail: the load must not try.
    monkeypatch.setitem(sys.modules, "importlib_metadata", None)
    hooks = hermes_hooks.load(home, entry_points=True)
    try:
        assert hooks.sources["python"].records() == []
    finally:
        hooks.close()


def test_discovery_never_loads_the_bridge_and_knows_its_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The bridge's entry point, as hermes-hooks' own metadata declares it, next to a
    # plugin of the same group: a home enabling both loads only the plugin, and the
    # bridge's name (which the agent needs in plugins.enabled) is no unknown name.
    site = tmp_path / "site"
    (site / "plug_mod").mkdir(parents=True)
    (site / "plug_mod" / "__init__.py").write_text(
        "def register(ctx):\n    ctx.register_hook('post_tool_call', lambda **kw: None)\n"
    )
    dist(
        site,
        "bridgeholder-1.0.dist-info",
        "[hermes_agent.plugins]\nhermes-hooks = hermes_hooks.integrations.hermes_agent\n"
        "plug = plug_mod\n",
    )
    monkeypatch.syspath_prepend(str(site))
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text("plugins:\n  enabled: [hermes-hooks, plug]\n")
    with hermes_hooks.load(home) as hooks:
        python = hooks.sources["python"]
        mine = [(r.key, r.state) for r in python.records() if r.distribution == "bridgeholder"]
        assert mine == [("plug", "loaded")]
        assert python.findings == []
