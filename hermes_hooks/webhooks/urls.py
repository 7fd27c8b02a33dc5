"""URLs as we print them: credentials in a target's url never reach the screen.

A target url may carry credentials, ``https://user:pass@host/`` or a query secret
such as ``?token=...`` (many receivers authenticate that way).  ``list``, ``doctor``,
``outbox`` (with ``--json`` too) and ``repr(Target)`` show :func:`redact_urls` of
anything that may hold a url; the real url is only ever used to send.
"""

from __future__ import annotations

import re

__all__ = ["MASK", "redact_urls"]

MASK = "***"
#: A url inside any text: scheme, then everything up to whitespace or a quote.
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'\"<>]+")
#: Query parameter names (any part of them) that carry a credential.
_SECRET_NAME = re.compile(
    r"token|key|secret|sig|pass|pwd|auth|credential|session|code|hash|hmac", re.IGNORECASE
)


def _redact_one(url: str) -> str:
    scheme, sep, rest = url.partition("://")
    end = len(rest)
    for mark in "/?#":
        found = rest.find(mark)
        if found != -1:
            end = min(end, found)
    authority, tail = rest[:end], rest[end:]
    if "@" in authority:  # user, user:password or a bare token before the host
        authority = MASK + authority[authority.rindex("@") :]
    path, hashmark, fragment = tail.partition("#")
    base, question, query = path.partition("?")
    if question:
        fields = []
        for field in query.split("&"):
            name, equals, _ = field.partition("=")
            fields.append(f"{name}={MASK}" if equals and _SECRET_NAME.search(name) else field)
        query = "&".join(fields)
    return f"{scheme}{sep}{authority}{base}{question}{query}{hashmark}{fragment}"


def redact_urls(text: str) -> str:
    """``text`` with the credentials of every url in it replaced by ``***``: the
    user information before the host, and the values of query parameters named like
    a secret (``token``, ``api_key``, ``sig``, ``password``, ...)."""
    if "://" not in text:
        return text
    return _URL.sub(lambda match: _redact_one(match.group(0)), text)
