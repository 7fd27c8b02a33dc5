"""OpenTelemetry: every firing a span, every callback run a child span, trace context
into every hook.

Only the OpenTelemetry *API* is used (the ``hermes-hooks[otel]`` extra), as
instrumentation libraries do: where the spans and metrics go is the application's
choice, made by installing and configuring the SDK.  Without the API, or with
``telemetry.otel: false`` in ``config.yaml``, nothing here is imported by a firing
and the facade calls the dispatcher exactly as before: :func:`instrument` returns
None and the facade keeps the dispatcher's own bound methods, so the disabled path
costs nothing per firing.

When enabled, :class:`Telemetry` stands between the facade and the dispatcher:

* a firing that runs at least one callback is a span named after the hook, a child
  of the host's current span, with ``hermes.hook.*`` and GenAI tool attributes;
* each callback run is a child span ``<source> <callback>``, built from the
  dispatcher's decision records (with an ``exception`` event when it failed);
* Python callbacks on bounded workers and streaming observers run inside the
  firing's context (the dispatcher's ``carry`` seam), shell hooks get
  ``TRACEPARENT``/``TRACESTATE`` (:func:`trace_environment`), outbound webhooks the
  ``traceparent`` header (:func:`trace_headers`), and gateway handlers run inside the
  context of the emit that queued them (:meth:`Telemetry.gateway_emit`);
* metrics: firings, blocks, callback durations, dropped events per queue, outbox
  depth.

Nothing in this module imports ``opentelemetry`` at module level: ``import
hermes_hooks`` stays light and works without the extra.  ``load()`` does not import it
either unless the home has queues to observe (webhook lanes, a durable outbox): a
:class:`Telemetry` looks the API up without importing it, and binds its tracer and
metric instruments on first use (the first firing that runs a callback, the first
callback run reported, the first gateway emission) once a real provider is configured:
with none, firings cost what they cost with telemetry off.
"""

from __future__ import annotations

import os
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from hermes_hooks._log import exception_text, excerpt, get_logger, warn_once
from hermes_hooks._version import __version__
from hermes_hooks.hookspecs import VALID_HOOKS
from hermes_hooks.telemetry.context import (
    FIRING,
    Firing,
    activate,
    active,
    carried,
    entered,
    trace_environment,
    trace_headers,
)
from hermes_hooks.telemetry.metrics import (
    SCOPE,
    Instruments,
    instruments_for,
    outbox_depths,
    queue_drops,
)
from hermes_hooks.telemetry.providers import (
    PROVIDERS,
    Instrumented,
    api_available,
    api_installed,
    check_telemetry,
    explicit_provider,
    global_provider_set,
    otel_setting,
    set_providers,
)
from hermes_hooks.types import DecisionRecord, DispatchDecision, ToolDecision

if TYPE_CHECKING:
    from opentelemetry.context import Context

    from hermes_hooks._dispatch import Dispatcher
    from hermes_hooks.gateway.emitter import CallRecord, GatewayEmitter

__all__ = [
    "INSTRUMENTATION_NAME",
    "Telemetry",
    "api_available",
    "carried",
    "check_telemetry",
    "entered",
    "firing_verdict",
    "instrument",
    "otel_setting",
    "replay_span",
    "set_providers",
    "trace_environment",
    "trace_headers",
]

log = get_logger("hermes_hooks.telemetry")

#: The instrumentation scope of every span and metric.
INSTRUMENTATION_NAME = SCOPE

#: Firing verdicts, strongest first: what a firing with no typed answer reports is
#: the strongest verdict any of its callbacks contributed ("allow" if none did).
_STRENGTH = ("block", "approve", "modify", "replaced", "context")
_FAILED = frozenset({"error", "timeout", "skipped"})


def instrument(hooks: Instrumented) -> Telemetry | None:
    """The :class:`Telemetry` of ``hooks``, or None when the API is absent or
    ``telemetry.otel`` is false (then the facade calls the dispatcher directly)."""
    enabled, problem = otel_setting(hooks.config, str(hooks.home / "config.yaml"))
    if problem:
        log.error("%s", problem)
    if not enabled or not api_installed():
        return None
    return Telemetry(hooks)


# -- context into hooks ----------------------------------------------------------------


class _Api:
    """The OpenTelemetry API functions a firing calls, bound once by the first
    :class:`Telemetry` (an import statement per call would cost more than the call)."""

    def bind(self) -> None:
        from opentelemetry import context, trace

        self.attach = context.attach
        self.detach = context.detach
        self.set_span_in_context = trace.set_span_in_context
        self.Status = trace.Status
        self.StatusCode = trace.StatusCode


_otel: Any = _Api()
#: What :meth:`Telemetry._begin` opens when telemetry could not be set up: nothing.
_UNTRACED: tuple[Any, ...] = (None, None, None, None)


def _broken(hook: str, step: str, exc: Exception) -> None:
    warn_once(
        log, ("telemetry", step, type(exc)),
        "OpenTelemetry failed to %s the span of %s (%s: %s); the firing goes on without it. "
        "Check the tracer provider and exporter the application configured.",
        step, hook, type(exc).__name__, excerpt(exception_text(exc), 200),
    )  # fmt: skip


def firing_verdict(answer: Any, verdicts: Iterable[str]) -> str:
    """The verdict of a whole firing: the typed answer's action where there is one
    (``pre_tool_call``: allow, block, approve, or modify when allowed with changed
    arguments; ``pre_gateway_dispatch``: allow, skip, rewrite), else the strongest
    verdict a callback contributed, else ``allow``."""
    if isinstance(answer, ToolDecision):
        return "modify" if answer.action == "allow" and answer.modified else answer.action
    if isinstance(answer, DispatchDecision):
        return answer.action
    seen = set(verdicts)
    for verdict in _STRENGTH:
        if verdict in seen:
            return verdict
    return "allow"


def _attributes(hook: str, payload: Mapping[str, Any], callbacks: int) -> dict[str, Any]:
    attributes: dict[str, Any] = {"hermes.hook.name": hook, "hermes.hook.callbacks": callbacks}
    tool = payload.get("tool_name")
    if isinstance(tool, str):
        attributes["gen_ai.tool.name"] = tool
    call_id = payload.get("tool_call_id")
    if isinstance(call_id, str):
        attributes["gen_ai.tool.call.id"] = call_id
    return attributes


class Telemetry:
    """Spans and metrics for the firings of one :class:`~hermes_hooks.hooks.Hooks`.

    It offers the dispatcher's firing methods (:meth:`fire`, :meth:`afire`,
    :meth:`fire_all`) with a span around each; the facade calls these instead of the
    dispatcher's when telemetry is on.

    Many environments carry the API as a dependency of something else and configure no
    provider: spans would then go to the API's proxy and be dropped. Until a real
    provider is there (given to :func:`set_providers`, named by the environment, or set
    globally by the application, at any time after ``load()``), a firing goes straight
    to the dispatcher: no span, no metric, no context copies for bounded callbacks.
    """

    def __init__(self, hooks: Instrumented) -> None:
        self._hooks = weakref.ref(hooks)
        self._dispatcher: Dispatcher = hooks.dispatcher
        self._manager = hooks.manager
        # The providers of this load: set_providers() applies to loads made after it.
        self._tracer_provider = PROVIDERS["tracer"]
        self._meter_provider = PROVIDERS["meter"]
        # Bound by _bind() on first use; None until then.
        self._tracer: Any = None
        self._metrics: Instruments  # set by _bind() before _tracer
        self._bind_lock = threading.Lock()
        self._unusable = False  # binding failed: run untraced
        self._closed = False
        self._gateway_dropped: dict[str, int] = {}
        self._unsubscribe: Callable[[], None] | None = None
        # True once a real provider is there: spans and metrics are then made.
        self._live = False
        if explicit_provider(self._tracer_provider, self._meter_provider):
            self._observe()
        activate()

    def _observe(self) -> None:
        """Start making spans: hear every callback run, and carry the firing's context
        into bounded callbacks."""
        self._unsubscribe = self._dispatcher.subscribe(self._on_record)
        self._dispatcher.carry = carried
        self._live = True

    def _wake(self) -> bool:
        """Whether a real provider is there now (asked while there was none); the first
        time one is, start observing."""
        if not global_provider_set():
            return False
        with self._bind_lock:
            if not self._live and not self._closed:
                self._observe()
        return True

    def _bind(self) -> bool:
        """Import the API and make the tracer and metric instruments, once; False when
        that failed (logged once: the hooks then run untraced, never stopped).

        The tracer comes from this load's provider as it is now: a global provider the
        application set after ``load()`` is the one used, as it was when the tracer
        was made at load (the API's proxy tracer follows the global provider).
        """
        with self._bind_lock:
            if self._tracer is None and not self._unusable:
                try:
                    self._make_instruments()
                except Exception as exc:
                    self._unusable = True
                    warn_once(
                        log, ("telemetry", "bind", type(exc)),
                        "OpenTelemetry could not be set up (%s: %s); hooks run without "
                        "spans or metrics. Check the OpenTelemetry API installation and the "
                        "providers the application configured.",
                        type(exc).__name__, excerpt(exception_text(exc), 200),
                    )  # fmt: skip
            return self._tracer is not None

    def _make_instruments(self) -> None:
        from opentelemetry import trace

        _otel.bind()
        tracer = trace.get_tracer(
            INSTRUMENTATION_NAME, __version__, tracer_provider=self._tracer_provider
        )
        self._metrics = instruments_for(self._meter_provider)
        if not self._closed:  # a reload closed this one: its queues are not watched
            self._metrics.live.add(self)
        self._tracer = tracer  # last: a set tracer means everything is bound

    def sources_loaded(self) -> None:
        """The load's sources are in: when they hold queues the metric instruments
        observe (webhook lanes, deliveries left in the outbox by an earlier run), bind
        now, so that a metric reader sees them before the first firing."""
        if self.outbox_depth() or self.dropped():
            self._bind()

    def close(self) -> None:
        """Stop observing the dispatcher (a reload builds a new one if still enabled)."""
        with self._bind_lock:
            if self._unsubscribe is not None:
                self._unsubscribe()
                self._unsubscribe = None
                self._dispatcher.carry = None
            self._closed = True
            if self._tracer is not None:
                self._metrics.live.discard(self)

    # -- firings -----------------------------------------------------------------------
    # Written out (no context manager, API functions bound once): this runs per firing.

    # Telemetry must never change what a firing decides: a provider or exporter that
    # raises costs the span (logged once), never the firing.

    def _begin(self, hook: str, payload: Mapping[str, Any], callbacks: int) -> tuple[Any, ...]:
        if self._tracer is None and not self._bind():
            return _UNTRACED
        firing = Firing()
        try:
            span = self._tracer.start_span(hook, attributes=_attributes(hook, payload, callbacks))
            firing.recording = span.is_recording()
            token = _otel.attach(_otel.set_span_in_context(span))
        except Exception as exc:
            _broken(hook, "start", exc)
            firing.recording = False  # and so no callback spans either
            return firing, FIRING.set(firing), None, None
        return firing, FIRING.set(firing), span, token

    def _end(self, hook: str, answer: Any, opened: tuple[Any, ...]) -> None:
        firing, marker, span, token = opened
        if marker is None:  # not traced at all (telemetry could not be set up)
            return
        FIRING.reset(marker)
        if span is None:
            return
        try:
            _otel.detach(token)
            verdict = firing_verdict(answer, firing.verdicts)
            span.set_attribute("hermes.hook.verdict", verdict)
            span.end()
            attributes = {"hermes.hook.name": hook, "hermes.hook.verdict": verdict}
            self._metrics.firings.add(1, attributes)
            if verdict == "block":
                self._metrics.blocks.add(1, {"hermes.hook.name": hook})
        except Exception as exc:
            _broken(hook, "end", exc)

    def entry(self) -> Callable[[str, dict[str, Any]], Any]:
        """What the facade's typed methods fire through: :meth:`fire` once a real
        provider is there; until then a function that asks for one and otherwise calls
        the dispatcher itself.

        The facade binds this once, at load.  Asking costs a few attribute reads; the
        method calls around them (this object's ``fire`` and ``_wake``) cost as much
        again, and an environment that carries the API with no provider pays them on
        every firing.  Once a provider appears, the function hands every firing to
        :meth:`fire`, which starts the spans.
        """
        if self._live:
            return self.fire
        dispatcher_fire, traced, provider_set = (
            self._dispatcher.fire,
            self.fire,
            global_provider_set,
        )

        def fire_unless_traced(hook: str, payload: dict[str, Any]) -> Any:
            if provider_set():
                return traced(hook, payload)
            return dispatcher_fire(hook, payload)

        return fire_unless_traced

    def fire(self, hook: str, payload: dict[str, Any]) -> Any:
        """:meth:`Dispatcher.fire <hermes_hooks._dispatch.Dispatcher.fire>` inside a
        span named after the hook (no span when no callback listens)."""
        if not self._live and not self._wake():
            return self._dispatcher.fire(hook, payload)
        callbacks = self._manager.firing_callbacks(hook) if hook in VALID_HOOKS else ()
        if not callbacks:
            return self._dispatcher.fire(hook, payload)
        opened = self._begin(hook, payload, len(callbacks))
        answer = None
        try:
            answer = self._dispatcher.fire(hook, payload)
        finally:
            self._end(hook, answer, opened)
        return answer

    def fire_all(self, hook: str, payload: dict[str, Any]) -> list[Any]:
        """:meth:`Dispatcher.fire_all <hermes_hooks._dispatch.Dispatcher.fire_all>`
        inside a span named after the hook."""
        if not self._live and not self._wake():
            return self._dispatcher.fire_all(hook, payload)
        callbacks = self._manager.firing_callbacks(hook) if hook in VALID_HOOKS else ()
        if not callbacks:
            return self._dispatcher.fire_all(hook, payload)
        opened = self._begin(hook, payload, len(callbacks))
        try:
            return self._dispatcher.fire_all(hook, payload)
        finally:
            self._end(hook, None, opened)

    async def afire(self, hook: str, payload: dict[str, Any]) -> Any:
        """The async twin of :meth:`fire`."""
        if not self._live and not self._wake():
            return await self._dispatcher.afire(hook, payload)
        callbacks = self._manager.firing_callbacks(hook) if hook in VALID_HOOKS else ()
        if not callbacks:
            return await self._dispatcher.afire(hook, payload)
        opened = self._begin(hook, payload, len(callbacks))
        answer = None
        try:
            answer = await self._dispatcher.afire(hook, payload)
        finally:
            self._end(hook, answer, opened)
        return answer

    # -- callback runs -----------------------------------------------------------------

    def _on_record(self, record: DecisionRecord) -> None:
        """One callback run, reported by the dispatcher on the firing's thread (or a
        copy of its context): a child span of the firing, ended now, started
        ``duration`` ago."""
        if self._tracer is None and not self._bind():
            return
        try:
            self._record_run(record)
        except Exception as exc:
            _broken(record.hook, "record a callback in", exc)

    def _record_run(self, record: DecisionRecord) -> None:
        firing = FIRING.get()
        if firing is not None:
            firing.verdicts.append(record.verdict)
            if not firing.recording:  # not sampled (or a no-op provider): no children
                self._metrics.duration.record(
                    record.duration,
                    {
                        "hermes.hook.name": record.hook,
                        "hermes.callback.source": record.source,
                        "hermes.callback.verdict": record.verdict,
                    },
                )
                return
        extra = record.extra
        self._callback_span(
            record.hook,
            record.source,
            record.callback,
            str(extra.get("owner", "")),
            record.verdict,
            record.duration,
            extra.get("error"),
            record.reason,
        )

    def _callback_span(
        self,
        hook: str,
        source: str,
        name: str,
        owner: str,
        verdict: str,
        duration: float,
        error: BaseException | None = None,
        reason: str | None = None,
    ) -> None:
        end = time.time_ns()
        span = self._tracer.start_span(
            name if name.startswith(f"{source} ") else f"{source} {name}",
            start_time=end - int(duration * 1e9),
            attributes={
                "hermes.hook.name": hook,
                "hermes.callback.source": source,
                "hermes.callback.owner": owner,
                "hermes.callback.verdict": verdict,
            },
        )
        if error is not None:
            span.record_exception(error)
        elif verdict == "error" and reason:  # a gateway handler's "<Type>: <message>"
            kind, _, message = reason.partition(": ")
            span.add_event("exception", {"exception.type": kind, "exception.message": message})
        if verdict in _FAILED:
            span.set_status(_otel.Status(_otel.StatusCode.ERROR, reason or verdict))
        span.end(end_time=end)
        self._metrics.duration.record(
            duration,
            {
                "hermes.hook.name": hook,
                "hermes.callback.source": source,
                "hermes.callback.verdict": verdict,
            },
        )

    # -- gateway events ----------------------------------------------------------------

    def watch_gateway(self, emitter: GatewayEmitter) -> None:
        """Trace ``emitter``'s emissions and handler calls."""
        emitter.trace = self.gateway_emit
        emitter.subscribe(self._on_gateway_record)

    def gateway_emit(self, event: str, handlers: int) -> Context | None:
        """A span for one gateway emission (named after the event, ended at once: the
        handlers run later on their lanes); returns its context for them to run in."""
        if not self._live and not self._wake():
            return None
        if self._tracer is None and not self._bind():
            return None
        try:
            return self._emission(event, handlers)
        except Exception as exc:
            _broken(event, "start", exc)
            return None

    def _emission(self, event: str, handlers: int) -> Context:
        from opentelemetry import trace

        # emit() only queues; a slash command's handlers are awaited in its context
        verdict = "command" if event.startswith("command:") else "queued"
        span = self._tracer.start_span(
            event,
            attributes={
                "hermes.hook.name": event,
                "hermes.hook.callbacks": handlers,
                "hermes.hook.verdict": verdict,
            },
        )
        span.end()
        self._metrics.firings.add(1, {"hermes.hook.name": event, "hermes.hook.verdict": verdict})
        return trace.set_span_in_context(span)

    def _on_gateway_record(self, record: CallRecord) -> None:
        if not self._live and not self._wake():
            return
        if self._tracer is None and not self._bind():  # bound by the emission, as a rule
            return
        try:
            self._gateway_run(record)
        except Exception as exc:
            _broken(record.event, "record a handler in", exc)

    def _gateway_run(self, record: CallRecord) -> None:
        if record.outcome == "dropped":
            self._gateway_dropped[record.hook] = self._gateway_dropped.get(record.hook, 0) + 1
            return
        self._callback_span(
            record.event,
            "gateway",
            record.hook,
            record.path,
            "none" if record.outcome == "ok" else record.outcome,
            record.duration,
            reason=record.detail or None,
        )

    # -- queues (read by the metric reader) --------------------------------------------

    def dropped(self) -> dict[str, int]:
        """Events dropped so far, per queue: ``stream:<owner>``, ``webhook:<target>``,
        ``gateway:<hook>``."""
        hooks = self._hooks()
        if hooks is None:
            return {}
        counts = queue_drops(hooks)
        for hook, dropped in list(self._gateway_dropped.items()):  # the loop may add one
            counts[f"gateway:{hook}"] = dropped
        return counts

    def outbox_depth(self) -> dict[str, int]:
        """Durable deliveries waiting in the outbox, per webhook target."""
        hooks = self._hooks()
        return {} if hooks is None else outbox_depths(hooks)


@contextmanager
def replay_span(path: str) -> Iterator[None]:
    """A span around the replay of one recording, so its firings form one trace
    (nothing when no load has telemetry on, or the API cannot be imported)."""
    if not active() or not api_available():
        yield
        return
    from opentelemetry import trace

    tracer = trace.get_tracer(
        INSTRUMENTATION_NAME, __version__, tracer_provider=PROVIDERS["tracer"]
    )
    with tracer.start_as_current_span(
        f"replay {os.path.basename(path)}", attributes={"hermes.replay.file": path}
    ):
        yield
