"""``hermes-hooks import-claude [SETTINGS.json ...]``: Claude Code hooks as our entries.

Reads the ``hooks`` blocks of Claude Code settings files (by default the user's
``~/.claude/settings.json`` and the current project's ``.claude/settings.json`` and
``.claude/settings.local.json``), plugin directories and marketplace checkouts, and
turns every handler into a ``hooks:`` entry with ``dialect: claude-code``, under our
event name (``PostToolUseFailure`` keeps its own, since ``post_tool_call`` with this
dialect means ``PostToolUse``).

Commands stay the same wherever they can run without a shell.  ``$CLAUDE_PROJECT_DIR``
(and a plugin's ``${CLAUDE_PLUGIN_ROOT}``) becomes the directory it names when the
settings file says which; a relative script path of a project file is made absolute.
A command that needs a shell (pipes, redirections, variables, globs) runs from a small
wrapper script under ``<home>/agent-hooks/claude-code/``, so consent and the edit
checks of ``list`` and ``doctor`` see a real file.

Without ``--write`` the YAML is printed (with the report as comments); with it the
entries are added to ``<home>/config.yaml`` (its content and comments kept, a backup
beside it) and the wrappers are written.  Handlers Hermes cannot run (``http``,
``mcp_tool``, options it cannot honour) and events it does not have are listed with
the reason.  Nothing is approved: the output ends with the ``hermes-hooks
approve`` lines to run after reviewing each script.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_hooks.claude.import_settings import (
    approve_line,
    consent_key,
    default_files,
    describe_path,
    run_import,
)
from hermes_hooks.cli import EXIT_FAILURE, EXIT_OK
from hermes_hooks.cli._run import load_home, print_json
from hermes_hooks.cli.config_edit import ConfigEditError, add_entries, render_items

if TYPE_CHECKING:
    from hermes_hooks.claude.import_settings import Converted, Import

#: ``--write`` creates the home, so a missing ``--home`` is not an error here.
CREATES_HOME = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``[SETTINGS.json ...] [--write]``."""
    parser.add_argument(
        "settings",
        nargs="*",
        metavar="SETTINGS.json|PLUGIN|MARKETPLACE",
        help="Claude Code settings files, plugin directories (.claude-plugin/plugin.json) or "
        "marketplace checkouts (.claude-plugin/marketplace.json); default: "
        "~/.claude/settings.json and the current directory's .claude/settings.json and "
        ".claude/settings.local.json",
    )
    parser.add_argument(
        "--write",
        action="store_true",
        help="add the entries to <home>/config.yaml (content and comments kept, a backup "
        "beside it) and write the wrapper scripts; nothing is approved",
    )


# -- output -------------------------------------------------------------------------------


def render_yaml(result: Import) -> str:
    """The new entries as a ``hooks:`` block, with the report as YAML comments."""

    new = [c for c in result.entries if not c.present]
    lines = ["# Claude Code hooks converted by hermes-hooks import-claude."]
    lines += [f"# From {f.path}" for f in result.files if f.status == "read"]
    body = ""
    if new:
        keys: dict[str, list[Converted]] = {}
        for converted in new:
            keys.setdefault(converted.key, []).append(converted)
        body = "hooks:\n" + "".join(
            f"  {key}:\n" + render_items([c.entry for c in items], 4) for key, items in keys.items()
        )
    report = report_lines(result)
    return (
        "\n".join(lines)
        + "\n"
        + body
        + "".join(f"# {line}\n" if line else "#\n" for line in report)
    )


def report_lines(result: Import) -> list[str]:
    """What was not converted, notes per entry, wrappers, and how to approve."""

    lines: list[str] = []
    for source in result.files:
        if source.status != "read" and (source.explicit or source.status != "not found"):
            lines.append(f"✗ {source.path} {source.status}")
    new = [c for c in result.entries if not c.present]
    present = [c for c in result.entries if c.present]
    if present:
        lines.append(f"Already in config.yaml ({len(present)}):")
        lines += [f"  = {c.origin}" for c in present]
    if result.skipped:
        lines.append("")
        lines.append(f"Not converted ({len(result.skipped)}):")
        lines += [f"  ✗ {s.origin}: {s.reason}" for s in result.skipped]
    noted = [c for c in new if c.notes]
    if noted:
        lines.append("")
        lines.append("Notes:")
        for converted in noted:
            lines.append(f"  {converted.origin} → {converted.key}: {consent_key(converted.entry)}")
            lines += [f"    - {note}" for note in converted.notes]
    wrappers = [c.wrapper for c in new if c.wrapper is not None]
    if wrappers:
        lines.append("")
        lines.append("Wrapper scripts:")
        for wrapper in wrappers:
            state = {
                "new": "written with --write",
                "exists": "already there",
                "differs": "already there with other content: left as is, review it",
                "written": "written",
            }[wrapper.state]
            lines.append(f"  {wrapper.path} ({state})")
    if new:
        lines.append("")
        lines.append("Nothing runs until approved. Review each script, then:")
        lines += [f"  {approve_line(c)}" for c in new]
    return lines


# -- writing ------------------------------------------------------------------------------


def _atomic_write(path: Path, text: str, mode: int) -> None:

    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def write_import(result: Import, home: Path) -> tuple[Path, Path | None, bool]:
    """Write the wrappers, then add the new entries to ``config.yaml``.

    Returns (config path, backup path or None, whether the comments of ``hooks:`` were
    kept).  Raises ``OSError`` or :class:`~hermes_hooks.cli.config_edit.ConfigEditError`.
    """

    new = [c for c in result.entries if not c.present]
    for converted in new:
        data = converted.entry.get("plugin_data")
        if isinstance(data, str):  # Claude Code creates a plugin's data directory too
            Path(data).mkdir(parents=True, exist_ok=True)
        wrapper = converted.wrapper
        if wrapper is not None and wrapper.state == "new":
            wrapper.path.parent.mkdir(parents=True, exist_ok=True)
            _atomic_write(wrapper.path, wrapper.content, 0o755)
            wrapper.state = "written"
    path = home / "config.yaml"
    try:
        text = path.read_text(encoding="utf-8")
        mode = path.stat().st_mode & 0o777
    except FileNotFoundError:
        text, mode = "", 0o600
    additions: dict[str, list[dict[str, Any]]] = {}
    for converted in new:
        additions.setdefault(converted.key, []).append(converted.entry)
    edit = add_entries(text, additions)
    home.mkdir(parents=True, exist_ok=True)
    backup = None
    if text:
        stamp = datetime.now(tz=timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        backup = path.with_name(f"config.yaml.bak-{stamp}")
        _atomic_write(backup, text, mode)
    _atomic_write(path, edit.text, mode)
    return path, backup, edit.comments_kept


# -- the command --------------------------------------------------------------------------


def run(args: argparse.Namespace) -> int:
    """Convert, then print the YAML or write it."""

    files = [f for p in args.settings for f in describe_path(Path(p))] or default_files()
    hooks = load_home(args, inspect=True)
    try:
        home, config = hooks.home, hooks.config
    finally:
        hooks.close()
    result = run_import(files, home, config)
    failed = any(f.failed for f in files)
    if not args.settings and all(f.status == "not found" for f in files):
        message = (
            "No Claude Code settings found (looked at "
            + ", ".join(str(f.path) for f in files)
            + ")."
        )
        if args.json:
            print_json({"error": message, "entries": [], "skipped": []})
        else:
            print(message, file=sys.stderr)
        return EXIT_FAILURE
    written = backup = None
    kept = True
    new = [c for c in result.entries if not c.present]
    if args.write and new:
        try:
            written, backup, kept = write_import(result, home)
        except (OSError, ConfigEditError) as exc:
            print(f"hermes-hooks: cannot update {home / 'config.yaml'}: {exc}", file=sys.stderr)
            return EXIT_FAILURE
    if args.json:
        print_json(
            {
                "files": [
                    {
                        "path": str(f.path),
                        "status": f.status,
                        "project_dir": str(f.project_dir) if f.project_dir else None,
                    }
                    for f in files
                ],
                "entries": [c.as_json() for c in result.entries],
                "skipped": [{"origin": s.origin, "reason": s.reason} for s in result.skipped],
                "wrappers": [
                    {
                        "path": str(c.wrapper.path),
                        "content": c.wrapper.content,
                        "state": c.wrapper.state,
                    }
                    for c in result.entries
                    if c.wrapper is not None and not c.present
                ],
                "yaml": render_yaml(result),
                "written": str(written) if written else None,
                "backup": str(backup) if backup else None,
                "comments_kept": kept,
            }
        )
        return EXIT_FAILURE if failed else EXIT_OK
    if not args.write:
        print(render_yaml(result), end="")
        return EXIT_FAILURE if failed else EXIT_OK
    if written is None:
        print(f"Nothing to add to {home / 'config.yaml'}.")
    else:
        print(f"Added {len(new)} claude-code entr{'y' if len(new) == 1 else 'ies'} to {written}.")
        if backup is not None:
            print(f"  The previous file is kept as {backup}.")
        if not kept:
            print("  Its hooks: block had a layout this edit cannot extend in place, so the block")
            print("  was rewritten from its data: comments inside hooks: were not kept.")
    for line in report_lines(result):
        print(line)
    return EXIT_FAILURE if failed else EXIT_OK
