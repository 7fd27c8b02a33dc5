"""Outbound webhooks: ``hooks.outbound`` targets become callbacks that enqueue signed
POSTs on per-target delivery lanes.

Each target registers one callback per event it subscribes, in the WEBHOOK group and
ranked by its position in ``hooks.outbound`` (so webhooks fire after Python plugins
and shell hooks).  The callback runs on the agent's thread and does only what cannot
be deferred: the matcher check (before any serialisation), the envelope, the delivery id
and timestamp, the JSON body, the signature, and a hand-off to the target's lane.  It
returns None and never blocks on the network: a slow or dead endpoint delays only its
own lane (:mod:`hermes_hooks.webhooks.delivery`).

Registration is idempotent per key (home, event, url, name, matcher, secret
source): an identical entry is ignored with a warning, while two different targets
sharing a url both deliver.  No consent is asked.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hermes_hooks._callback import Answers, CallbackPolicy, Group
from hermes_hooks._log import get_logger
from hermes_hooks.envelope import build_envelope, dumps
from hermes_hooks.errors import PluginLoadError
from hermes_hooks.sources import Source, Unloaded
from hermes_hooks.telemetry.context import trace_headers
from hermes_hooks.webhooks.urls import redact_urls

# The parser, the report and the wire format load when a home has targets (or when
# ``list`` and ``doctor`` ask): a home without ``hooks.outbound`` never needs them.
if TYPE_CHECKING:
    from hermes_hooks._context import LoadContext
    from hermes_hooks.report import EntryErrors, Finding, Section
    from hermes_hooks.webhooks.capture import CaptureLane
    from hermes_hooks.webhooks.delivery import DurableLane, Lane
    from hermes_hooks.webhooks.outbox import Outbox
    from hermes_hooks.webhooks.targets import Skipped, Target, TargetRecord

__all__ = [
    "OutboundSource",
    "load",
    "unloaded",
]

log = get_logger("hermes_hooks.outbound")

_KEY_ATTRIBUTE = "_hermes_outbound_key"
#: How the dispatcher runs a target's callback: it only enqueues the delivery, so it
#: needs no worker and its return value is never an answer.
_CALLBACKS = CallbackPolicy("webhook", runs_bounded=False, answers=Answers.NEVER)


def _secret_description(target: Target) -> str | None:
    if target.secret_env:
        return f"secret_env {target.secret_env}" + ("" if target.signed else " (not set)")
    if target.signed:
        return "inline secret"
    return None


class OutboundSource:
    """The outbound targets of one load, their lanes and (if any target is durable)
    the outbox."""

    name = "outbound"

    def __init__(self, context: LoadContext, targets: list[Target], skipped: list[Skipped]) -> None:
        self._context = context
        self.targets = targets
        self.skipped = skipped
        self.lanes: dict[int, Lane | DurableLane | CaptureLane] = {}
        self.outbox: Outbox | None = None
        self.outbox_error: str | None = None
        self._owners: set[str] = set()
        self._registered: dict[int, list[str]] = {}
        self._problems: dict[int, list[str]] = {}

    # -- Source protocol ---------------------------------------------------------------

    def records(self) -> list[TargetRecord]:
        """Every entry of ``hooks.outbound``, loaded or skipped, in list order."""
        from hermes_hooks.webhooks.targets import TargetRecord  # for list and doctor only

        records = [
            TargetRecord(
                index=t.index,
                label=redact_urls(t.label),
                state="loaded",
                url=redact_urls(t.url),
                events=self._registered.get(t.index, []),
                matcher=t.matcher.pattern if t.matcher else None,
                timeout=t.timeout,
                signed=t.signed,
                secret=_secret_description(t),
                signature=t.signature,
                durable=bool(getattr(self.lanes.get(t.index), "durable", False)),
                problems=[redact_urls(p) for p in self._problems.get(t.index, [])],
                position=t.position,
                config_problems=[n.as_dict() for n in t.notes],
            )
            for t in self.targets
        ]
        records += [
            TargetRecord(
                index=s.index,
                label=redact_urls(s.label),
                state="skipped",
                reason=redact_urls(s.reason),
                position=s.position,
                config_problems=[n.as_dict() for n in s.notes],
            )
            for s in self.skipped
        ]
        return sorted(records, key=lambda r: r.index)

    def unload(self) -> None:
        """Remove every callback; lanes deliver what they hold, then stop."""
        for owner in self._owners:
            self._context.manager.unregister_owner(owner)
        self._owners.clear()
        self._registered.clear()
        for lane in self.lanes.values():
            lane.begin_close(None)

    def close(self, timeout: float) -> None:
        """Flush every lane together within ``timeout`` seconds in total."""
        if not self.lanes:
            return
        from hermes_hooks.webhooks.capture import CaptureLane
        from hermes_hooks.webhooks.delivery import flush_lanes

        flush_lanes(
            [lane for lane in self.lanes.values() if not isinstance(lane, CaptureLane)], timeout
        )
        if self.outbox is not None and not any(
            lane.durable and lane.worker_alive for lane in self.lanes.values()
        ):
            self.outbox.close()
            self.outbox = None

    def section(self, errors: EntryErrors | None = None) -> Section:
        """Every target with its url, events, signing and durability, for ``list``."""
        from hermes_hooks.webhooks.report import outbound_section

        return outbound_section(self, errors)

    def check(self, *, fire: bool = True) -> list[Finding]:
        """Each target's scheme and secret, and the durable outbox, for ``doctor``."""
        from hermes_hooks.webhooks.report import check_outbound

        return check_outbound(self._context.home, self)

    def delivery_stats(self) -> dict[str, int]:
        """Events delivered, failed (after their last attempt) and dropped (queue full),
        summed over every lane of this load; read after :meth:`close` for final counts."""
        totals = {"delivered": 0, "failed": 0, "dropped": 0}
        for lane in self.lanes.values():
            totals["delivered"] += lane.stats.delivered
            totals["failed"] += lane.stats.failed
            totals["dropped"] += lane.stats.dropped
        return totals

    # -- loading -----------------------------------------------------------------------

    def _open_outbox(self) -> Outbox | None:
        import sqlite3  # deferred: only durable targets use the outbox

        from hermes_hooks.webhooks.outbox import Outbox

        try:
            return Outbox.for_home(self._context.home)
        except (OSError, sqlite3.Error) as exc:
            self.outbox_error = f"{type(exc).__name__}: {exc}"
            log.warning(
                "outbound webhooks: cannot open the outbox in %s (%s); durable targets are "
                "delivered without it (best effort)",
                self._context.home,
                exc,
            )
            return None

    def _lane(self, target: Target) -> Lane | DurableLane | CaptureLane:
        import sqlite3  # deferred: a home without targets never builds a lane

        from hermes_hooks.webhooks.capture import CaptureLane, active_sink
        from hermes_hooks.webhooks.delivery import DurableLane, Lane

        sink = active_sink()
        if sink is not None:  # a replay: build and sign, but keep instead of sending
            return CaptureLane(target, sink)
        if target.durable:
            if self.outbox is None and self.outbox_error is None:
                self.outbox = self._open_outbox()
            if self.outbox is not None:
                try:
                    return DurableLane(target, self.outbox, self._context.manager.warnings)
                except sqlite3.Error as exc:
                    log.warning(
                        "outbound webhook %s: outbox unusable (%s); delivering without it",
                        target.label,
                        exc,
                    )
        return Lane(target, self._context.manager.warnings)

    def register(self) -> None:
        """Create one lane per target and register its callbacks."""
        manager = self._context.manager
        home = str(self._context.home)
        profile = self._context.profile
        for target in self.targets:
            lane = self._lane(target)
            self.lanes[target.index] = lane
            owner = f"outbound:{target.label}"
            registered: list[str] = []
            for event in target.events:
                key = target.key(home, event)
                if _already_registered(self._context, event, key):
                    message = (
                        f"outbound webhook {target.label}: the same target (url, name, matcher "
                        f"and secret) is configured twice for {event}; the duplicate is ignored"
                    )
                    log.warning("%s", message)
                    self._problems.setdefault(target.index, []).append(message)
                    continue
                callback = _make_callback(target, event, lane.submit, profile)
                setattr(callback, _KEY_ATTRIBUTE, key)
                try:
                    manager.register_callback(
                        event,
                        callback,
                        owner=owner,
                        group=Group.WEBHOOK,
                        rank=target.index,
                        policy=_CALLBACKS,
                        name=f"outbound:{target.label}:{event}",
                    )
                except PluginLoadError as exc:
                    log.warning("%s", exc)
                    self._problems.setdefault(target.index, []).append(str(exc))
                    continue
                self._owners.add(owner)
                registered.append(event)
            self._registered[target.index] = registered
            start = getattr(lane, "start_if_pending", None)
            if start is not None and not self._context.inspect:
                start()


def _already_registered(context: LoadContext, event: str, key: tuple[str, ...]) -> bool:
    return any(
        getattr(cb.function, _KEY_ATTRIBUTE, None) == key for cb in context.manager.callbacks(event)
    )


def _make_callback(
    target: Target, event: str, submit: Callable[[Any], bool], profile: str
) -> Callable[..., None]:
    """The callback of ``target`` for ``event``: build, sign, enqueue, return None."""
    from hermes_hooks.webhooks.delivery import Delivery
    from hermes_hooks.webhooks.wire import build_headers, new_delivery_id, utc_timestamp

    matcher = target.matcher_for(event)
    secret = target.github_secret
    keys = target.standard_keys

    def deliver(**payload: Any) -> None:
        if matcher is not None and not matcher.matches(payload.get("tool_name")):
            return None  # Filtered before anything is serialised
        now = time.time()
        document = build_envelope(event, payload, profile=profile)
        delivery_id = new_delivery_id()
        timestamp = utc_timestamp(now)
        document["delivery_id"] = delivery_id
        document["timestamp"] = timestamp
        body = dumps(document)
        headers = build_headers(
            event, delivery_id, body, secret=secret, standard_keys=keys, stamp=int(now)
        )
        trace_headers(headers)  # traceparent of the firing, taken now: delivery is later
        submit(Delivery(event, delivery_id, timestamp, body, headers))
        return None

    deliver.__qualname__ = f"outbound webhook {target.label} ({event})"
    return deliver


def load(context: LoadContext) -> OutboundSource:
    """Parse ``hooks.outbound`` of ``context.config`` and register every usable target."""
    targets: list[Target] = []
    skipped: list[Skipped] = []
    if context.config.get("hooks") is not None:  # else nothing to parse
        from hermes_hooks.webhooks.targets import parse_outbound

        targets, skipped = parse_outbound(context.config, str(context.config_path))
    source = OutboundSource(context, targets, skipped)
    if targets:
        source.register()
    return source


def unloaded(context: LoadContext) -> Source:
    """The stand-in ``list`` and ``doctor`` ask when this adapter did not run: an empty
    section and no findings."""
    from hermes_hooks.webhooks.report import outbound_section

    return Unloaded("outbound", lambda: outbound_section(None), list)
