"""``hermes-hooks import-claude [SETTINGS.json ...]``: Claude Code hooks as our entries.

Reads the ``hooks`` blocks of Claude Code settings files (by default the user's
``~/.claude/settings.json`` and the current project's ``.claude/settings.json`` and
``.claude/settings.local.json``) and turns every command handler into a ``hooks:``
entry with ``dialect: claude-code``, under our event name (``PostToolUseFailure``
keeps its own, since ``post_tool_call`` with this dialect means ``PostToolUse``).

Commands stay the same wherever they can run without a shell.  ``$CLAUDE_PROJECT_DIR``
(and a plugin's ``${CLAUDE_PLUGIN_ROOT}``) becomes the directory it names when the
settings file says which; a relative script path of a project file is made absolute.
A command that needs a shell (pipes, redirections, variables, globs) runs from a small
wrapper script under ``<home>/agent-hooks/claude-code/``, so consent and the edit
checks of ``list`` and ``doctor`` see a real file.

Without ``--write`` the YAML is printed (with the report as comments); with it the
entries are added to ``<home>/config.yaml`` (its content and comments kept, a backup
beside it) and the wrappers are written.  Handlers Hermes cannot run (``http``,
``prompt``, ``agent``, ``mcp_tool``, ``async``) and events it does not have are listed
with the reason.  Nothing is approved: the output ends with the ``hermes-hooks
approve`` lines to run after reviewing each script.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import re
import shlex
import sys
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hermes_hooks.adapters.claude_code import ClaudeEvent, ToolTable

#: ``--write`` creates the home, so a missing ``--home`` is not an error here.
CREATES_HOME = True
NAME = "import-claude"
HELP = "convert the hooks of Claude Code settings files into dialect: claude-code entries"

#: Handler types Claude Code has and Hermes cannot run, and why.
UNSUPPORTED_TYPES = {
    "http": (
        "it POSTs the event to a URL and reads a decision back; Hermes' outbound webhooks "
        "deliver events but never decide"
    ),
    "prompt": "a Claude model decides; Hermes has no model-evaluated hooks",
    "agent": "a subagent with tools decides; Hermes has no agent-evaluated hooks",
    "mcp_tool": "it calls an MCP tool; Hermes hooks cannot call MCP tools",
}
ASYNC_REASON = (
    "async: Claude Code runs it in the background and hands its output to the next turn; "
    "Hermes shell hooks run in line, so a converted hook would hold the agent until it ends"
)
#: Handler fields this command reads or may ignore without a note.
_KNOWN_FIELDS = frozenset({"type", "command", "timeout", "async", "statusMessage"})
#: What a converted hook of each Claude event cannot do here (see the porting guide).
EVENT_NOTES = {
    "UserPromptSubmit": (
        "a prompt it blocks (exit 2, decision: block) still reaches the model: pre_llm_call "
        "cannot reject a prompt; its context is kept"
    ),
    "PostToolUse": (
        "its feedback to Claude (exit 2, decision: block, additionalContext) is not "
        "honoured: post_tool_call only observes"
    ),
    "PostToolUseFailure": "its additionalContext is not honoured: post_tool_call only observes",
    "SubagentStop": "it cannot keep a subagent going: subagent_stop only observes",
    "SubagentStart": "its additionalContext is not honoured: subagent_start only observes",
}
#: The values our events give the matcher of these Claude events (see claude_code).
_SUBJECTS = {"SessionStart": ("startup",), "SessionEnd": ("clear", "other")}
_SIMPLE_PATH = re.compile(r"[A-Za-z0-9_@%+=:,./~-]+")
_SAFE_WORD = re.compile(r"[A-Za-z0-9_@%+=:,./~-]+")
_SHELL_CHARS = frozenset("|&;<>()$`*?[]{}!#\n\\")
_PROJECT_VAR = re.compile(r"\$(?:CLAUDE_PROJECT_DIR(?![A-Za-z0-9_])|\{CLAUDE_PROJECT_DIR\})")
_PLUGIN_VAR = re.compile(r"\$(?:CLAUDE_PLUGIN_ROOT(?![A-Za-z0-9_])|\{CLAUDE_PLUGIN_ROOT\})")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``[SETTINGS.json ...] [--write]``."""
    parser.add_argument(
        "settings",
        nargs="*",
        metavar="SETTINGS.json",
        help="Claude Code settings files (default: ~/.claude/settings.json and the current "
        "directory's .claude/settings.json and .claude/settings.local.json)",
    )
    parser.add_argument(
        "--write",
        action="store_true",
        help="add the entries to <home>/config.yaml (content and comments kept, a backup "
        "beside it) and write the wrapper scripts; nothing is approved",
    )


# -- what was read and made ---------------------------------------------------------------


@dataclass
class SettingsFile:
    """One Claude Code settings file and what its paths are relative to."""

    path: Path
    explicit: bool
    project_dir: Path | None = None  # what $CLAUDE_PROJECT_DIR means for it, if known
    plugin_root: Path | None = None  # what ${CLAUDE_PLUGIN_ROOT} means, for a plugin
    status: str = "read"  # "read", "not found", or the error

    @property
    def failed(self) -> bool:
        """Unreadable, not JSON, or (when named explicitly) missing."""
        return self.status not in ("read", "not found") or (
            self.explicit and self.status == "not found"
        )


@dataclass
class Wrapper:
    """A script that runs one Claude command line through bash."""

    path: Path
    content: str
    state: str = "new"  # "new", "exists" (same content), "differs" (left as is), "written"


@dataclass
class Converted:
    """One Claude command handler as one of our entries."""

    key: str  # the hooks: key it goes under
    event: str  # our event (the consent key)
    claude_event: str
    entry: dict[str, Any]
    origin: str
    notes: list[str] = field(default_factory=list)
    wrapper: Wrapper | None = None
    present: bool = False  # already in config.yaml

    def as_json(self) -> dict[str, Any]:
        """A JSON view."""
        return {
            "key": self.key,
            "event": self.event,
            "claude_event": self.claude_event,
            "entry": self.entry,
            "origin": self.origin,
            "notes": self.notes,
            "wrapper": str(self.wrapper.path) if self.wrapper else None,
            "already_configured": self.present,
            "approve": approve_line(self),
        }


@dataclass
class Skipped:
    """A handler (or a whole event) that was not converted, and why."""

    origin: str
    reason: str


@dataclass
class Import:
    """The result of reading every settings file."""

    files: list[SettingsFile] = field(default_factory=list)
    entries: list[Converted] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)


def approve_line(converted: Converted) -> str:
    """The command that approves ``converted`` (after its script was reviewed)."""
    from hermes_hooks.cli.shell_views import approve_hint

    return approve_hint(converted.event, converted.entry["command"])


# -- settings files -----------------------------------------------------------------------


def default_files() -> list[SettingsFile]:
    """The user's settings, then the current project's (shared, then local)."""
    project = Path.cwd()
    user = Path.home() / ".claude" / "settings.json"
    files = [SettingsFile(user, explicit=False)]
    if (project / ".claude").absolute() != user.parent.absolute():  # not run from ~
        files.append(
            SettingsFile(project / ".claude" / "settings.json", False, project_dir=project)
        )
    files.append(
        SettingsFile(project / ".claude" / "settings.local.json", False, project_dir=project)
    )
    return files


def describe_file(path: Path) -> SettingsFile:
    """A file named on the command line: a project's ``.claude/settings*.json`` knows
    its project, a plugin's ``hooks/hooks.json`` its root; the user's knows neither."""
    path = path.expanduser().absolute()
    found = SettingsFile(path, explicit=True)
    user = (Path.home() / ".claude").absolute()
    if path.parent.name == ".claude" and path.parent != user:
        found.project_dir = path.parent.parent
    elif path.name == "hooks.json" and path.parent.name == "hooks":
        found.plugin_root = path.parent.parent
    return found


def read_settings(source: SettingsFile) -> dict[str, Any] | None:
    """The parsed file, or None (``source.status`` says why)."""
    try:
        text = source.path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        source.status = "not found"
        return None
    except OSError as exc:
        source.status = f"cannot be read ({exc.strerror or exc})"
        return None
    try:
        document = json.loads(text)
    except ValueError as exc:
        source.status = f"is not valid JSON ({exc})"
        return None
    if not isinstance(document, dict):
        source.status = f"must be a JSON object, got {type(document).__name__}"
        return None
    return document


# -- commands -----------------------------------------------------------------------------


def _needs_shell(text: str) -> bool:
    """Whether ``text`` means something different to a shell than to our splitter
    (pipes, redirections, variables, globs, ``~user``, assignments, comments)."""
    try:
        words = shlex.split(text)
    except ValueError:
        return True
    if not words or _ASSIGNMENT.match(words[0]):
        return True
    quote = None
    word_start = True
    for index, char in enumerate(text):
        if quote == "'":
            quote = None if char == "'" else quote
            continue
        if quote == '"':
            if char in "$`\\":
                return True
            quote = None if char == '"' else quote
            continue
        if char in "'\"":
            quote = char
        elif char in _SHELL_CHARS:
            return True
        elif char == "~":
            after = text[index + 1 : index + 2]
            if not word_start or after not in ("", "/", " ", "\t"):
                return True  # D-67 expands only a leading ~ or ~/
        word_start = char in " \t"
    return False


def _join(words: list[str]) -> str:
    return " ".join(w if _SAFE_WORD.fullmatch(w) else shlex.quote(w) for w in words)


def _substitute(text: str, pattern: re.Pattern[str], value: Path | None) -> tuple[str, bool]:
    if value is None or not pattern.search(text) or not _SIMPLE_PATH.fullmatch(str(value)):
        return text, False
    return pattern.sub(str(value), text), True


def convert_command(
    command: str, source: SettingsFile, key: str, home: Path, notes: list[str]
) -> tuple[str, Wrapper | None]:
    """Our command for a Claude command line, and the wrapper it needs, if any."""
    text, project = _substitute(command.strip(), _PROJECT_VAR, source.project_dir)
    text, plugin = _substitute(text, _PLUGIN_VAR, source.plugin_root)
    if not _needs_shell(text):
        words = shlex.split(text)
        moved = False
        if source.project_dir is not None:
            for index, word in enumerate(words):
                relative = "/" in word and not word.startswith(("/", "~", "-"))
                if relative and (source.project_dir / word).exists():
                    words[index] = str(source.project_dir / word)
                    moved = True
        return (_join(words) if project or plugin or moved else text), None
    if _PLUGIN_VAR.search(command) and source.plugin_root is None:
        notes.append("${CLAUDE_PLUGIN_ROOT} is not set by Hermes: name the plugin's hooks.json")
    lines = [
        "#!/usr/bin/env bash",
        f"# Written by hermes-hooks import-claude from {source.path}.",
        "# Claude Code ran this command line through a shell; Hermes runs this script.",
    ]
    if source.project_dir is not None:
        lines.append(f"export CLAUDE_PROJECT_DIR={shlex.quote(str(source.project_dir))}")
    lines.append(command.strip())
    content = "\n".join(lines) + "\n"
    digest = hashlib.sha256(content.encode("utf-8")).hexdigest()[:10]
    path = home / "agent-hooks" / "claude-code" / f"{key}-{digest}.sh"
    notes.append("needs a shell (pipes, redirections, variables or globs): runs from a wrapper")
    return str(path), Wrapper(path, content)


# -- conversion ---------------------------------------------------------------------------


def _timeout(value: Any, notes: list[str]) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        notes.append(f"timeout {value!r} is not a number of seconds: left at our default, 60")
        return None
    if value > 300:
        notes.append(f"timeout {value:g}s capped at 300s (our maximum)")
        return 300
    if value < 1:
        notes.append(f"timeout {value!r} is below 1 second: left at our default, 60")
        return None
    return int(value)


def _matcher_notes(event: ClaudeEvent, matcher: str, tools: ToolTable, notes: list[str]) -> None:
    from hermes_hooks.adapters.claude_code import compile_matcher

    compiled = compile_matcher(matcher, notes.append)
    if compiled is None:
        return
    values = _SUBJECTS.get(event.name)
    if values is not None and not any(compiled(v) for v in values):
        shown = " or ".join(repr(v) for v in values)
        notes.append(f"matcher {matcher!r} never fires here: the {event.name} value is {shown}")
    if event.subject == "tool" and compiled.names:
        known = {row.claude for row in tools.rows}
        missing = sorted(n for n in compiled.names if n not in known and "__" not in n)
        if missing:
            notes.append(
                f"no tool of ours is called {', '.join(missing)}: map it in "
                "hooks_claude_tools to make the matcher fire"
            )


def convert_file(
    document: dict[str, Any], source: SettingsFile, home: Path, tools: ToolTable, result: Import
) -> None:
    """Convert the ``hooks`` block of one settings file into ``result``."""
    from hermes_hooks.adapters import claude_code

    where = str(source.path)
    if document.get("disableAllHooks") is True:
        result.skipped.append(
            Skipped(where, "disableAllHooks is true: Claude Code runs none of its hooks")
        )
        return
    hooks = document.get("hooks")
    if hooks is None:
        return
    if not isinstance(hooks, dict):
        result.skipped.append(Skipped(f"{where}: hooks", "must be an object of event names"))
        return
    for name, groups in hooks.items():
        event = claude_code.claude_event(name)
        if event is None:
            reason = claude_code.UNMAPPED_EVENTS.get(name, "not a Claude Code event we know")
            result.skipped.append(Skipped(f"{where}: hooks.{name}", f"no Hermes event: {reason}"))
            continue
        if not isinstance(groups, list):
            result.skipped.append(Skipped(f"{where}: hooks.{name}", "must be a list"))
            continue
        for group_index, group in enumerate(groups):
            origin = f"{where}: hooks.{name}[{group_index}]"
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(handlers, list):
                result.skipped.append(Skipped(origin, "has no 'hooks' list of handlers"))
                continue
            matcher = group.get("matcher")
            for index, handler in enumerate(handlers):
                converted = _convert_handler(
                    handler, event, matcher, source, home, tools, f"{origin}.hooks[{index}]"
                )
                if isinstance(converted, Skipped):
                    result.skipped.append(converted)
                elif any(
                    (c.key, c.entry) == (converted.key, converted.entry) for c in result.entries
                ):
                    # Claude Code runs identical handlers once.
                    result.skipped.append(Skipped(converted.origin, "duplicate of an earlier one"))
                else:
                    result.entries.append(converted)


def _convert_handler(
    handler: Any,
    event: ClaudeEvent,
    matcher: Any,
    source: SettingsFile,
    home: Path,
    tools: ToolTable,
    origin: str,
) -> Converted | Skipped:
    from hermes_hooks.adapters import claude_code

    if not isinstance(handler, dict):
        return Skipped(origin, "a handler must be an object")
    kind = handler.get("type", "command")
    if kind in UNSUPPORTED_TYPES:
        return Skipped(origin, f"{kind} handler: {UNSUPPORTED_TYPES[kind]}")
    if kind != "command":
        return Skipped(origin, f"unknown handler type {kind!r}")
    if handler.get("async") is True:
        return Skipped(origin, ASYNC_REASON)
    command = handler.get("command")
    if not isinstance(command, str) or not command.strip():
        return Skipped(origin, "has no command")
    ours = claude_code.default_claude_event(event.event)
    key = event.event if ours is event else event.name
    notes: list[str] = []
    entry: dict[str, Any] = {}
    if isinstance(matcher, str) and matcher.strip() not in ("", "*"):
        if event.subject is None:
            notes.append(f"matcher {matcher!r} dropped: Claude Code ignores it on {event.name}")
        else:
            entry["matcher"] = matcher.strip()
            _matcher_notes(event, matcher, tools, notes)
    text, wrapper = convert_command(command, source, key, home, notes)
    entry["command"] = text
    entry["dialect"] = claude_code.DIALECT
    timeout = _timeout(handler.get("timeout"), notes)
    if timeout is not None:
        entry["timeout"] = timeout
    notes.extend(
        f"field {name!r} ignored" for name in handler if name not in _KNOWN_FIELDS | {"once"}
    )
    if handler.get("once") is True:
        notes.append("once: true ignored: it runs on every firing")
    if event.name in EVENT_NOTES:
        notes.append(EVENT_NOTES[event.name])
    return Converted(key, event.event, event.name, entry, origin, notes, wrapper)


def run_import(files: list[SettingsFile], home: Path, config: dict[str, Any]) -> Import:
    """Read every file and convert it; mark entries ``config`` already has."""
    from hermes_hooks.adapters import claude_code
    from hermes_hooks.adapters.shell_config import parse_hooks

    tools = claude_code.tool_table(config, lambda _message: None)
    result = Import(files=files)
    for source in files:
        document = read_settings(source)
        if document is not None:
            convert_file(document, source, home, tools, result)
    present = {e.key for e in parse_hooks(config, quiet=True).entries}
    for converted in result.entries:
        parsed = parse_hooks({"hooks": {converted.key: [converted.entry]}}, quiet=True)
        converted.present = bool(parsed.entries) and parsed.entries[0].key in present
    for converted in result.entries:
        wrapper = converted.wrapper
        if wrapper is not None and wrapper.path.exists():
            same = wrapper.path.read_text(encoding="utf-8", errors="replace") == wrapper.content
            wrapper.state = "exists" if same else "differs"
    return result


# -- output -------------------------------------------------------------------------------


def render_yaml(result: Import) -> str:
    """The new entries as a ``hooks:`` block, with the report as YAML comments."""
    from hermes_hooks.cli.config_edit import render_items

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
            lines.append(f"  {converted.origin} → {converted.key}: {converted.entry['command']}")
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
    from hermes_hooks.cli.config_edit import add_entries

    new = [c for c in result.entries if not c.present]
    for converted in new:
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
    from hermes_hooks.cli import EXIT_FAILURE, EXIT_OK, load_home, print_json
    from hermes_hooks.cli.config_edit import ConfigEditError

    files = [describe_file(Path(p)) for p in args.settings] or default_files()
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
