"""What a firing of one hook knows up front, and each callback's own copy of its payload.

A :class:`Plan` per catalogued hook is computed once (:data:`PLANS`): the selection,
whether the hook is bounded or queued, whether it fails closed, and which fields may
hold containers.  A :class:`Cursor` follows one firing's current payload (a modify
replaces it) and gives each callback its own copy, narrowed to the names it accepts,
so no callback sees another's mutations.  The dispatcher and the bounded hand-off both
build their callbacks' arguments here.
"""

from __future__ import annotations

from typing import Any

from hermes_hooks._callback import Callback
from hermes_hooks._contract import Contract, Thread
from hermes_hooks._select import AGGREGATORS
from hermes_hooks.hookspecs import CATALOGUE, TELEMETRY_FIELD, TELEMETRY_VERSION

__all__ = ["PLANS", "Cursor", "Plan", "callback_kwargs", "clone_payload_value", "prepare"]


def clone_payload_value(value: Any) -> Any:
    """Copy the JSON-like containers of ``value`` (dicts and lists, recursively).

    Other objects are shared: host handles such as ``gateway`` must stay live, and a
    generic deep copy would choke on locks and sockets.  Written with inline type checks
    because it runs for every callback of every firing.
    """
    kind = type(value)
    if kind is dict:
        copy = value.copy()
        for key, item in copy.items():  # replacing values keeps the size: safe to iterate
            kind = type(item)
            if kind is dict or kind is list:
                copy[key] = clone_payload_value(item)
        return copy
    if kind is list:
        copy = value.copy()
        for index, item in enumerate(copy):
            kind = type(item)
            if kind is dict or kind is list:
                copy[index] = clone_payload_value(item)
        return copy
    return value


_SCALAR_TYPES = frozenset({"str", "int", "float", "bool", "None"})


class Plan:
    """What a firing of one hook needs to know up front, computed once per hook."""

    __slots__ = (
        "aggregator",
        "bounded",
        "contract",
        "declared",
        "fail_closed",
        "marker",
        "maybe_containers",
        "one_per_call",
        "queued",
    )

    def __init__(self, contract: Contract) -> None:
        self.contract = contract
        self.aggregator = AGGREGATORS[contract.selection]
        self.bounded = contract.policy.bounded
        self.queued = contract.policy.thread is Thread.QUEUE
        #: The policy's on_error: a failed callback blocks the guarded action.
        self.fail_closed = contract.fail_closed
        if self.fail_closed and not self.aggregator.can_block:
            raise TypeError(
                f"{contract.name}: fails closed, but its selection "
                f"{contract.selection.value!r} has no answer that blocks"
            )
        #: A guard never runs twice at once for one tool call: the bounded
        #: runner refuses a second firing with the same ``tool_call_id``.
        self.one_per_call = self.fail_closed and "tool_call_id" in contract.field_names
        #: Fields whose catalogue type admits a dict or list: the only declared fields
        #: whose values need a per-callback copy.
        self.maybe_containers = tuple(
            f.name
            for f in contract.fields
            if not {part.strip() for part in f.type.split("|")} <= _SCALAR_TYPES
        )
        self.declared = contract.field_names | {TELEMETRY_FIELD}
        #: Whether callbacks get the envelope marker.
        self.marker = contract.marker


def _nests(items: Any) -> bool:
    """Whether ``items`` (a list, or a dict's values) holds a dict or a list."""
    for item in items:
        kind = type(item)
        if kind is dict or kind is list:
            return True
    return False


def prepare(payload: dict[str, Any], plan: Plan) -> dict[str, bool]:
    """Add the ``telemetry_schema_version`` marker to ``payload`` (the firing owns it)
    and map each key holding a dict or list to whether it nests others: a flat one is
    isolated by a shallow copy, a nested one is cloned.  Only fields whose type admits a
    container, and keys the catalogue does not declare, are looked at."""
    if plan.marker and TELEMETRY_FIELD not in payload:
        payload[TELEMETRY_FIELD] = TELEMETRY_VERSION
    copies: dict[str, bool] = {}
    for key in plan.maybe_containers:
        value = payload.get(key)
        kind = type(value)
        if kind is dict:
            copies[key] = _nests(value.values()) if value else False
        elif kind is list:
            copies[key] = _nests(value) if value else False
    declared = plan.declared
    if len(payload) > len(declared) or not payload.keys() <= declared:
        for key in payload.keys() - declared:  # fields a host added
            value = payload[key]
            kind = type(value)
            if kind is dict:
                copies[key] = _nests(value.values())
            elif kind is list:
                copies[key] = _nests(value)
    return copies


def callback_kwargs(
    callback: Callback, base: dict[str, Any], copies: dict[str, bool]
) -> dict[str, Any]:
    """One callback's own copy of the payload: everything for a
    ``**kwargs`` callback, else only the names it declares; containers copied (flat
    ones shallowly, nested ones cloned) so no callback sees another's mutations."""
    if callback.accepts_all:
        kwargs = base.copy()
        for key, nested in copies.items():
            value = kwargs[key]
            kwargs[key] = clone_payload_value(value) if nested else value.copy()
        return kwargs
    kwargs = {}
    for name in callback.names:
        if name in base:
            value = base[name]
            deep = copies.get(name)
            if deep is not None:
                value = clone_payload_value(value) if deep else value.copy()
            kwargs[name] = value
    return kwargs


class Cursor:
    """The payload the last callback's copy was made from, and its container map: a
    firing recomputes the map only when a modify changed the arguments."""

    __slots__ = ("copies", "current", "plan")

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.current: dict[str, Any] | None = None
        self.copies: dict[str, bool] = {}

    def kwargs(self, callback: Callback, base: dict[str, Any]) -> dict[str, Any]:
        """``callback``'s own copy of ``base``, the firing's current payload."""
        if base is not self.current:  # the first callback, or args changed by a modify
            self.current = base
            self.copies = prepare(base, self.plan)
        return callback_kwargs(callback, base, self.copies)


#: hook -> its plan, so a firing does one dictionary lookup.
PLANS: dict[str, Plan] = {name: Plan(contract) for name, contract in CATALOGUE.items()}
