"""The one place that reaches below requests-cache's public API: its SQLite lock and schema.

``tests/unit/cache/test_requests_cache_internals.py`` pins what each function relies on.

Example:
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     cache = SQLiteCache(Path(tmp, "leads.sqlite"))
    ...     with write_lock(cache):  # this process's other writers wait
    ...         removed = delete_expired(cache, now=0)
    ...     cache.close()
    >>> removed
    0
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any

from requests_cache.backends.base import BaseCache
from requests_cache.backends.sqlite import SQLiteCache, SQLiteDict

__all__ = [
    "batched_writes",
    "connection",
    "one_transaction",
    "delete_expired",
    "redis_answer_key",
    "redis_connection",
    "write_lock",
]


def batched_writes(cache: BaseCache) -> AbstractContextManager[Any]:
    """Many answers saved in one transaction on SQLite (:func:`one_transaction`), else one at a
    time.

    >>> import contextlib
    >>> isinstance(batched_writes(BaseCache()), contextlib.nullcontext)
    True
    """
    if isinstance(getattr(cache, "responses", None), SQLiteDict):
        return one_transaction(cache)  # type: ignore[arg-type]
    return nullcontext()


@contextmanager
def one_transaction(cache: SQLiteCache) -> Iterator[None]:
    """The writes to ``cache.responses`` made inside, in one ``BEGIN IMMEDIATE`` transaction (one
    commit), or in the one under way. An error inside, or at the commit, rolls it back and is
    raised.

    requests-cache's own (``bulk_commit``, and each write outside one) retries ``BEGIN
    IMMEDIATE`` without end while another process holds the file, and drops an error raised at
    the commit (a full disk): here the busy timeout is waited once, then "database is locked".

    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     cache = SQLiteCache(Path(tmp, "leads.sqlite"))
    ...     with one_transaction(cache):
    ...         cache.responses["a"] = cache.responses["b"] = 1
    ...     print(sorted(cache.responses.keys()))
    ...     cache.close()
    ['a', 'b']
    """
    responses = cache.responses
    with responses._lock, responses.connection() as conn:
        if responses._active_transaction:  # one under way: its writes join it
            yield
            return
        conn.execute("BEGIN IMMEDIATE")  # waits the busy timeout, then raises
        responses._active_transaction = True  # requests-cache's writes join it, lock and all
        try:
            yield
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.rollback()
            raise
        finally:
            responses._active_transaction = False


def write_lock(cache: SQLiteCache) -> AbstractContextManager[Any]:
    """The re-entrant lock that every connection of ``cache`` is used under.

    While it is held, this process's other threads cannot write to the file.
    """
    lock: AbstractContextManager[Any] = cache.responses._lock
    return lock


def connection(
    table: SQLiteDict, *, commit: bool = False
) -> AbstractContextManager[sqlite3.Connection]:
    """The connection of one of a cache's tables, taken under :func:`write_lock`.

    ``table`` is ``cache.responses`` or ``cache.redirects``. ``commit``: commit afterwards.
    """
    return table.connection(commit=commit)


def delete_expired(cache: SQLiteCache, now: int) -> int:
    """Delete the answers expired by ``now``, and redirects left leading nowhere. Returns how many.

    It runs the statement of requests-cache's own ``delete(expired=True)``, which counts nothing.
    """
    responses = cache.responses
    with connection(responses, commit=True) as conn:
        cursor = conn.execute(f"DELETE FROM {responses.table_name} WHERE expires <= ?", (now,))
        removed = int(cursor.rowcount)
    cache.delete(vacuum=False)  # no keys, no conditions: only the redirects leading nowhere
    return removed


def redis_connection(cache: BaseCache) -> Any:
    """The ``redis.Redis`` client a requests-cache ``RedisCache`` reads and writes with."""
    return cache.responses.connection  # type: ignore[attr-defined]


def redis_answer_key(cache: BaseCache, key: str) -> bytes:
    """The Redis key a ``RedisCache`` keeps the answer of cache key ``key`` under."""
    return cache.responses._bkey(key)  # type: ignore[attr-defined,no-any-return]
