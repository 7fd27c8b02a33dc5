"""boot-md: run ~/.hermes/BOOT.md once at every gateway start-up (the BOOT.md pattern).

The agent comes from the host through ``hermes_hooks.boot.set_agent_factory``; without
one, the default agent beside this file (``agent.py``) talks to the OpenAI-compatible
endpoint named by the ``BOOT_MD_*`` environment variables.  The hook logs the agent's
final response and delivers nothing: to post it somewhere, add a delivery step
such as the Telegram POST of the long-task-alert hook.
"""

import importlib.util
import logging
import threading
from pathlib import Path

from hermes_hooks.boot import boot_file, get_agent_factory

logger = logging.getLogger("hooks.boot-md")

BOOT_FILE = boot_file()  # ~/.hermes/BOOT.md ($HERMES_HOME/BOOT.md when that is set)

# The whole reply, case and surrounding whitespace ignored, means "nothing to report".
SILENT_REPLIES = {"[SILENT]", "SILENT", "NO_REPLY", "NO REPLY"}


def _build_prompt(content: str) -> str:
    return (
        "You are running a startup boot checklist. Follow the instructions "
        "below exactly.\n\n"
        "---\n"
        f"{content}\n"
        "---\n\n"
        "Execute each instruction. Put any user-facing summary in your "
        "final response — the hook delivers it to the configured channel "
        "(e.g. Discord or Slack); you do not send messages yourself.\n"
        "If nothing needs attention and there is nothing to report, reply "
        "with ONLY: [SILENT]"
    )


def _default_agent_factory():
    """The factory of ``agent.py`` beside this file, loaded when first needed."""
    spec = importlib.util.spec_from_file_location(
        "hermes_hook_boot_md_agent", Path(__file__).with_name("agent.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.default_agent_factory


def _run_boot_agent(content: str) -> None:
    """Build a one-shot agent with the host's factory (else ours) and run the checklist."""
    try:
        agent = (get_agent_factory() or _default_agent_factory())()
        result = agent.run_conversation(_build_prompt(content))
        response = (result.get("final_response", "") or "").strip()
        if response.upper() not in SILENT_REPLIES:
            logger.info("boot-md completed: %s", response[:200])
        else:
            logger.info("boot-md completed (nothing to report)")
    except Exception as e:
        logger.error("boot-md agent failed: %s", e)


async def handle(event_type: str, context: dict) -> None:
    if not BOOT_FILE.exists():
        return
    content = BOOT_FILE.read_text(encoding="utf-8").strip()
    if not content:
        return

    logger.info("Running BOOT.md (%d chars)", len(content))

    # A background thread, so gateway start-up is not held for a whole agent turn.
    thread = threading.Thread(
        target=_run_boot_agent,
        args=(content,),
        name="boot-md",
        daemon=True,
    )
    thread.start()
