"""HookManager: the pluggy plugin manager that holds every callback, and their order.

Two ways in, one store:

* :meth:`HookManager.register_callback` takes one callable for one hook (what
  ``ctx.register_hook``, shell entries, outbound targets and gateway handlers use);
  it wraps the callable in a tiny plugin object so that pluggy stores it as an ordinary
  hookimpl;
* :meth:`HookManager.register` is pluggy's own, for modules or objects carrying
  ``@hermes_hooks.hookimpl`` functions.

Either way the dispatcher asks :meth:`HookManager.callbacks` for the ordered list,
which follows the firing order (tryfirst, plain, trylast Python callbacks in plugin
order; then shell hooks; then outbound webhooks) and never pluggy's LIFO.
"""

from __future__ import annotations

import inspect
import itertools
import logging
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import pluggy

from hermes_hooks._callback import (
    IN_PROCESS,
    Callback,
    CallbackPolicy,
    Group,
    describe,
    signature_problem,
    signature_text,
)
from hermes_hooks._contract import Contract
from hermes_hooks._log import WarnOnce, get_logger
from hermes_hooks.errors import PluginLoadError, UnknownHookError
from hermes_hooks.hookspecs import (
    CATALOGUE,
    PROJECT_NAME,
    SPEC_MODULES,
    TELEMETRY_FIELD,
    VALID_HOOKS,
)

__all__ = [
    "HOOKS_POINTER",
    "HookManager",
    "contract_of",
    "order_group",
    "resembles_gate",
    "suggest_hook",
    "unknown_hook",
    "unknown_registration",
]

log = get_logger("hermes_hooks.manager")


#: Where the hook names are listed: a message about an unknown name points there
#: rather than printing all of them (one screenful per typo helps no one).
HOOKS_POINTER = f"`hermes-hooks hooks` lists the {len(VALID_HOOKS)} events"


def suggest_hook(
    name: str, valid: Iterable[str] | None = None, *, outcome: str | None = None
) -> str:
    """The did-you-mean tail of an unknown hook or event name: ``did you mean 'x'?``
    when a name is close; else, for the hooks of the catalogue, ``no hook has a similar
    name; `hermes-hooks hooks` lists the 37 events.`` (with ``outcome``, what became of
    the name, before the pointer: ``...; skipped. `hermes-hooks hooks` lists ...``),
    never the names themselves.  Another vocabulary (``valid``, such as the gateway's
    events) is short enough to be listed: ``(valid: ...)``."""
    import difflib  # deferred: only a misspelt hook name needs it, never a plain load

    names = sorted(VALID_HOOKS if valid is None else valid)
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    if close:
        return f"did you mean '{close[0]}'?"
    if valid is not None:
        return f"(valid: {', '.join(names)})"
    if outcome is not None:
        return f"no hook has a similar name; {outcome}. {HOOKS_POINTER}"
    return f"no hook has a similar name; {HOOKS_POINTER}."


def resembles_gate(name: str, aliases: Mapping[str, str] | None = None) -> bool:
    """Whether ``name``, no hook of the catalogue, most resembles a hook that can block
    (``pre_tool_cal``, ``preToolCall``): what was registered under it is then a guard
    that never runs, which must be an ERROR, not a did-you-mean warning.

    ``aliases``: other spellings of hooks (Claude Code's event names) → our hook name.
    Case is ignored, and the closest name decides (``post_tool_cal`` resembles
    ``post_tool_call``, an observer, more than ``pre_tool_call``).
    """
    import difflib  # deferred: only a misspelt hook name needs it, never a plain load

    blocks = {hook.lower(): contract.fail_closed for hook, contract in CATALOGUE.items()}
    for alias, hook in (aliases or {}).items():
        blocks[alias.lower()] = CATALOGUE[hook].fail_closed
    close = difflib.get_close_matches(name.lower(), list(blocks), n=1, cutoff=0.6)
    return bool(close) and blocks[close[0]]


def unknown_registration(owner: str, hook: str) -> tuple[bool, str]:
    """The message for ``owner`` implementing ``hook``, outside the catalogue, and
    whether it resembles a hook that can block (then an ERROR, not a warning)."""
    message = (
        f"Plugin '{owner}' tried to register unknown hook '{hook}' — {suggest_hook(hook)} Ignored."
    )
    return resembles_gate(hook), message


def unknown_hook(name: str) -> UnknownHookError:
    """The one error for a hook name outside the catalogue, with its did-you-mean."""
    return UnknownHookError(f"unknown hook '{name}' — {suggest_hook(name)}")


def contract_of(name: str) -> Contract:
    """The contract of hook ``name``; :class:`UnknownHookError` with a suggestion."""
    contract = CATALOGUE.get(name)
    if contract is None:
        raise unknown_hook(name)
    return contract


def order_group(
    owner: str, hook: str, *, tryfirst: bool, trylast: bool, warnings: WarnOnce
) -> Group:
    """Where a Python callback sorts: both marks warn once (through the manager's
    ``warnings``) and neither applies."""
    if tryfirst and trylast:
        warnings.warn(
            log,
            ("marks", owner, hook),
            "Plugin '%s' marks %s both tryfirst and trylast; neither applies",
            owner,
            hook,
        )
        return Group.PYTHON
    return Group.TRYFIRST if tryfirst else Group.TRYLAST if trylast else Group.PYTHON


class _CallbackPlugin:
    """A pluggy plugin object that holds exactly one callback (attribute ``function``)."""

    __slots__ = ("function", "record", "tryfirst", "trylast")

    def __init__(
        self, function: Callable[..., Any], record: Callback, tryfirst: bool, trylast: bool
    ) -> None:
        self.function = function
        self.record = record
        self.tryfirst = tryfirst
        self.trylast = trylast


def _pluggy_callable(function: Callable[..., Any]) -> Callable[..., Any]:
    """pluggy stores only functions and methods; wrap any other callable."""
    if inspect.isfunction(function) or inspect.ismethod(function):
        return function

    def call(**kwargs: Any) -> Any:
        return function(**kwargs)

    call.__qualname__ = describe(function)
    return call


class _Held:
    """The callables registered for one hook: a set, plus a list of those that cannot
    be hashed (compared one by one)."""

    __slots__ = ("hashed", "unhashable")

    def __init__(self) -> None:
        self.hashed: set[Any] = set()
        self.unhashable: list[Any] = []

    def add(self, function: Any) -> None:
        try:
            self.hashed.add(function)
        except TypeError:
            self.unhashable.append(function)

    def holds(self, function: Any) -> bool:
        try:
            if function in self.hashed:
                return True
        except TypeError:
            return any(held == function for held in (*self.hashed, *self.unhashable))
        return any(held == function for held in self.unhashable)


class HookManager(pluggy.PluginManager):
    """The plugin manager of one :class:`~hermes_hooks.hooks.Hooks` instance.

    Holds the catalogue as hookspecs, refuses unknown hook names with a suggestion,
    ignores duplicate registrations, remembers which owner registered
    what so that an unload removes exactly that, and serves callbacks in firing order.
    """

    def __init__(self) -> None:
        super().__init__(PROJECT_NAME)
        for module in SPEC_MODULES:
            self.add_hookspecs(module)
        self._lock = threading.RLock()
        self._seq = itertools.count()
        self._cache: dict[str, tuple[Callback, ...]] = {}
        self._held: dict[
            str, _Held
        ] = {}  # each hook's callables, to ignore a duplicate registration
        self._native: dict[Any, Callback] = {}  # HookImpl -> record, for pluggy plugins
        self._plugin_rank: dict[str, int] = {}
        self._requires: dict[str, tuple[str, ...]] = {}
        self._frozen: dict[str, tuple[Callback, ...]] | None = None
        #: What each adapter already registered on this manager, by adapter name, so
        #: that loading twice registers nothing twice; kept here rather than in module
        #: globals so that two managers in one process never share it.
        self.adapter_state: dict[str, Any] = {}
        #: Which warnings about this manager's callbacks were logged already.
        self.warnings = WarnOnce()

    def parse_hookspec_opts(self, module_or_class: Any, name: str) -> Any:
        """pluggy's hookspec lookup, skipping the names of our own spec modules that are
        not in the catalogue (imports and helpers: four in five of their names), whose
        static attribute lookups were a millisecond of every load."""
        if module_or_class in SPEC_MODULES and name not in VALID_HOOKS:
            return None
        return super().parse_hookspec_opts(module_or_class, name)

    # -- registration ------------------------------------------------------------------

    def register_callback(
        self,
        hook: str,
        function: Callable[..., Any],
        *,
        owner: str,
        group: Group = Group.PYTHON,
        rank: int | None = None,
        name: str | None = None,
        policy: CallbackPolicy = IN_PROCESS,
    ) -> Callback:
        """Register ``function`` for ``hook`` on behalf of ``owner``.

        ``policy`` says how the dispatcher runs it and reads its result; the hook system
        registering it gives its own (an in-process Python callback by default).

        Returns the new :class:`Callback`.  Raises :class:`PluginLoadError`, whose
        message is the warning to log, when it is refused: an unknown hook, the
        same callable already registered for this hook, or a signature the hook
        can never satisfy.  Callers log it and carry on, so an owner's other
        registrations survive.
        """
        about = {"plugin": owner, "hook": hook, "signature": signature_text(function)}
        if hook not in VALID_HOOKS:
            raise PluginLoadError(unknown_registration(owner, hook)[1], **about)
        fields = CATALOGUE[hook].field_names | {TELEMETRY_FIELD}
        problem = signature_problem(function, fields)
        if problem:
            raise PluginLoadError(
                f"Plugin '{owner}' callback {describe(function)} for hook '{hook}' cannot "
                f"be called: {problem}. Ignored.",
                **about,
            )
        with self._lock:
            if self._holds(hook, function):
                raise PluginLoadError(
                    f"Plugin '{owner}' registered {describe(function)} for hook "
                    f"'{hook}' twice; the duplicate is ignored.",
                    **about,
                )
            seq = next(self._seq)
            record = Callback(
                hook,
                function,
                owner=owner,
                group=group,
                seq=seq,
                rank=0 if rank is None else rank,
                policy=policy,
                name=name,
            )
            plugin = _CallbackPlugin(
                _pluggy_callable(function),
                record,
                tryfirst=group is Group.TRYFIRST,
                trylast=group is Group.TRYLAST,
            )
            super().register(plugin, name=f"{owner}#{hook}#{seq}")
            self._held[hook].add(function)  # built by the _holds check above
            if rank is None and group <= Group.TRYLAST:
                self._note_python_owner(owner)
                record.rank = self._plugin_rank[owner]
            self._cache.clear()
            return record

    def _holds(self, hook: str, function: Callable[..., Any]) -> bool:
        """Whether ``function`` is registered for ``hook`` already.

        Answered from a set of the hook's callables, built once and kept up to date by
        :meth:`register_callback`, so a load of n callbacks on one hook costs n
        look-ups, not n scans (or n sorts).  A callable that cannot be hashed falls
        back to the scan.
        """
        known = self._held.get(hook)
        if known is None:
            known = self._held[hook] = _Held()
            caller = getattr(self.hook, hook, None)
            for impl in caller.get_hookimpls() if caller is not None else ():
                plugin = impl.plugin
                held = (
                    plugin.record.function if isinstance(plugin, _CallbackPlugin) else impl.function
                )
                known.add(held)
        return known.holds(function)

    def register(self, plugin: Any, name: str | None = None) -> str | None:
        """pluggy's ``register``, plus the unknown-name check and cache invalidation.

        Hooks a plugin implements that are not in the catalogue are reported once and
        never fire; pluggy hookwrappers are refused because the dispatcher never runs
        pluggy's call loop.
        """
        with self._lock:
            if not isinstance(plugin, _CallbackPlugin):
                self._refuse_wrappers(plugin, name)
            plugin_name = super().register(plugin, name=name)
            callers = self.get_hookcallers(plugin) if plugin_name is not None else None
            # Only objects that implement hooks take a place in plugin order; the
            # gateway bridge objects, for example, implement none.
            if plugin_name and callers and not isinstance(plugin, _CallbackPlugin):
                for caller in callers:
                    if caller.name not in VALID_HOOKS:
                        gate, message = unknown_registration(plugin_name, caller.name)
                        log.log(logging.ERROR if gate else logging.WARNING, "%s", message)
                self._note_python_owner(plugin_name)
            self._cache.clear()
            self._held.clear()
            return plugin_name

    def _refuse_wrappers(self, plugin: Any, name: str | None) -> None:
        for attr in dir(plugin):
            opts = self.parse_hookimpl_opts(plugin, attr)
            if opts and (opts.get("wrapper") or opts.get("hookwrapper")):
                raise pluggy.PluginValidationError(
                    plugin,
                    f"Plugin '{name or self.get_canonical_name(plugin)}' hook '{attr}': "
                    "wrapper/hookwrapper implementations are not supported; return a "
                    "value instead",
                )

    def parse_hookimpl_opts(self, plugin: Any, name: str) -> Any:
        """Claim the ``function`` attribute of our one-callback plugin objects."""
        if isinstance(plugin, _CallbackPlugin):
            if name != "function":
                return None
            return {
                "specname": plugin.record.hook,
                "tryfirst": plugin.tryfirst,
                "trylast": plugin.trylast,
            }
        return super().parse_hookimpl_opts(plugin, name)

    def unregister(self, plugin: Any = None, name: str | None = None) -> Any:
        """pluggy's ``unregister``, keeping the dispatch cache in step."""
        with self._lock:
            if name is None and plugin is not None:
                name = self.get_name(plugin)
            result = super().unregister(plugin, name)
            if name is not None and name in self._plugin_rank:
                del self._plugin_rank[name]
                self._recompute_ranks()
            gone = [r for i, r in self._native.items() if i.plugin is result]
            if isinstance(result, _CallbackPlugin):
                gone.append(result.record)
            for record in gone:  # stop the background workers of removed callbacks
                record.stop()
            self._native = {i: r for i, r in self._native.items() if i.plugin is not result}
            self._cache.clear()
            self._held.clear()
            return result

    def unregister_owner(self, owner: str) -> int:
        """Remove every callback ``owner`` registered; return how many were removed."""
        with self._lock:
            removed = 0
            for plugin_name, plugin in list(self.list_name_plugin()):
                if plugin is None:
                    continue
                mine = (
                    isinstance(plugin, _CallbackPlugin) and plugin.record.owner == owner
                ) or plugin_name == owner
                if mine:
                    self.unregister(plugin, plugin_name)
                    removed += 1
            self._requires.pop(owner, None)
            if self._plugin_rank.pop(owner, None) is not None:
                self._recompute_ranks()
            return removed

    # -- order -------------------------------------------------------------------------

    def set_requirements(self, owner: str, requires: Iterable[str]) -> None:
        """Record a Python plugin's ``requires_plugins``; order follows them."""
        with self._lock:
            self._requires[owner] = tuple(requires)
            self._recompute_ranks()

    def _note_python_owner(self, owner: str) -> None:
        if owner not in self._plugin_rank:
            self._plugin_rank[owner] = -1
            self._recompute_ranks()

    def _recompute_ranks(self) -> None:
        """Code-point order of plugin keys, each moved only as far as needed to
        follow the plugins in its ``requires_plugins``."""
        pending = sorted(self._plugin_rank)
        placed: list[str] = []
        while pending:
            for key in pending:
                needs = [r for r in self._requires.get(key, ()) if r in self._plugin_rank]
                if all(r in placed for r in needs):
                    break
            else:  # a cycle: keep code-point order for the rest
                log.warning("requires_plugins cycle among %s; using name order", pending)
                key = pending[0]
            pending.remove(key)
            placed.append(key)
        self._plugin_rank = {key: index for index, key in enumerate(placed)}
        for plugin in self.get_plugins():
            if isinstance(plugin, _CallbackPlugin) and plugin.record.group <= Group.TRYLAST:
                plugin.record.rank = self._plugin_rank.get(plugin.record.owner, 0)
        for record in self._native.values():
            record.rank = self._plugin_rank.get(record.owner, 0)
        self._cache.clear()

    def plugin_order(self) -> list[str]:
        """Python plugin keys in plugin order."""
        return sorted(self._plugin_rank, key=self._plugin_rank.__getitem__)

    def freeze(self) -> None:
        """Keep serving the current callbacks to firings (:meth:`firing_callbacks`)
        until :meth:`thaw`, whatever is registered or removed meanwhile: a reload swaps
        the whole set at once, so a firing never sees a half-loaded set (a security
        gate removed, its successor not yet registered)."""
        with self._lock:
            self._frozen = {hook: self.callbacks(hook) for hook in CATALOGUE}

    def thaw(self) -> None:
        """Serve the registered callbacks again (see :meth:`freeze`)."""
        with self._lock:
            self._frozen = None

    def firing_callbacks(self, hook: str) -> tuple[Callback, ...]:
        """What a firing of ``hook`` runs: :meth:`callbacks`, or the frozen set while a
        reload is under way (only the dispatcher asks this)."""
        frozen = self._frozen
        if frozen is not None:
            return frozen.get(hook, ())
        return self.callbacks(hook)

    def callbacks(self, hook: str) -> tuple[Callback, ...]:
        """The callbacks of ``hook`` in firing order (cached until the next change)."""
        cached = self._cache.get(hook)
        if cached is not None:
            return cached
        return self._build_order(hook)

    def _build_order(self, hook: str) -> tuple[Callback, ...]:
        with self._lock:
            caller = getattr(self.hook, hook, None)
            records: list[Callback] = []
            for impl in caller.get_hookimpls() if caller is not None else ():
                plugin = impl.plugin
                if isinstance(plugin, _CallbackPlugin):
                    records.append(plugin.record)
                else:
                    records.append(self._native_record(hook, impl))
            ordered = tuple(sorted(records, key=lambda r: r.sort_key))
            self._cache[hook] = ordered
            return ordered

    def _native_record(self, hook: str, impl: Any) -> Callback:
        record = self._native.get(impl)
        if record is None:
            group = order_group(
                impl.plugin_name,
                hook,
                tryfirst=impl.tryfirst,
                trylast=impl.trylast,
                warnings=self.warnings,
            )
            record = Callback(
                hook,
                impl.function,
                owner=impl.plugin_name,
                group=group,
                seq=next(self._seq),
                rank=self._plugin_rank.get(impl.plugin_name, 0),
            )
            self._native[impl] = record
        return record

    def all_callbacks(self) -> list[Callback]:
        """Every registered callback of every catalogued hook, in catalogue order."""
        return [cb for hook in CATALOGUE for cb in self.callbacks(hook)]
