"""Gateway hooks: ``<home>/hooks/<name>/`` directories, discovered and bridged.

Discovery scans the hooks directory in ascending directory
name order.  A subdirectory holding ``HOOK.yaml`` and ``handler.py`` is read by the
manifest rules (:mod:`hermes_hooks.gateway.manifest`); an enabled one has its handler
imported as module ``hermes_hook_<directory name>``, which must define
``handle(event_type, context)`` (sync or async).  Every problem is logged once to the
``gateway.hooks`` logger with the hook's name and path, recorded for ``list`` and
``doctor``, and never stops the other hooks.  Discovery is idempotent: a directory
already seen is not loaded again; :meth:`GatewaySource.reload` starts afresh.

The bridge: each loaded hook is also registered in the pluggy manager as a plugin
object named ``gateway:<directory name>``, so the manager knows every hook of every
system.  It implements no catalogue hook: gateway events are not catalogue hooks, and
they are delivered by :class:`~hermes_hooks.gateway.emitter.GatewayEmitter` (the
source's :attr:`~GatewaySource.emitter`, reached as ``hooks.gateway``).
"""

from __future__ import annotations

import inspect
import logging
import sys
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_hooks._imports import import_file
from hermes_hooks._isolation import escapes
from hermes_hooks._log import ON_RECORD, exception_text, get_logger
from hermes_hooks.config import safe_mode
from hermes_hooks.gateway.emitter import GatewayEmitter, GatewayHook
from hermes_hooks.gateway.manifest import (
    HANDLER_FILE,
    MANIFEST_FILE,
    GatewayHookRecord,
    Manifest,
    Problem,
    read_manifest,
)
from hermes_hooks.gateway.report import check_gateway_hooks, gateway_section
from hermes_hooks.sources import Source, Unloaded

if TYPE_CHECKING:
    from hermes_hooks._context import LoadContext
    from hermes_hooks.report import EntryErrors, Finding, Section

__all__ = [
    "MODULE_PREFIX",
    "PLUGIN_PREFIX",
    "SAFE_MODE_MESSAGE",
    "GatewayHookPlugin",
    "GatewayHookRecord",
    "GatewaySource",
    "load",
    "safe_mode_notice",
    "survey",
    "unloaded",
]

log = get_logger("gateway.hooks")
#: How each level of problem is logged.  An error leaves a hook that was meant to run
#: (a directory holding a HOOK.yaml or a handler.py) not running, or one of its events
#: never firing: a `command:` handler among them may have been a gate, so it is an
#: ERROR (and a doctor error), whatever the reference logs.
_LEVELS = {"error": logging.ERROR, "warn": logging.WARNING, "info": logging.INFO}

MODULE_PREFIX = "hermes_hook_"
PLUGIN_PREFIX = "gateway:"
SAFE_MODE_MESSAGE = "[hooks] HERMES_SAFE_MODE set — gateway hooks not loaded"


class GatewayHookPlugin:
    """The pluggy plugin object standing for one gateway hook (no catalogue hooks)."""

    __slots__ = ("hook", "record")

    def __init__(self, record: GatewayHookRecord, hook: GatewayHook) -> None:
        self.record = record
        self.hook = hook

    def __repr__(self) -> str:
        return f"<gateway hook {self.record.name} at {self.record.path}>"


class GatewaySource:
    """The gateway hooks of one load, and the emitter that delivers to them."""

    name = "gateway"

    def __init__(self, context: LoadContext) -> None:
        self._context = context
        self.directory = context.home / "hooks"
        self.emitter = GatewayEmitter(
            context.settings.hook_callback_timeout, context.manager.warnings
        )
        self._records: dict[str, GatewayHookRecord] = {}
        self._modules: list[str] = []

    def records(self) -> list[GatewayHookRecord]:
        """Every hook directory found, loaded or not, in directory-name order."""
        return [self._records[key] for key in sorted(self._records)]

    # -- discovery ---------------------------------------------------------------------

    def discover(self) -> None:
        """Load every hook directory not loaded yet (idempotent)."""
        if safe_mode():
            safe_mode_notice()
            return
        for record, manifest in survey(self.directory, skip=self._records):
            self._records[record.key] = record
            if manifest is None:
                for problem in record.problems:
                    log.log(_LEVELS[problem.level], "%s", problem.message)
                continue
            self._load_one(record, manifest)

    def _load_one(self, record: GatewayHookRecord, manifest: Manifest) -> None:
        if record.state == "disabled":
            log.info("%s", record.error)  # quiet: doctor still shows its problems
            return
        for problem in manifest.problems:
            log.log(_LEVELS[problem.level], "%s", problem.message)
        if record.state == "skipped":
            return
        handler_path = manifest.directory / HANDLER_FILE
        try:
            handle = self._import_handle(record, handler_path)
        except BaseException as exc:  # a handler's SystemExit never ends the gateway
            if escapes(exc):
                raise
            self._fail(record, handler_path, f"{type(exc).__name__}: {exception_text(exc)}")
            return
        if handle is None:
            return
        hook = GatewayHook(
            record.key, record.name, handler_path, manifest.events, handle, manifest.host_loop
        )
        plugin_name = f"{PLUGIN_PREFIX}{record.key}"
        try:
            self._context.manager.register(GatewayHookPlugin(record, hook), name=plugin_name)
        except Exception as exc:
            reason = f"cannot register plugin {plugin_name}: {exception_text(exc)}"
            self._fail(record, handler_path, reason)
            return
        self.emitter.add(hook)
        record.state = "loaded"
        record.plugin = plugin_name
        record.handler = "async" if hook.is_async else "sync"
        record.runs_on = (
            "worker thread"
            if not hook.is_async
            else "own loop"
            if hook.home is not None
            else "host loop"
        )
        log.info("[hooks] Loaded hook '%s' for events: %s", record.name, record.events)

    def _import_handle(
        self, record: GatewayHookRecord, handler_path: Path
    ) -> Callable[..., Any] | None:
        module = import_file(f"{MODULE_PREFIX}{record.key}", handler_path)
        self._modules.append(module.__name__)
        handle = getattr(module, "handle", None)
        if not callable(handle):
            self._fail(
                record,
                handler_path,
                f"no 'handle' function found in {handler_path}",
                key="handle",
                fix="define handle(event_type, context) (def or async def)",
            )
            return None
        problem = _signature_problem(handle)
        if problem:
            self._fail(
                record,
                handler_path,
                problem,
                key="handle",
                fix="declare it as handle(event_type, context)",
            )
            return None
        return handle

    def _fail(
        self,
        record: GatewayHookRecord,
        handler_path: Path,
        reason: str,
        *,
        key: str | None = None,
        fix: str = "",
    ) -> None:
        message = f"[hooks] Error loading hook {record.name} ({handler_path}): {reason}"
        record.state = "failed"
        record.error = reason
        record.problems.append(Problem("error", str(handler_path), key, message, fix))
        # An ERROR: none of its events reach it, a command it would have denied included.
        log.error("%s", message, extra=ON_RECORD)

    # -- lifecycle ---------------------------------------------------------------------

    def unload(self) -> None:
        """Unregister every hook, stop its lane and forget its module."""
        for record in self._records.values():
            if record.plugin is not None:
                self._context.manager.unregister(name=record.plugin)
            self.emitter.remove(record.key)
        for module_name in self._modules:
            sys.modules.pop(module_name, None)
        self._records.clear()
        self._modules.clear()

    def reload(self) -> None:
        """Forget everything loaded and discover again (a forced reload)."""
        self.unload()
        self.discover()

    def close(self, timeout: float) -> None:
        """Stop the lanes, letting them finish within ``timeout`` seconds."""
        self.emitter.close(timeout)

    def section(self, errors: EntryErrors | None = None) -> Section:
        """Each hook's name, directory, events, plugin name and handler, for ``list``."""
        return gateway_section(self.directory, self.records(), errors)

    def check(self, *, fire: bool = True) -> list[Finding]:
        """Each hook's manifest, handler, events and permissions, for ``doctor``."""
        return check_gateway_hooks(self.directory, self.records())


def survey(
    root: Path, skip: Collection[str] = ()
) -> Iterator[tuple[GatewayHookRecord, Manifest | None]]:
    """Each hook directory under ``root`` (names in ``skip`` left out), in directory-name
    order, with its parsed manifest; nothing is imported and nothing logged.

    The record is ``"skipped"`` (with the reason) when a file is missing (then the
    manifest is None) or the manifest refuses the hook, ``"disabled"`` for
    ``enabled: false``, else ``"pending"``.  Directories holding neither file (data or
    logs kept beside the hooks) and names starting with ``.`` or ``_`` are not hooks.
    """
    if not root.is_dir():
        return
    for directory in sorted(root.iterdir(), key=lambda p: p.name):
        key = directory.name
        if key in skip or key.startswith((".", "_")) or not directory.is_dir():
            continue
        has_manifest = (directory / MANIFEST_FILE).is_file()
        has_handler = (directory / HANDLER_FILE).is_file()
        if not has_manifest and not has_handler:
            continue
        record = GatewayHookRecord(key=key, name=key, path=str(directory))
        if not has_manifest or not has_handler:
            missing = directory / (HANDLER_FILE if has_manifest else MANIFEST_FILE)
            message = (
                f"[hooks] Skipping {key}: {missing} is missing "
                f"(a hook directory needs {MANIFEST_FILE} and {HANDLER_FILE})"
            )
            record.state, record.error = "skipped", message
            fix = f"add {missing.name}, or move the directory out of {root}"
            record.problems.append(Problem("error", str(missing), None, message, fix))
            yield record, None
            continue
        manifest = read_manifest(directory)
        record.name = manifest.name
        record.description = manifest.description
        record.events = list(manifest.events)
        record.problems.extend(manifest.problems)
        if manifest.skip is not None:
            record.state = "skipped" if manifest.enabled else "disabled"
            record.error = manifest.skip
        yield record, manifest


def _signature_problem(handle: Callable[..., Any]) -> str | None:
    try:
        signature = inspect.signature(handle)
    except (TypeError, ValueError):
        return None  # uninspectable: let the call decide
    try:
        signature.bind("event", {})
    except TypeError as exc:
        return f"handle{signature} cannot be called as handle(event_type, context): {exc}"
    return None


def safe_mode_notice() -> None:
    """Say that ``HERMES_SAFE_MODE`` keeps the gateway hooks from loading."""
    log.info(SAFE_MODE_MESSAGE)


def load(context: LoadContext) -> GatewaySource:
    """Discover the gateway hooks of ``context.home`` (gateway surface only)."""
    source = GatewaySource(context)
    source.discover()
    return source


def unloaded(context: LoadContext) -> Source:
    """The stand-in ``list`` and ``doctor`` ask when this adapter did not run (safe
    mode, or the CLI surface): ``list`` says why, and ``doctor`` still reads every
    manifest without importing a handler."""
    directory = context.home / "hooks"

    def check() -> list[Finding]:
        records = [record for record, _ in survey(directory)]
        return check_gateway_hooks(directory, records, loaded=False)

    return Unloaded("gateway", lambda: gateway_section(directory, None), check)
