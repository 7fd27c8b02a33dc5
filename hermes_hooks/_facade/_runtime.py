"""The one runtime body behind every generated facade method.

The generated modules beside this one declare each hook's typed signature for type
checkers; at run time each name is bound to the two functions :func:`twins` builds, so
a firing costs what it always did: collect the keywords into the payload dict the
firing owns and hand it to the dispatcher.  Keeping the typed declarations out of the
run-time path also keeps behaviour: a host may omit a field (exit paths do), and the
callbacks see exactly the keywords the host passed.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from hermes_hooks.hookspecs import CATALOGUE

if TYPE_CHECKING:
    from hermes_hooks.config import Settings

__all__ = ["MAY_BE_ABSENT", "FacadeBase", "twins"]

#: Fields the spec makes optional, present only on some paths: exit paths add
#: ``reason``/``api_request_id`` to ``on_session_end``; only gateway resets carry the
#: old and new session ids; only smart approvals say ``decided_by``.  Their typed
#: parameters get a default so that a host which leaves them out type-checks; the
#: payload still holds only the keywords the host passed.
MAY_BE_ABSENT: dict[str, frozenset[str]] = {
    "on_session_end": frozenset({"reason", "api_request_id"}),
    "on_session_finalize": frozenset({"reason", "old_session_id", "new_session_id"}),
    "on_session_reset": frozenset({"reason", "old_session_id", "new_session_id"}),
    "post_approval_response": frozenset({"decided_by"}),
}

Sync = Callable[..., Any]
Async = Callable[..., Coroutine[Any, Any, Any]]

if TYPE_CHECKING:
    from typing import Concatenate, ParamSpec, TypeVar

    _P = ParamSpec("_P")
    _R = TypeVar("_R")
    _S = TypeVar("_S")

    def async_twin(
        method: Callable[Concatenate[_S, _P], _R],
    ) -> Callable[Concatenate[_S, _P], Coroutine[Any, Any, _R]]:
        """For type checkers only: ``a<hook>`` takes what ``<hook>`` takes and is
        awaited for what it returns, so each generated signature is written once."""


class FacadeBase:
    """What a generated facade method needs from the class it is mixed into."""

    __slots__ = ()

    if TYPE_CHECKING:

        @property
        def settings(self) -> Settings: ...

        _fire: Callable[[str, dict[str, Any]], Any]

        async def _afire(self, name: str, payload: dict[str, Any]) -> Any: ...


def _signature(name: str) -> inspect.Signature:
    """The typed signature shown by ``help()`` and ``inspect`` (as in the stubs)."""
    contract = CATALOGUE[name]
    keyword = inspect.Parameter.KEYWORD_ONLY
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    absent = MAY_BE_ABSENT.get(name, frozenset())
    params += [
        inspect.Parameter(
            f.name,
            keyword,
            default=... if f.name in absent else inspect.Parameter.empty,
            annotation=f.type,
        )
        for f in contract.fields
    ]
    params.append(inspect.Parameter("extra", inspect.Parameter.VAR_KEYWORD, annotation="Any"))
    return inspect.Signature(params)


def twins(name: str) -> tuple[Sync, Async]:
    """The run-time method of hook ``name`` and its async twin ``a<name>``.

    A hook with an :class:`~hermes_hooks._contract.OptIn` drops the marked firings
    unless the setting is true (reasoning deltas reach callbacks only with
    ``stream_reasoning_deltas``); every other hook goes straight to the dispatcher.
    """
    contract = CATALOGUE[name]
    opt_in = contract.opt_in
    if opt_in is None:

        def fire(self: FacadeBase, **payload: Any) -> Any:
            return self._fire(name, payload)

        async def afire(self: FacadeBase, **payload: Any) -> Any:
            return await self._afire(name, payload)

    else:
        field, value, setting = opt_in.field, opt_in.value, opt_in.setting

        def fire(self: FacadeBase, **payload: Any) -> Any:
            if payload.get(field) == value and not getattr(self.settings, setting):
                return None
            return self._fire(name, payload)

        async def afire(self: FacadeBase, **payload: Any) -> Any:
            if payload.get(field) == value and not getattr(self.settings, setting):
                return None
            return await self._afire(name, payload)

    signature = _signature(name)
    for function, method, doc in (
        (fire, name, contract.method_doc),
        (afire, "a" + name, f"The async twin of :meth:`{name}`."),
    ):
        function.__name__ = method
        function.__qualname__ = f"Hooks.{method}"
        function.__doc__ = doc
        vars(function)["__signature__"] = signature  # what help() and inspect show
    return fire, afire
