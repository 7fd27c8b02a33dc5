"""THE catalogue: every plugin hook, declared once as a pluggy hookspec with its contract.

One module per lifecycle area; :data:`SPEC_MODULES` lists them in catalogue order.
:data:`CATALOGUE` maps each hook name to its :class:`~hermes_hooks._contract.Contract`,
built from what the hookspec decorator recorded (it reads the policy table of
``_contract`` too).
"""

from __future__ import annotations

import inspect
from types import ModuleType

from hermes_hooks._contract import Contract, Field
from hermes_hooks.hookspecs import (
    api,
    approval,
    gateway_dispatch,
    kanban,
    llm,
    session,
    skills,
    stream,
    subagent,
    tools,
    transcription,
)
from hermes_hooks.hookspecs._marker import (
    PROJECT_NAME,
    TELEMETRY_FIELD,
    TELEMETRY_VERSION,
    SpecInfo,
    hookspec,
)

__all__ = [
    "CATALOGUE",
    "PROJECT_NAME",
    "SPEC_MODULES",
    "STREAMING_HOOKS",
    "TELEMETRY_FIELD",
    "TELEMETRY_VERSION",
    "VALID_HOOKS",
    "hookspec",
]

#: The hookspec modules, in catalogue (lifecycle) order.
SPEC_MODULES: tuple[ModuleType, ...] = (
    tools,
    llm,
    transcription,
    api,
    stream,
    session,
    skills,
    subagent,
    gateway_dispatch,
    approval,
    kanban,
)


def _build_catalogue() -> dict[str, Contract]:
    catalogue: dict[str, Contract] = {}
    for module in SPEC_MODULES:
        for name, func in vars(module).items():
            info = getattr(func, "hermes_contract", None)
            if not isinstance(info, SpecInfo):
                continue
            params = inspect.signature(func).parameters.values()
            catalogue[name] = Contract(
                name=name,
                kind=info.kind,
                selection=info.selection,
                policy=info.policy,
                shell=info.shell,
                tool_scoped=info.tool_scoped,
                fields=tuple(
                    Field(p.name, str(p.annotation)) for p in params if p.name != TELEMETRY_FIELD
                ),
                doc=inspect.cleandoc(func.__doc__ or ""),
                marker=info.marker,
                shell_refusal=info.shell_refusal,
                webhook_refusal=info.webhook_refusal,
                streaming=info.streaming,
                opt_in=info.opt_in,
            )
    return catalogue


#: Hook name -> contract, in catalogue order.
CATALOGUE: dict[str, Contract] = _build_catalogue()
#: Exactly the 37 hooks of the catalogue.
VALID_HOOKS: frozenset[str] = frozenset(CATALOGUE)
#: Hooks whose registered callbacks switch provider calls to streaming.
STREAMING_HOOKS: tuple[str, ...] = tuple(n for n, c in CATALOGUE.items() if c.streaming)
