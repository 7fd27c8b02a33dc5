"""The durable outbox: an SQLite file that keeps events of ``durable: true`` targets
until they are delivered or dead-lettered.

File ``<home>/outbound-outbox.sqlite3``, mode 0600, WAL journal with
``synchronous=NORMAL``: a committed event survives the process being killed (a power
cut may lose the last few).  The caller's insert is committed before the event is first
attempted, so an event the agent fired is either delivered or still in this file.

Rows are keyed by the target's *label* (its ``name``, else its url), so a restarted
process with the same target name delivers them to the target's current url.  Each
row carries its attempt count and the time of its last attempt; the next attempt is
derived from the target's schedule, so a changed ``retry_schedule`` applies to events
already waiting.  A row being attempted is *claimed* by ``<host>:<pid>`` with a lease;
claims of dead processes on this host are released at start, others when the lease
expires, so several processes sharing a home never send one row at the same time.

Secrets are never stored: headers are signed again at each attempt.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["OUTBOX_FILE", "Outbox", "Row"]

OUTBOX_FILE = "outbound-outbox.sqlite3"
_SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    target        TEXT NOT NULL,
    url           TEXT NOT NULL,
    event         TEXT NOT NULL,
    delivery_id   TEXT NOT NULL UNIQUE,
    timestamp     TEXT NOT NULL,
    body          BLOB NOT NULL,
    state         TEXT NOT NULL DEFAULT 'pending',
    attempts      INTEGER NOT NULL DEFAULT 0,
    created       REAL NOT NULL,
    last_attempt  REAL,
    next_attempt  REAL NOT NULL,
    not_before    REAL NOT NULL DEFAULT 0,
    jitter        REAL NOT NULL DEFAULT 1.0,
    last_error    TEXT,
    claimed_by    TEXT,
    claim_until   REAL
);
CREATE INDEX IF NOT EXISTS outbox_due ON outbox (target, state, next_attempt, id);
"""
_COLUMNS = (
    "id, target, url, event, delivery_id, timestamp, body, state, attempts, created, "
    "last_attempt, next_attempt, not_before, jitter, last_error, claimed_by"
)
_BUSY_TIMEOUT = 2.0
#: SQLITE_BUSY and SQLITE_LOCKED (primary result codes).
_BUSY_CODES = (5, 6)


@dataclass(frozen=True)
class Row:
    """One stored event."""

    id: int
    target: str
    url: str
    event: str
    delivery_id: str
    timestamp: str
    body: bytes
    state: str  # "pending" or "dead"
    attempts: int
    created: float
    last_attempt: float | None
    next_attempt: float
    not_before: float
    jitter: float
    last_error: str | None
    claimed_by: str | None


_HOST = socket.gethostname()


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    """Whether SQLite refused because another connection holds a lock."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in _BUSY_CODES
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def _owner() -> str:
    return f"{_HOST}:{os.getpid()}"


def _pid_alive(pid: int) -> bool:
    if os.name != "posix":
        return True  # no harmless probe (os.kill would terminate it): wait for the lease
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, owned by someone else
        return True
    except OSError:
        return False
    return True


def _create_private(path: Path) -> None:
    """Create the file readable by its owner only, before SQLite opens it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
    os.close(fd)
    if os.name == "posix" and path.stat().st_mode & 0o077:
        os.chmod(path, 0o600)  # older or hand-made files: tighten


class Outbox:
    """The outbox file of one home.  Thread-safe: one connection behind a lock."""

    def __init__(self, path: Path) -> None:
        self.path = path
        _create_private(path)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(
            str(path), timeout=_BUSY_TIMEOUT, isolation_level=None, check_same_thread=False
        )
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > _SCHEMA_VERSION:
                raise sqlite3.DatabaseError(
                    f"{path} was written by a newer hermes-hooks (schema {version})"
                )
            self._db.executescript(_SCHEMA)
            self._db.execute(f"PRAGMA user_version = {_SCHEMA_VERSION}")

    @classmethod
    def for_home(cls, home: Path) -> Outbox:
        """The outbox of Hermes home ``home`` (created if missing)."""
        return cls(home / OUTBOX_FILE)

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._db.close()

    # -- writing -----------------------------------------------------------------------

    def add(
        self,
        *,
        target: str,
        url: str,
        event: str,
        delivery_id: str,
        timestamp: str,
        body: bytes,
        now: float,
    ) -> int:
        """Store a new pending event, due at once; return its row id."""
        with self._lock:
            return self._insert((target, url, event, delivery_id, timestamp, body, now, now))

    def try_add(
        self,
        *,
        target: str,
        url: str,
        event: str,
        delivery_id: str,
        timestamp: str,
        body: bytes,
        now: float,
    ) -> int | None:
        """:meth:`add` without waiting: None when the file or this object is busy.

        For the agent's thread, which must never wait on SQLite's busy timeout (another
        process holding the write lock, or this process's worker waiting for it).
        """
        if not self._lock.acquire(blocking=False):
            return None
        try:
            self._db.execute("PRAGMA busy_timeout = 0")
            try:
                return self._insert((target, url, event, delivery_id, timestamp, body, now, now))
            except sqlite3.OperationalError as exc:
                if _is_busy(exc):
                    return None
                raise
            finally:
                self._db.execute(f"PRAGMA busy_timeout = {int(_BUSY_TIMEOUT * 1000)}")
        finally:
            self._lock.release()

    def _insert(self, values: tuple[object, ...]) -> int:
        """One new pending row (the caller holds the lock); its row id."""
        cursor = self._db.execute(
            "INSERT INTO outbox (target, url, event, delivery_id, timestamp, body, "
            "created, next_attempt) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            values,
        )
        return int(cursor.lastrowid or 0)

    def claim_next(self, target: str, now: float, lease: float) -> Row | None:
        """Claim the earliest due pending row of ``target`` for this process."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                found = self._db.execute(
                    f"SELECT {_COLUMNS} FROM outbox WHERE target = ? AND state = 'pending' "
                    "AND next_attempt <= ? AND (claim_until IS NULL OR claim_until < ?) "
                    "ORDER BY next_attempt, id LIMIT 1",
                    (target, now, now),
                ).fetchone()
                if found is not None:
                    self._db.execute(
                        "UPDATE outbox SET claimed_by = ?, claim_until = ? WHERE id = ?",
                        (_owner(), now + lease, found[0]),
                    )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return Row(*found) if found is not None else None

    def next_due(self, target: str) -> float | None:
        """When the next pending row of ``target`` falls due (None: nothing pending)."""
        with self._lock:
            found = self._db.execute(
                "SELECT MIN(MAX(next_attempt, COALESCE(claim_until, 0))) FROM outbox "
                "WHERE target = ? AND state = 'pending'",
                (target,),
            ).fetchone()
        return None if found is None or found[0] is None else float(found[0])

    def delivered(self, row_id: int) -> None:
        """The row was delivered: forget it."""
        with self._lock:
            self._db.execute("DELETE FROM outbox WHERE id = ?", (row_id,))

    def retry_later(
        self,
        row_id: int,
        *,
        attempts: int,
        now: float,
        next_attempt: float,
        not_before: float,
        jitter: float,
        error: str,
    ) -> None:
        """An attempt failed and another is scheduled."""
        with self._lock:
            self._db.execute(
                "UPDATE outbox SET attempts = ?, last_attempt = ?, next_attempt = ?, "
                "not_before = ?, jitter = ?, last_error = ?, claimed_by = NULL, "
                "claim_until = NULL WHERE id = ?",
                (attempts, now, next_attempt, not_before, jitter, error, row_id),
            )

    def dead(self, row_id: int, *, attempts: int, now: float, error: str) -> None:
        """The last attempt failed (or the target refused it): dead-letter the row."""
        with self._lock:
            self._db.execute(
                "UPDATE outbox SET state = 'dead', attempts = ?, last_attempt = ?, "
                "last_error = ?, claimed_by = NULL, claim_until = NULL WHERE id = ?",
                (attempts, now, error, row_id),
            )

    def release(self, row_id: int) -> None:
        """Give a claimed row back untouched (e.g. the process is stopping)."""
        with self._lock:
            self._db.execute(
                "UPDATE outbox SET claimed_by = NULL, claim_until = NULL WHERE id = ?",
                (row_id,),
            )

    def release_stale_claims(self) -> int:
        """Release rows claimed by processes of this host that no longer run."""
        with self._lock:
            claims = self._db.execute(
                "SELECT DISTINCT claimed_by FROM outbox WHERE claimed_by LIKE ?",
                (f"{_HOST}:%",),
            ).fetchall()
            released = 0
            for (owner,) in claims:
                pid_text = owner.rsplit(":", 1)[-1]
                if pid_text.isdigit() and not _pid_alive(int(pid_text)):
                    cursor = self._db.execute(
                        "UPDATE outbox SET claimed_by = NULL, claim_until = NULL "
                        "WHERE claimed_by = ?",
                        (owner,),
                    )
                    released += cursor.rowcount
            return released

    def reschedule(self, target: str, delay_for: Callable[[int], float]) -> None:
        """Recompute when each pending row of ``target`` is due under the current
        schedule: ``delay_for(attempts)`` is the base wait after that many attempts."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, attempts, created, last_attempt, not_before, jitter FROM outbox "
                "WHERE target = ? AND state = 'pending'",
                (target,),
            ).fetchall()
            self._db.execute("BEGIN IMMEDIATE")
            try:
                for row_id, attempts, created, last, not_before, jitter in rows:
                    due = (
                        created
                        if attempts == 0 or last is None
                        else (last + delay_for(attempts) * jitter)
                    )
                    self._db.execute(
                        "UPDATE outbox SET next_attempt = ? WHERE id = ?",
                        (max(due, not_before), row_id),
                    )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    # -- reading and operator actions --------------------------------------------------

    def rows(
        self,
        *,
        state: str | None = None,
        target: str | None = None,
        ids: Sequence[int] | None = None,
    ) -> list[Row]:
        """Stored rows, oldest first, optionally filtered."""
        where, params = self._filter(state, target, ids)
        with self._lock:
            found = self._db.execute(
                f"SELECT {_COLUMNS} FROM outbox{where} ORDER BY id", params
            ).fetchall()
        return [Row(*r) for r in found]

    def count(self, *, state: str | None = None, target: str | None = None) -> int:
        """How many rows match."""
        where, params = self._filter(state, target, None)
        with self._lock:
            return int(
                self._db.execute(f"SELECT COUNT(*) FROM outbox{where}", params).fetchone()[0]
            )

    def redeliver(self, ids: Iterable[int], now: float) -> int:
        """Make rows pending again with a fresh attempt budget, due at once."""
        with self._lock:
            total = 0
            for row_id in ids:
                cursor = self._db.execute(
                    "UPDATE outbox SET state = 'pending', attempts = 0, next_attempt = ?, "
                    "not_before = 0, claimed_by = NULL, claim_until = NULL WHERE id = ?",
                    (now, row_id),
                )
                total += cursor.rowcount
            return total

    def purge(self, ids: Iterable[int]) -> int:
        """Delete rows for good."""
        with self._lock:
            total = 0
            for row_id in ids:
                total += self._db.execute("DELETE FROM outbox WHERE id = ?", (row_id,)).rowcount
            return total

    @staticmethod
    def _filter(
        state: str | None, target: str | None, ids: Sequence[int] | None
    ) -> tuple[str, list[object]]:
        clauses: list[str] = []
        params: list[object] = []
        if state is not None:
            clauses.append("state = ?")
            params.append(state)
        if target is not None:
            clauses.append("target = ?")
            params.append(target)
        if ids is not None:
            clauses.append(f"id IN ({', '.join('?' * len(ids)) or 'NULL'})")
            params.extend(ids)
        return (" WHERE " + " AND ".join(clauses)) if clauses else "", params
