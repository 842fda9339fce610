"""Cache management without a server: the decisions (which handles, which answers mention them,
the figures, the checkpoint retries), the stores' erasure, and the Client's methods on a cache
filled through MockTransport.

What is checked: handles are normalised as enrichment does and a value that is no handle stops
everything; an answer mentions a person by its URL's ``handle`` or any ``"handle"`` in its body;
the summaries and their text; every store erases inputs (a job left with none goes) and clears
jobs and claims, per namespace or all; LocalStore's deletes leave no old text in the file even
where SQLite does not zero deleted rows by default; ``Client.forget/prune/clear/cache_info`` on a
SQLite cache (profile answers and pages that mention the person, unreadable rows, expired ones)
and without a cache; where the CLI's cache commands look (``CacheLocation.from_environment``).
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import requests
from requests_cache.models.response import CachedResponse

import lookup_pandas as lp
from lookup_pandas import cache_admin
from lookup_pandas.cache_admin import (
    CacheInfo,
    CacheLocation,
    Forgotten,
    checkpointed,
    handles_in,
    kind_of,
    mentioned,
    summarise,
    wanted_handles,
)
from lookup_pandas.endpoints import PROFILE_PATH, SEARCH_PATH
from lookup_pandas.errors import UsageError
from lookup_pandas.store import MemoryStore, StoredJob, namespace, split_inputs, store_path
from lookup_pandas.store.local import LocalStore
from lookup_pandas.testing import MockTransport, envelope

BASE = "http://service.test"
NS = namespace("lk_live_UnitTestKeyForCacheAdmin", BASE)
OTHER_NS = namespace("lk_live_AnotherKeyForCacheAdmin", BASE)
TIER = envelope({"balance": 100, "current_tier": {"name": "t", "limit_per_minute": 60000}})


# -- which handles ------------------------------------------------------------------------------


def test_wanted_handles_are_normalised_as_enrichment_does_each_once_in_order():
    values = ["Ada-Lovelace", " https://www.example.com/in/ada-lovelace/?x=1", "@Grace", "grace"]
    assert wanted_handles(values) == ("ada-lovelace", "grace")
    assert wanted_handles("https://www.example.com/in/Linus/") == ("linus",)  # one string: one
    assert wanted_handles(["Ada", "ada"], fold_case=False) == ("Ada", "ada")
    assert wanted_handles([]) == ()


def test_a_value_that_is_no_handle_stops_everything_and_is_named():
    with pytest.raises(UsageError) as caught:
        wanted_handles(["ada", "N/A", "   ", "https://www.example.com/company/acme"])
    text = str(caught.value)
    assert "'N/A' (missing)" in text and "'   ' (empty)" in text
    assert "without /in/<handle>" in text and "Nothing was erased" in text
    with pytest.raises(UsageError, match="and 1 more"):
        wanted_handles(["", " ", "NA", "null"])


# -- which answers mention them -------------------------------------------------------------------


def test_handles_in_walks_every_object_of_a_json_body():
    body = {
        "data": [{"handle": "ada", "positions": [{"organization": {"handle": "nested"}}]}],
        "profiles": {"x": {"handle": "grace"}, "y": {"handle": 7}},
        "handle": "top",
    }
    assert sorted(handles_in(body)) == ["ada", "grace", "nested", "top"]
    assert list(handles_in(None)) == [] and list(handles_in("ada")) == []


def test_mentioned_by_the_url_parameter_or_anywhere_in_the_body():
    forgotten = frozenset({"ada", "jürgen"})
    url = f"{BASE}{PROFILE_PATH}?handle=Ada"
    assert mentioned([url], b"", forgotten) == {"ada"}  # folded, as enrichment sends it
    assert mentioned([url], b"", forgotten, fold_case=False) == set()
    encoded = f"{BASE}{PROFILE_PATH}?handle=j%C3%BCrgen"
    assert mentioned([encoded], b"not json", forgotten) == {"jürgen"}
    page = json.dumps(envelope([{"handle": "linus"}, {"handle": "J\u00fcrgen"}])).encode()
    assert mentioned([f"{BASE}{SEARCH_PATH}?title=x"], page, forgotten) == {"jürgen"}
    other = json.dumps(envelope([{"handle": "linus", "summary": "knows ada"}])).encode()
    assert mentioned([f"{BASE}{SEARCH_PATH}?title=ada"], other, forgotten) == set()
    assert mentioned([], b"\xff\xfe", forgotten) == set()


def test_kind_of_an_answer_is_profile_or_page():
    assert kind_of(f"{BASE}/prefix{PROFILE_PATH}?handle=ada") == "profile"
    assert kind_of(f"{BASE}{SEARCH_PATH}?title=x") == "page"


# -- figures and their text ---------------------------------------------------------------------


def _response(created: datetime, expires: datetime) -> CachedResponse:
    return CachedResponse(created_at=created, expires=expires)


def test_summarise_gives_oldest_newest_and_expired():
    now = datetime.now(UTC)
    responses = [
        _response(now - timedelta(days=3), now - timedelta(days=1)),  # expired
        _response(now - timedelta(days=5), now + timedelta(days=2)),
        _response(now - timedelta(hours=1), now + timedelta(days=6)),
    ]
    assert summarise(responses) == (now - timedelta(days=5), now - timedelta(hours=1), 1)
    assert summarise([]) == (None, None, 0)


def test_checkpointed_retries_then_gives_up():
    sleeps: list[float] = []
    answers = iter([False, False, True])
    assert checkpointed(lambda: next(answers), attempts=5, pause=0.2, sleep=sleeps.append)
    assert sleeps == [0.2, 0.2]
    sleeps.clear()
    assert not checkpointed(lambda: False, attempts=3, pause=0.1, sleep=sleeps.append)
    assert sleeps == [0.1, 0.1]  # no pause after the last try


def test_cache_info_text():
    assert "off (nothing is cached)" in str(CacheInfo("off"))
    empty = str(CacheInfo("/c.sqlite", bytes=4096))
    assert "answers:    none" in empty and "4.0 KiB" in empty and "stored" not in empty
    when = datetime(2024, 6, 1, 10, 2, tzinfo=UTC)
    full = str(
        CacheInfo("/c.sqlite", 1234, 12, 3 * 1024 * 1024 // 2, when, when + timedelta(days=1), 2)
    )
    assert "1,234, 12 of them expired" in full and "1.5 MiB" in full
    assert "stored:     from 2024-06-0" in full and "batch jobs: 2 stored" in full
    assert "unknown" in str(CacheInfo("redis://:***@h:6379/0", 3, bytes=None))


def test_forgotten_counts_and_text():
    result = Forgotten(
        ("ada", "grace", "zed"),
        ("ada", "grace"),
        profiles=2,
        pages=1,
        unreadable=1,
        jobs=1,
        location="/c.sqlite",
    )
    assert result.entries == 4
    text = str(result)
    assert text.startswith("forgot 3 handles in /c.sqlite: removed 2 profile answers, 1 page, ")
    assert "1 unreadable answer, 1 batch job" in text and "nothing was stored about zed" in text


# -- the stores ---------------------------------------------------------------------------------


def test_split_inputs_keeps_the_order():
    assert split_inputs(("a", "b", "c", "b"), lambda h: h == "b") == (("a", "c"), ("b", "b"))


def test_memory_store_erases_inputs_and_drops_an_emptied_job():
    store = MemoryStore()
    store.remember(StoredJob("j1", ("ada", "grace"), 1.0))
    store.remember(StoredJob("j2", ("ada",), 2.0))
    store.remember(StoredJob("j3", ("linus",), 3.0))
    changed = store.drop_inputs(lambda h: h == "ada")
    assert sorted(changed) == [("j1", ("ada",)), ("j2", ("ada",))]
    assert store.job("j1") == StoredJob("j1", ("grace",), 1.0)
    assert store.job("j2") is None and store.count_jobs() == 2
    assert store.clear_jobs() == 2 and store.jobs() == []


@pytest.fixture
def stores(tmp_path: Path):
    path = tmp_path / "c.store.sqlite"
    mine, other = LocalStore(path, NS), LocalStore(path, OTHER_NS)
    yield mine, other, path
    mine.close()
    other.close()


def test_local_store_erases_inputs_in_its_namespace_or_in_every_one(stores):
    mine, other, _ = stores
    mine.remember(StoredJob("j1", ("ada", "grace"), 1.0))
    mine.remember(StoredJob("j2", ("ada",), 2.0))
    other.remember(StoredJob("k1", ("ada", "linus"), 3.0))
    assert mine.drop_inputs(lambda h: h == "grace") == [("j1", ("grace",))]
    assert mine.job("j1") == StoredJob("j1", ("ada",), 1.0)
    assert other.job("k1") == StoredJob("k1", ("ada", "linus"), 3.0)
    changed = mine.drop_inputs(lambda h: h == "ada", every_namespace=True)
    assert sorted(changed) == [("j1", ("ada",)), ("j2", ("ada",)), ("k1", ("ada",))]
    assert mine.jobs() == [] and mine.job("j1") is None  # emptied jobs are removed
    assert other.jobs() == [StoredJob("k1", ("linus",), 3.0)]
    assert mine.count_jobs() == 0 and mine.count_jobs(every_namespace=True) == 1


def test_local_store_clears_jobs_and_claims_per_namespace_or_all(stores):
    mine, other, path = stores
    mine.remember(StoredJob("j1", ("ada",), 1.0))
    other.remember(StoredJob("k1", ("linus",), 2.0))
    mine.claim_many(["key-a"], 60)
    other.claim_many(["key-b"], 60)
    assert mine.clear_jobs() == 1
    assert other.count_jobs() == 1

    def claims() -> int:
        with sqlite3.connect(path) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM claims").fetchone()[0])

    assert claims() == 1  # the other namespace's
    assert mine.clear_jobs(every_namespace=True) == 1
    assert other.jobs() == [] and claims() == 0


def test_local_store_without_a_file_creates_none(tmp_path):
    path = tmp_path / "none.store.sqlite"
    store = LocalStore(path, NS)
    assert store.drop_inputs(lambda h: True, every_namespace=True) == []
    assert store.clear_jobs(every_namespace=True) == 0
    assert store.count_jobs() == 0 and store.job("x") is None
    assert not path.exists()


@pytest.mark.parametrize("secure", [False, True])
def test_local_store_erasure_leaves_no_old_text_in_the_file(tmp_path, secure):
    """Where SQLite keeps deleted text by default (secure_delete off: macOS, python.org
    builds), the store still overwrites what it erases; without that, the text stays."""
    path = tmp_path / "c.store.sqlite"
    store = LocalStore(path, NS)
    secret = "ada-the-unforgettable-handle"
    store.remember(StoredJob("j1", (secret, "grace"), 1.0))
    store.remember(StoredJob("j2", (secret,), 2.0))
    conn = store._connection()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert secret.encode() in path.read_bytes()  # the scan can find it
    conn.execute("PRAGMA secure_delete = OFF")  # the platform's default, here
    if secure:
        store.drop_inputs(lambda h: h == secret)
    else:  # what plain statements would leave
        conn.execute("UPDATE batch_jobs SET inputs = ? WHERE job_id = 'j1'", ('["grace"]',))
        conn.execute("DELETE FROM batch_jobs WHERE job_id = 'j2'")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert (secret.encode() in path.read_bytes()) is not secure
    assert conn.execute("PRAGMA secure_delete").fetchone()[0] == 0  # set back
    store.close()


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
    client.store.remember(StoredJob("j1", ("ada", "grace"), 1.0))
    before = client.cache_info()
    assert before.entries == 5 and before.jobs == 1

    result = client.forget(["https://www.example.com/in/ADA/", "ada-1", "nobody"])

    assert result.handles == ("ada", "ada-1", "nobody")
    assert result.matched == ("ada", "ada-1")
    assert (result.profiles, result.pages, result.jobs, result.complete) == (1, 1, 1, True)
    assert not client.is_cached(PROFILE_PATH, {"handle": "ada"})
    assert not client.is_cached(SEARCH_PATH, {"title": "ada"})  # the whole page
    assert client.is_cached(PROFILE_PATH, {"handle": "grace"})
    assert client.is_cached(SEARCH_PATH, {"title": "bob"})
    assert client.store.jobs() == [StoredJob("j1", ("grace",), 1.0)]
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
    assert client.cache_info().entries == 1 and client.is_cached(PROFILE_PATH, {"handle": "grace"})


def _plant_expired(client: lp.Client, handle: str) -> None:
    """An answer for ``handle`` that expired a day ago (requests-cache's own save)."""
    prepared = client._prepare(PROFILE_PATH, {"handle": handle})
    response = client._send(prepared)
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
    assert client.is_cached(PROFILE_PATH, {"handle": "grace"})
    assert client.prune() == 0


def test_clear_removes_every_answer_job_and_claim(client, tmp_path):
    client.profile("grace")
    client.get(SEARCH_PATH, {"title": "bob"})
    client.store.remember(StoredJob("j1", ("ada",), 1.0))
    client.store.claim_many(["some-key"], 60)
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
        client.store.remember(StoredJob("j1", ("ada", "grace"), 1.0))
        info = client.cache_info()
        assert (info.location, info.entries, info.bytes, info.jobs) == ("off", 0, 0, 1)
        assert client.prune() == 0
        result = client.forget("ada")
        assert (result.profiles, result.pages, result.jobs) == (0, 0, 1)
        assert client.store.jobs() == [StoredJob("j1", ("grace",), 1.0)]
        assert client.clear() == 0 and client.store.jobs() == []


def test_forget_with_a_value_that_is_no_handle_erases_nothing(client):
    client.profile("ada")
    with pytest.raises(UsageError):
        client.forget(["ada", "N/A"])
    assert client.is_cached(PROFILE_PATH, {"handle": "ada"})


# -- where the CLI looks --------------------------------------------------------------------------


@pytest.fixture
def no_lookup_env(monkeypatch):
    for name in ("LOOKUP_CACHE", "LOOKUP_API_KEY", "LOOKUP_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_location_from_the_environment_needs_no_key(no_lookup_env, tmp_path):
    env = no_lookup_env
    env.setenv("LOOKUP_CACHE", str(tmp_path / "c.sqlite"))
    assert CacheLocation.from_environment() == CacheLocation(tmp_path / "c.sqlite")
    env.setenv("LOOKUP_CACHE", "off")
    assert CacheLocation.from_environment().label == "off"
    env.delenv("LOOKUP_CACHE")
    assert CacheLocation.from_environment().path == lp.settings.default_cache_path()


def test_a_redis_location_is_every_namespace_unless_the_key_and_url_are_set(no_lookup_env):
    env = no_lookup_env
    env.setenv("LOOKUP_CACHE", "redis://:s3cret-pw@cache.internal:6379/0")
    everywhere = CacheLocation.from_environment()
    assert everywhere.namespace is None
    assert everywhere.label == "redis://:***@cache.internal:6379/0"
    assert "s3cret" not in repr(everywhere)
    env.setenv("LOOKUP_API_KEY", "lk_live_UnitTestKeyForCacheAdmin")
    assert CacheLocation.from_environment().namespace is None  # a key alone: no namespace
    env.setenv("LOOKUP_BASE_URL", BASE + "/")
    assert CacheLocation.from_environment().namespace == NS  # as the Client files it


def test_a_location_that_does_not_exist_reports_empty_and_creates_nothing(tmp_path):
    where = CacheLocation(tmp_path / "sub" / "c.sqlite")
    info = cache_admin.cache_info(where)
    assert (info.entries, info.bytes, info.jobs, info.oldest) == (0, 0, 0, None)
    assert cache_admin.forget(where, ["ada"]).matched == ()
    assert cache_admin.clear(where).entries == 0
    assert not (tmp_path / "sub").exists()
