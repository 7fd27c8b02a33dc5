"""long-task-alert: a Telegram message when a turn reaches THRESHOLD tool-loop steps.

Configured by the environment: ``TELEGRAM_BOT_TOKEN`` and ``TELEGRAM_HOME_CHANNEL``
(both needed, else the hook does nothing) and ``TELEGRAM_API_BASE`` (default
``https://api.telegram.org``; point it at a test server or a Bot API proxy).
"""

import os

import httpx

THRESHOLD = 10
BOT_TOKEN = os.getenv("TELEGRAM_BOT_TOKEN")
CHAT_ID = os.getenv("TELEGRAM_HOME_CHANNEL")
API_BASE = (os.getenv("TELEGRAM_API_BASE") or "https://api.telegram.org").rstrip("/")


async def handle(event_type: str, context: dict) -> None:
    iteration = context.get("iteration", 0)
    if iteration == THRESHOLD and BOT_TOKEN and CHAT_ID:
        tools = ", ".join(context.get("tool_names", []))
        text = f"⚠️ O agente já está rodando há {iteration} passos. Últimas ferramentas: {tools}"
        payload = {"chat_id": CHAT_ID, "text": text}
        # Reply inside the same forum topic when the context names one (GW-15).
        thread_id = str(context.get("thread_id") or "").strip()
        if context.get("chat_type") == "forum" and thread_id:
            payload["message_thread_id"] = int(thread_id)
        async with httpx.AsyncClient() as client:
            response = await client.post(
                f"{API_BASE}/bot{BOT_TOKEN}/sendMessage",
                json=payload,
            )
            response.raise_for_status()  # a refused alert is logged by the gateway
