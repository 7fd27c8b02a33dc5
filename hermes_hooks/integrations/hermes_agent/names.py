"""The names the bridge is known by, apart so every module of the bridge can use them
without importing the package that loads the bridge."""

from __future__ import annotations

__all__ = ["ENTRY_POINT_NAME", "MODULE"]

#: The name hermes-agent knows the bridge by (``plugins.enabled`` lists it).
ENTRY_POINT_NAME = "hermes-hooks"

#: The module the entry point names; hermes-hooks' own discovery skips it, since a
#: bridge loaded by the hooks it loads would load them again, without end.
MODULE = "hermes_hooks.integrations.hermes_agent"
