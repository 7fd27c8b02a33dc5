"""Reading one gateway hook's ``HOOK.yaml`` and checking it.

Only ``events`` is required: a non-empty list of event names.  ``name`` defaults to the
directory name (it need not match), ``description`` is free text,
``enabled: false`` skips the hook without importing its handler, and ``host_loop:
true`` runs an async handler on the gateway's own event loop instead of its hook's.
An unknown event is kept, with a did-you-mean warning.

:func:`read_manifest` never logs and never raises: it returns what it found and a list
of :class:`Problem` s, so discovery can log them and ``doctor`` can report them with
the file and the key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from hermes_hooks._yaml import YamlError, read_yaml
from hermes_hooks.config_schema import unknown_keys
from hermes_hooks.gateway.commands import canonical_command
from hermes_hooks.gateway.events import (
    COMMAND_PREFIX,
    is_known_event,
    meant_a_command,
    suggest_event,
)

__all__ = [
    "HANDLER_FILE",
    "MANIFEST_FILE",
    "GatewayHookRecord",
    "Manifest",
    "Problem",
    "read_manifest",
]

MANIFEST_FILE = "HOOK.yaml"
HANDLER_FILE = "handler.py"

_EVENTS_FIX = "write events as a YAML list of event names, e.g. events: [agent:start, agent:end]"


@dataclass(frozen=True)
class Problem:
    """One thing wrong (or worth knowing) about a hook directory.

    ``message`` is the log line (the byte-exact text where one is fixed); ``key`` names the
    manifest key at fault, if any; ``fix`` says what to change.
    """

    level: Literal["error", "warn", "info"]
    file: str  # HOOK.yaml, at ``:line:col`` of ``key`` when it is written in it
    key: str | None
    message: str
    fix: str = ""


@dataclass
class Manifest:
    """What a hook directory's ``HOOK.yaml`` declares, and why it may not load."""

    directory: Path
    name: str
    description: str = ""
    events: tuple[str, ...] = ()
    enabled: bool = True  # False only for a literal ``enabled: false``
    #: True only for a literal ``host_loop: true``: the async handler runs on the
    #: gateway's event loop (it awaits objects bound to it), not on a loop of its own.
    host_loop: bool = False
    problems: list[Problem] = field(default_factory=list)
    #: The log line explaining why the hook is not loaded; None when it may load.
    skip: str | None = None
    #: Where each top-level key is written in the file (1-based line, column).
    places: dict[str, tuple[int, int]] = field(default_factory=dict, repr=False)

    @property
    def path(self) -> Path:
        """The manifest file."""
        return self.directory / MANIFEST_FILE

    def _problem(
        self, level: Any, key: str | None, message: str, fix: str = "", placed: bool = False
    ) -> None:
        # A problem of a key names its HOOK.yaml:line:col, as config.yaml's findings do
        # (``placed``: the message already does).
        place = self.places.get(key) if key is not None and not placed else None
        file = str(self.path) if place is None else f"{self.path}:{place[0]}:{place[1]}"
        self.problems.append(Problem(level, file, key, message, fix))

    def _refuse(self, key: str | None, message: str, fix: str = "", placed: bool = False) -> None:
        self._problem("error", key, message, fix, placed)
        self.skip = message


def read_manifest(directory: Path) -> Manifest:
    """Parse ``<directory>/HOOK.yaml``; see the module docstring for the rules."""
    manifest = Manifest(directory=directory, name=directory.name)
    path = manifest.path
    try:
        document = read_yaml(path)
    except (OSError, UnicodeDecodeError) as exc:
        manifest._refuse(None, f"[hooks] Skipping {directory.name}: cannot read {path} ({exc})")
        return manifest
    except YamlError as exc:
        manifest._refuse(
            None,
            f"[hooks] Skipping {directory.name}: {exc.where(path)}: {exc.problem}",
            exc.fix,
        )
        return manifest
    manifest.places = {
        str(path[0]): (mark.line, mark.column)
        for path, mark in document.marks.items()
        if len(path) == 1
    }
    for issue in [*document.issues, *unknown_keys(document, MANIFEST_FILE)]:
        where = f"{path}:{issue.where}: {issue.key}"
        if issue.level == "error":
            # A value over the bounds, or a misspelt key that guards (enabled): the hook
            # would run other than as written, so it is skipped until the file is fixed.
            manifest._refuse(
                issue.key,
                f"[hooks] Skipping {directory.name}: {where}: {issue.problem}",
                issue.fix,
                placed=True,
            )
        else:
            manifest._problem(
                "warn",
                issue.key,
                f"[hooks] {directory.name}: {where}: {issue.problem}",
                issue.fix,
                placed=True,
            )
    data = document.data
    if not isinstance(data, dict):
        manifest._refuse(
            None,
            f"[hooks] Skipping {directory.name}: {path} must be a mapping of keys "
            f"(name, description, events, enabled), got {type(data).__name__}",
            _EVENTS_FIX,
        )
        return manifest
    _read_name(manifest, data)
    description = data.get("description")
    manifest.description = "" if description is None else str(description)
    _read_enabled(manifest, data)
    _read_host_loop(manifest, data)
    _read_events(manifest, data)
    return manifest


def _read_name(manifest: Manifest, data: dict[str, Any]) -> None:
    name = data.get("name")
    if name is None:
        return
    if isinstance(name, str) and name.strip():
        manifest.name = name.strip()
        return
    manifest._problem(
        "warn",
        "name",
        f"[hooks] {manifest.directory.name}: 'name' must be a non-empty string, got "
        f"{name!r}; using the directory name",
        "quote the name or remove the key",
    )


def _read_enabled(manifest: Manifest, data: dict[str, Any]) -> None:
    if "enabled" not in data:
        return
    enabled = data["enabled"]
    if enabled is True:
        return
    if enabled is False:
        manifest.enabled = False
        manifest._problem("info", "enabled", f"[hooks] Skipping {manifest.name}: enabled: false")
        manifest.skip = manifest.problems[-1].message
        return
    # Ambiguous values (0, "false" as a string) keep the hook off until fixed:
    # loading code the author may have meant to disable is the worse mistake.
    manifest._refuse(
        "enabled",
        f"[hooks] Skipping {manifest.name}: 'enabled' must be true or false, got {enabled!r}",
        "write enabled: true or enabled: false (unquoted)",
    )


def _read_host_loop(manifest: Manifest, data: dict[str, Any]) -> None:
    if "host_loop" not in data:
        return
    value = data["host_loop"]
    if isinstance(value, bool):
        manifest.host_loop = value
        return
    # Anything else keeps the handler on its own loop, where blocking cannot stall
    # the gateway: the safe reading of a value we cannot read.
    manifest._problem(
        "warn",
        "host_loop",
        f"[hooks] {manifest.name}: 'host_loop' must be true or false, got {value!r}; "
        "the handler runs on its own event loop",
        "write host_loop: true or host_loop: false (unquoted)",
    )


def _canonical_command_event(event: str) -> str | None:
    """``command:<canonical>`` for a command event written another way
    (``command:/deploy``, ``command:Deploy``), else None."""
    if not event.startswith(COMMAND_PREFIX):
        return None
    name = event[len(COMMAND_PREFIX) :]
    if name == "*" or not name:
        return None
    canonical = canonical_command(name)
    return f"{COMMAND_PREFIX}{canonical}" if canonical and canonical != name else None


def _read_events(manifest: Manifest, data: dict[str, Any]) -> None:
    events = data.get("events")
    if (
        not isinstance(events, list)
        or not events
        or not all(isinstance(e, str) and e.strip() for e in events)
    ):
        message = f"[hooks] Skipping {manifest.name}: 'events' must be a list of event names"
        if manifest.skip is None:
            manifest._refuse("events", message, _EVENTS_FIX)
        else:  # already skipped (disabled): still report the bad key
            manifest._problem("error", "events", message, _EVENTS_FIX)
        return
    names: list[str] = []
    for raw in events:
        event = raw.strip()
        if event in names:
            continue
        names.append(event)
        wanted = _canonical_command_event(event)
        if wanted is not None:
            # Commands are emitted under their canonical name: this one never fires, and
            # a command hook can deny the command.
            manifest._problem(
                "error",
                "events",
                f"[hooks] {manifest.name}: event '{event}' never fires: command events "
                "carry the command's canonical name (lower case, without '/')",
                f"write {wanted}",
            )
        elif not is_known_event(event):
            # Meant as a command, it is a command hook (which can deny the command)
            # that never fires: an error, where another misspelt event only warns.
            command = meant_a_command(event)
            manifest._problem(
                "error" if command else "warn",
                "events",
                f"[hooks] {manifest.name}: unknown event '{event}' — {suggest_event(event)}",
                "write command:<name> (lower case, no slash)"
                if command
                else "use a gateway event (docs/gateway-hooks.md), a command:<name>, "
                "or a <prefix>:* wildcard",
            )
    manifest.events = tuple(names)


@dataclass
class GatewayHookRecord:
    """One hook directory as ``hermes-hooks list`` and ``doctor`` show it."""

    key: str  # the directory name
    name: str
    path: str  # the directory
    description: str = ""
    events: list[str] = field(default_factory=list)
    state: str = "pending"  # "loaded", "failed", "disabled", "skipped"
    handler: str | None = None  # "async" or "sync" once loaded
    #: Where the handler runs once loaded: "own loop" (async), "host loop" (async with
    #: ``host_loop: true``) or "worker thread" (sync).
    runs_on: str | None = None
    plugin: str | None = None  # the pluggy plugin name once loaded
    error: str | None = None
    problems: list[Problem] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready view for ``--json`` output."""
        data = dict(vars(self))
        data["problems"] = [vars(p).copy() for p in self.problems]
        return data
