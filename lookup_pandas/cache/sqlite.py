"""The SQLite backend: one shared per cache file per process, and erasing from it for good.

Example:
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     backend, entry = shared_backends().acquire(Path(tmp, "leads.sqlite"))  # opened
    ...     answers = SQLiteAnswers(backend)  # what cache management reads and deletes
    ...     with answers.securely():  # deleted rows overwritten with zeros
    ...         answers.delete(answers.keys())
    ...     done = answers.rewrite()  # VACUUM, then the write-ahead log emptied
    ...     shared_backends().release(entry)  # closed: it was the last user
    >>> done
    True
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import logging
import os
import sqlite3
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import requests
from requests_cache.backends.sqlite import SQLiteCache
from requests_cache.models.response import CachedResponse

from ..config.settings import default_cache_path
from ..errors import ServiceError, StorageWarning
from ..service.envelope import Envelope
from ..store import store_path
from ..store.private_files import prepare_sqlite_file, while_locked
from ..store.sqlite_faults import translated
from . import requests_cache_internals as internals
from .journal import journal_for_file
from .policy import PaidAnswersOnly

logger = logging.getLogger(__name__)

__all__ = [
    "CHECKPOINT_ATTEMPTS",
    "Entry",
    "PaidAnswersCache",
    "SQLiteAnswers",
    "checkpointed",
    "rewrite",
    "rewrite_file",
    "shared_backends",
    "sqlite_cache_file",
]

#: Tries of ``PRAGMA wal_checkpoint(TRUNCATE)`` before an erasure is reported incomplete, the
#: longest each waits for a reader to finish (ms), and the pause between two tries (s).
#: How long opening the cache waits for another process's write lock before a StorageError.
BUSY_S = 30.0
CHECKPOINT_ATTEMPTS = 5
CHECKPOINT_WAIT_MS = 500
CHECKPOINT_PAUSE_S = 0.2
#: Keys read per ``IN (...)`` query: under SQLite's least limit of bound variables (999).
READ_CHUNK = 900


class PaidAnswersCache(PaidAnswersOnly, SQLiteCache):
    """The SQLite backend, storing only what :func:`.policy.should_cache` accepts.

    Every fault of its file is a StorageError naming it (:mod:`..store.sqlite_faults`). A file
    deleted or replaced while a run writes to it is made again at the next write, with one
    StorageWarning: the answers stored before went with it, the later ones are kept.
    """

    #: The file's (device, inode) when opened: another one at that path is not ours.
    identity: tuple[int, int] | None = None

    def write_answer(
        self,
        response: requests.Response,
        key: str,
        expires: datetime | None,
        answer: Envelope | ServiceError,
        verify: bool | None,
    ) -> None:
        """An answer and its aliases written in one transaction: one commit a paid answer."""
        path = Path(self.db_path)
        with internals.write_lock(self), translated(path):
            self._recreated_if_gone(path)
            with internals.one_transaction(self):
                super().write_answer(response, key, expires, answer, verify)

    def _recreated_if_gone(self, path: Path) -> None:
        """Make the file again if it is not the one opened (deleted, or replaced), and warn."""
        if self.identity is None or _identity(path) == self.identity:
            return
        for table in (self.responses, self.redirects):
            table.close()  # type: ignore[no-untyped-call]  # it wrote to the file gone
        prepare_sqlite_file(path)
        for table in (self.responses, self.redirects):
            table.init_db()  # type: ignore[no-untyped-call]
        self.identity = _identity(path)
        warnings.warn(
            StorageWarning(
                f"The cache file {path} was deleted or replaced while in use: the answers it "
                "held are gone with it; it is made again, and the answers bought from now on "
                "are kept in it"
            ),
            stacklevel=2,
        )

    def read_many(self, table: Any, keys: Sequence[str]) -> dict[str, Any]:
        """``SELECT ... WHERE key IN (...)``, in chunks under SQLite's variable limit."""
        if not keys:  # a miss asks for no alias's answer: no connection taken
            return {}
        found: dict[str, Any] = {}
        with translated(Path(self.db_path)), internals.connection(table) as conn:
            for start in range(0, len(keys), READ_CHUNK):
                chunk = keys[start : start + READ_CHUNK]
                marks = ",".join("?" * len(chunk))
                rows = conn.execute(
                    f"SELECT key, value FROM {table.table_name} WHERE key IN ({marks})", chunk
                )
                found.update((k, table.deserialize(k, blob)) for k, blob in rows)
        return {k: v for k, v in found.items() if v is not None}  # None: unreadable

    def save_aliases(self, aliases: Iterable[str], key: str) -> None:
        """The aliases written on the answers' connection: inside its transaction when
        answers are saved in bulk (``batched_writes``), where the redirects' own connection
        would wait for the lock that transaction holds."""
        rows = [(alias, key) for alias in aliases]
        if not rows:
            return
        table = self.redirects.table_name
        with internals.connection(self.responses, commit=True) as conn:
            conn.executemany(
                f"INSERT OR REPLACE INTO {table} (key, value, expires) VALUES (?, ?, NULL)", rows
            )


def sqlite_cache_file(path: Path) -> Path:
    """The file the SQLite cache of ``path`` is in: requests-cache adds ``.sqlite`` to a bare name.

    Example:
        >>> sqlite_cache_file(Path("/tmp/leads")), sqlite_cache_file(Path("/tmp/leads.db"))
        (PosixPath('/tmp/leads.sqlite'), PosixPath('/tmp/leads.db'))
    """
    return path if path.suffix else path.with_name(f"{path.name}.sqlite")


# -- one backend per file per process ---------------------------------------------------------


class Entry:
    """One shared backend and how many use it: what :meth:`_SharedBackends.acquire` lends."""

    __slots__ = ("backend", "key", "users")

    def __init__(self, key: str, backend: PaidAnswersCache) -> None:
        self.key = key  # the resolved path of the cache file
        self.backend = backend
        self.users = 0  # acquired and not yet released (counted under the lock)


class _SharedBackends:
    """One SQLite backend (one connection) per cache file per process, shared by every Client.

    The backend closes when its last Client closes or is garbage collected. Letting go never
    waits for the lock, so a finaliser can do it (docs/decisions.md tells how).

    Example: ``backend, entry = shared_backends().acquire(path)``, then
    ``shared_backends().release(entry)``
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[str, Entry] = {}  # resolved path -> its backend and users
        self._released: collections.deque[Entry] = collections.deque()  # not yet counted

    def acquire(self, path: Path) -> tuple[PaidAnswersCache, Entry]:
        """The backend of ``path`` (opened if nobody uses it), and the entry to release."""
        key = str(path.resolve())
        self.settle()  # Clients freed since: one may have been this file's last user
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                entry = Entry(key, _open_backend(path))  # the GC may free Clients in here
                self._entries[key] = entry
            entry.users += 1
        self.settle()  # what was released meanwhile, on this thread or another
        return entry.backend, entry

    def release(self, entry: Entry) -> None:
        """Let go of ``entry`` from ordinary code (``Client.close``).

        The backend closes now if this was its last user, or as soon as another thread lets go of
        the lock.
        """
        self.release_later(entry)
        self.settle()

    def release_later(self, entry: Entry) -> None:
        """Let go of ``entry`` from a finaliser: only queued, without the lock."""
        self._released.append(entry)

    def settle(self) -> None:
        """Count the queued releases and close the backends nobody uses any more. Never waits."""
        while self._released:
            if not self._lock.acquire(blocking=False):
                return  # its holder settles after letting go, and sees what is queued now
            unused = []
            try:
                while self._released:
                    entry = self._released.popleft()
                    entry.users -= 1
                    if entry.users == 0 and self._entries.get(entry.key) is entry:
                        del self._entries[entry.key]
                        unused.append(entry.backend)
            finally:
                self._lock.release()
            for backend in unused:
                # the GC may queue more meanwhile: the loop looks again
                backend.close()  # type: ignore[no-untyped-call]

    def close_all(self) -> None:
        """Close every backend, used or not, at exit. requests-cache reopens one used later."""
        with self._lock:
            self._released.clear()
            entries = list(self._entries.values())
            self._entries.clear()
        for entry in entries:
            entry.backend.close()  # type: ignore[no-untyped-call]

    def is_open(self, path: Path) -> bool:
        """Whether the backend of ``path`` is open in this process."""
        return str(path.resolve()) in self._entries

    def __len__(self) -> int:
        """How many backends are open."""
        return len(self._entries)


def _open_backend(path: Path) -> PaidAnswersCache:
    """The backend for ``path``, set up while other processes may be setting it up too.

    The file is made private before SQLite opens it (:func:`prepare_sqlite_file`). Its faults are
    StorageErrors naming it: one another process holds locked for longer than BUSY_S
    (:func:`_check_not_held`), one damaged, full or read-only. What its journal keeps from an
    earlier run is folded in.
    """
    path = sqlite_cache_file(path)
    _warn_if_emptied(path)
    with translated(path):
        prepare_sqlite_file(path, check_dir=path.parent == default_cache_path().parent)
        _check_not_held(path)
        backend = while_locked(
            lambda: PaidAnswersCache(
                path,
                wal=True,  # readers never block the writer: several processes can share one file
                busy_timeout=int(BUSY_S * 1000),  # ms to wait for another writer, then fail
                timeout=BUSY_S,
            )
        )
        backend.identity = _identity(path)
    backend.journal = journal_for_file(path)
    backend.fold_journal()
    return backend


def _warn_if_emptied(path: Path) -> None:
    """One StorageWarning when ``path`` is an empty file though its store file beside it says
    answers were bought into it: something emptied it, and what it held is gone."""
    try:
        emptied = path.stat().st_size == 0 and store_path(path).stat().st_size > 0
    except FileNotFoundError:
        return
    if emptied:
        warnings.warn(
            StorageWarning(
                f"The cache file {path} is empty, though {store_path(path).name} beside it says "
                "answers were bought into it: something emptied it, and the answers it held "
                "are bought again when asked for"
            ),
            stacklevel=3,
        )


def _identity(path: Path) -> tuple[int, int] | None:
    """``path``'s (device, inode), or None when there is no file."""
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return None
    return found.st_dev, found.st_ino


def _check_not_held(path: Path) -> None:
    """Raise "database is locked" when another process holds ``path``'s write lock for longer
    than BUSY_S (a process frozen mid-write), or SQLite's error on a damaged file.
    requests-cache's own setup would wait for the lock without end: it retries ``BEGIN
    IMMEDIATE`` until it gets it."""
    conn = sqlite3.connect(path, timeout=BUSY_S, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ROLLBACK")
    finally:
        conn.close()


_BACKENDS = _SharedBackends()
# Closed in order at exit (SQLite checkpoints the WAL into the file), whoever still uses them.
atexit.register(_BACKENDS.close_all)


def shared_backends() -> _SharedBackends:
    """The process's shared SQLite backends (one per cache file)."""
    return _BACKENDS


# -- erasing for good ---------------------------------------------------------------------------


def checkpointed(
    attempt: Callable[[], bool],
    *,
    attempts: int,
    pause: float,
    sleep: Callable[[float], None] = time.sleep,
) -> bool:
    """Whether ``attempt()`` (one checkpoint) succeeded within ``attempts`` tries, ``pause`` apart.

    Example:
        >>> tries = iter([False, True])
        >>> checkpointed(lambda: next(tries), attempts=5, pause=0.2, sleep=lambda s: None)
        True
    """
    for i in range(attempts):
        if attempt():
            return True
        if i < attempts - 1:
            sleep(pause)
    return False


def rewrite(conn: sqlite3.Connection, path: Path) -> bool:
    """``VACUUM``, then empty the write-ahead log. Returns whether both were done.

    ``VACUUM`` makes a fresh copy, in which no free page keeps old rows.
    ``wal_checkpoint(TRUNCATE)`` empties the log, once no other process reads it.

    Example:
        >>> import sqlite3
        >>> rewrite(sqlite3.connect(":memory:", isolation_level=None), Path(":memory:"))
        True
    """
    try:
        conn.execute("VACUUM")
        vacuumed = True
    except sqlite3.OperationalError as exc:
        logger.debug("could not rewrite %s (VACUUM): %s", path, exc)
        vacuumed = False
    (timeout,) = conn.execute("PRAGMA busy_timeout").fetchone()
    conn.execute(f"PRAGMA busy_timeout = {CHECKPOINT_WAIT_MS}")

    def truncate() -> bool:
        try:
            busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        except sqlite3.OperationalError as exc:
            logger.debug("checkpoint of %s: %s", path, exc)
            return False
        return int(busy) == 0

    try:
        emptied = checkpointed(truncate, attempts=CHECKPOINT_ATTEMPTS, pause=CHECKPOINT_PAUSE_S)
    finally:
        conn.execute(f"PRAGMA busy_timeout = {int(timeout)}")
    return vacuumed and emptied


def rewrite_file(path: Path) -> bool:
    """:func:`rewrite` on a connection of its own to ``path`` (the store's file)."""
    conn = sqlite3.connect(path, timeout=30.0, isolation_level=None)
    try:
        return rewrite(conn, path)
    finally:
        conn.close()


class SQLiteAnswers:
    """A requests-cache SQLite backend's answers, as cache management reads and deletes them.

    Example: ``SQLiteAnswers(backend).keys()`` -> every cache key stored
    """

    def __init__(self, cache: SQLiteCache) -> None:
        self.cache = cache

    @property
    def path(self) -> Path:
        return Path(self.cache.db_path)

    def keys(self) -> list[str]:
        return list(self.cache.responses.keys())

    def readable(self) -> Iterator[CachedResponse]:
        # SQLiteCache.filter: one query over every row, expired ones too (unreadable: skipped)
        return self.cache.filter(valid=True, expired=True)

    def read(self, key: str) -> object:
        """The answer stored under ``key`` (None when unreadable). KeyError when it is gone."""
        return self.cache.responses[key]

    def delete(self, keys: Sequence[str]) -> None:
        if keys:
            self.cache.delete(*keys, vacuum=False)  # rewrite() vacuums it after

    def delete_expired(self) -> int:
        return internals.delete_expired(self.cache, round(time.time()))

    @contextlib.contextmanager
    def securely(self) -> Iterator[None]:
        """Deletes with ``secure_delete`` on, this process's writers waiting meanwhile."""
        tables = (self.cache.responses, self.cache.redirects)
        with internals.write_lock(self.cache):
            before = []
            for table in tables:
                with internals.connection(table) as conn:
                    before.append(int(conn.execute("PRAGMA secure_delete").fetchone()[0]))
                    conn.execute("PRAGMA secure_delete = ON")
            try:
                yield
            finally:
                for table, value in zip(tables, before, strict=True):
                    with internals.connection(table) as conn:
                        conn.execute(f"PRAGMA secure_delete = {value}")

    def rewrite(self) -> bool:
        """:func:`rewrite` on the backend's own connection, its writers waiting meanwhile."""
        responses = self.cache.responses
        with internals.write_lock(self.cache), internals.connection(responses) as conn:
            return rewrite(conn, self.path)
