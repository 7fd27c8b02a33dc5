"""Verifying Hermes deliveries on the receiving side: signature, timestamp, repeats.

::

    from hermes_hooks.webhooks import Deduplicator, VerificationError, verify

    seen = Deduplicator()

    def handle(body: bytes, headers) -> int:
        try:
            delivery = verify(body, headers, os.environ["HERMES_WEBHOOK_SECRET"], dedupe=seen)
        except VerificationError:
            return 401
        if not delivery.duplicate:
            process(delivery.payload)
        return 204

:func:`verify` checks the signature with a constant-time comparison (every configured
secret is tried, so receivers can rotate too), rejects stale or future timestamps
outside the tolerance (5 minutes by default) and, with a :class:`Deduplicator`, flags
a delivery id seen before: Hermes retries a failed delivery with the same id, so a
repeat is normal and must be acknowledged, not processed twice.
"""

from __future__ import annotations

import calendar
import hmac
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Literal

from hermes_hooks.errors import VerificationError
from hermes_hooks.webhooks.signing import (
    GITHUB_HEADER,
    github_signature,
    standard_key,
    standard_signature,
)

__all__ = [
    "DEFAULT_TOLERANCE",
    "Deduplicator",
    "VerificationError",
    "Verified",
    "verify",
]

#: Seconds a delivery's timestamp may differ from the receiver's clock.
DEFAULT_TOLERANCE = 300.0
_TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%SZ"

Scheme = Literal["auto", "github", "standard"]
Secret = str | bytes


@dataclass(frozen=True)
class Verified:
    """A delivery whose signature and timestamp checked out."""

    payload: dict[str, Any]
    event: str | None
    delivery_id: str
    timestamp: datetime
    scheme: str
    duplicate: bool = False


class Deduplicator:
    """Remembers recently seen delivery ids, bounded in count and age.

    ``ttl`` should exceed the timestamp tolerance, so a replay that is still fresh
    enough to pass :func:`verify` is also still remembered.  Thread-safe.
    """

    def __init__(self, capacity: int = 10_000, ttl: float = 600.0) -> None:
        if capacity < 1 or ttl <= 0:
            raise ValueError("capacity must be >= 1 and ttl > 0")
        self.capacity = capacity
        self.ttl = ttl
        self._seen: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()

    def seen(self, delivery_id: str, now: float | None = None) -> bool:
        """Record ``delivery_id``; return True if it was already recorded and fresh."""
        current = time.time() if now is None else now
        with self._lock:
            while self._seen:
                oldest, expires = next(iter(self._seen.items()))
                if expires > current and len(self._seen) <= self.capacity:
                    break
                del self._seen[oldest]
            known = self._seen.get(delivery_id)
            if known is not None and known > current:
                return True
            self._seen[delivery_id] = current + self.ttl
            self._seen.move_to_end(delivery_id)
            if len(self._seen) > self.capacity:
                self._seen.popitem(last=False)
            return False

    def __len__(self) -> int:
        with self._lock:
            return len(self._seen)


def _lower_headers(headers: Mapping[str, str] | Iterable[tuple[str, str]]) -> dict[str, str]:
    # ``items()`` also covers http.client.HTTPMessage and framework header objects.
    items: Iterable[tuple[str, str]] = headers.items() if hasattr(headers, "items") else headers
    return {str(k).lower(): str(v) for k, v in items}


def _secrets(secret: Secret | Sequence[Secret] | None) -> list[Secret]:
    """The secrets to try, refusing a missing or empty one.

    An empty key is one anybody can sign with, so a receiver handed one (an unset
    environment variable read as ``""``, a blank entry in a rotation list) must reject
    every delivery rather than accept forgeries.
    """
    if secret is None:
        raise VerificationError("no secret given (secret is None)")
    secrets: list[Any] = [secret] if isinstance(secret, (str, bytes)) else list(secret)
    if not secrets:
        raise VerificationError("no secret given (the list of secrets is empty)")
    for position, each in enumerate(secrets):
        if not isinstance(each, (str, bytes)):
            raise VerificationError(
                f"secret {position} is a {type(each).__name__}, not a str or bytes"
            )
        if not each.strip():
            raise VerificationError(
                f"secret {position} is empty: an empty key accepts forged deliveries"
            )
    return secrets


def _same(a: str, b: str) -> bool:
    # compare_digest needs ASCII for str; bytes accept anything, still constant-time.
    # surrogatepass: a header holding a lone surrogate is a mismatch, not an error.
    return hmac.compare_digest(
        a.encode("utf-8", "surrogatepass"), b.encode("utf-8", "surrogatepass")
    )


def _github_matches(secret: Secret, body: bytes, header: str) -> bool:
    try:
        expected = github_signature(secret, body)
    except UnicodeEncodeError:  # a secret no sender could have signed with
        return False
    return _same(expected, header.strip())


def _check_github(body: bytes, header: str, secrets: list[Secret]) -> None:
    if not any(_github_matches(s, body, header) for s in secrets):
        raise VerificationError(f"{GITHUB_HEADER} does not match the body")


def _check_standard(body: bytes, headers: dict[str, str], secrets: list[Secret]) -> int:
    msg_id = headers.get("webhook-id")
    stamp = headers.get("webhook-timestamp")
    signatures = headers.get("webhook-signature")
    if not msg_id or not stamp or not signatures:
        raise VerificationError("missing webhook-id, webhook-timestamp or webhook-signature")
    try:
        timestamp = int(stamp)
    except ValueError:
        raise VerificationError(f"webhook-timestamp is not an integer: {stamp!r}") from None
    keys: list[bytes] = []
    problem = ""
    for secret in secrets:
        try:
            keys.append(standard_key(secret))
        except ValueError as exc:  # e.g. a GitHub-style secret given alongside
            problem = str(exc)
    if not keys:
        raise VerificationError(f"no usable secret: {problem}")
    offered = [s for s in signatures.split() if s.startswith("v1,")]
    for key in keys:
        expected = standard_signature(key, msg_id, stamp, body)
        if any(_same(expected, candidate) for candidate in offered):
            return timestamp
    raise VerificationError("no webhook-signature matches the body")


def _parse_body(body: bytes) -> dict[str, Any]:
    try:
        payload = json.loads(body)
    except (ValueError, RecursionError):  # deep nesting exhausts the recursive parser
        raise VerificationError("the body is not JSON") from None
    if not isinstance(payload, dict):
        raise VerificationError("the body is not a JSON object")
    return payload


def _body_timestamp(payload: dict[str, Any]) -> int:
    text = payload.get("timestamp")
    if not isinstance(text, str):
        raise VerificationError("the body has no 'timestamp'")
    try:
        return calendar.timegm(time.strptime(text, _TIMESTAMP_FORMAT))
    except ValueError:
        raise VerificationError(f"'timestamp' is not YYYY-MM-DDTHH:MM:SSZ: {text!r}") from None


def verify(
    body: bytes | str,
    headers: Mapping[str, str] | Iterable[tuple[str, str]],
    secret: Secret | Sequence[Secret] | None,
    *,
    scheme: Scheme = "auto",
    tolerance: float | None = DEFAULT_TOLERANCE,
    dedupe: Deduplicator | None = None,
    now: float | None = None,
) -> Verified:
    """Verify one delivery and return it parsed, or raise :class:`VerificationError`.

    ``body`` must be the raw request body, before any JSON parsing.  ``headers`` is any
    mapping or list of pairs (names are matched case-insensitively).  ``secret`` may be
    a list, for rotation: any one matching is enough; a missing (``None``) or empty
    secret, or an empty one in the list, is always a :class:`VerificationError`.
    ``scheme`` ``"github"`` checks ``X-Hermes-Signature-256`` and the body's
    ``timestamp``; ``"standard"`` checks ``webhook-signature`` and ``webhook-timestamp``
    (``whsec_`` secrets); ``"auto"`` uses the GitHub-style header when present, else
    the Standard one.  ``tolerance`` (seconds, default 300; None disables) bounds the
    timestamp's distance from ``now``.
    With ``dedupe``, :attr:`Verified.duplicate` tells whether the id was seen before.
    """
    try:
        raw = body.encode("utf-8") if isinstance(body, str) else bytes(body)
    except UnicodeEncodeError:  # a str body holding lone surrogates was never sent
        raise VerificationError("the body is not UTF-8 text") from None
    lowered = _lower_headers(headers)
    secrets = _secrets(secret)
    github_header = lowered.get(GITHUB_HEADER.lower())
    if scheme == "auto":
        if github_header is not None:
            scheme = "github"
        elif "webhook-signature" in lowered:
            scheme = "standard"
        else:
            raise VerificationError(
                f"the delivery is unsigned (no {GITHUB_HEADER} or webhook-signature header)"
            )
    if scheme == "github":
        if github_header is None:
            raise VerificationError(f"missing {GITHUB_HEADER}")
        _check_github(raw, github_header, secrets)
        payload = _parse_body(raw)
        timestamp = _body_timestamp(payload)
        delivery_id = payload.get("delivery_id")
        if not isinstance(delivery_id, str) or not delivery_id:
            raise VerificationError("the body has no 'delivery_id'")
    elif scheme == "standard":
        timestamp = _check_standard(raw, lowered, secrets)
        payload = _parse_body(raw)
        delivery_id = lowered["webhook-id"]
    else:
        raise ValueError(f"scheme must be 'auto', 'github' or 'standard', not {scheme!r}")
    try:
        when = datetime.fromtimestamp(timestamp, timezone.utc)
    except (OverflowError, OSError, ValueError):
        raise VerificationError("the timestamp is out of range") from None
    current = time.time() if now is None else now
    if tolerance is not None and abs(current - timestamp) > tolerance:
        raise VerificationError(
            f"timestamp {timestamp} is {current - timestamp:+.0f} s from now, outside the "
            f"{tolerance:g} s tolerance (a replay, or a clock out of sync)"
        )
    event = payload.get("hook_event_name")
    return Verified(
        payload=payload,
        event=event if isinstance(event, str) else None,
        delivery_id=delivery_id,
        timestamp=when,
        scheme=scheme,
        duplicate=dedupe.seen(delivery_id, current) if dedupe is not None else False,
    )
