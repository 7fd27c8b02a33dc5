"""Gateway hooks: ``<home>/hooks/<name>/`` directories (``HOOK.yaml`` + ``handler.py``)
that the messaging gateway fires around its lifecycle (spec section 4).

The package is split by job, and this file imports nothing heavy, so reading the event
catalogue (``hermes_hooks.GATEWAY_EVENTS``) does not load lanes or threads::

    events.py     the event catalogue (event -> context keys) and the ``<prefix>:*`` matcher
    manifest.py   reading and checking one HOOK.yaml
    lanes.py      per-hook FIFO lanes and the sync-handler worker threads
    commands.py   the ``command:<name>`` decision protocol
    emitter.py    ``hooks.gateway``: emit, emit_command, drain, close

Discovery and the bridge into the pluggy manager live in
:mod:`hermes_hooks.gateway.source`.
"""

from __future__ import annotations

from hermes_hooks.gateway.events import GATEWAY_EVENTS

__all__ = ["GATEWAY_EVENTS"]
