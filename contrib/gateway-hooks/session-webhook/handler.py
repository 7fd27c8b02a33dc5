"""session-webhook: POST every new or reset session to an external service.

``SESSION_WEBHOOK_URL`` sets the endpoint (default: the documentation's example URL,
which you must replace).  The body is ``{"event": <event>, **context}``.
"""

import os

import httpx

WEBHOOK_URL = os.getenv("SESSION_WEBHOOK_URL") or "https://seu-servico.example.com/hermes-events"


async def handle(event_type: str, context: dict) -> None:
    async with httpx.AsyncClient() as client:
        response = await client.post(
            WEBHOOK_URL,
            json={
                "event": event_type,
                **context,
            },
            timeout=5,
        )
        response.raise_for_status()  # a refused POST is logged by the gateway
