"""Whether an approval still covers what its command runs now (:func:`refusal`), and
how the script compares with the approval's baseline (:func:`drift`, for ``list`` and
``doctor``).

An approval pins the files its command led to (:mod:`.pin`, :mod:`.consent`).  A firing
runs only while the command leads to the same files: the same absolute paths, or, for
the files the config names relative to the home, the same paths inside the home.  In
the home the approval was made in, or a replay's copy of it, that is all (edits to an
approved script are trusted and only flagged); in another home (moved, or cloned with
its allowlist) the script must also still hold the bytes that were approved.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path

from hermes_hooks.shell.consent import Approval, Baseline, file_state
from hermes_hooks.shell.pin import Resolution, resolve

__all__ = ["Drift", "drift", "refusal", "sha256_of"]


def refusal(
    approval: Approval,
    now: Resolution | None,
    identity: str | os.PathLike[str] | None = None,
) -> str | None:
    """Why an approved command must not run now, or None when it may.

    A pinned approval runs only while the command resolves to the pinned files: the
    same absolute paths, or the same paths inside the home (:meth:`Approval.in_home`)
    when ``now`` was resolved in a copy of ``identity`` (the home being loaded).  Those
    approved in another home than ``identity`` run only while the script holds the
    bytes approved.  An unpinned one runs only when its text and home alone fix the
    files: trusting the files it finds now would approve whatever ``PATH`` (or, without
    a home, the current directory) offers, so it needs re-approval instead
    (re-approving pins it).  Messages name the files checked, as absolute paths.
    """
    if now is None:
        return None  # a command that cannot be split is never registered
    then = approval.resolution
    if then is None:
        if not now.depends_on:
            return None
        return (
            f"it was approved without recording which file it runs, and it depends on "
            f"{' and '.join(now.depends_on)} (now {now.describe()}); it needs re-approval"
        )
    if now == then:
        return None
    if not _same_in_home(approval, now, identity):
        changed = now.changed_since(then)
        because = f" ({' and '.join(changed)} changed)" if changed else ""
        return (
            f"it resolved to {then.describe()} when approved and resolves to "
            f"{now.describe()} now{because}"
        )
    if not approval.moved(identity):
        return None  # the same home, or a copy of it: as an absolute pin, edits trusted
    home = approval.home_path
    if approval.script_sha256 is None or now.script is None:
        return (
            f"it was approved in the home {home} with no script hash recorded, so "
            f"{now.describe()} in this home cannot be shown to be the file approved"
        )
    found = sha256_of(now.script)
    if found == approval.script_sha256.lower():
        return None
    return (
        f"it was approved in the home {home} as {then.describe()} (sha256 "
        f"{approval.script_sha256}), and {now.script} here "
        + (f"has other bytes (sha256 {found})" if found else "cannot be read")
    )


def _same_in_home(
    approval: Approval, now: Resolution, identity: str | os.PathLike[str] | None
) -> bool:
    """Whether ``now`` names, file for file, what ``approval`` pinned: each path the
    same inside the home, or (for one not inside it) the same absolute path."""
    pinned = approval.in_home(identity)
    then = approval.resolution
    assert then is not None
    for was, path, rel_then, rel_now in zip(
        (then.program, then.script), (now.program, now.script), pinned, now.in_home, strict=True
    ):
        if rel_then is not None or rel_now is not None:
            if rel_then != rel_now and was != path:
                return False
        elif was != path:
            return False
    return True


@functools.lru_cache(maxsize=256)
def _sha256_cached(path: str, signature: tuple[int, ...]) -> str | None:
    return file_state(Path(path))[1]


def sha256_of(path: str) -> str | None:
    """The sha256 of the file at ``path`` now (None if unreadable), hashed again only
    when its ``stat`` changes: a home away from where it was approved checks its
    scripts at every firing."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    signature = (st.st_ino, st.st_dev, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    return _sha256_cached(path, signature)


@dataclass(frozen=True)
class Drift:
    """How a script compares with its approval baseline (``list``, ``doctor``)."""

    current: Baseline
    mtime_recorded: bool
    mtime_changed: bool  # only meaningful when mtime_recorded
    content_changed: bool | None  # None: no hash recorded, or the script is unreadable
    missing: bool  # the script is gone
    refused: str | None = None  # why the command is refused now (:func:`refusal`)
    #: The home the approval was made in, when it is not this one (a copy, a clone).
    moved_from: str | None = None


def drift(
    approval: Approval,
    base: str | os.PathLike[str] | None = None,
    identity: str | os.PathLike[str] | None = None,
    variables: tuple[tuple[str, str], ...] = (),
) -> Drift:
    """Compare ``approval`` 's baseline with the script as it is now (the pinned
    script when the approval pins one: the file that was approved, or its counterpart
    in this copy of the home); ``base`` is the home relative paths resolve against and
    ``identity`` the home it is (the same, unless ``base`` is a replay's copy);
    ``variables``: the entry's, written out as its runner does."""
    identity = base if identity is None else identity
    resolution = resolve(approval.command, base, variables)
    pinned = approval.resolution
    script = pinned.script if pinned else None
    relative = approval.in_home(identity)[1]
    if relative is not None and resolution is not None and resolution.in_home[1] == relative:
        script = resolution.script  # the pinned file, found in this home
    script = script or (resolution.script if resolution else None)
    current = Baseline(None, None, None, resolution)
    if script is not None:
        current = Baseline(Path(script), *file_state(Path(script)), resolution)
    recorded = approval.script_mtime_at_approval is not None
    missing = current.mtime is None
    mtime_changed = recorded and not missing and current.mtime != approval.script_mtime_at_approval
    content_changed = None
    if approval.script_sha256 is not None and current.sha256 is not None:
        content_changed = current.sha256 != approval.script_sha256.lower()
    refused = refusal(approval, current.resolution, identity)
    moved_from = approval.home_path if approval.moved(identity) else None
    return Drift(current, recorded, mtime_changed, content_changed, missing, refused, moved_from)
