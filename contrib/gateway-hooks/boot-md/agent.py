"""The default agent of the boot-md hook, used when the host set no agent factory.

:func:`default_agent_factory` builds :class:`ChatAgent`, a client for any
OpenAI-compatible ``/chat/completions`` endpoint, configured only by environment
variables, and it refuses to guess: an unset base URL or model is an error, never a
silent default (bare defaults got 401s on custom endpoints).

``BOOT_MD_BASE_URL``     required, e.g. ``http://127.0.0.1:8080/v1``
``BOOT_MD_MODEL``        required, the model name the endpoint expects
``BOOT_MD_API_KEY_ENV``  the name of the variable holding the API key (default
                         ``OPENAI_API_KEY``); when that variable is empty no
                         ``Authorization`` header is sent
``BOOT_MD_TIMEOUT``      seconds for the request (default 120)

:class:`ChatAgent` makes one chat completion and has no tools, so it can summarise and
reason but not run commands; a host whose agent has tools should set its own factory
with ``hermes_hooks.boot.set_agent_factory``.
"""

from __future__ import annotations

import os
from typing import Any

from hermes_hooks.errors import BootConfigError

DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
DEFAULT_TIMEOUT = 120.0


def _required(name: str) -> str:
    value = os.environ.get(name, "").strip()
    if not value:
        raise BootConfigError(
            f"{name} is not set: the default boot agent needs BOOT_MD_BASE_URL and "
            "BOOT_MD_MODEL (or the host must call hermes_hooks.boot.set_agent_factory)"
        )
    return value


def _timeout() -> float:
    raw = os.environ.get("BOOT_MD_TIMEOUT", "").strip()
    if not raw:
        return DEFAULT_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        raise BootConfigError(f"BOOT_MD_TIMEOUT must be a number of seconds, got {raw!r}") from None
    return value if value > 0 else DEFAULT_TIMEOUT


def default_agent_factory() -> ChatAgent:
    """A :class:`ChatAgent` configured from the ``BOOT_MD_*`` environment variables."""
    key_env = os.environ.get("BOOT_MD_API_KEY_ENV", "").strip() or DEFAULT_API_KEY_ENV
    return ChatAgent(
        base_url=_required("BOOT_MD_BASE_URL"),
        model=_required("BOOT_MD_MODEL"),
        api_key=os.environ.get(key_env, "").strip() or None,
        timeout=_timeout(),
    )


class ChatAgent:
    """A one-shot client for an OpenAI-compatible ``POST <base_url>/chat/completions``."""

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.timeout = timeout
        self._api_key = api_key

    def run_conversation(self, prompt: str) -> dict[str, Any]:
        """Send ``prompt`` as the user message; return ``{"final_response": text}``.

        Raises ``httpx.HTTPError`` for transport and HTTP errors and ``ValueError``
        for a response without a message; the BOOT.md handler logs either.
        """
        import httpx  # deferred: only a boot that uses the default agent pays for it

        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        body = {"model": self.model, "messages": [{"role": "user", "content": prompt}]}
        response = httpx.post(self.url, json=body, headers=headers, timeout=self.timeout)
        response.raise_for_status()
        try:
            content = response.json()["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise ValueError(f"{self.url} answered without choices[0].message.content") from None
        return {"final_response": content if isinstance(content, str) else ""}
