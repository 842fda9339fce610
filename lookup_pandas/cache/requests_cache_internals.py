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
    """Many answers saved in one transaction: SQLite's ``bulk_commit``, else one at a time.

    >>> import contextlib
    >>> isinstance(batched_writes(BaseCache()), contextlib.nullcontext)
    True
    """
    responses = getattr(cache, "responses", None)
    if isinstance(responses, SQLiteDict):
        bulk: AbstractContextManager[Any] = responses.bulk_commit()
        return bulk
    return nullcontext()


@contextmanager
def one_transaction(cache: SQLiteCache) -> Iterator[None]:
    """The writes to ``cache.responses`` made inside, in one transaction (one commit), or in
    the one :func:`batched_writes` has under way. An error inside rolls it back.

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
    if responses._active_transaction:  # a bulk write under way: its transaction
        yield
        return
    with responses.connection(commit=True) as conn:
        try:
            yield
        except BaseException:
            conn.rollback()
            raise


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
