"""Python plugins: entry points and plugin directories, registered in plugin order.

Sources, all in one plugin order (D-18, code-point order of the keys):

* entry-point group ``hermes_hooks``: a module (or object) with
  ``@hermes_hooks.hookimpl`` functions, registered with pluggy as it is;
* entry-point group ``hermes_agent.plugins``: ``module`` or ``module:function``
  exposing ``register(ctx)``;
* ``<home>/plugins/<name>/`` (``plugin.yaml`` + ``__init__.py`` with ``register(ctx)``),
  with one level of category nesting (``<home>/plugins/<category>/<name>/``, key
  ``category/name``);
* ``./.hermes/plugins/`` the same way, only when ``HERMES_ENABLE_PROJECT_PLUGINS`` is set.

``plugins.disabled`` always wins; when ``plugins.enabled`` is present only the listed
keys load.  A plugin that fails in any way is recorded with the reason, logged once, and
skipped; every other plugin still loads.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_hooks._imports import import_file
from hermes_hooks._log import exception_text
from hermes_hooks._manager import order_group
from hermes_hooks.adapters import Source, Unloaded
from hermes_hooks.adapters.python_report import check_python_plugins, python_section
from hermes_hooks.config import env_flag
from hermes_hooks.errors import PluginLoadError

if TYPE_CHECKING:
    from hermes_hooks._context import LoadContext
    from hermes_hooks.report import Finding, Section

__all__ = [
    "ENTRY_POINT_GROUPS",
    "PluginContext",
    "PluginRecord",
    "PythonSource",
    "load",
    "unloaded",
]

log = logging.getLogger("hermes_hooks.plugins")

#: Entry-point groups: pluggy-style modules, and ``register(ctx)`` modules.
HOOKIMPL_GROUP = "hermes_hooks"
REGISTER_GROUP = "hermes_agent.plugins"
ENTRY_POINT_GROUPS = (HOOKIMPL_GROUP, REGISTER_GROUP)
_MODULE_PREFIX = "hermes_plugins"


@dataclass
class PluginRecord:
    """One Python plugin as ``hermes-hooks list`` shows it."""

    key: str
    source: str  # "directory", "project", "entry-point:<group>"
    path: str | None = None
    distribution: str | None = None
    version: str | None = None
    description: str | None = None
    state: str = "pending"  # "loaded", "failed", "disabled"
    hooks: list[str] = field(default_factory=list)
    error: str | None = None
    problems: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready view for ``--json`` output."""
        return dict(vars(self))


class PluginContext:
    """The ``ctx`` a plugin's ``register(ctx)`` receives."""

    def __init__(self, context: LoadContext, record: PluginRecord) -> None:
        self._context = context
        self._record = record

    @property
    def plugin_name(self) -> str:
        """The plugin's key (directory name, ``category/name`` or entry-point name)."""
        return self._record.key

    @property
    def home(self) -> Path:
        """The Hermes home the plugin was loaded from."""
        return self._context.home

    def register_hook(
        self,
        name: str,
        callback: Callable[..., Any],
        *,
        tryfirst: bool = False,
        trylast: bool = False,
    ) -> None:
        """Register ``callback`` for hook ``name``.

        ``tryfirst``/``trylast`` move it to the front or back of the Python callbacks
        (D-19; both set → a warning and neither applies).  An unknown name, a duplicate
        or an impossible signature logs one warning and registers nothing; the call
        never raises, so the plugin's other registrations survive (D-07, D-08).
        """
        key = self._record.key
        group = order_group(
            key, name, tryfirst=tryfirst, trylast=trylast, warnings=self._context.manager.warnings
        )
        try:
            self._context.manager.register_callback(name, callback, owner=key, group=group)
        except PluginLoadError as exc:
            log.warning("%s", exc)
            self._record.problems.append(str(exc))
            return
        if name not in self._record.hooks:
            self._record.hooks.append(name)

    def register_system_prompt_section(
        self,
        section_id: str,
        content: str | Callable[[Mapping[str, Any]], Any],
        *,
        position: str = "after_memory",
        max_chars: int = 4000,
    ) -> None:
        """Register a bounded system-prompt section (PS-01); see
        :mod:`hermes_hooks.prompt_sections`.  Raises ``ValueError``/``TypeError`` on a
        bad id, duplicate, content, position or ``max_chars`` (D-57..D-59)."""
        self._context.prompt_sections.register(
            self._record.key, section_id, content, position=position, max_chars=max_chars
        )


class PythonSource:
    """The Python plugins of one load."""

    name = "python"

    def __init__(self, context: LoadContext) -> None:
        self._context = context
        self.plugins: list[PluginRecord] = []
        self._modules: list[str] = []

    def records(self) -> list[PluginRecord]:
        """Every plugin found, loaded or not, in plugin order then the rest by key."""
        order = {key: i for i, key in enumerate(self._context.manager.plugin_order())}
        return sorted(self.plugins, key=lambda r: (order.get(r.key, len(order)), r.key))

    def unload(self) -> None:
        """Unregister every plugin and forget its modules, so a reload re-imports."""
        for record in self.plugins:
            self._context.manager.unregister_owner(record.key)
            self._context.prompt_sections.unregister_plugin(record.key)
        for module_name in self._modules:
            for loaded in [
                m for m in sys.modules if m == module_name or m.startswith(module_name + ".")
            ]:
                del sys.modules[loaded]
        self.plugins.clear()
        self._modules.clear()

    def close(self, timeout: float) -> None:
        """Python plugins keep no background work of ours."""

    def section(self) -> Section:
        """Each plugin's key, origin, state, hooks and load errors, for ``list``."""
        return python_section(self.records())

    def check(self) -> list[Finding]:
        """Load failures, refused callbacks and loose permissions, for ``doctor``."""
        return check_python_plugins(self._context.home, self.records())

    # -- discovery ---------------------------------------------------------------------

    def discover(self, *, entry_points: bool = True) -> None:
        """Find and load every plugin; idempotent for keys already loaded (D-08)."""
        settings = self._context.settings
        known = {r.key for r in self.plugins}
        candidates = list(self._directory_candidates(self._context.home / "plugins", "directory"))
        if env_flag("HERMES_ENABLE_PROJECT_PLUGINS"):
            candidates += self._directory_candidates(Path.cwd() / ".hermes" / "plugins", "project")
        if entry_points:
            candidates += self._entry_point_candidates()
        seen: dict[str, PluginRecord] = {}
        for record, loader in sorted(candidates, key=lambda c: c[0].key):
            if record.key in known:
                continue
            if record.key in seen:
                first = seen[record.key]
                log.warning(
                    "Plugin '%s' found twice (%s at %s, and %s at %s); the second is skipped",
                    record.key,
                    first.source,
                    first.path or first.distribution,
                    record.source,
                    record.path or record.distribution,
                )
                continue
            seen[record.key] = record
            self.plugins.append(record)
            reason = settings.allows(record.key)
            if reason:
                record.state = "disabled"
                record.error = reason
                continue
            self._load_one(record, loader)

    def _load_one(self, record: PluginRecord, loader: Callable[[PluginRecord], None]) -> None:
        try:
            loader(record)
        except (Exception, SystemExit) as exc:  # never KeyboardInterrupt
            self._context.manager.unregister_owner(record.key)
            self._context.prompt_sections.unregister_plugin(record.key)
            record.state = "failed"
            record.error = f"{type(exc).__name__}: {exception_text(exc)}"
            record.hooks.clear()
            log.warning("Plugin '%s' failed to load and is skipped: %s", record.key, record.error)
        else:
            record.state = "loaded"

    def _directory_candidates(
        self, root: Path, source: str
    ) -> Iterator[tuple[PluginRecord, Callable[[PluginRecord], None]]]:
        if not root.is_dir():
            return
        for child in sorted(root.iterdir()):
            if not child.is_dir() or child.name.startswith((".", "_")):
                continue
            if (child / "plugin.yaml").exists():
                yield self._directory_candidate(child, child.name, source)
                continue
            for nested in sorted(child.iterdir()):  # one level of category nesting
                if nested.is_dir() and (nested / "plugin.yaml").exists():
                    yield self._directory_candidate(nested, f"{child.name}/{nested.name}", source)

    def _directory_candidate(
        self, path: Path, key: str, source: str
    ) -> tuple[PluginRecord, Callable[[PluginRecord], None]]:
        record = PluginRecord(key=key, source=source, path=str(path))
        return record, self._load_directory

    def _load_directory(self, record: PluginRecord) -> None:
        assert record.path is not None
        path = Path(record.path)
        manifest = _read_manifest(path / "plugin.yaml")
        record.version = _optional_str(manifest.get("version"))
        record.description = _optional_str(manifest.get("description"))
        requires = manifest.get("requires_plugins") or []
        if not isinstance(requires, list) or not all(isinstance(r, str) for r in requires):
            raise PluginLoadError(
                f"{path / 'plugin.yaml'}: 'requires_plugins' must be a list of plugin names",
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
        register(PluginContext(self._context, record))

    def _entry_point_candidates(
        self,
    ) -> Iterator[tuple[PluginRecord, Callable[[PluginRecord], None]]]:
        import importlib_metadata  # deferred: only loads that scan entry points pay for it

        for group in ENTRY_POINT_GROUPS:
            for ep in importlib_metadata.entry_points(group=group):
                dist = getattr(ep, "dist", None)
                record = PluginRecord(
                    key=ep.name,
                    source=f"entry-point:{group}",
                    path=ep.value,
                    distribution=dist.name if dist is not None else None,
                    version=dist.version if dist is not None else None,
                )
                yield record, self._entry_point_loader(ep, group)

    def _entry_point_loader(self, ep: Any, group: str) -> Callable[[PluginRecord], None]:
        def load_entry_point(record: PluginRecord) -> None:
            target = ep.load()
            if group == HOOKIMPL_GROUP:
                self._context.manager.register(target, name=record.key)
                record.hooks = sorted(
                    c.name for c in self._context.manager.get_hookcallers(target) or ()
                )
                return
            register = target if ep.attr else getattr(target, "register", None)
            if not callable(register):
                raise PluginLoadError(
                    f"entry point {ep.value!r} exposes no register(ctx)", plugin=record.key
                )
            register(PluginContext(self._context, record))

        return load_entry_point


def _optional_str(value: Any) -> str | None:
    return None if value is None else str(value)


def _read_manifest(path: Path) -> dict[str, Any]:
    import yaml  # here: a home without plugin.yaml files never pays for the parser

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8-sig"))
    except yaml.YAMLError as exc:
        raise PluginLoadError(f"{path}: not valid YAML ({exc})") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise PluginLoadError(
            f"{path}: plugin.yaml must be a mapping of keys (name, version, description, "
            f"requires_plugins), got {type(data).__name__}"
        )
    return data


def load(context: LoadContext) -> PythonSource:
    """Discover and register the Python plugins of ``context.home``."""
    source = PythonSource(context)
    source.discover(entry_points=context.entry_points)
    return source


def unloaded(context: LoadContext) -> Source:
    """The stand-in ``list`` and ``doctor`` ask when this adapter did not run: an empty
    section and no findings."""
    return Unloaded("python", lambda: python_section([]), list)
