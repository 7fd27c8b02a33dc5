"""The ``ctx`` a plugin's ``register(ctx)`` receives, with every member hermes-agent's has.

Names, signatures, defaults, validation and errors follow hermes-agent 0.19.0, so a
``register()`` written for it runs here unchanged.  Registrations land in
:class:`~hermes_hooks.plugins.registry.PluginRegistry` (``hooks.registry``) attributed to the
plugin; hook callbacks go to the hook manager.  What only an agent host can do (call
the model, inject a message, dispatch a tool) comes from a :class:`HostCapabilities`
passed to :func:`hermes_hooks.load`; without one each member does what hermes-agent
does when the capability is missing.
"""

from __future__ import annotations

import importlib
import json
import logging
import re
import threading
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_hooks import _hermes_names
from hermes_hooks._callback import describe, misspelt_parameters
from hermes_hooks._capabilities import HostCapabilities
from hermes_hooks._isolation import escapes
from hermes_hooks._log import get_logger
from hermes_hooks._manager import order_group, resembles_gate, suggest_hook
from hermes_hooks.errors import PluginLoadError, PluginToolOverrideError
from hermes_hooks.hookspecs import CATALOGUE, TELEMETRY_FIELD, VALID_HOOKS
from hermes_hooks.plugins.middleware import VALID_MIDDLEWARE
from hermes_hooks.plugins.registry_entries import (
    AuxiliaryTask,
    CliCommand,
    Command,
    InertHook,
    Middleware,
    Platform,
    Provider,
    Skill,
    SlackActionHandler,
    Tool,
)
from hermes_hooks.plugins.tool_rules import report, tool_holder, while_registering

if TYPE_CHECKING:
    from hermes_hooks._context import LoadContext
    from hermes_hooks.plugins.record import PluginRecord

__all__ = [
    "HostCapabilities",
    "PluginContext",
    "PluginManifest",
    "PluginToolOverrideError",
    "UnavailableLlm",
]

log = get_logger("hermes_hooks.plugins")

_SKILL_NAME = re.compile(r"^[a-zA-Z0-9_-]+$")
_PROFILE_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


class UnavailableLlm:
    """``ctx.llm`` when the host lent no model: reading it works, calling it raises."""

    def __init__(self, plugin_id: str) -> None:
        self.plugin_id = plugin_id

    def _missing(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(
            f"plugin '{self.plugin_id}' called ctx.llm, but this host lent no model: "
            "pass load(..., host=HostCapabilities(llm=...))"
        )

    complete = _missing
    complete_structured = _missing


def parameter_problem(
    owner: str, hook_name: str, callback: Callable[..., Any]
) -> tuple[bool, str] | None:
    """(whether ``hook_name`` can block, the message) when ``callback`` (registered by
    ``owner``) declares an optional parameter resembling a payload field that no firing
    passes, so it always gets its default; None when it declares none.  On a hook that
    can block the guard then never sees what it guards, which :func:`report` makes an
    ERROR."""
    fields = CATALOGUE[hook_name].field_names | {TELEMETRY_FIELD}
    misspelt = misspelt_parameters(callback, fields)
    if not misspelt:
        return None
    message = (
        f"Plugin '{owner}': its {hook_name} callback {describe(callback)} declares "
        f"{', '.join(misspelt)}, which no firing passes, so it always gets its default. "
        "Fix: use the payload field's name"
    )
    return CATALOGUE[hook_name].fail_closed, message


@dataclass
class PluginManifest:
    """The plugin's manifest as ``ctx.manifest`` shows it (hermes-agent's fields)."""

    name: str
    version: str = ""
    description: str = ""
    author: str = ""
    requires_env: list[Any] = field(default_factory=list)
    provides_tools: list[str] = field(default_factory=list)
    provides_hooks: list[str] = field(default_factory=list)
    source: str = ""
    path: str | None = None
    kind: str = "standalone"
    key: str = ""


#: ``register_*_provider`` kind → hermes-agent base class ("module:Class").
_PROVIDER_BASES = {
    "image_gen": ("agent.image_gen_provider:ImageGenProvider", "an image_gen provider"),
    "dashboard_auth": (
        "hermes_cli.dashboard_auth:DashboardAuthProvider",
        "a dashboard-auth provider",
    ),
    "video_gen": ("agent.video_gen_provider:VideoGenProvider", "a video_gen provider"),
    "web_search": ("agent.web_search_provider:WebSearchProvider", "a web provider"),
    "browser": ("agent.browser_provider:BrowserProvider", "a browser provider"),
    "secret_source": ("agent.secret_sources.base:SecretSource", "a secret source"),
    "tts": ("agent.tts_provider:TTSProvider", "a TTS provider"),
    "transcription": (
        "agent.transcription_provider:TranscriptionProvider",
        "a transcription provider",
    ),
    "context_engine": ("agent.context_engine:ContextEngine", "a context engine"),
}


def _base_class(spec: str) -> type | None:
    """hermes-agent's base class when it is installed, else ``None``."""
    module_name, _, name = spec.partition(":")
    try:
        found = getattr(importlib.import_module(module_name), name, None)
    except Exception:  # hermes-agent absent or broken: fall back to the duck check
        return None
    return found if isinstance(found, type) else None


def profile_from_home(home: Path) -> str:
    """The profile hermes-agent names for ``home``: ``default`` for its root, the id
    for ``<root>/profiles/<id>``, else ``custom``.  The root is ``~/.hermes`` for a
    home inside it; elsewhere (a container volume) the home itself, or the grandparent
    of a ``profiles/<id>`` home."""
    native = (Path.home() / ".hermes").resolve()
    resolved = home.resolve()
    if resolved == native or native in resolved.parents:
        root = native
    elif resolved.parent.name == "profiles":
        root = resolved.parent.parent
    else:
        root = resolved
    if resolved == root:
        return "default"
    try:
        parts = resolved.relative_to(root / "profiles").parts
    except ValueError:
        return "custom"
    return parts[0] if len(parts) == 1 and _PROFILE_ID.match(parts[0]) else "custom"


class PluginContext:
    """Facade handed to ``register(ctx)``: register hooks, tools, commands and more."""

    def __init__(
        self,
        context: LoadContext,
        record: PluginRecord,
        manifest: PluginManifest | None = None,
    ) -> None:
        self._context = context
        self._record = record
        self._host = context.host
        self._llm: Any = None
        self._open_lock = threading.RLock()
        #: Why registrations are refused ("returned", "raised"); None while open.
        self._closed: str | None = None
        #: The plugin's manifest (``name`` is what messages and attribution use).
        self.manifest = manifest or PluginManifest(
            name=record.name or record.key, key=record.key, path=record.path
        )

    def _close(self, outcome: str) -> None:
        """``register()`` is over (``outcome``: "returned" or "raised"): refuse every
        later registration.  Waits for a registration in progress on another thread."""
        with self._open_lock:
            self._closed = outcome

    # -- identity --------------------------------------------------------------------

    @property
    def plugin_name(self) -> str:
        """The plugin's key (manifest name, ``category/name`` or entry-point name)."""
        return self._record.key

    @property
    def home(self) -> Path:
        """The Hermes home the plugin was loaded from."""
        return self._context.home

    @property
    def profile_name(self) -> str:
        """The active profile: the host's, else derived from the home."""
        if self._host.profile_name:
            return self._host.profile_name
        try:
            return profile_from_home(self._context.home)
        except Exception:
            return "default"

    @property
    def llm(self) -> Any:
        """The host's model facade for this plugin (built once); an
        :class:`UnavailableLlm` whose calls raise when the host lent none."""
        if self._llm is None:
            plugin_id = self.manifest.key or self.manifest.name
            factory = self._host.llm
            self._llm = factory(plugin_id) if factory else UnavailableLlm(plugin_id)
        return self._llm

    # -- hooks and middleware --------------------------------------------------------

    @while_registering
    def register_hook(
        self,
        hook_name: str,
        callback: Callable[..., Any],
        *,
        tryfirst: bool = False,
        trylast: bool = False,
    ) -> None:
        """Register ``callback`` for hook ``hook_name``.

        ``tryfirst``/``trylast`` move it to the front or back of the Python callbacks
        (both set → a warning and neither applies).  A name outside the catalogue is
        kept but never fired, with a warning (and a did-you-mean when one is close),
        as hermes-agent keeps it.  A duplicate or an impossible signature logs one
        warning and registers nothing.  Never raises.
        """
        key = self._record.key
        if hook_name not in VALID_HOOKS:
            message = (
                f"Plugin '{self.manifest.name}' registered unknown hook '{hook_name}' — "
                f"{suggest_hook(hook_name)} Kept inert: it never fires."
            )
            # A guard under a name close to a gate's never guards: an error then.
            report(self._record, message, gate=resembles_gate(hook_name))
            self._context.registry.add(InertHook(key, hook_name, callback))
            return
        manager = self._context.manager
        group = order_group(
            key, hook_name, tryfirst=tryfirst, trylast=trylast, warnings=manager.warnings
        )
        try:
            manager.register_callback(hook_name, callback, owner=key, group=group)
        except PluginLoadError as exc:
            # Refused as uncallable on a hook that can block, a guard never runs: an
            # ERROR.  A duplicate is harmless (the first registration runs).
            duplicate = any(cb.function == callback for cb in manager.callbacks(hook_name))
            gate = CATALOGUE[hook_name].fail_closed and not duplicate
            log.log(logging.ERROR if gate else logging.WARNING, "%s", exc)
            self._record.problems.append(str(exc))
            return
        if hook_name not in self._record.hooks:
            self._record.hooks.append(hook_name)
        self._check_parameters(hook_name, callback)

    def _check_parameters(self, hook_name: str, callback: Callable[..., Any]) -> None:
        found = parameter_problem(self.manifest.name, hook_name, callback)
        if found is not None:
            report(self._record, found[1], gate=found[0])

    @while_registering
    def register_middleware(self, kind: str, callback: Callable[..., Any]) -> None:
        """Register a middleware callback of ``kind`` (``tool_request``,
        ``tool_execution``, ``llm_request``, ``llm_execution``); an unknown kind is
        kept with a warning."""
        if kind not in VALID_MIDDLEWARE:
            message = (
                f"Plugin '{self.manifest.name}' registered unknown middleware '{kind}' "
                f"(valid: {', '.join(sorted(VALID_MIDDLEWARE))})"
            )
            log.warning("%s", message)
            self._record.warnings.append(message)
        self._context.registry.add(Middleware(self._record.key, kind, callback))

    @while_registering
    def register_system_prompt_section(
        self,
        section_id: str,
        content: str | Callable[[Mapping[str, Any]], Any],
        *,
        position: str = "after_memory",
        max_chars: int = 4000,
    ) -> None:
        """Register a bounded system-prompt section (see
        :mod:`hermes_hooks.plugins.prompt_sections`).  Raises ``ValueError``/``TypeError`` on a
        bad id, duplicate, content, position or ``max_chars``."""
        self._context.prompt_sections.register(
            self._record.key, section_id, content, position=position, max_chars=max_chars
        )

    # -- tools -----------------------------------------------------------------------

    @while_registering
    def register_tool(
        self,
        name: str,
        toolset: str,
        schema: dict[str, Any],
        handler: Callable[..., Any],
        check_fn: Callable[..., Any] | None = None,
        requires_env: list[Any] | None = None,
        is_async: bool = False,
        description: str = "",
        emoji: str = "",
        override: bool = False,
    ) -> None:
        """Register a tool for the host.

        ``override=True`` replaces a tool held by the host or by another plugin, and
        needs ``plugins.entries.<plugin>.allow_tool_override: true`` in config.yaml,
        else :class:`PluginToolOverrideError`.  Without ``override``, a name the host's
        built-in tools (``terminal``, ...) or another plugin already hold is refused
        with an ERROR naming both, whatever the toolset: hermes-agent lets a same-named
        toolset replace a tool silently, and a tool taken over that way is the worst
        kind of surprise.  The call then returns normally and the holder keeps it.
        """
        plugin_id = self.manifest.key or self.manifest.name
        if override and not self._tool_override_allowed():
            raise PluginToolOverrideError(
                f"Plugin {self.manifest.name!r} cannot override built-in tool {name!r}. "
                f"Set plugins.entries.{plugin_id}.allow_tool_override: true in "
                "config.yaml to allow this plugin to replace built-in tools."
            )
        held = tool_holder(self._context.registry, self._host, self._record.key, name, toolset)
        if held is not None:
            holder, both_mcp = held
            claim = (
                f"Plugin '{self.manifest.name}' registers tool '{name}' (toolset "
                f"'{toolset}') over {holder}"
            )
            if override:
                log.warning("%s: replaced (override=True, allowed in config.yaml)", claim)
            elif both_mcp:
                # hermes-agent lets one MCP toolset refresh another's tool; said aloud.
                log.warning("%s: replaced (both toolsets are MCP servers)", claim)
            else:
                report(
                    self._record,
                    f"Tool registration REJECTED: {claim}; that one is kept. Fix: give "
                    "the tool another name, or pass override=True with "
                    f"plugins.entries.{plugin_id}.allow_tool_override: true to replace "
                    "it on purpose",
                    gate=True,
                )
                return
        self._context.registry.add(
            Tool(
                plugin=self._record.key,
                name=name,
                toolset=toolset,
                schema=schema,
                handler=handler,
                check_fn=check_fn,
                requires_env=tuple(requires_env or ()),
                is_async=is_async,
                description=description or str(schema.get("description", "")),
                emoji=emoji,
                override=override,
            )
        )

    def _tool_override_allowed(self) -> bool:
        plugin_id = self.manifest.key or self.manifest.name
        plugins = self._context.config.get("plugins")
        entries = plugins.get("entries") if isinstance(plugins, dict) else None
        entry = entries.get(plugin_id) if isinstance(entries, dict) else None
        return isinstance(entry, dict) and bool(entry.get("allow_tool_override", False))

    def dispatch_tool(self, tool_name: str, args: dict[str, Any], **kwargs: Any) -> str:
        """Run a tool and return its JSON string: through the host when it lends
        ``dispatch_tool``, else a plugin tool from the registry (``{"error": ...}`` for
        an unknown tool or a handler that raises)."""
        if self._host.dispatch_tool is not None:
            return self._host.dispatch_tool(tool_name, args, **kwargs)
        tool = self._context.registry.tools.get(tool_name)
        if tool is None:
            return json.dumps({"error": f"Unknown tool: {tool_name}"})
        try:
            result = tool.handler(args, **kwargs)
            # Coroutine is what asyncio.iscoroutine tests; asyncio itself (a sixth of
            # an empty load's time) is imported only when an async tool runs.
            if tool.is_async or isinstance(result, Coroutine):
                import asyncio

                result = asyncio.run(result)
        except BaseException as exc:  # a tool's SystemExit never ends the host
            if escapes(exc):
                raise
            log.exception("Tool %s dispatch error: %s", tool_name, exc)
            return json.dumps({"error": f"{type(exc).__name__}: {exc}"})
        return result if isinstance(result, str) else json.dumps(result)

    # -- commands, skills, tasks -----------------------------------------------------

    @while_registering
    def register_cli_command(
        self,
        name: str,
        help: str,
        setup_fn: Callable[..., Any],
        handler_fn: Callable[..., Any] | None = None,
        description: str = "",
    ) -> None:
        """Register a terminal subcommand (``hermes <name> ...``) for the host."""
        self._context.registry.add(
            CliCommand(self._record.key, name, help, setup_fn, handler_fn, description)
        )

    @while_registering
    def register_command(
        self,
        name: str,
        handler: Callable[..., Any],
        description: str = "",
        args_hint: str = "",
    ) -> None:
        """Register a slash command; the name is lower-cased, stripped of ``/`` and
        spaces become ``-``.  An empty name or a built-in command's is refused with a
        warning."""
        clean = name.lower().strip().lstrip("/").replace(" ", "-")
        if not clean:
            log.warning(
                "Plugin '%s' tried to register a command with an empty name.",
                self.manifest.name,
            )
            return
        builtin = self._host.builtin_commands
        if clean in (_hermes_names.BUILTIN_COMMANDS if builtin is None else builtin):
            log.warning(
                "Plugin '%s' tried to register command '/%s' which conflicts with a "
                "built-in command. Skipping.",
                self.manifest.name,
                clean,
            )
            return
        self._context.registry.add(
            Command(
                self._record.key,
                clean,
                handler,
                description or "Plugin command",
                (args_hint or "").strip(),
            )
        )

    @while_registering
    def register_skill(self, name: str, path: Path, description: str = "") -> None:
        """Register a read-only skill, resolvable as ``<plugin>:<name>``.

        Raises ``ValueError`` for a name with ``:`` or outside ``[a-zA-Z0-9_-]+`` and
        ``FileNotFoundError`` when ``path`` does not exist.
        """
        if ":" in name:
            raise ValueError(
                f"Skill name '{name}' must not contain ':' (the namespace is derived "
                f"from the plugin name '{self.manifest.name}' automatically)."
            )
        if not name or not _SKILL_NAME.match(name):
            raise ValueError(f"Invalid skill name '{name}'. Must match [a-zA-Z0-9_-]+.")
        if not Path(path).exists():
            raise FileNotFoundError(f"SKILL.md not found at {path}")
        self._context.registry.add(
            Skill(self._record.key, name, Path(path), description, self.manifest.name)
        )

    @while_registering
    def register_auxiliary_task(
        self,
        key: str,
        *,
        display_name: str,
        description: str,
        defaults: dict[str, Any] | None = None,
    ) -> None:
        """Declare an auxiliary LLM task.  Raises ``ValueError`` for an empty key, one
        with characters other than letters, digits and ``_``, a built-in task's key, or
        a key another plugin holds."""
        who = self.manifest.name
        if not key or not isinstance(key, str):
            raise ValueError(
                f"Plugin '{who}' tried to register auxiliary task with invalid key {key!r}"
            )
        if not all(c.isalnum() or c == "_" for c in key):
            raise ValueError(
                f"Plugin '{who}' auxiliary task key {key!r} must contain only "
                "alphanumeric characters and underscores"
            )
        if key in _hermes_names.BUILTIN_AUX_TASKS:
            raise ValueError(
                f"Plugin '{who}' cannot register auxiliary task {key!r} — that key is "
                f"reserved for a built-in task. Pick a plugin-namespaced key (e.g. "
                f"'{who}_{key}')."
            )
        existing = self._context.registry.auxiliary_tasks.get(key)
        if existing is not None and existing.plugin != self._record.key:
            raise ValueError(
                f"Plugin '{who}' cannot register auxiliary task {key!r} — already "
                f"registered by plugin '{existing.plugin}'"
            )
        merged: dict[str, Any] = {
            "provider": "auto",
            "model": "",
            "base_url": "",
            "api_key": "",
            "timeout": 60,
            "extra_body": {},
        }
        merged.update(defaults or {})
        self._context.registry.add(
            AuxiliaryTask(self._record.key, key, display_name, description, merged)
        )

    # -- host-side messages ------------------------------------------------------------

    def inject_message(self, content: str, role: str = "user") -> bool:
        """Queue a message into the live conversation through the host; ``False``
        with a warning when the host lent no way to."""
        if self._host.inject_message is None:
            log.warning("inject_message: no CLI reference (not available in gateway mode)")
            return False
        return bool(self._host.inject_message(content, role))

    @while_registering
    def register_slack_action_handler(self, action_id: Any, callback: Callable[..., Any]) -> None:
        """Register a Slack Block Kit action handler.  Raises ``ValueError`` when the
        callback is not callable or the action id is empty."""
        if not callable(callback):
            raise ValueError(
                f"Plugin '{self.manifest.name}' tried to register a Slack action handler "
                "with a non-callable callback."
            )
        if action_id is None or (isinstance(action_id, str) and not action_id.strip()):
            raise ValueError(
                f"Plugin '{self.manifest.name}' tried to register a Slack action handler "
                "with an empty action_id."
            )
        self._context.registry.add(SlackActionHandler(self._record.key, action_id, callback))

    @while_registering
    def register_platform(
        self,
        name: str,
        label: str,
        adapter_factory: Callable[..., Any],
        check_fn: Callable[..., Any],
        validate_config: Callable[..., Any] | None = None,
        required_env: list[Any] | None = None,
        install_hint: str = "",
        **entry_kwargs: Any,
    ) -> None:
        """Register a gateway platform adapter.  Extra keywords must be fields
        hermes-agent's platform entry has, else ``TypeError``."""
        unknown = sorted(set(entry_kwargs) - _hermes_names.PLATFORM_ENTRY_FIELDS)
        if unknown:
            raise TypeError(
                f"PlatformEntry.__init__() got an unexpected keyword argument '{unknown[0]}'"
            )
        entry_kwargs.setdefault("plugin_name", self.manifest.name)
        self._context.registry.add(
            Platform(
                plugin=self._record.key,
                name=name,
                label=label,
                adapter_factory=adapter_factory,
                check_fn=check_fn,
                validate_config=validate_config,
                required_env=tuple(required_env or ()),
                install_hint=install_hint,
                extra=dict(entry_kwargs),
            )
        )

    # -- providers -------------------------------------------------------------------

    @while_registering
    def register_context_engine(self, engine: Any) -> None:
        """Register the one context engine; a second is refused with a warning."""
        if self._context.registry.context_engine is not None:
            log.warning(
                "Plugin '%s' tried to register a context engine, but one is already "
                "registered. Only one context engine plugin is allowed.",
                self.manifest.name,
            )
            return
        self._register_provider("context_engine", engine)

    @while_registering
    def register_image_gen_provider(self, provider: Any) -> None:
        """Register an image generation backend (matched by ``provider.name``)."""
        self._register_provider("image_gen", provider)

    @while_registering
    def register_dashboard_auth_provider(self, provider: Any) -> None:
        """Register a dashboard authentication provider."""
        self._register_provider("dashboard_auth", provider)

    @while_registering
    def register_video_gen_provider(self, provider: Any) -> None:
        """Register a video generation backend."""
        self._register_provider("video_gen", provider)

    @while_registering
    def register_web_search_provider(self, provider: Any) -> None:
        """Register a web search/extract backend."""
        self._register_provider("web_search", provider)

    @while_registering
    def register_browser_provider(self, provider: Any) -> None:
        """Register a cloud browser backend."""
        self._register_provider("browser", provider)

    @while_registering
    def register_secret_source(self, source: Any) -> None:
        """Register an external secret-manager backend."""
        self._register_provider("secret_source", source)

    @while_registering
    def register_tts_provider(self, provider: Any) -> None:
        """Register a text-to-speech backend."""
        self._register_provider("tts", provider)

    @while_registering
    def register_transcription_provider(self, provider: Any) -> None:
        """Register a speech-to-text backend."""
        self._register_provider("transcription", provider)

    def _register_provider(self, kind: str, provider: Any) -> None:
        """Store ``provider`` when it is of hermes-agent's base class (when hermes-agent
        is installed) or, without it, when it has a non-empty string ``name``; else
        warn and ignore it, never raise, as hermes-agent does."""
        spec, what = _PROVIDER_BASES[kind]
        base = _base_class(spec)
        name = getattr(provider, "name", None)
        accepted = isinstance(provider, base) if base else isinstance(name, str) and bool(name)
        if not accepted:
            log.warning(
                "Plugin '%s' tried to register %s that does not inherit from %s. Ignoring.",
                self.manifest.name,
                what,
                spec.partition(":")[2],
            )
            return
        self._context.registry.add(Provider(self._record.key, kind, str(name), provider))
        log.info("Plugin '%s' registered %s: %s", self.manifest.name, what, name)
