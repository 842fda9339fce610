"""What lookup_pandas.cache.requests_cache_internals relies on in requests-cache, pinned.

These facts are below requests-cache's public API; an upgrade that changes one fails here:
both tables of a SQLite cache share one re-entrant lock, under which their connections are
taken; answers live in a table named by ``table_name`` whose ``expires`` column holds the
expiry in whole seconds since the epoch; ``delete()`` without keys drops the redirects that
lead nowhere; a Redis cache reads and writes through ``responses.connection``.
"""

from __future__ import annotations

import sqlite3
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import redis
import requests
from requests_cache.backends.redis import RedisCache
from requests_cache.backends.sqlite import SQLiteCache

from lookup_pandas.cache import requests_cache_internals as internals
from lookup_pandas.service.answers import profile_answer_from_batch

URL = "http://service.test/api/data/v1/people/profile?handle="


@pytest.fixture
def cache(tmp_path: Path):
    backend = SQLiteCache(tmp_path / "c.sqlite", wal=True)
    yield backend
    backend.close()


def _answer(handle: str) -> requests.Response:
    request = requests.Request("GET", URL + handle).prepare()
    return profile_answer_from_batch(request, {"id": f"prsn_{handle}", "handle": handle}, "j")


def _save(cache: SQLiteCache, handle: str, expires: datetime) -> None:
    cache.save_response(_answer(handle), cache_key=handle, expires=expires)


def test_both_tables_share_one_reentrant_lock_that_holds_off_other_threads(cache):
    lock = cache.responses._lock
    assert cache.redirects._lock is lock
    other: list[bool] = []
    with internals.write_lock(cache):
        with internals.connection(cache.responses) as conn:  # takes the lock again: re-entrant
            assert isinstance(conn, sqlite3.Connection)
            conn.execute("SELECT 1")
        with internals.connection(cache.redirects) as conn:
            conn.execute("SELECT 1")
        thread = threading.Thread(target=lambda: other.append(lock.acquire(blocking=False)))
        thread.start()
        thread.join()
    assert other == [False]  # another thread's writer waits meanwhile


def test_the_connection_commits_when_asked(cache, tmp_path):
    _save(cache, "ada", datetime.now(UTC) + timedelta(days=1))
    table = cache.responses.table_name
    with internals.connection(cache.responses, commit=True) as conn:
        conn.execute(f"UPDATE {table} SET expires = 1")
    with sqlite3.connect(tmp_path / "c.sqlite") as other:
        assert other.execute(f"SELECT expires FROM {table}").fetchall() == [(1,)]


def test_the_expiry_is_stored_in_whole_seconds_in_the_responses_table(cache, tmp_path):
    expires = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)
    _save(cache, "ada", expires)
    assert cache.responses.table_name == "responses"
    with sqlite3.connect(tmp_path / "c.sqlite") as conn:
        columns = [row[1] for row in conn.execute("PRAGMA table_info(responses)")]
        rows = conn.execute("SELECT key, expires FROM responses").fetchall()
    assert {"key", "value", "expires"} <= set(columns)
    assert rows == [("ada", round(expires.timestamp()))]


def test_delete_expired_counts_what_it_removes_and_drops_redirects_leading_nowhere(cache):
    now = datetime.now(UTC)
    _save(cache, "old-1", now - timedelta(days=1))
    _save(cache, "old-2", now - timedelta(seconds=5))
    _save(cache, "fresh", now + timedelta(days=1))
    cache.redirects["alias-of-old"] = "old-1"
    cache.redirects["alias-of-fresh"] = "fresh"
    assert internals.delete_expired(cache, round(now.timestamp())) == 2
    assert sorted(cache.responses.keys()) == ["fresh"]
    assert sorted(cache.redirects.keys()) == ["alias-of-fresh"]
    assert internals.delete_expired(cache, round(now.timestamp())) == 0


def test_a_redis_cache_uses_the_connection_it_was_given():
    connection = redis.Redis(host="127.0.0.1", port=1)  # connects at its first command only
    cache = RedisCache(namespace="lookup_pandas:ns:cache", connection=connection)
    assert internals.redis_connection(cache) is connection


def test_one_transaction_commits_its_writes_once_and_rolls_back_on_an_error(cache):
    with internals.one_transaction(cache):
        assert cache.responses._active_transaction  # the writes inside join it
        cache.save_response(_answer("ada"))
        cache.responses["raw"] = 1
    assert {"raw"} < set(cache.responses.keys()) and len(cache.responses) == 2
    with pytest.raises(RuntimeError), internals.one_transaction(cache):
        cache.responses["lost"] = 1
        raise RuntimeError("an error before the commit")
    assert "lost" not in cache.responses
    with internals.one_transaction(cache):  # the connection was left with no open transaction
        cache.responses["after"] = 1
    assert "after" in cache.responses


def test_one_transaction_inside_batched_writes_is_that_transaction(cache):
    with internals.batched_writes(cache):
        with internals.one_transaction(cache):
            cache.responses["a"] = 1
        cache.responses["b"] = 2
    assert {"a", "b"} <= set(cache.responses.keys())
