"""Unit tests for cache.admin without a server: ``Client.forget/prune/clear/cache_info`` on a
SQLite cache filled through MockTransport (profile answers and pages that mention the person,
unreadable rows, expired ones) and without a cache, and a location that does not exist.

(The decisions are in test_erasure.py, the reports in test_reports.py, the checkpoint retries
in test_sqlite.py, the stores' erasure in tests/unit/store/test_store.py.)
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta

import pytest
import requests

import lookup_pandas as lp
from lookup_pandas.cache import admin
from lookup_pandas.cache.opened import CacheLocation
from lookup_pandas.errors import UsageError
from lookup_pandas.service.paths import PROFILE_PATH, SEARCH_PATH
from lookup_pandas.store import StoredJob, store_path
from lookup_pandas.testing import MockTransport, envelope

BASE = "http://service.test"
TIER = envelope({"balance": 100, "current_tier": {"name": "t", "limit_per_minute": 60000}})


# -- the Client's methods -----------------------------------------------------------------------


def _person(handle: str) -> dict:
    return {"id": f"prsn_{handle}", "handle": handle, "first_name": handle.title()}


def _handler(request: requests.PreparedRequest):
    url = request.url or ""
    if "/api/panel/" in url:
        return 200, TIER
    if PROFILE_PATH in url:
        handle = url.split("handle=", 1)[1]
        return 200, envelope(_person(handle))
    if SEARCH_PATH in url:
        title = url.split("title=", 1)[1]
        people = [_person(f"{title}-{i}") for i in range(3)]
        return 200, envelope(people, pagination={"limit": 3, "has_more": False})
    return 404, envelope(None, success=False, message="no such endpoint")


@pytest.fixture
def client(tmp_path):
    transport = MockTransport(_handler)
    with lp.Client(
        api_key="lk_unit", base_url=BASE, cache=tmp_path / "c.sqlite", transport=transport
    ) as c:
        yield c


def test_forget_removes_profiles_and_pages_that_mention_the_person_and_nothing_else(client):
    for handle in ("ada", "grace", "linus"):
        client.profile(handle)
    client.get(SEARCH_PATH, {"title": "ada"})  # holds ada-0, ada-1, ada-2
    client.get(SEARCH_PATH, {"title": "bob"})
    client.parts.store.remember(StoredJob("j1", ("ada", "grace"), 1.0))
    before = client.cache_info()
    assert before.entries == 5 and before.jobs == 1

    result = client.forget(["https://www.example.com/in/ADA/", "ada-1", "nobody"])

    assert result.handles == ("ada", "ada-1", "nobody")
    assert result.matched == ("ada", "ada-1")
    assert (result.profiles, result.pages, result.jobs, result.complete) == (1, 1, 1, True)
    assert not client.parts.cache.is_cached(PROFILE_PATH, {"handle": "ada"})
    assert not client.parts.cache.is_cached(SEARCH_PATH, {"title": "ada"})  # the whole page
    assert client.parts.cache.is_cached(PROFILE_PATH, {"handle": "grace"})
    assert client.parts.cache.is_cached(SEARCH_PATH, {"title": "bob"})
    assert client.parts.store.jobs() == [StoredJob("j1", ("grace",), 1.0)]
    assert client.cache_info().entries == 3


def test_forget_removes_answers_it_cannot_read(client, tmp_path):
    client.profile("grace")
    with sqlite3.connect(tmp_path / "c.sqlite") as conn:
        conn.execute(
            "INSERT INTO responses (key, value, expires) VALUES ('junk', ?, NULL)",
            (b"not a pickle, but it could name ada",),
        )
    assert client.cache_info().entries == 2
    result = client.forget(["ada"])
    assert (result.profiles, result.pages, result.unreadable) == (0, 0, 1)
    assert client.cache_info().entries == 1 and client.parts.cache.is_cached(
        PROFILE_PATH, {"handle": "grace"}
    )


def _plant_expired(client: lp.Client, handle: str) -> None:
    """An answer for ``handle`` that expired a day ago (requests-cache's own save)."""
    prepared = client.parts.wire.prepare(PROFILE_PATH, {"handle": handle})
    response = client.parts.wire.send(prepared)
    cache = client.session.cache
    expired = datetime.now(UTC) - timedelta(days=1)
    cache.save_response(response, cache_key=cache.create_key(prepared), expires=expired)


def test_prune_removes_only_expired_answers_and_info_counts_them(client):
    client.profile("grace")
    _plant_expired(client, "old-1")
    _plant_expired(client, "old-2")
    info = client.cache_info()
    assert (info.entries, info.expired) == (3, 2)
    assert client.prune() == 2
    info = client.cache_info()
    assert (info.entries, info.expired) == (1, 0)
    assert client.parts.cache.is_cached(PROFILE_PATH, {"handle": "grace"})
    assert client.prune() == 0


def test_clear_removes_every_answer_job_and_claim(client, tmp_path):
    client.profile("grace")
    client.get(SEARCH_PATH, {"title": "bob"})
    client.parts.store.remember(StoredJob("j1", ("ada",), 1.0))
    client.parts.store.claim_many(["some-key"], 60)
    assert client.clear() == 2
    info = client.cache_info()
    assert (info.entries, info.jobs, info.oldest, info.newest) == (0, 0, None, None)
    with sqlite3.connect(store_path(tmp_path / "c.sqlite")) as conn:
        assert conn.execute("SELECT COUNT(*) FROM claims").fetchone()[0] == 0
    client.profile("grace")  # fetched again, and cached again
    assert client.cache_info().entries == 1


def test_a_client_without_a_cache_reports_nothing_and_erases_only_its_jobs_in_memory():
    with lp.Client(
        api_key="lk_unit", base_url=BASE, cache=False, transport=MockTransport(_handler)
    ) as client:
        client.profile("ada")
        client.parts.store.remember(StoredJob("j1", ("ada", "grace"), 1.0))
        info = client.cache_info()
        assert (info.location, info.entries, info.bytes, info.jobs) == ("off", 0, 0, 1)
        assert client.prune() == 0
        result = client.forget("ada")
        assert (result.profiles, result.pages, result.jobs) == (0, 0, 1)
        assert client.parts.store.jobs() == [StoredJob("j1", ("grace",), 1.0)]
        assert client.clear() == 0 and client.parts.store.jobs() == []


def test_forget_with_a_value_that_is_no_handle_erases_nothing(client):
    client.profile("ada")
    with pytest.raises(UsageError):
        client.forget(["ada", "N/A"])
    assert client.parts.cache.is_cached(PROFILE_PATH, {"handle": "ada"})


def test_a_location_that_does_not_exist_reports_empty_and_creates_nothing(tmp_path):
    where = CacheLocation(tmp_path / "sub" / "c.sqlite")
    info = admin.cache_info(where)
    assert (info.entries, info.bytes, info.jobs, info.oldest) == (0, 0, 0, None)
    assert admin.forget(where, ["ada"]).matched == ()
    assert admin.clear(where).entries == 0
    assert not (tmp_path / "sub").exists()
