"""The one place that reaches below requests-cache's public API (its SQLite lock and schema).

Example::

    with write_lock(cache):                  # this process's writers to the file wait meanwhile
        with connection(cache.responses) as conn:
            conn.execute("PRAGMA secure_delete = ON")
    delete_expired(cache, now=round(time.time()))   # 12: answers past their expiry, removed
    redis_connection(redis_cache)            # the redis.Redis a RedisCache uses

What each function relies on is pinned by ``tests/unit/test_requests_cache_internals.py``: a
requests-cache upgrade that changes it fails there, not in an erasure.
"""

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager
from typing import Any

from requests_cache.backends.base import BaseCache
from requests_cache.backends.sqlite import SQLiteCache, SQLiteDict

__all__ = ["connection", "delete_expired", "redis_connection", "write_lock"]


def write_lock(cache: SQLiteCache) -> AbstractContextManager[Any]:
    """The re-entrant lock every connection of ``cache`` (its responses and redirects tables)
    is used under: held, this process's other threads cannot write to the file."""
    lock: AbstractContextManager[Any] = cache.responses._lock
    return lock


def connection(
    table: SQLiteDict, *, commit: bool = False
) -> AbstractContextManager[sqlite3.Connection]:
    """The connection of one of a cache's tables (``cache.responses`` or ``cache.redirects``),
    taken under :func:`write_lock` (committed after when ``commit``)."""
    return table.connection(commit=commit)


def delete_expired(cache: SQLiteCache, now: int) -> int:
    """Delete the answers that expired by ``now`` (seconds since the epoch) and the redirects
    that then lead nowhere; how many answers: the statement requests-cache's own
    ``delete(expired=True)`` runs, which counts nothing."""
    responses = cache.responses
    with connection(responses, commit=True) as conn:
        cursor = conn.execute(f"DELETE FROM {responses.table_name} WHERE expires <= ?", (now,))
        removed = int(cursor.rowcount)
    cache.delete(vacuum=False)  # no keys, no conditions: only the redirects leading nowhere
    return removed


def redis_connection(cache: BaseCache) -> Any:
    """The ``redis.Redis`` client a requests-cache ``RedisCache`` reads and writes with."""
    return cache.responses.connection  # type: ignore[attr-defined]
