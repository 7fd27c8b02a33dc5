"""The first load that approves many shell hooks does the allowlist work once, not once
per hook: one locked write (one fsync, one rename) and a fixed number of reads, the
same for 200 hooks as for 1,000.  Counted on the real file operations (wrapped, still
performed), never timed.
"""

from __future__ import annotations

import os
import pathlib
from collections import Counter
from pathlib import Path

import pytest

from hermes_hooks import load
from hermes_hooks.shell.consent import ALLOWLIST_NAME
from tests.shell.helpers import allowlist_document, sh, write_config, write_script


def many_hooks(home: Path, count: int) -> None:
    """``count`` distinct observer commands (one script, a distinct argument each)."""
    write_script(home / "agent-hooks" / "note.sh", sh("cat >/dev/null"))
    entries = [{"command": f"agent-hooks/note.sh {n}"} for n in range(count)]
    write_config(home, {"post_tool_call": entries}, plugins={"enabled": []})


@pytest.fixture
def allowlist_io(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Counts of the allowlist's reads, renames into place and fsyncs (all performed)."""
    counts: Counter[str] = Counter()
    read_bytes, replace, fsync = pathlib.Path.read_bytes, os.replace, os.fsync

    def counted_read(self: Path) -> bytes:
        if self.name == ALLOWLIST_NAME:
            counts["reads"] += 1
        return read_bytes(self)

    def counted_replace(src: str, dst: str | os.PathLike[str], **kwargs: object) -> None:
        if os.path.basename(os.fspath(dst)) == ALLOWLIST_NAME:
            counts["writes"] += 1
        replace(src, dst, **kwargs)  # type: ignore[arg-type]

    def counted_fsync(fd: int) -> None:
        counts["fsyncs"] += 1
        fsync(fd)

    monkeypatch.setattr(pathlib.Path, "read_bytes", counted_read)
    monkeypatch.setattr(os, "replace", counted_replace)
    monkeypatch.setattr(os, "fsync", counted_fsync)
    return counts


@pytest.mark.parametrize("count", [200, 1000])
def test_approving_n_hooks_writes_the_allowlist_once(
    tmp_path: Path, allowlist_io: Counter[str], count: int
) -> None:
    home = tmp_path / f"home-{count}"
    home.mkdir()
    many_hooks(home, count)

    hooks = load(home, accept_hooks=True, entry_points=False)
    try:
        first = dict(allowlist_io)
        commands = [a["command"] for a in allowlist_document(home)["approvals"]]
        assert commands == [f"agent-hooks/note.sh {n}" for n in range(count)]
        names = [cb.name for cb in hooks.manager.callbacks("post_tool_call")]
        assert names == [
            f"shell hooks.post_tool_call[{n}] agent-hooks/note.sh {n}" for n in range(count)
        ]
    finally:
        hooks.close()
    # One write, whatever the number of hooks; the reads do not grow with it either.
    assert first == {"reads": 2, "writes": 1, "fsyncs": 1}

    allowlist_io.clear()
    load(home, entry_points=False).close()  # everything approved: nothing to write
    assert dict(allowlist_io) == {"reads": 1}
