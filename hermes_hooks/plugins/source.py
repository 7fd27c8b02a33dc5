"""Python plugins: entry points and plugin directories, registered in plugin order.

Sources, all in one plugin order (ascending code-point order of the plugin keys):

* entry-point group ``hermes_hooks``: a module (or object) with
  ``@hermes_hooks.hookimpl`` functions, registered with pluggy as it is;
* entry-point group ``hermes_agent.plugins``: any object with a ``register(ctx)``
  attribute (a module, or ``module:object``), as hermes-agent reads it, and, as an
  extension of ours, ``module:function`` naming ``register`` itself;
* ``<home>/plugins/<dir>/`` (``plugin.yaml`` or ``plugin.yml`` + ``__init__.py`` with
  ``register(ctx)``), keyed by the manifest's ``name`` (the directory name when it has
  none), with one level of category nesting (``<home>/plugins/<category>/<dir>/``, key
  ``category/dir``): hermes-agent's rule;
* ``./.hermes/plugins/`` the same way, only when ``HERMES_ENABLE_PROJECT_PLUGINS`` is set.

``plugins.disabled`` always wins; when ``plugins.enabled`` is present only the listed
plugins load; both match the key or the manifest name.  A plugin that fails in any way
(any exception but ``KeyboardInterrupt``, ``SystemExit`` included) is recorded with the
reason and the file:line that raised, logged once, and skipped; every other plugin
still loads.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_hooks._imports import import_file
from hermes_hooks._log import ON_RECORD, exception_text, get_logger
from hermes_hooks._manager import unknown_registration
from hermes_hooks.config import env_flag
from hermes_hooks.errors import PluginLoadError
from hermes_hooks.hookspecs import CATALOGUE, VALID_HOOKS
from hermes_hooks.plugins.entry_points import may_declare
from hermes_hooks.plugins.gate_answers import ignored_answers
from hermes_hooks.plugins.record import PluginRecord
from hermes_hooks.plugins.tool_rules import report
from hermes_hooks.sources import Source, Unloaded

# The plugin ``ctx``, the importer and the report load when a plugin is found (or when
# ``list`` and ``doctor`` ask): a home without plugins never needs them.
if TYPE_CHECKING:
    from hermes_hooks._context import LoadContext
    from hermes_hooks.plugins.context import PluginContext, PluginManifest
    from hermes_hooks.report import EntryErrors, Finding, Level, Section

__all__ = [
    "ENTRY_POINT_GROUPS",
    "PluginRecord",
    "PythonSource",
    "load",
    "unloaded",
]

log = get_logger("hermes_hooks.plugins")

#: Entry-point groups: pluggy-style modules, and ``register(ctx)`` modules.
HOOKIMPL_GROUP = "hermes_hooks"
REGISTER_GROUP = "hermes_agent.plugins"
ENTRY_POINT_GROUPS = (HOOKIMPL_GROUP, REGISTER_GROUP)
_MODULE_PREFIX = "hermes_plugins"
#: The Hermes Agent bridge's entry point (declared by this distribution): discovery
#: never loads it, and its name in ``plugins.enabled`` (which the agent needs) counts
#: as found.
BRIDGE_MODULE = "hermes_hooks.integrations.hermes_agent"
BRIDGE_NAME = "hermes-hooks"


class PythonSource:
    """The Python plugins of one load."""

    name = "python"

    def __init__(self, context: LoadContext) -> None:
        self._context = context
        self.plugins: list[PluginRecord] = []
        self._modules: list[str] = []
        #: What is wrong with discovery as a whole rather than with one plugin, as
        #: (level, message): a plugin folder without ``plugin.yaml``, and
        #: ``plugins.enabled`` / ``plugins.disabled`` names that match no plugin
        #: (:meth:`_unmatched_names`).  A key found twice is a problem of the plugin
        #: that runs under it.
        self.findings: list[tuple[Level, str]] = []
        #: The ``ctx`` handed to the plugin whose ``register()`` runs now, closed when
        #: it returns or raises.
        self._contexts: list[PluginContext] = []

    def records(self) -> list[PluginRecord]:
        """Every plugin found, loaded or not, in plugin order then the rest by key."""
        order = {key: i for i, key in enumerate(self._context.manager.plugin_order())}
        return sorted(self.plugins, key=lambda r: (order.get(r.key, len(order)), r.key))

    def unload(self) -> None:
        """Unregister every plugin and forget its modules, so a reload re-imports."""
        for record in self.plugins:
            self._forget(record.key)
        for module_name in self._modules:
            for loaded in [
                m for m in sys.modules if m == module_name or m.startswith(module_name + ".")
            ]:
                del sys.modules[loaded]
        self.plugins.clear()
        self._modules.clear()

    def close(self, timeout: float) -> None:
        """Python plugins keep no background work of ours."""

    def section(self, errors: EntryErrors | None = None) -> Section:
        """Each plugin's key, origin, state, hooks and load errors, for ``list``."""
        from hermes_hooks.plugins.report import python_section

        return python_section(self.records(), errors)

    def check(self, *, fire: bool = True) -> list[Finding]:
        """Load failures, refused callbacks, gate answers that are ignored, and loose
        permissions, for ``doctor``."""
        from hermes_hooks.plugins.report import check_python_plugins

        answers: dict[str, list[str]] = {}
        for hook, contract in CATALOGUE.items():
            if not contract.fail_closed:  # only a gate's ignored answer lets actions by
                continue
            for callback in self._context.manager.callbacks(hook):
                if callback.source == "python":
                    found = ignored_answers(callback, contract)
                    answers.setdefault(callback.owner, []).extend(found)
        return check_python_plugins(self._context.home, self.records(), self.findings, answers)

    # -- discovery ---------------------------------------------------------------------

    def discover(self, *, entry_points: bool = True) -> None:
        """Find and load every plugin; idempotent for keys already loaded."""
        settings = self._context.settings
        known = {r.key for r in self.plugins}
        roots = [(self._context.home / "plugins", "directory")]
        if env_flag("HERMES_ENABLE_PROJECT_PLUGINS"):
            project = Path.cwd() / ".hermes" / "plugins"
            # Run from the home's parent, the project folder is the home's own plugins
            # folder: read once, or every plugin in it would be "found twice".
            if project.resolve() != roots[0][0].resolve():
                roots.append((project, "project"))
        candidates = []
        findings: list[tuple[Level, str]] = []
        for root, source in roots:
            folders, strays = _plugin_folders(root)
            candidates += [self._directory_candidate(p, cat, source) for p, cat in folders]
            findings += map(_stray_finding, strays)
        if entry_points:
            candidates += self._entry_point_candidates()
        seen: dict[str, PluginRecord] = {}
        for record, loader in sorted(candidates, key=lambda c: c[0].key):
            if record.key in known:
                continue
            if record.key in seen:
                # An error: the second never runs, and it may be the guard the user
                # installed (a pip package under the name of an old directory plugin).
                # Recorded on the plugin that runs, so that `list` marks it as
                # `doctor` does (both read the record); logged once, here.
                first = seen[record.key]
                twice = (
                    f"Plugin '{record.key}' found twice ({first.source} at "
                    f"{first.path or first.distribution}, and {record.source} at "
                    f"{record.path or record.distribution}); the second is skipped and "
                    "never runs. Fix: remove one, or rename one (its plugin.yaml name "
                    "or its entry point)"
                )
                first.problems.append(twice)
                log.error("%s", twice)
                continue
            seen[record.key] = record
            self.plugins.append(record)
            # hermes-agent matches the key or the manifest name, disabled first.
            verdicts = [settings.allows(n) for n in dict.fromkeys((record.key, record.name)) if n]
            blocked = [v for v in verdicts if v and "disabled" in v]
            reason = blocked[0] if blocked else (None if None in verdicts else verdicts[0])
            if reason:
                record.state = "disabled"
                record.error = reason
                continue
            self._load_one(record, loader)
        findings += self._unmatched_names(entry_points)
        for level, message in findings:
            log.log(logging.ERROR if level == "error" else logging.WARNING, "%s", message)
        self.findings = findings

    def _unmatched_names(self, scanned_entry_points: bool) -> list[tuple[Level, str]]:
        """Names in ``plugins.enabled`` / ``plugins.disabled`` that match no plugin found.

        An enabled name that matches nothing is an error: the plugin it meant does not
        run (a misspelt name also disables every plugin it failed to list, guards
        included).  It is only judged when entry points were scanned, since it may name
        an installed one.  A disabled name that matches nothing disables nothing, which
        may leave running a plugin that was meant to be off: a warning.
        """
        settings = self._context.settings
        config = self._context.home / "config.yaml"
        found = sorted({n for r in self.plugins for n in (r.key, r.name) if n} | {BRIDGE_NAME})
        lists: list[tuple[str, list[str], Level]] = [("disabled", settings.disabled, "warn")]
        if settings.enabled is not None and scanned_entry_points:
            lists.insert(0, ("enabled", settings.enabled, "error"))
        problems: list[tuple[Level, str]] = []
        for key, names, level in lists:
            for name in names:
                if name in found:
                    continue
                import difflib  # deferred: only a name that matches nothing needs it

                close = difflib.get_close_matches(name, found, n=1, cutoff=0.6)
                hint = f"did you mean '{close[0]}'?" if close else "no plugin has that name"
                problems.append(
                    (
                        level,
                        f"{config}: plugins.{key} lists '{name}', which matches no plugin "
                        f"found — {hint} Fix: use a plugin's key or manifest name, as "
                        "`hermes-hooks list` shows it",
                    )
                )
        return problems

    def _forget(self, key: str) -> None:
        self._context.manager.unregister_owner(key)
        self._context.prompt_sections.unregister_plugin(key)
        self._context.registry.remove_plugin(key)

    def _load_one(self, record: PluginRecord, loader: Callable[[PluginRecord], None]) -> None:
        try:
            loader(record)
        except KeyboardInterrupt:
            self._close_contexts("raised")
            raise
        except BaseException as exc:  # a plugin must never take the host down
            # Closed first: a thread the plugin started cannot register once its
            # registrations are forgotten.
            self._close_contexts("raised")
            self._forget(record.key)
            record.state = "failed"
            record.location = raise_site(exc)
            record.error = f"{type(exc).__name__}: {exception_text(exc)}"
            if record.location:
                record.error += f" (raised at {record.location})"
            record.hooks.clear()
            # An ERROR: whatever it would have registered, a gate included, is not there.
            log.error(
                "Plugin '%s' failed to load and is skipped: %s. None of its hooks run; "
                "fix the error, or disable the plugin if it is not wanted",
                record.key,
                record.error,
                extra=ON_RECORD,
            )
            return
        self._close_contexts("returned")
        record.state = "loaded"
        record.registrations = self._context.registry.summary(record.key)
        if not (
            record.hooks
            or record.registrations
            or record.key in self._context.prompt_sections.plugins()
        ):
            message = (
                "loaded but registered nothing (often an optional import inside it "
                "failed, or it found no configuration)"
            )
            record.warnings.append(message)
            # INFO, not WARNING: a plugin that stays dormant until configured is normal at
            # every start; list and doctor show it as a warning to whoever looks.
            log.info("Plugin '%s' %s", record.key, message)

    def _directory_candidate(
        self, path: Path, category: str, source: str
    ) -> tuple[PluginRecord, Callable[[PluginRecord], None]]:
        # hermes-agent's key: the manifest name at the top level, category/dir nested.
        name = path.name
        try:
            manifest, _ = _read_manifest(_manifest_file(path) or path / "plugin.yaml")
            declared = manifest.get("name")
        except PluginLoadError:  # reported when it loads
            declared = None
        if isinstance(declared, str) and declared.strip():
            name = declared.strip()
        key = f"{category}/{path.name}" if category else name
        record = PluginRecord(key=key, source=source, path=str(path), name=name)
        return record, self._load_directory

    def _load_directory(self, record: PluginRecord) -> None:

        assert record.path is not None
        path = Path(record.path)
        manifest_file = _manifest_file(path) or path / "plugin.yaml"
        manifest, notes = _read_manifest(manifest_file)
        for note in notes:
            log.warning("Plugin '%s': %s", record.key, note)
        record.warnings.extend(notes)
        record.version = _optional_str(manifest.get("version"))
        record.description = _optional_str(manifest.get("description"))
        requires = manifest.get("requires_plugins") or []
        if not isinstance(requires, list) or not all(isinstance(r, str) for r in requires):
            raise PluginLoadError(
                f"{manifest_file}: 'requires_plugins' must be a list of plugin names",
                plugin=record.key,
            )
        init = path / "__init__.py"
        if not init.exists():
            raise PluginLoadError(
                f"{init} is missing: a plugin directory needs __init__.py", plugin=record.key
            )
        module_name = f"{_MODULE_PREFIX}.{re.sub(r'[^0-9A-Za-z_]', '_', record.key)}"
        module = import_file(module_name, init, package=True)
        self._modules.append(module_name)
        register = getattr(module, "register", None)
        if not callable(register):
            raise PluginLoadError(f"{init} defines no register(ctx) function", plugin=record.key)
        self._context.manager.set_requirements(record.key, requires)
        register(self._plugin_context(record, _manifest_of(record, manifest, source=record.source)))

    def _plugin_context(self, record: PluginRecord, manifest: PluginManifest) -> PluginContext:
        from hermes_hooks.plugins.context import PluginContext

        ctx = PluginContext(self._context, record, manifest)
        self._contexts.append(ctx)
        return ctx

    def _close_contexts(self, outcome: str) -> None:
        """The running ``register()`` is over: its ``ctx`` refuses registrations."""
        while self._contexts:
            self._contexts.pop()._close(outcome)

    def _entry_point_candidates(
        self,
    ) -> Iterator[tuple[PluginRecord, Callable[[PluginRecord], None]]]:

        if not may_declare(ENTRY_POINT_GROUPS):  # most environments: skip the costly scan
            return
        import importlib_metadata  # deferred: only loads that may find a plugin pay for it

        found = importlib_metadata.entry_points()  # one scan of the installed distributions
        for group in ENTRY_POINT_GROUPS:
            for ep in found.select(group=group):
                if ep.value.partition(":")[0] == BRIDGE_MODULE:
                    # The Hermes Agent bridge: it loads this very home, so loading it
                    # here would load the home again, without end.
                    continue
                dist = getattr(ep, "dist", None)
                record = PluginRecord(
                    key=ep.name,
                    name=ep.name,
                    source=f"entry-point:{group}",
                    path=ep.value,
                    distribution=dist.name if dist is not None else None,
                    version=dist.version if dist is not None else None,
                )
                yield record, self._entry_point_loader(ep, group)

    def _register_hookimpls(self, record: PluginRecord, target: Any) -> None:
        """Register a pluggy-style plugin module or object, and record what doctor must
        show about its hookimpls: names outside the catalogue, and parameters that
        resemble a payload field but are never passed (errors where they switch a
        guard off, else warnings)."""
        from hermes_hooks.plugins.context import parameter_problem

        manager = self._context.manager
        manager.register(target, name=record.key)
        callers = manager.get_hookcallers(target) or []
        record.hooks = sorted(caller.name for caller in callers)
        for caller in callers:
            if caller.name not in VALID_HOOKS:  # the manager has logged it
                gate, message = unknown_registration(record.key, caller.name)
                record.note(message, gate=gate)
                continue
            for impl in caller.get_hookimpls():
                problem = impl.plugin is target and parameter_problem(
                    record.key, caller.name, impl.function
                )
                if problem:
                    report(record, problem[1], gate=problem[0])

    def _entry_point_loader(self, ep: Any, group: str) -> Callable[[PluginRecord], None]:
        def load_entry_point(record: PluginRecord) -> None:
            target = ep.load()
            if group == HOOKIMPL_GROUP:
                self._register_hookimpls(record, target)
                return
            # hermes-agent calls the loaded object's ``register``; naming the function
            # itself (``module:register``) is our extension.
            register = getattr(target, "register", None)
            if register is None and ep.attr and callable(target):
                register = target
            if not callable(register):
                raise PluginLoadError(
                    f"entry point {ep.value!r} exposes no register(ctx)", plugin=record.key
                )
            from hermes_hooks.plugins.context import PluginManifest

            manifest = PluginManifest(name=ep.name, source="entrypoint", path=ep.value, key=ep.name)
            register(self._plugin_context(record, manifest))

        return load_entry_point


def raise_site(exc: BaseException) -> str | None:
    """``file:line`` where ``exc`` was raised (a syntax error's own position first)."""
    if isinstance(exc, SyntaxError) and exc.filename:
        return f"{exc.filename}:{exc.lineno}"
    # The innermost frame of the plugin's own code: import machinery and our loader
    # say nothing about where the plugin went wrong.
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        name = frame.filename
        if not (name.startswith(_MACHINERY) or any(p in name for p in _IMPORT_MACHINERY)):
            return f"{name}:{frame.lineno}"
    return None


#: Frames that are never the plugin's: the frozen import system, importlib (and its
#: backport), and this package.
_MACHINERY = ("<frozen ", str(Path(__file__).resolve().parents[1]))
_IMPORT_MACHINERY = (f"{os.sep}importlib{os.sep}", f"{os.sep}importlib_metadata{os.sep}")


def _plugin_folders(root: Path) -> tuple[list[tuple[Path, str]], list[Path]]:
    """The plugin folders under ``root`` with their category (``""`` at the top level;
    one level of category nesting, as hermes-agent reads it), and the folders that hold
    an ``__init__.py`` but no ``plugin.yaml``, which hermes-agent skips too."""
    folders: list[tuple[Path, str]] = []
    strays: list[Path] = []
    if not root.is_dir():
        return folders, strays
    for child in sorted(root.iterdir()):
        if not child.is_dir() or child.name.startswith((".", "_")):
            continue
        if _manifest_file(child):
            folders.append((child, ""))
            continue
        nested = [
            (n, child.name) for n in sorted(child.iterdir()) if n.is_dir() and _manifest_file(n)
        ]
        folders += nested
        if not nested and (child / "__init__.py").is_file():
            strays.append(child)
    return folders, strays


def _stray_finding(folder: Path) -> tuple[Level, str]:
    """What ``doctor`` says of a folder with code but no ``plugin.yaml``: it never
    loads, an error when its code names the gate (it looks like a guard that is off)."""
    try:
        text = (folder / "__init__.py").read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    gate = "pre_tool_call" in text
    return (
        "error" if gate else "warn",
        f"{folder}: has __init__.py but no plugin.yaml, so it is not loaded"
        + (" (and it names pre_tool_call: a guard that never runs)" if gate else "")
        + f". Fix: add {folder / 'plugin.yaml'} with at least 'name: {folder.name}'",
    )


def _manifest_file(path: Path) -> Path | None:
    """``plugin.yaml``, else ``plugin.yml``, when ``path`` has one."""
    for name in ("plugin.yaml", "plugin.yml"):
        if (path / name).exists():
            return path / name
    return None


def _manifest_of(record: PluginRecord, data: dict[str, Any], *, source: str) -> PluginManifest:
    """``ctx.manifest`` from a plugin.yaml mapping (hermes-agent's fields)."""
    from hermes_hooks.plugins.context import PluginManifest

    def listed(key: str) -> list[Any]:
        value = data.get(key)
        return list(value) if isinstance(value, list) else []

    return PluginManifest(
        name=record.name or record.key,
        version=str(data.get("version", "")),
        description=str(data.get("description", "") or ""),
        author=str(data.get("author", "") or ""),
        requires_env=listed("requires_env"),
        provides_tools=listed("provides_tools"),
        provides_hooks=listed("provides_hooks"),
        source="user" if source == "directory" else source,
        path=record.path,
        kind=str(data.get("kind", "standalone") or "standalone"),
        key=record.key,
    )


def _optional_str(value: Any) -> str | None:
    return None if value is None else str(value)


def _read_manifest(path: Path) -> tuple[dict[str, Any], list[str]]:
    """The manifest's keys, and warnings (unknown or duplicate keys) naming their line."""
    # Deferred: a home without plugin folders never needs the YAML reader.
    from hermes_hooks._yaml import YamlError, read_yaml
    from hermes_hooks.config_schema import unknown_keys

    try:
        document = read_yaml(path)
    except YamlError as exc:
        raise PluginLoadError(f"{exc.where(path)}: {exc}") from None
    bad = [issue for issue in document.issues if issue.level == "error"]
    if bad:  # a value over the bounds: refuse the plugin rather than guess
        issue = bad[0]
        raise PluginLoadError(
            f"{path}:{issue.where}: {issue.key}: {issue.problem}. Fix: {issue.fix}"
        )
    data = document.data
    if data is None:
        return {}, []
    if not isinstance(data, dict):
        raise PluginLoadError(
            f"{path}: plugin.yaml must be a mapping of keys (name, version, description, "
            f"requires_plugins), got {type(data).__name__}"
        )
    issues = sorted(
        [*document.issues, *unknown_keys(document, "plugin.yaml")],
        key=lambda i: (i.position.line, i.position.column),
    )
    return data, [f"{path}:{i.where}: {i.key}: {i.message}" for i in issues]


def load(context: LoadContext) -> PythonSource:
    """Discover and register the Python plugins of ``context.home``."""
    source = PythonSource(context)
    source.discover(entry_points=context.entry_points)
    return source


def unloaded(context: LoadContext) -> Source:
    """The stand-in ``list`` and ``doctor`` ask when this adapter did not run: an empty
    section and no findings."""
    from hermes_hooks.plugins.report import python_section

    return Unloaded("python", lambda: python_section([]), list)
