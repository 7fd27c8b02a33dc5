"""The agent a ``boot-md`` gateway hook runs its start-up checklist with.

The BOOT.md hook (``contrib/gateway-hooks/boot-md``) needs "a one-shot agent with the
gateway's already-resolved model and credentials".  hermes-hooks is a framework, not
the agent, so the *host* provides that agent through a factory::

    import hermes_hooks.boot

    hermes_hooks.boot.set_agent_factory(lambda: MyAgent(model=..., **credentials))

A factory takes no arguments and returns an object with
``run_conversation(prompt: str) -> dict`` whose ``"final_response"`` is the agent's
answer (the reply the boot-md hook trims and logs).  Set it before the gateway emits
``gateway:startup``.

Without one, the boot-md hook uses the default agent it ships beside its handler
(``contrib/gateway-hooks/boot-md/agent.py``): an agent is the host's business, so no
agent lives in the package core.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

__all__ = ["Agent", "AgentFactory", "boot_file", "get_agent_factory", "set_agent_factory"]


class Agent(Protocol):
    """What the BOOT.md handler needs from an agent."""

    def run_conversation(self, prompt: str) -> dict[str, Any]:
        """Run one conversation; the answer is under ``"final_response"``."""
        ...


AgentFactory = Callable[[], Agent]

_lock = threading.Lock()
_factory: AgentFactory | None = None


def set_agent_factory(factory: AgentFactory | None) -> None:
    """Install the host's agent factory (``None`` removes it: the hook's default applies)."""
    global _factory
    with _lock:
        _factory = factory


def get_agent_factory() -> AgentFactory | None:
    """The host's factory, or None when the host set none (the hook then uses its own
    default agent)."""
    with _lock:
        return _factory


def boot_file(name: str = "BOOT.md") -> Path:
    """``<Hermes home>/<name>``: ``$HERMES_HOME`` if set, else ``~/.hermes``."""
    home = os.environ.get("HERMES_HOME", "").strip()
    root = Path(home).expanduser() if home else Path.home() / ".hermes"
    return root / name
