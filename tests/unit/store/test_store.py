"""Unit tests for lookup_pandas.store: namespaces (a key's, a team's), the store's path, and the
job stores.

MemoryStore and LocalStore (a SQLite file under tmp_path) pass the same contract tests, for
the jobs and for the refresh's marks (answers checked, job changes acted on: kept 366 days,
never moved back, cleared with the jobs); LocalStore also: no file until the first job,
namespaces kept apart, a later process (a second object) sees the jobs and the marks, and the
API key never reaches the file.
"""

from __future__ import annotations

import sqlite3
import string
from pathlib import Path

import pytest

import lookup_pandas as lp
from lookup_pandas.config.settings import Settings
from lookup_pandas.store import (
    MARKS_KEPT_SECONDS,
    RESOLVE_RATE_KEPT_SECONDS,
    MemoryStore,
    StoredJob,
    answers_namespace,
    named_namespace,
    namespace,
    open_store,
    service_namespace,
    split_inputs,
    store_path,
)
from lookup_pandas.store.local import LocalStore
from lookup_pandas.store.redis_connection import key_prefix

KEY = "lk_live_Sup3rSecretKeyWithLotsOfLetters_XyZ"
OTHER_KEY = "lk_live_AnotherSecretKeyEntirely_QwErTy"
URL = "https://api.example.com"
OTHER_URL = "https://staging.example.com"
NS = namespace(KEY, URL)

JOB_A = StoredJob("job_a", ("ada", "grace"), submitted=1_700_000_010.5)
JOB_B = StoredJob("job_b", ("linus",), submitted=1_700_000_020.25)
JOB_C = StoredJob("job_c", ("ken", "dennis", "bjarne"), submitted=1_700_000_030.0)
NAMED_URL = "redis://:pw-not-shown@cache.internal:6379/0?namespace=acme-sales"


def settings(cache: object, key: str = KEY) -> Settings:
    return Settings.build(api_key=key, base_url=URL, cache=cache)


# -- namespace -----------------------------------------------------------------------------------


def test_namespace_is_deterministic():
    assert namespace(KEY, URL) == namespace(KEY, URL)
    assert namespace(KEY, URL) == NS


def test_namespace_differs_by_key():
    assert namespace(KEY, URL) != namespace(OTHER_KEY, URL)


def test_namespace_differs_by_base_url():
    assert namespace(KEY, URL) != namespace(KEY, OTHER_URL)
    assert namespace(KEY, URL) != namespace(KEY, URL + "/")


def test_namespace_does_not_confuse_key_and_url_boundaries():
    assert namespace("ab", "c") != namespace("a", "bc")
    assert namespace(KEY, URL) != namespace(URL, KEY)


def test_namespace_is_a_hex_name():
    ns = namespace(KEY, URL)
    assert ns
    assert set(ns) <= set(string.hexdigits)


@pytest.mark.parametrize("key", [KEY, OTHER_KEY, "0123456789abcdef0123456789abcdef"])
def test_namespace_does_not_contain_the_key(key):
    ns = namespace(key, URL)
    assert key not in ns
    width = 6
    pieces = {key[i : i + width] for i in range(len(key) - width + 1)}
    assert not [p for p in pieces if p in ns]


# -- a team's namespace: the names entries are filed under ----------------------------------------


def test_a_named_namespace_is_per_name_and_per_service_and_never_a_keys():
    ns = named_namespace("acme-sales", URL)
    assert ns == named_namespace("acme-sales", URL)
    assert len(ns) == 32 and set(ns) <= set(string.hexdigits)
    assert ns != named_namespace("acme-sales", OTHER_URL)  # staging never mixes with production
    assert ns != named_namespace("acme-support", URL)
    assert ns != namespace("acme-sales", URL)  # a key that happens to be the name


def test_answers_follow_the_name_and_otherwise_the_key():
    named = named_namespace("acme-sales", URL)
    assert (
        answers_namespace(settings(NAMED_URL))
        == answers_namespace(settings(NAMED_URL, OTHER_KEY))
        == named
    )
    plain = NAMED_URL.partition("?")[0]
    assert answers_namespace(settings(plain)) == namespace(KEY, URL)  # as before: per key
    assert answers_namespace(settings(plain, OTHER_KEY)) == namespace(OTHER_KEY, URL)


def test_two_keys_naming_one_namespace_share_answers_and_claims_not_their_pace():
    clients = [lp.Client(api_key=k, base_url=URL, cache=NAMED_URL) for k in (KEY, OTHER_KEY)]
    try:
        named = key_prefix(named_namespace("acme-sales", URL))
        backends = {c.session.cache.responses.namespace for c in clients}
        assert backends == {f"{named}:cache"}
        assert {c.parts.store._claim_key("k") for c in clients} == {f"{named}:claim:k"}
        paces = [c.parts.store._pace_key for c in clients]
        assert paces == [f"{key_prefix(namespace(k, URL))}:pace" for k in (KEY, OTHER_KEY)]
        for c in clients:
            assert "pw-not-shown" not in repr(c.parts.store) + repr(c.session.cache)
    finally:
        for c in clients:
            c.close()


# -- store_path ----------------------------------------------------------------------------------


def test_store_path_beside_a_sqlite_cache():
    assert store_path(Path("leads.sqlite")) == Path("leads.store.sqlite")


def test_store_path_keeps_the_directory(tmp_path):
    assert store_path(tmp_path / "cache" / "leads.sqlite") == (
        tmp_path / "cache" / "leads.store.sqlite"
    )


def test_store_path_without_suffix_gets_sqlite():
    assert store_path(Path("leads")) == Path("leads.store.sqlite")
    assert store_path(Path("/var/cache/leads")) == Path("/var/cache/leads.store.sqlite")


# -- both stores ---------------------------------------------------------------------------------


@pytest.fixture(params=["memory", "local"])
def store(request, tmp_path):
    if request.param == "memory":
        return MemoryStore()
    return LocalStore(tmp_path / "leads.store.sqlite", NS)


def test_empty_store_has_no_jobs(store):
    assert store.jobs() == []


def test_remember_then_jobs(store):
    store.remember(JOB_A)
    assert store.jobs() == [JOB_A]
    got = store.jobs()[0]
    assert got.job_id == "job_a"
    assert got.inputs == ("ada", "grace")
    assert isinstance(got.inputs, tuple)
    assert got.submitted == 1_700_000_010.5


def test_jobs_are_ordered_by_submitted(store):
    store.remember(JOB_C)
    store.remember(JOB_A)
    store.remember(JOB_B)
    assert [j.job_id for j in store.jobs()] == ["job_a", "job_b", "job_c"]
    assert store.jobs() == [JOB_A, JOB_B, JOB_C]


def test_drop_job_removes_only_that_job(store):
    for job in (JOB_A, JOB_B, JOB_C):
        store.remember(job)
    store.drop_job("job_b")
    assert store.jobs() == [JOB_A, JOB_C]
    store.drop_job("job_a")
    store.drop_job("job_c")
    assert store.jobs() == []


def test_drop_job_of_an_unknown_id_is_a_no_op(store):
    store.drop_job("nope")  # on an empty store
    assert store.jobs() == []
    store.remember(JOB_A)
    store.drop_job("nope")
    store.drop_job("job_A")  # ids are exact
    assert store.jobs() == [JOB_A]


def test_drop_job_twice_is_a_no_op(store):
    store.remember(JOB_A)
    store.remember(JOB_B)
    store.drop_job("job_a")
    store.drop_job("job_a")
    assert store.jobs() == [JOB_B]


def test_forget_is_the_former_name_of_drop_job(store):
    store.remember(JOB_A)
    store.forget("job_a")
    assert store.jobs() == []
    assert type(store).forget is type(store).drop_job


def test_remembering_the_same_job_id_replaces_it(store):
    store.remember(JOB_A)
    store.remember(JOB_B)
    again = StoredJob("job_a", ("margaret",), submitted=1_700_000_099.0)
    store.remember(again)
    assert store.jobs() == [JOB_B, again]


def test_job_with_no_inputs_round_trips(store):
    job = StoredJob("job_empty", (), submitted=1.0)
    store.remember(job)
    assert store.jobs() == [job]


UNUSUAL = StoredJob(
    "job_'quoted\"_ü",
    (
        "zoë",
        "o'brien",
        'say "hi"',
        "日本語",
        "emoji-🎉",
        "back\\slash",
        "comma,semi;colon",
        "tab\tnew\nline",
        "'; DROP TABLE batch_jobs; --",
        "",
    ),
    submitted=1_700_000_000.125,
)


def test_unicode_and_quotes_round_trip(store):
    store.remember(UNUSUAL)
    store.remember(JOB_A)
    assert store.jobs() == [UNUSUAL, JOB_A]
    store.drop_job(UNUSUAL.job_id)
    assert store.jobs() == [JOB_A]


# -- LocalStore -------------------------------------------------------------------------------


def test_local_jobs_and_drop_job_on_a_missing_file_create_nothing(tmp_path):
    path = tmp_path / "sub" / "leads.store.sqlite"
    store = LocalStore(path, NS)
    assert store.jobs() == []
    store.drop_job("job_a")
    assert store.jobs() == []
    assert not path.exists()
    assert list(tmp_path.iterdir()) == []


def test_local_first_remember_creates_the_file(tmp_path):
    path = tmp_path / "sub" / "leads.store.sqlite"
    store = LocalStore(path, NS)
    assert not path.exists()
    store.remember(JOB_A)
    assert path.is_file()
    assert store.jobs() == [JOB_A]


def test_local_namespaces_do_not_see_each_other(tmp_path):
    path = tmp_path / "leads.store.sqlite"
    mine = LocalStore(path, namespace(KEY, URL))
    theirs = LocalStore(path, namespace(OTHER_KEY, URL))
    staging = LocalStore(path, namespace(KEY, OTHER_URL))
    mine.remember(JOB_A)
    theirs.remember(JOB_B)
    assert mine.jobs() == [JOB_A]
    assert theirs.jobs() == [JOB_B]
    assert staging.jobs() == []
    # the same job id in two namespaces: two entries, forgotten separately
    same_id = StoredJob("job_a", ("other",), submitted=5.0)
    theirs.remember(same_id)
    assert mine.jobs() == [JOB_A]
    assert theirs.jobs() == [same_id, JOB_B]
    theirs.drop_job("job_a")
    assert mine.jobs() == [JOB_A]
    assert theirs.jobs() == [JOB_B]
    mine.drop_job("job_b")
    assert theirs.jobs() == [JOB_B]


def test_local_a_later_process_sees_the_jobs(tmp_path):
    path = tmp_path / "leads.store.sqlite"
    first = LocalStore(path, NS)
    first.remember(JOB_B)
    first.remember(JOB_A)
    later = LocalStore(path, namespace(KEY, URL))
    assert later.jobs() == [JOB_A, JOB_B]
    later.drop_job("job_a")
    assert first.jobs() == [JOB_B]


def test_local_file_never_holds_the_api_key(tmp_path):
    path = tmp_path / "leads.store.sqlite"
    store = LocalStore(path, namespace(KEY, URL))
    store.remember(JOB_A)
    store.remember(UNUSUAL)
    store.drop_job("job_a")
    store.remember(JOB_B)
    store.mark_checked(["answer-key-of-ada"], 1_700_000_000.0)
    store.mark_acted(["event-key-of-ada-joined"])
    files = [p for p in (path, Path(f"{path}-wal")) if p.exists()]
    data = b"".join(p.read_bytes() for p in files)
    assert NS.encode() in data  # what is stored is the namespace, and we read it
    assert b"linus" in data
    assert b"answer-key-of-ada" in data and b"event-key-of-ada-joined" in data  # the marks
    assert KEY.encode() not in data
    assert KEY[8:24].encode() not in data
    assert URL.encode() not in data


# -- open_store ----------------------------------------------------------------------------------


def test_open_store_without_a_cache_is_in_memory():
    store = open_store(None, NS)
    assert isinstance(store, MemoryStore)
    other = open_store(None, NS)
    store.remember(JOB_A)
    assert store.jobs() == [JOB_A]
    assert other.jobs() == []  # each Client keeps its own


def test_open_store_with_a_cache_is_a_file_beside_it(tmp_path):
    cache = tmp_path / "leads.sqlite"
    store = open_store(cache, NS)
    assert isinstance(store, LocalStore)
    assert store.path == tmp_path / "leads.store.sqlite"
    assert not store.path.exists()
    store.remember(JOB_A)
    assert store.path.is_file()
    assert not cache.exists()
    assert LocalStore(store_path(cache), NS).jobs() == [JOB_A]
    assert LocalStore(store_path(cache), namespace(OTHER_KEY, URL)).jobs() == []


ERASE_NS = namespace("lk_live_UnitTestKeyForCacheAdmin", "http://service.test")
ERASE_OTHER_NS = namespace("lk_live_AnotherKeyForCacheAdmin", "http://service.test")


# -- erasure (what cache.admin forget and clear ask of the stores) ------------------------------


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
    mine, other = LocalStore(path, ERASE_NS), LocalStore(path, ERASE_OTHER_NS)
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
    store = LocalStore(path, ERASE_NS)
    assert store.drop_inputs(lambda h: True, every_namespace=True) == []
    assert store.clear_jobs(every_namespace=True) == 0
    assert store.count_jobs() == 0 and store.job("x") is None
    assert not path.exists()


@pytest.mark.parametrize("secure", [False, True])
def test_local_store_erasure_leaves_no_old_text_in_the_file(tmp_path, secure):
    """Where SQLite keeps deleted text by default (secure_delete off: macOS, python.org
    builds), the store still overwrites what it erases; without that, the text stays."""
    path = tmp_path / "c.store.sqlite"
    store = LocalStore(path, ERASE_NS)
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


# -- marks: answers checked, job changes acted on (both stores) ---------------------------------


class Clock:
    """Seconds since the epoch that move only when the test moves them."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(params=["memory", "local"])
def marked(request, tmp_path, clock):
    """A store on the fake clock: in memory, or a SQLite file."""
    if request.param == "memory":
        yield MemoryStore(clock=clock)
        return
    store = LocalStore(tmp_path / "leads.store.sqlite", NS, clock=clock)
    yield store
    store.close()


def test_no_answer_is_checked_and_no_change_acted_on_at_first(marked):
    assert marked.checked_at(["k1", "k2"]) == {}
    assert marked.acted_changes(["e1"]) == set()
    assert marked.checked_at([]) == {} and marked.acted_changes([]) == set()


def test_checked_marks_are_read_back_by_key(marked):
    marked.mark_checked(["k1", "k2", "k1"], 1_700_000_100.5)
    assert marked.checked_at(["k1", "k2", "k3"]) == {"k1": 1_700_000_100.5, "k2": 1_700_000_100.5}
    assert marked.checked_at(["k2"]) == {"k2": 1_700_000_100.5}


def test_a_checked_mark_moves_forward_never_back(marked):
    marked.mark_checked(["k1"], 200.0)
    marked.mark_checked(["k1"], 300.0)
    assert marked.checked_at(["k1"]) == {"k1": 300.0}
    marked.mark_checked(["k1", "k2"], 250.0)  # an older check, written late by another process
    assert marked.checked_at(["k1", "k2"]) == {"k1": 300.0, "k2": 250.0}


def test_acted_changes_are_those_marked(marked):
    marked.mark_acted(["e1", "e2"])
    marked.mark_acted(["e2"])  # twice is once
    assert marked.acted_changes(["e1", "e2", "e3"]) == {"e1", "e2"}
    assert marked.checked_at(["e1"]) == {}  # the two kinds of mark are apart
    marked.mark_checked(["k1"], 1.0)
    assert marked.acted_changes(["k1"]) == set()


def test_marks_are_kept_366_days_from_when_they_were_written(marked, clock):
    assert MARKS_KEPT_SECONDS == 366 * 86400
    marked.mark_checked(["k1"], clock.now - 5 * 86400)  # a check of five days ago, marked now
    marked.mark_acted(["e1"])
    clock.now += MARKS_KEPT_SECONDS - 1
    assert marked.checked_at(["k1"]) == {"k1": 1_700_000_000.0 - 5 * 86400}
    assert marked.acted_changes(["e1"]) == {"e1"}
    marked.mark_acted(["e2"])  # written later: kept 366 days from now
    clock.now += 2
    assert marked.checked_at(["k1"]) == {} and marked.acted_changes(["e1", "e2"]) == {"e2"}


def test_marking_again_keeps_a_mark_another_366_days(marked, clock):
    marked.mark_checked(["k1"], clock.now)
    marked.mark_acted(["e1"])
    clock.now += 300 * 86400
    marked.mark_checked(["k1"], 5.0)  # older than the mark: the mark stays, and is kept longer
    marked.mark_acted(["e1"])
    clock.now += 300 * 86400
    assert marked.checked_at(["k1"]) == {"k1": 1_700_000_000.0}
    assert marked.acted_changes(["e1"]) == {"e1"}


def test_clearing_the_jobs_clears_the_marks(marked):
    marked.remember(JOB_A)
    marked.mark_checked(["k1"], 1.0)
    marked.mark_acted(["e1"])
    assert marked.clear_jobs() == 1
    assert marked.checked_at(["k1"]) == {} and marked.acted_changes(["e1"]) == set()


def test_many_keys_are_read_in_one_call(marked):
    keys = [f"k{i}" for i in range(1_234)]  # more than one SQLite query holds
    marked.mark_checked(keys[::2], 7.0)
    marked.mark_acted(keys[1::2])
    assert marked.checked_at(keys) == dict.fromkeys(keys[::2], 7.0)
    assert marked.acted_changes(keys) == set(keys[1::2])


# -- marks: LocalStore ---------------------------------------------------------------------------


def test_local_marks_are_shared_by_store_objects_on_one_file_per_namespace(tmp_path):
    path = tmp_path / "leads.store.sqlite"
    first, later, other = LocalStore(path, NS), LocalStore(path, NS), LocalStore(path, "other")
    first.mark_checked(["k1"], 10.0)
    first.mark_acted(["e1"])
    assert later.checked_at(["k1"]) == {"k1": 10.0} and later.acted_changes(["e1"]) == {"e1"}
    assert other.checked_at(["k1"]) == {} and other.acted_changes(["e1"]) == set()
    for store in (first, later, other):
        store.close()


def test_local_marks_read_on_a_missing_file_create_nothing(tmp_path):
    path = tmp_path / "none.store.sqlite"
    store = LocalStore(path, NS)
    assert store.checked_at(["k1"]) == {} and store.acted_changes(["e1"]) == set()
    store.mark_checked([], 1.0)
    store.mark_acted([])
    assert not path.exists()


def test_local_marks_past_keeping_are_deleted_when_marks_are_written(tmp_path, clock):
    path = tmp_path / "leads.store.sqlite"
    store = LocalStore(path, NS, clock=clock)
    store.mark_checked(["k1", "k2"], 1.0)
    store.mark_acted(["e1"])
    clock.now += MARKS_KEPT_SECONDS + 1
    store.mark_acted(["e2"])

    def rows() -> list[str]:
        with sqlite3.connect(path) as conn:
            return sorted(k for (k,) in conn.execute("SELECT key FROM marks").fetchall())

    assert rows() == ["e2"]
    store.close()


def test_local_clear_jobs_clears_marks_per_namespace_or_all(stores):
    mine, other, _ = stores
    mine.mark_checked(["k1"], 1.0)
    other.mark_checked(["k1"], 2.0)
    other.mark_acted(["e1"])
    mine.clear_jobs()
    assert mine.checked_at(["k1"]) == {} and other.checked_at(["k1"]) == {"k1": 2.0}
    mine.clear_jobs(every_namespace=True)
    assert other.checked_at(["k1"]) == {} and other.acted_changes(["e1"]) == set()


# -- a service's batch speed -------------------------------------------------------------------


@pytest.fixture(params=["memory", "local"])
def paced(request, tmp_path, clock):
    """Two store objects of two keys on one file (or one memory store), on the fake clock."""
    if request.param == "memory":
        store = MemoryStore(clock=clock)
        yield store, store
        return
    path = tmp_path / "c.store.sqlite"
    mine = LocalStore(path, namespace(KEY, URL), clock=clock)
    other = LocalStore(path, namespace(OTHER_KEY, URL), clock=clock)
    yield mine, other
    mine.close()
    other.close()


def test_a_services_batch_speed_is_kept_per_base_url_for_every_key(paced):
    mine, other = paced
    service = service_namespace(URL)
    assert mine.resolve_rate(service) is None  # nothing seen: the estimate assumes one
    mine.keep_resolve_rate(service, 10.0)
    assert other.resolve_rate(service) == 10.0  # another key on the same service
    assert other.resolve_rate(service_namespace(OTHER_URL)) is None  # another service: not
    other.keep_resolve_rate(service, 250.5)  # the latest seen replaces it
    assert mine.resolve_rate(service) == 250.5


def test_a_services_batch_speed_goes_stale(paced, clock):
    mine, _ = paced
    service = service_namespace(URL)
    mine.keep_resolve_rate(service, 10.0)
    clock.now += RESOLVE_RATE_KEPT_SECONDS - 1
    assert mine.resolve_rate(service) == 10.0
    clock.now += 2  # a week on: the service's load or deployment may have changed it
    assert mine.resolve_rate(service) is None


def test_the_service_name_holds_neither_the_key_nor_the_url():
    name = service_namespace(URL)
    assert name == service_namespace(URL) != service_namespace(OTHER_URL)
    assert "example" not in name and len(name) == 32
    assert name not in (namespace(KEY, URL), namespace("", URL))
