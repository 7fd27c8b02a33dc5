"""Run hermes-agent's own loop once, in a process of its own (the agent keeps a
process-wide plugin manager): ``python -m tests.reference.agent_worker <base_url>
<message>`` with ``HERMES_HOME`` set.  Starts as the ``hermes`` CLI does (plugins,
then the ``hooks:`` block), runs ``AIAgent.run_conversation`` against the scripted
model and prints one JSON line: the final response and what hermes-agent registered."""

from __future__ import annotations

import json
import logging
import sys


def main() -> None:
    """Run one conversation and print its outcome."""
    from tests.reference import jail

    jail.install()
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    base_url, message = sys.argv[1], sys.argv[2]

    from hermes_cli.config import load_config
    from hermes_cli.plugins import discover_plugins, get_plugin_manager

    discover_plugins()
    from agent.shell_hooks import register_from_config

    # What `hermes chat --accept-hooks` does after discovering plugins.
    register_from_config(load_config(), accept_hooks=True)
    from hermes_state import SessionDB
    from run_agent import AIAgent

    agent = AIAgent(
        session_db=SessionDB(),  # the agent's state.db in HERMES_HOME, for replay
        base_url=base_url,
        api_key="scripted",
        provider="custom",
        model="scripted",
        enabled_toolsets=["terminal"],
        quiet_mode=True,
        skip_context_files=True,
        skip_memory=True,
        max_iterations=5,
        tool_delay=0.0,
    )
    result = agent.run_conversation(message)
    manager = get_plugin_manager()
    # The bridge closes its hooks at exit (webhooks delivered, persistent hooks
    # stopped), as in the agent, which never closes its plugins.
    bridge = getattr(manager, "_hermes_hooks_bridge", None)
    print(
        json.dumps(
            {
                "final_response": result.get("final_response"),
                "bridged": bridge is not None,
                "native_hooks": sorted(
                    name for name, callbacks in manager._hooks.items() if callbacks
                ),
            }
        )
    )


if __name__ == "__main__":
    main()
