"""The store on one machine: a small SQLite file beside the cache, shared by every process.

Example:
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     store = LocalStore(Path(tmp, "leads.store.sqlite"), "ns", clock=lambda: 100.0)
    ...     waits = [store.reserve(0.5), store.reserve(0.5)]  # one slot every 0.5 s
    ...     states = store.claim_many(["key-of-ada"], ttl=30)
    ...     store.mark_acted(["event-1"])
    ...     acted = store.acted_changes(["event-1", "event-2"])
    ...     store.close()
    >>> waits, states, acted
    ([0.0, 0.5], {'key-of-ada': 'mine'}, {'event-1'})
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, TypeVar

from . import common
from .holders import holder_gone, holder_name, retire
from .private_files import prepare_sqlite_file, while_locked
from .sqlite_faults import translated

__all__ = ["LocalStore", "MemoryStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS batch_jobs (
    namespace TEXT NOT NULL,
    job_id    TEXT NOT NULL,
    submitted REAL NOT NULL,
    inputs    TEXT NOT NULL,
    PRIMARY KEY (namespace, job_id)
);
CREATE TABLE IF NOT EXISTS pace (
    namespace      TEXT PRIMARY KEY,
    next_slot      REAL NOT NULL,
    deferred_until REAL NOT NULL,
    floor_interval REAL NOT NULL,
    floor_until    REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS keys_seen (
    namespace TEXT PRIMARY KEY,
    seen      REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS claims (
    namespace TEXT NOT NULL,
    key       TEXT NOT NULL,
    holder    TEXT NOT NULL,
    done      INTEGER NOT NULL,
    expires   REAL NOT NULL,
    PRIMARY KEY (namespace, key)
);
CREATE TABLE IF NOT EXISTS marks (
    namespace  TEXT NOT NULL,
    kind       TEXT NOT NULL,
    key        TEXT NOT NULL,
    at         REAL NOT NULL,
    kept_until REAL NOT NULL,
    PRIMARY KEY (namespace, kind, key)
);
CREATE INDEX IF NOT EXISTS marks_kept_until ON marks (kept_until);
CREATE TABLE IF NOT EXISTS resolve_rates (
    service    TEXT PRIMARY KEY,
    rate       REAL NOT NULL,
    kept_until REAL NOT NULL
);
"""
_BUSY_TIMEOUT_S = 30.0
#: Keys a query names at most (SQLite allows 999 variables in builds older than 3.32).
_QUERY_CHUNK = 500
T = TypeVar("T")
Work = Callable[[sqlite3.Connection, float], T]
Pace = tuple[float, float, float, float]  # next slot, deferred until, floor, floor until


class LocalStore(common.Store):
    """The shared pace, claims, batch jobs and marks of one namespace in the SQLite file ``path``.

    The file is created by the first operation that writes. ``path=None`` keeps them in memory.
    """

    def __init__(
        self,
        path: Path | None,
        namespace: str,
        *,
        clock: Callable[[], float] = time.time,
        holder: str | None = None,
    ) -> None:
        self.path = path
        self._ns = namespace
        self._clock = clock
        #: This store object's name on its claims (:func:`.holders.holder_name`).
        self._holder = holder or holder_name()
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None

    # -- the connection ----------------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            path = self.path
            if path is not None:
                prepare_sqlite_file(path)  # 0600 in 0700 directories; warns if others can read
            self._conn = while_locked(lambda: _open(path or ":memory:"))
        return self._conn

    def _missing(self) -> bool:
        """Whether the file is not there yet: nothing to read or remove, and it is not created."""
        return self._conn is None and self.path is not None and not self.path.exists()

    def _write(self, work: Work[T]) -> T:
        """Run ``work(conn, now)`` in one BEGIN IMMEDIATE transaction."""
        with self._lock, self._faults():
            conn = self._connection()
            try:  # BEGIN inside: a Ctrl-C just after it must not leave the transaction open
                conn.execute("BEGIN IMMEDIATE")
                result = work(conn, self._clock())
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.rollback()
                raise
            return result

    def _faults(self) -> AbstractContextManager[None]:
        """Inside, a fault of the file is a StorageError naming it (:mod:`.sqlite_faults`)."""
        return translated(self.path or Path(":memory:"), what="store file")

    def _read(self, query: str, args: tuple[Any, ...]) -> list[Any]:
        """Rows of ``query``, or none while the file does not exist (it is not created)."""
        with self._lock, self._faults():
            return [] if self._missing() else self._connection().execute(query, args).fetchall()

    def close(self) -> None:
        retire(self._holder)  # what it still holds (a failed release) is anyone's
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    # -- pace --------------------------------------------------------------------------------

    def _pace(self, change: Callable[[Pace, float], tuple[Pace, float]]) -> float:
        """Read the pace, write ``change(pace, now)[0]``, return its ``[1]``, in one transaction."""

        def work(conn: sqlite3.Connection, now: float) -> float:
            row = conn.execute(
                "SELECT next_slot, deferred_until, floor_interval, floor_until FROM pace "
                "WHERE namespace = ?",
                (self._ns,),
            ).fetchone()
            pace, result = change(tuple(row) if row else (0.0, 0.0, 0.0, 0.0), now)
            conn.execute("INSERT OR REPLACE INTO pace VALUES (?, ?, ?, ?, ?)", (self._ns, *pace))
            return result

        return self._write(work)

    def reserve(self, interval: float) -> float:
        def change(pace: Pace, now: float) -> tuple[Pace, float]:
            next_slot, deferred, floor, floor_until = pace
            slot = max(now, next_slot, deferred)
            step = max(interval, floor if floor_until > now else 0.0)
            return (slot + step, deferred, floor, floor_until), slot - now

        return self._pace(change)

    def defer(self, seconds: float) -> None:
        def change(pace: Pace, now: float) -> tuple[Pace, float]:
            next_slot, deferred, floor, floor_until = pace
            until = now + max(0.0, seconds)
            return (max(next_slot, until), max(deferred, until), floor, floor_until), 0.0

        self._pace(change)

    def slow_to(self, interval: float, seconds: float = common.SHARED_SLOWDOWN_SECONDS) -> None:
        def change(pace: Pace, now: float) -> tuple[Pace, float]:
            next_slot, deferred, floor, floor_until = pace
            if floor_until > now and floor >= interval:
                return pace, 0.0  # a slower pace is already shared
            return (next_slot, deferred, interval, now + seconds), 0.0

        self._pace(change)

    # -- claims ------------------------------------------------------------------------------

    def claim_many(self, keys: list[str], ttl: float) -> dict[str, str]:
        def work(conn: sqlite3.Connection, now: float) -> dict[str, str]:
            states: dict[str, str] = {}
            for key in keys:
                row = conn.execute(
                    "SELECT holder, done, expires FROM claims WHERE namespace = ? AND key = ?",
                    (self._ns, key),
                ).fetchone()
                live = row is not None and row[2] > now
                if live and not row[1] and row[0] != self._holder and not holder_gone(row[0]):
                    states[key] = common.BUSY
                    continue
                conn.execute(
                    "INSERT OR REPLACE INTO claims VALUES (?, ?, ?, 0, ?)",
                    (self._ns, key, self._holder, now + ttl),
                )
                # Done, or taken over from a holder gone: it may have stored the answer.
                taken = live and (row[1] or row[0] != self._holder)
                states[key] = common.RECHECK if taken else common.MINE
            return states

        return self._write(work) if keys else {}

    def renew(self, keys: list[str], ttl: float) -> None:
        if keys:
            self._write(
                lambda conn, now: conn.executemany(
                    "UPDATE claims SET expires = ? WHERE namespace = ? AND key = ? AND holder = ? "
                    "AND done = 0 AND expires > ?",  # an expired claim is anyone's: not revived
                    [(now + ttl, self._ns, key, self._holder, now) for key in keys],
                )
            )

    def release_many(self, keys: list[str], *, bought: bool = True) -> None:
        def work(conn: sqlite3.Connection, now: float) -> None:
            if bought:
                conn.executemany(
                    "UPDATE claims SET done = 1, expires = ? WHERE namespace = ? AND key = ? "
                    "AND holder = ?",
                    [(now + common.DONE_SECONDS, self._ns, key, self._holder) for key in keys],
                )
            else:
                conn.executemany(
                    "DELETE FROM claims WHERE namespace = ? AND key = ? AND holder = ?",
                    [(self._ns, key, self._holder) for key in keys],
                )
            conn.execute("DELETE FROM claims WHERE expires < ?", (now,))

        if keys:
            self._write(work)

    # -- keys seen to work --------------------------------------------------------------------

    def key_seen(self) -> bool:
        since = self._clock() - common.KEY_SEEN_SECONDS
        query = "SELECT 1 FROM keys_seen WHERE namespace = ? AND seen > ?"
        return bool(self._read(query, (self._ns, since)))

    def mark_key_seen(self) -> None:
        self._write(
            lambda conn, now: conn.execute(
                "INSERT OR REPLACE INTO keys_seen VALUES (?, ?)", (self._ns, now)
            )
        )

    # -- marks: answers checked, job changes acted on ----------------------------------------

    def _marks(self, kind: str, keys: list[str]) -> dict[str, float]:
        found: dict[str, float] = {}
        now = self._clock()
        unique = list(dict.fromkeys(keys))
        for start in range(0, len(unique), _QUERY_CHUNK):
            chunk = unique[start : start + _QUERY_CHUNK]
            rows = self._read(
                "SELECT key, at FROM marks WHERE namespace = ? AND kind = ? AND kept_until > ? "
                f"AND key IN ({', '.join('?' * len(chunk))})",
                (self._ns, kind, now, *chunk),
            )
            found.update((key, float(at)) for key, at in rows)
        return found

    def _mark(self, kind: str, keys: list[str], when: float | None) -> None:
        def work(conn: sqlite3.Connection, now: float) -> None:
            at, until = now if when is None else when, now + common.MARKS_KEPT_SECONDS
            conn.executemany(
                "INSERT INTO marks VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (namespace, kind, key) DO UPDATE SET "
                "at = max(at, excluded.at), kept_until = excluded.kept_until",
                [(self._ns, kind, key, at, until) for key in dict.fromkeys(keys)],
            )
            conn.execute("DELETE FROM marks WHERE kept_until <= ?", (now,))  # past keeping

        if keys:
            self._write(work)

    # -- a service's batch speed (filed by base URL, not by key) ----------------------------

    def resolve_rate(self, service: str) -> float | None:
        query = "SELECT rate FROM resolve_rates WHERE service = ? AND kept_until > ?"
        rows = self._read(query, (service, self._clock()))
        return float(rows[0][0]) if rows else None

    def keep_resolve_rate(self, service: str, rate: float) -> None:
        self._write(
            lambda conn, now: conn.execute(
                "INSERT OR REPLACE INTO resolve_rates VALUES (?, ?, ?)",
                (service, rate, now + common.RESOLVE_RATE_KEPT_SECONDS),
            )
        )

    # -- batch jobs --------------------------------------------------------------------------

    def remember(self, job: common.StoredJob) -> None:
        self._write(
            lambda conn, now: conn.execute(
                "INSERT OR REPLACE INTO batch_jobs VALUES (?, ?, ?, ?)",
                (self._ns, job.job_id, job.submitted, json.dumps(list(job.inputs))),
            )
        )

    def jobs(self) -> list[common.StoredJob]:
        return self._jobs(None)

    def job(self, job_id: str) -> common.StoredJob | None:
        return next(iter(self._jobs(job_id)), None)

    def _jobs(self, job_id: str | None) -> list[common.StoredJob]:
        """The stored jobs in submit order (only ``job_id``'s, when given)."""
        rows = self._read(
            "SELECT job_id, submitted, inputs FROM batch_jobs WHERE namespace = ? "
            "AND (? IS NULL OR job_id = ?) ORDER BY submitted",
            (self._ns, job_id, job_id),
        )
        return [common.StoredJob(i, tuple(json.loads(inputs)), at) for i, at, inputs in rows]

    def drop_job(self, job_id: str) -> None:
        if not self._missing():
            self._write(
                lambda conn, now: conn.execute(
                    "DELETE FROM batch_jobs WHERE namespace = ? AND job_id = ?", (self._ns, job_id)
                )
            )

    # -- erasure (see lookup_pandas.cache.admin) ---------------------------------------------

    def drop_inputs(
        self, matches: Callable[[str], bool], *, every_namespace: bool = False
    ) -> list[tuple[str, tuple[str, ...]]]:
        """Erase inputs in one transaction, with ``secure_delete`` on.

        The old text of each job is overwritten with zeros (:mod:`lookup_pandas.cache.admin` then
        rewrites the file and empties its write-ahead log).
        """
        if self._missing():
            return []
        where, args = _where(self._ns, every_namespace)

        def work(conn: sqlite3.Connection, now: float) -> list[tuple[str, tuple[str, ...]]]:
            changed = []
            rows = conn.execute(f"SELECT namespace, job_id, inputs FROM batch_jobs{where}", args)
            for ns, job_id, inputs in rows.fetchall():
                kept, dropped = common.split_inputs(json.loads(inputs), matches)
                if kept and dropped:
                    conn.execute(
                        "UPDATE batch_jobs SET inputs = ? WHERE namespace = ? AND job_id = ?",
                        (json.dumps(list(kept)), ns, job_id),
                    )
                elif dropped:
                    conn.execute(
                        "DELETE FROM batch_jobs WHERE namespace = ? AND job_id = ?", (ns, job_id)
                    )
                changed += [(job_id, dropped)] if dropped else []
            return changed

        return self._write(_securely(work))

    def clear_jobs(self, *, every_namespace: bool = False) -> int:
        if self._missing():
            return 0
        where, args = _where(self._ns, every_namespace)

        def work(conn: sqlite3.Connection, now: float) -> int:
            conn.execute(f"DELETE FROM claims{where}", args)
            conn.execute(f"DELETE FROM marks{where}", args)
            return conn.execute(f"DELETE FROM batch_jobs{where}", args).rowcount

        return self._write(_securely(work))

    def count_jobs(self, *, every_namespace: bool = False) -> int:
        where, args = _where(self._ns, every_namespace)
        rows = self._read(f"SELECT COUNT(*) FROM batch_jobs{where}", args)
        return int(rows[0][0]) if rows else 0


class MemoryStore(LocalStore):
    """A Client's store without a cache: its jobs and marks in memory, its claims always MINE.

    Example:
        >>> store = MemoryStore()
        >>> store.reserve(0.5), store.key_seen(), store.claim_many(["key-of-ada"], ttl=30)
        (0.0, False, {'key-of-ada': 'mine'})
        >>> store.mark_checked(["key-of-ada"], 1700000000.0)
        >>> store.checked_at(["key-of-ada", "key-of-grace"])
        {'key-of-ada': 1700000000.0}
    """

    def __init__(self, *, clock: Callable[[], float] = time.time) -> None:
        super().__init__(None, "", clock=clock)

    def claim_many(self, keys: list[str], ttl: float) -> dict[str, str]:
        return dict.fromkeys(keys, common.MINE)  # one Client: its enrichment dedupes its own calls

    def renew(self, keys: list[str], ttl: float) -> None:
        return None

    def release_many(self, keys: list[str], *, bought: bool = True) -> None:
        return None


def _open(path: Path | str) -> sqlite3.Connection:
    conn = sqlite3.connect(
        path, timeout=_BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
    )
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.executescript(_SCHEMA)
    except BaseException:
        conn.close()
        raise
    return conn


def _where(ns: str, every_namespace: bool) -> tuple[str, tuple[str, ...]]:
    return ("", ()) if every_namespace else (" WHERE namespace = ?", (ns,))


def _securely(work: Work[T]) -> Work[T]:
    """``work`` run with SQLite's ``secure_delete`` on, then set back as it was."""

    def run(conn: sqlite3.Connection, now: float) -> T:
        (before,) = conn.execute("PRAGMA secure_delete").fetchone()
        conn.execute("PRAGMA secure_delete = ON")
        try:
            return work(conn, now)
        finally:
            conn.execute(f"PRAGMA secure_delete = {int(before)}")

    return run
