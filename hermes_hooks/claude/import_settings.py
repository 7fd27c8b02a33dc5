"""Claude Code settings files converted into ``dialect: claude-code`` entries.

The converter behind ``hermes-hooks import-claude``: it reads the ``hooks`` blocks of
Claude Code settings files, plugin directories (``.claude-plugin/plugin.json`` with
``hooks/hooks.json``) and marketplace checkouts (``.claude-plugin/marketplace.json``
listing several plugins), and turns every handler into one of our ``hooks:`` entries,
under our event name (``PostToolUseFailure`` keeps its own, since ``post_tool_call``
with this dialect means ``PostToolUse``).  Handler options are carried over
(``async``, ``asyncRewake``, ``if``, ``type: prompt``/``agent``); a plugin's hooks
get ``plugin_root`` so they see ``CLAUDE_PLUGIN_ROOT`` as in Claude Code.

Commands stay the same wherever they can run without a shell.  ``$CLAUDE_PROJECT_DIR``
(and a plugin's ``${CLAUDE_PLUGIN_ROOT}``) becomes the directory it names when the
settings file says which; a relative script path of a project file is made absolute.
A command that needs a shell (pipes, redirections, variables, globs) runs from a small
wrapper script under ``<home>/agent-hooks/claude-code/``, so consent and the edit
checks of ``list`` and ``doctor`` see a real file.  Handlers Hermes cannot run and
events it does not have are kept with the reason.  Nothing is written or approved here.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hermes_hooks.claude.options import MODEL_KINDS
from hermes_hooks.claude.rules import parse_rule
from hermes_hooks.claude.shells import needs_bash, needs_shell
from hermes_hooks.claude.tables import (
    DIALECT,
    UNMAPPED_EVENTS,
    ClaudeEvent,
    ToolTable,
    claude_event,
    compile_matcher,
    default_claude_event,
    tool_table,
)
from hermes_hooks.shell.config import parse_hooks
from hermes_hooks.shell.consent import approve_hint

__all__ = [
    "EVENT_NOTES",
    "MODEL_NOTE",
    "UNSUPPORTED_TYPES",
    "Converted",
    "Import",
    "SettingsFile",
    "Skipped",
    "Wrapper",
    "approve_line",
    "consent_key",
    "convert_command",
    "convert_file",
    "default_files",
    "describe_file",
    "describe_path",
    "read_settings",
    "run_import",
]

#: Handler types Claude Code has and Hermes cannot run, and why.
UNSUPPORTED_TYPES = {
    "http": (
        "it POSTs the event to a URL and reads a decision back; Hermes' outbound webhooks "
        "deliver events but never decide"
    ),
    "mcp_tool": "it calls an MCP tool; Hermes hooks cannot call MCP tools",
}
MODEL_NOTE = "answered by the host's model: refused at load when the host supplies none"
#: Handler fields this command reads or may ignore without a note.
_KNOWN_FIELDS = frozenset(
    {
        "type",
        "command",
        "args",
        "timeout",
        "async",
        "asyncRewake",
        "if",
        "statusMessage",
        "shell",
        "prompt",
        "model",
        "once",
    }
)
#: What a converted hook of each Claude event cannot do here (see the porting guide).
EVENT_NOTES = {
    "UserPromptSubmit": (
        "a prompt it blocks (exit 2, decision: block) still reaches the model: pre_llm_call "
        "cannot reject a prompt; its context is kept"
    ),
    "PostToolUse": (
        "its feedback (exit 2, decision: block) reaches the model below the tool's result; "
        "its additionalContext is not honoured: post_tool_call only observes"
    ),
    "PostToolUseFailure": "its additionalContext is not honoured: post_tool_call only observes",
    "SubagentStop": "it cannot keep a subagent going: subagent_stop only observes",
    "SubagentStart": "its additionalContext is not honoured: subagent_start only observes",
}
#: The values our events give the matcher of these Claude events (see claude_code).
_SUBJECTS = {"SessionStart": ("startup",), "SessionEnd": ("clear", "other")}
_SIMPLE_PATH = re.compile(r"[A-Za-z0-9_@%+=:,./~-]+")
_SAFE_WORD = re.compile(r"[A-Za-z0-9_@%+=:,./~-]+")
_PROJECT_VAR = re.compile(r"\$(?:CLAUDE_PROJECT_DIR(?![A-Za-z0-9_])|\{CLAUDE_PROJECT_DIR\})")
_PLUGIN_VAR = re.compile(r"\$(?:CLAUDE_PLUGIN_ROOT(?![A-Za-z0-9_])|\{CLAUDE_PLUGIN_ROOT\})")


# -- what was read and made ---------------------------------------------------------------


@dataclass
class SettingsFile:
    """One Claude Code settings file and what its paths are relative to."""

    path: Path
    explicit: bool
    project_dir: Path | None = None  # what $CLAUDE_PROJECT_DIR means for it, if known
    plugin_root: Path | None = None  # what ${CLAUDE_PLUGIN_ROOT} means, for a plugin
    status: str = "read"  # "read", "not found", or the error
    plugin: str | None = None  # the plugin's name, for a plugin's hooks
    inline: dict[str, Any] | None = None  # hooks given inline in plugin.json

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


def consent_key(entry: dict[str, Any]) -> str:
    """What consent is keyed by for a converted entry: its command, or for a prompt or
    agent handler ``"<type>: <prompt>"`` (as the config reader keys it)."""
    command = entry.get("command")
    return command if isinstance(command, str) else f"{entry['type']}: {entry['prompt']}"


def approve_line(converted: Converted) -> str:
    """The command that approves ``converted`` (after its script was reviewed)."""
    return approve_hint(converted.event, consent_key(converted.entry))


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
        found.plugin = found.plugin_root.name
    return found


def _json_object(path: Path) -> tuple[dict[str, Any] | None, str]:
    """(the JSON object in ``path``, "read") or (None, why not)."""
    try:
        document = json.loads(path.read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        return None, "not found"
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc})"
    except ValueError as exc:
        return None, f"is not valid JSON ({exc})"
    if not isinstance(document, dict):
        return None, f"must be a JSON object, got {type(document).__name__}"
    return document, "read"


def _plugin_files(root: Path) -> list[SettingsFile]:
    """The hooks files of the plugin at ``root``: ``hooks/hooks.json`` and whatever the
    manifest's ``hooks`` field adds (paths, or the hooks themselves)."""
    manifest, status = _json_object(root / ".claude-plugin" / "plugin.json")
    name = root.name
    files: list[SettingsFile] = []
    if manifest is None:
        bad = SettingsFile(root / ".claude-plugin" / "plugin.json", True, status=status)
        return [bad]
    if isinstance(manifest.get("name"), str) and manifest["name"].strip():
        name = manifest["name"].strip()
    default = root / "hooks" / "hooks.json"
    if default.is_file():
        files.append(SettingsFile(default, True, plugin_root=root, plugin=name))
    extra = manifest.get("hooks")
    for item in extra if isinstance(extra, list) else [extra] if extra is not None else []:
        if isinstance(item, str):
            path = (root / item).resolve()
            if path != default.resolve():
                files.append(SettingsFile(path, True, plugin_root=root, plugin=name))
        elif isinstance(item, dict):
            inline = SettingsFile(root / ".claude-plugin" / "plugin.json", True, plugin_root=root)
            inline.plugin, inline.inline = name, {"hooks": item.get("hooks", item)}
            files.append(inline)
    return files


def _marketplace_files(root: Path) -> list[SettingsFile]:
    """The hooks files of every plugin a marketplace checkout lists with a local source."""
    path = root / ".claude-plugin" / "marketplace.json"
    catalogue, status = _json_object(path)
    if catalogue is None:
        return [SettingsFile(path, True, status=status)]
    metadata = catalogue.get("metadata")
    base = root
    if isinstance(metadata, dict) and isinstance(metadata.get("pluginRoot"), str):
        base = root / metadata["pluginRoot"]
    files: list[SettingsFile] = []
    plugins = catalogue.get("plugins")
    for index, plugin in enumerate(plugins if isinstance(plugins, list) else []):
        source = plugin.get("source") if isinstance(plugin, dict) else None
        where = f"{path}: plugins[{index}]"
        if not isinstance(source, str):
            skipped = SettingsFile(Path(where), True)
            skipped.status = (
                "has a remote source: clone it and name its directory to import its hooks"
            )
            files.append(skipped)
            continue
        folder = (base / source) if not source.startswith("./") else (root / source)
        if (
            not (folder / ".claude-plugin" / "plugin.json").is_file()
            and not (folder / "hooks" / "hooks.json").is_file()
        ):
            files.append(SettingsFile(Path(where), True, status=f"{folder} is not a plugin"))
            continue
        if (folder / ".claude-plugin" / "plugin.json").is_file():
            files.extend(_plugin_files(folder))
        else:
            name = plugin.get("name") if isinstance(plugin.get("name"), str) else folder.name
            hooks = folder / "hooks" / "hooks.json"
            files.append(SettingsFile(hooks, True, plugin_root=folder, plugin=name))
    return files


def describe_path(path: Path) -> list[SettingsFile]:
    """What a path named on the command line holds: a settings file, a plugin directory
    (its hooks files) or a marketplace checkout (the hooks files of its plugins)."""
    path = path.expanduser().absolute()
    if path.is_dir():
        if (path / ".claude-plugin" / "marketplace.json").is_file():
            return _marketplace_files(path)
        if (path / ".claude-plugin" / "plugin.json").is_file():
            return _plugin_files(path)
        if (path / "hooks" / "hooks.json").is_file():
            hooks = path / "hooks" / "hooks.json"
            return [SettingsFile(hooks, True, plugin_root=path, plugin=path.name)]
        found = SettingsFile(path, True)
        found.status = (
            "is a directory but no Claude Code plugin (.claude-plugin/plugin.json) or "
            "marketplace (.claude-plugin/marketplace.json)"
        )
        return [found]
    return [describe_file(path)]


def read_settings(source: SettingsFile) -> dict[str, Any] | None:
    """The parsed file, or None (``source.status`` says why)."""
    if source.inline is not None:
        return source.inline
    if source.status != "read":
        return None
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
    if not needs_shell(text):
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
        notes.append("${CLAUDE_PLUGIN_ROOT} is unknown: name the plugin's directory instead")
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
    compiled = compile_matcher(matcher, lambda note, narrows=False: notes.append(note))
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
        event = claude_event(name)
        if event is None:
            reason = UNMAPPED_EVENTS.get(name, "not a Claude Code event we know")
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


def _exec_form(command: str, args: list[str], source: SettingsFile) -> str:
    """Claude Code's exec form (``command`` plus ``args``, no shell) as one command
    line: the path placeholders are substituted as plain strings, as Claude Code does."""
    words = [command, *args]
    for index, word in enumerate(words):
        for pattern, value in (
            (_PROJECT_VAR, source.project_dir),
            (_PLUGIN_VAR, source.plugin_root),
        ):
            if value is not None:
                word = pattern.sub(str(value), word)
        words[index] = word
    return _join(words)


def _options(
    handler: dict[str, Any], event: ClaudeEvent, entry: dict[str, Any], notes: list[str]
) -> str | None:
    """Copy the handler options we honour into ``entry``; the reason it cannot be
    converted, if one cannot be honoured."""
    unknown = [str(k) for k in handler if k not in _KNOWN_FIELDS]
    if unknown:
        return f"field(s) {', '.join(map(repr, unknown))} are not honoured here"
    shell = handler.get("shell")
    if shell not in (None, "bash") and "args" not in handler:
        return f"shell {shell!r}: only bash runs hooks on this host"
    if shell == "bash" and "args" not in handler and "command" in entry:
        # Claude Code hands the command to bash: a script without #! runs only that way.
        entry["shell"] = "bash"
    if handler.get("async") is True:
        entry["async"] = True
    if handler.get("asyncRewake") is True:
        entry["asyncRewake"] = True
    if "if" in handler:
        try:
            parse_rule(handler["if"])
        except ValueError as exc:
            return str(exc)
        if event.subject != "tool":
            return f"if: on {event.name}: Claude Code never runs such a hook"
        entry["if"] = handler["if"].strip()
    if handler.get("once") is True:
        notes.append("once: true ignored, as Claude Code ignores it outside skill frontmatter")
    return None


def _convert_handler(
    handler: Any,
    event: ClaudeEvent,
    matcher: Any,
    source: SettingsFile,
    home: Path,
    tools: ToolTable,
    origin: str,
) -> Converted | Skipped:
    if not isinstance(handler, dict):
        return Skipped(origin, "a handler must be an object")
    kind = handler.get("type", "command")
    if kind in UNSUPPORTED_TYPES:
        return Skipped(origin, f"{kind} handler: {UNSUPPORTED_TYPES[kind]}")
    if kind not in ("command", *MODEL_KINDS):
        return Skipped(origin, f"unknown handler type {kind!r}")
    ours = default_claude_event(event.event)
    key = event.event if ours is event else event.name
    notes: list[str] = []
    entry: dict[str, Any] = {}
    if isinstance(matcher, str) and matcher.strip() not in ("", "*"):
        if event.subject is None:
            notes.append(f"matcher {matcher!r} dropped: Claude Code ignores it on {event.name}")
        else:
            entry["matcher"] = matcher.strip()
            _matcher_notes(event, matcher, tools, notes)
    wrapper = None
    if kind in MODEL_KINDS:
        prompt = handler.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            return Skipped(origin, f"{kind} handler has no prompt")
        if event.name == "SessionStart":
            return Skipped(origin, f"Claude Code runs no {kind} handler on SessionStart")
        entry["type"] = kind
        entry["prompt"] = prompt.strip()
        if isinstance(handler.get("model"), str):
            entry["model"] = handler["model"]
        notes.append(MODEL_NOTE)
    else:
        command = handler.get("command")
        if not isinstance(command, str) or not command.strip():
            return Skipped(origin, "has no command")
        args = handler.get("args")
        if args is not None:
            if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
                return Skipped(origin, "args must be a list of strings")
            entry["command"] = _exec_form(command.strip(), args, source)
        else:
            text, wrapper = convert_command(command, source, key, home, notes)
            entry["command"] = text
    entry["dialect"] = DIALECT
    timeout = _timeout(handler.get("timeout"), notes)
    if timeout is not None:
        entry["timeout"] = timeout
    refused = _options(handler, event, entry, notes)
    if refused is not None:
        return Skipped(origin, refused)
    if "shell" not in entry and wrapper is None and "command" in entry and needs_bash(entry):
        # Claude Code's default shell runs a script that execve refuses; so does ours.
        entry["shell"] = "bash"
        notes.append("its script has no #! line: it runs through bash, as in Claude Code")
    if source.plugin_root is not None:
        entry["plugin_root"] = str(source.plugin_root)
        data = home / "agent-hooks" / "claude-code" / "plugin-data" / (source.plugin or "plugin")
        entry["plugin_data"] = str(data)
    if event.name in EVENT_NOTES:
        notes.append(EVENT_NOTES[event.name])
    return Converted(key, event.event, event.name, entry, origin, notes, wrapper)


def run_import(files: list[SettingsFile], home: Path, config: dict[str, Any]) -> Import:
    """Read every file and convert it; mark entries ``config`` already has."""
    tools = tool_table(config, lambda _message, narrows=False: None)
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
