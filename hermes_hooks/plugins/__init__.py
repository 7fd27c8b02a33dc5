"""Python plugin hooks: ``register(ctx)`` plugins in ``<home>/plugins/<name>/`` and in
installed distributions (entry-point groups ``hermes_hooks`` and
``hermes_agent.plugins``), pluggy-style hookimpl modules, the plugin context they
register through, its registries, middleware and prompt sections.

:mod:`~hermes_hooks.plugins.source` turns them into callbacks on the manager; the
rest of the package never asks where a callback came from.
"""
