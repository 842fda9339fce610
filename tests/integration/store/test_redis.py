"""cache="redis://...": the cache, the pace, the claims, the batch jobs and marks in one real Redis.

A real ``redis-server`` on a free loopback port (``redis_fixture``) and the emulator: the
RedisStore's own contract across two store objects (two "machines"), its marks (answers
checked, job changes acted on: shared with the answers' namespace, a TTL of 366 days, one
round trip a call, cleared with the jobs, adopted by a team's namespace), separate OS processes
sharing one Redis (every handle paid once, few 429s, a later process sends nothing), what is
in Redis (no API key, nothing pickled), an answer renewed (its TTL follows) or asked for as
stored since a time (bought once between machines), and a Redis that is unreachable or dies
mid-run.
"""

from __future__ import annotations

import json
import logging
import os
import pathlib
import pickle
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

import pandas as pd
import pytest
import redis

import lookup_pandas as lp
from lookup_pandas import ConfigurationError
from lookup_pandas.http.decisions import Call
from lookup_pandas.identifiers.kinds import PEOPLE
from lookup_pandas.service.paths import PROFILE_PATH
from lookup_pandas.store import (
    BUSY,
    MARKS_KEPT_SECONDS,
    MINE,
    RECHECK,
    RESOLVE_RATE_KEPT_SECONDS,
    StoredJob,
    named_namespace,
    namespace,
    service_namespace,
)
from lookup_pandas.store.redis import Namespaces, RedisStore, namespaces
from lookup_pandas.store.redis_connection import key_prefix
from lookup_pandas.testing import FakeService

from ..helpers import PROFILE, FailFirst, make_client, server_error, wait_for_count
from ..redis_fixture import RedisServer, free_port

pytestmark = pytest.mark.timeout(300)

NS = namespace("lk_test_not_a_real_key", "http://127.0.0.1:1")
OTHER_NS = namespace("lk_test_another_key", "http://127.0.0.1:1")
PASSWORD = "Pa55-w0rd-n0t-for-printing"


@pytest.fixture
def stores(redis_url: str) -> Iterator[tuple[RedisStore, RedisStore]]:
    """Two store objects on one namespace: two machines sharing the key."""
    a, b = RedisStore(redis_url, Namespaces(NS, NS)), RedisStore(redis_url, Namespaces(NS, NS))
    yield a, b
    a.close()
    b.close()


class Slot(NamedTuple):
    """Where on the wall clock a reserved slot starts: the store answers "wait this long" on
    its own clock at some moment of the call, so the start lies between the call's start plus
    the wait and its end plus the wait (a loaded machine widens the span, never moves it)."""

    earliest: float
    latest: float


def slot(call: Any) -> Slot:
    """The slot that ``call()`` (a reserve, or a defer's None: its moment) took."""
    before = time.time()
    wait = call() or 0.0
    return Slot(before + wait, time.time() + wait)


def apart(first: Slot, then: Slot, seconds: float, within: float = 0.05) -> bool:
    """Whether ``then`` can start ``seconds`` (give or take ``within``) after ``first``."""
    return then.earliest - first.latest - within <= seconds <= then.latest - first.earliest + within


# -- the pace ----------------------------------------------------------------------------------


def test_reserve_spaces_slots_by_the_interval_across_two_stores(stores):
    a, b = stores
    starts = [slot(lambda s=s: s.reserve(0.2)) for s in (a, b, a, b, a)]
    assert all(apart(x, y, 0.2) for x, y in zip(starts, starts[1:], strict=False)), starts
    assert apart(starts[0], slot(lambda: a.reserve(0.2)), 1.0)  # the sixth: a second later


def test_defer_pushes_every_later_slot(stores):
    a, b = stores
    assert a.reserve(0.1) == 0.0  # the first slot is now
    deferred = slot(lambda: b.defer(1.0))  # a 429 said Retry-After: 1 -> nobody, anywhere, before
    assert apart(deferred, slot(lambda: a.reserve(0.1)), 1.0)
    assert apart(deferred, slot(lambda: b.reserve(0.1)), 1.1)
    b.defer(0.2)  # a shorter deferral never brings the schedule forward
    assert apart(deferred, slot(lambda: a.reserve(0.1)), 1.2)


def test_slow_to_sets_a_floor_for_everyone_until_it_expires(stores):
    a, b = stores
    a.slow_to(0.5, seconds=0.4)
    starts = [slot(lambda s=s: s.reserve(0.01)) for s in (b, a, b)]
    assert all(apart(x, y, 0.5) for x, y in zip(starts, starts[1:], strict=False)), starts
    a.slow_to(0.3)  # a faster pace does not override a slower one still in force
    time.sleep(max(0.0, starts[-1].latest - time.time()) + 0.6)  # past the slots and the floor
    first, second = slot(lambda: a.reserve(0.01)), slot(lambda: b.reserve(0.01))
    assert second.earliest - first.latest < 0.1  # the floor of 0.5 s has expired


def test_the_pace_lives_under_the_namespace_with_an_expiry(stores, redis_server):
    a, _ = stores
    a.reserve(0.5)
    with redis_server.client() as conn:
        pace = f"{key_prefix(NS)}:pace"
        assert conn.type(pace) == b"hash"
        assert set(conn.hgetall(pace)) == {b"next", b"deferred", b"floor", b"floor_until"}
        assert 0 < conn.pttl(pace) <= 301_000  # a few minutes past the slot, then gone


def test_namespaces_do_not_share_a_pace_or_claims(redis_url):
    mine = RedisStore(redis_url, Namespaces(NS, NS))
    other = RedisStore(redis_url, Namespaces(OTHER_NS, OTHER_NS))
    mine.defer(30)
    assert mine.reserve(0.1) > 25
    assert other.reserve(0.1) == pytest.approx(0.0, abs=0.05)
    assert mine.claim_many(["k"], 60) == {"k": MINE}
    assert other.claim_many(["k"], 60) == {"k": MINE}
    mine.remember(StoredJob("job_1", ("ada",), 1.0))
    assert other.jobs() == []


def test_a_services_batch_speed_is_shared_by_every_key_and_expires(redis_url, redis_server):
    mine = RedisStore(redis_url, Namespaces(NS, NS))
    other = RedisStore(redis_url, Namespaces(OTHER_NS, OTHER_NS))
    service = service_namespace("http://127.0.0.1:1")
    assert other.resolve_rate(service) is None
    mine.keep_resolve_rate(service, 12.5)
    assert other.resolve_rate(service) == 12.5  # by base URL: another key reads it
    assert other.resolve_rate(service_namespace("http://127.0.0.1:2")) is None
    with redis_server.client() as conn:
        key = f"{key_prefix(service)}:resolve-rate"
        assert conn.get(key) == b"12.5"
        assert RESOLVE_RATE_KEPT_SECONDS - 60 < conn.ttl(key) <= RESOLVE_RATE_KEPT_SECONDS
        assert service not in namespaces(conn, redis_url)  # no namespace of answers
        conn.set(key, b"garbled")
    assert other.resolve_rate(service) is None  # not a figure: none
    mine.close()
    other.close()


# -- claims ------------------------------------------------------------------------------------


def test_claims_mine_busy_then_recheck_after_release(stores):
    a, b = stores
    assert a.claim_many(["k1", "k2"], 60) == {"k1": MINE, "k2": MINE}
    assert b.claim_many(["k1", "k3"], 60) == {"k1": BUSY, "k3": MINE}
    assert a.claim_many(["k1"], 60) == {"k1": MINE}  # its own claim: MINE again
    a.release_many(["k1"])
    assert b.claim_many(["k1"], 60) == {"k1": RECHECK}  # just fetched: read the cache first
    assert a.claim_many(["k1"], 60) == {"k1": BUSY}  # b holds it now


def test_an_expired_claim_is_taken_over(stores):
    a, b = stores
    assert a.claim_many(["k"], 0.2) == {"k": MINE}
    assert b.claim_many(["k"], 60) == {"k": BUSY}
    time.sleep(0.35)  # a died without letting go
    assert b.claim_many(["k"], 60) == {"k": MINE}


def test_a_live_claim_of_a_holder_gone_is_taken_over_at_once_as_recheck(stores, redis_server):
    # Issue 42, items 3 and 4: a dead run's claims are not waited on for their TTL, and the
    # taker reads the cache first (the holder may have stored the answer before it died).
    a, b = stores
    dead = f"{socket.gethostname()}|{2**22 + 1}|1|dead"  # above Linux's largest pid
    elsewhere = "another-machine|1|1|x"  # judged by expiry only
    with redis_server.client() as conn:
        conn.set(f"{key_prefix(NS)}:claim:dead", dead, px=600_000)
        conn.set(f"{key_prefix(NS)}:claim:far", elsewhere, px=600_000)
    a.claim_many(["live"], 60)
    states = b.claim_many(["dead", "far", "live", "new"], 600)
    assert states == {"dead": RECHECK, "far": BUSY, "live": BUSY, "new": MINE}
    with redis_server.client() as conn:
        assert conn.get(f"{key_prefix(NS)}:claim:dead") == b._holder.encode()
        assert conn.get(f"{key_prefix(NS)}:claim:far") == elsewhere.encode()
        assert conn.pttl(f"{key_prefix(NS)}:claim:dead") > 500_000  # b's ttl
    assert b.claim_many(["dead"], 60) == {"dead": MINE}  # b's own now
    assert a.claim_many(["dead"], 60) == {"dead": BUSY}


def test_renew_extends_only_the_holders_own_claims(stores, redis_server):
    a, b = stores
    a.claim_many(["k"], 0.3)
    b.renew(["k"], 60)  # not b's claim: untouched
    with redis_server.client() as conn:
        assert conn.pttl(f"{key_prefix(NS)}:claim:k") <= 300
    a.renew(["k"], 60)
    time.sleep(0.45)
    assert b.claim_many(["k"], 60) == {"k": BUSY}  # renewed past its first ttl


def test_release_lets_go_only_of_the_holders_own_claims(stores):
    a, b = stores
    a.claim_many(["k"], 60)
    b.release_many(["k"])  # not b's: a still holds it
    assert b.claim_many(["k"], 60) == {"k": BUSY}
    a.release_many(["k", "never-claimed"])
    assert b.claim_many(["k", "never-claimed"], 60) == {"k": RECHECK, "never-claimed": MINE}


def test_a_claim_let_go_of_without_buying_is_mine_for_the_next_at_once(stores):
    a, b = stores
    a.claim_many(["k"], 60)
    b.release_many(["k"], bought=False)  # not b's: a still holds it
    assert b.claim_many(["k"], 60) == {"k": BUSY}
    a.release_many(["k"], bought=False)  # a failure: nothing in the cache to read
    assert b.claim_many(["k"], 60) == {"k": MINE}


def test_claim_many_handles_thousands_of_keys(stores, redis_server):
    a, b = stores
    keys = [f"key{i:05d}" for i in range(2500)]
    assert set(a.claim_many(keys, 60).values()) == {MINE}
    assert set(b.claim_many(keys[::2], 60).values()) == {BUSY}
    a.release_many(keys)
    assert set(b.claim_many(keys, 60).values()) == {RECHECK}
    with redis_server.client() as conn:
        assert conn.get(f"{key_prefix(NS)}:claim:{keys[-1]}") == b._holder.encode()


# -- marks: answers checked, job changes acted on ------------------------------------------------

TEAM = named_namespace("acme-sales", "http://127.0.0.1:1")


def test_marks_are_shared_by_every_machine_and_kept_366_days(stores, redis_server):
    a, b = stores
    assert a.checked_at(["k1"]) == {} and a.acted_changes(["e1"]) == set()
    a.mark_checked(["k1", "k2"], 1_700_000_100.25)
    b.mark_acted(["e1"])
    assert b.checked_at(["k1", "k2", "k3"]) == {"k1": 1_700_000_100.25, "k2": 1_700_000_100.25}
    assert a.acted_changes(["e1", "e2"]) == {"e1"}
    with redis_server.client() as conn:
        for name in (f"{key_prefix(NS)}:mark:checked:k1", f"{key_prefix(NS)}:mark:acted:e1"):
            assert MARKS_KEPT_SECONDS - 60 < conn.ttl(name) <= MARKS_KEPT_SECONDS


def test_a_checked_mark_moves_forward_never_back_and_is_kept_longer(stores, redis_server):
    a, b = stores
    a.mark_checked(["k1"], 300.0)
    with redis_server.client() as conn:
        conn.expire(f"{key_prefix(NS)}:mark:checked:k1", 60)  # as if written long ago
        b.mark_checked(["k1", "k2"], 250.0)  # an older check, written late by another machine
        assert conn.ttl(f"{key_prefix(NS)}:mark:checked:k1") > MARKS_KEPT_SECONDS - 60
    assert a.checked_at(["k1", "k2"]) == {"k1": 300.0, "k2": 250.0}
    b.mark_checked(["k1"], 400.5)
    assert a.checked_at(["k1"]) == {"k1": 400.5}


def test_marks_of_thousands_of_keys_take_one_round_trip_a_call(stores, monkeypatch):
    a, _ = stores
    keys = [f"key{i:05d}" for i in range(2500)]
    a.mark_checked(keys[:1], 1.0)  # the script is loaded once: later calls send only EVALSHA
    sent: list[int] = []
    original = redis.connection.Connection.send_packed_command

    def counted(self, command, check_health=True):
        sent.append(1)
        return original(self, command, check_health)

    monkeypatch.setattr(redis.connection.Connection, "send_packed_command", counted)
    calls = [
        lambda: a.mark_checked(keys, 2.0),
        lambda: a.mark_acted(keys),
        lambda: a.checked_at(keys),
        lambda: a.acted_changes(keys),
    ]
    for call in calls:
        sent.clear()
        call()
        assert len(sent) == 1
    monkeypatch.undo()
    assert a.checked_at(keys) == dict.fromkeys(keys, 2.0)
    assert a.acted_changes(keys + ["never"]) == set(keys)


def test_marks_go_with_the_answers_namespace_and_are_cleared_with_the_jobs(redis_url):
    mine = RedisStore(redis_url, Namespaces(NS, TEAM))
    colleague = RedisStore(redis_url, Namespaces(OTHER_NS, TEAM))
    alone = RedisStore(redis_url, Namespaces(OTHER_NS, OTHER_NS))
    mine.mark_checked(["k1"], 5.0)
    mine.mark_acted(["e1"])
    assert colleague.checked_at(["k1"]) == {"k1": 5.0}  # the team's, as its answers are
    assert colleague.acted_changes(["e1"]) == {"e1"}
    assert alone.checked_at(["k1"]) == {} and alone.acted_changes(["e1"]) == set()
    alone.mark_checked(["k1"], 6.0)
    colleague.clear_jobs()
    assert mine.checked_at(["k1"]) == {} and mine.acted_changes(["e1"]) == set()
    assert alone.checked_at(["k1"]) == {"k1": 6.0}  # another namespace: kept
    alone.clear_jobs(every_namespace=True)
    assert alone.checked_at(["k1"]) == {}
    for store in (mine, colleague, alone):
        store.close()


def test_a_keys_own_marks_move_into_the_team_namespace_it_names(redis_url, redis_server):
    own = RedisStore(redis_url, Namespaces(NS, NS))
    own.mark_checked(["k1"], 5.0)
    own.mark_acted(["e1"])
    named = RedisStore(redis_url, Namespaces(NS, TEAM))
    assert named.checked_at(["k1"]) == {"k1": 5.0}
    assert named.acted_changes(["e1"]) == {"e1"}
    with redis_server.client() as conn:
        assert list(conn.scan_iter(match=f"{key_prefix(NS)}:mark:*")) == []
        assert conn.ttl(f"{key_prefix(TEAM)}:mark:acted:e1") > MARKS_KEPT_SECONDS - 60
    own.close()
    named.close()


# -- batch jobs --------------------------------------------------------------------------------


def test_jobs_are_remembered_listed_in_submit_order_and_forgotten(stores, redis_server):
    a, b = stores
    later = StoredJob("job_b", ("linus",), submitted=1_700_000_020.25)
    first = StoredJob("job_a", ("ada", "grace"), submitted=1_700_000_010.5)
    a.remember(later)
    a.remember(first)
    assert b.jobs() == [first, later]  # another machine sees them
    b.drop_job("job_a")
    b.drop_job("job_unknown")  # not stored: nothing happens
    assert a.jobs() == [later]
    with redis_server.client() as conn:
        conn.hset(f"{key_prefix(NS)}:jobs", "job_bad", b"not json")
        raw = json.loads(conn.hget(f"{key_prefix(NS)}:jobs", "job_b"))
    assert raw == {"inputs": ["linus"], "submitted": 1_700_000_020.25}
    assert a.jobs() == [later]  # an unreadable entry is skipped, not fatal


# -- separate processes sharing one Redis --------------------------------------------------------

WORKER = r"""
import json, sys
import pandas as pd
import lookup_pandas as lp

handles = json.load(open(sys.argv[1]))
method = sys.argv[2]
with lp.Client(backoff_base=0.01, backoff_max=0.2, retry_after_max=2.0,
               batch_poll_interval=0.05) as client:
    out = pd.DataFrame({"handle": handles}).lookup.enrich_profiles(
        "handle", client=client, method=method, progress=False)
    wrong = out[(out["lookup_status"] != "ok") | (out["profile_handle"] != out["handle"])]
    print(json.dumps({"rows": len(out), "wrong": wrong["handle"].tolist(),
                      "sent": client.stats.sent}))
"""


def worker_env(svc: FakeService, cache: str, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LOOKUP_", "XDG_"))}
    home.mkdir(parents=True, exist_ok=True)
    env.update(
        HOME=str(home),
        LOOKUP_BASE_URL=svc.base_url,
        LOOKUP_API_KEY=svc.api_key,
        LOOKUP_CACHE=cache,
    )
    return env


def run_workers(
    svc: FakeService, cache: str, tmp_path: Path, lists: list[list[str]], method: str
) -> list[dict[str, Any]]:
    """One OS process per list, each with its own HOME, all at once; their JSON reports."""
    procs = []
    tmp_path.mkdir(parents=True, exist_ok=True)
    for i, handles in enumerate(lists):
        path = tmp_path / f"list{i}-{method}.json"
        path.write_text(json.dumps(handles))
        procs.append(
            subprocess.Popen(
                [sys.executable, "-c", WORKER, str(path), method],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=worker_env(svc, cache, tmp_path / f"home{i}"),
            )
        )
    reports = []
    try:
        for proc in procs:
            out, err = proc.communicate(timeout=180)
            assert proc.returncode == 0, err
            assert "Traceback" not in err, err
            reports.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    return reports


def overlapping(tag: str, n_lists: int = 3, own: int = 100, shared: int = 100) -> list[list[str]]:
    """``n_lists`` lists: ``shared`` handles in every one, interleaved with ``own`` of its own."""
    common = [f"{tag}-all{i:03d}" for i in range(shared)]
    lists = []
    for n in range(n_lists):
        mine = [f"{tag}-p{n}-{i:03d}" for i in range(own)]
        lists.append([h for pair in zip(common, mine, strict=True) for h in pair])
    return lists


@pytest.mark.parametrize("method", ["single", "auto"])
def test_processes_sharing_one_redis_pay_each_handle_once(
    fake_service, redis_url, tmp_path, method
):
    svc = fake_service
    # A tight limit, enforced smoothly: three processes pacing on their own would each send
    # at 95% of it (most calls answered 429); one shared pace keeps them all under it.
    svc.configure(rate_limit_per_minute=3000, rate_burst=5)
    lists = overlapping(method)
    everything = {h for handles in lists for h in handles}

    reports = run_workers(svc, redis_url, tmp_path, lists, method)

    for report, handles in zip(reports, lists, strict=True):
        assert report["rows"] == len(handles)
        assert report["wrong"] == []
    billed = svc.billed_handles()
    assert set(billed) == everything
    twice = {h: n for h, n in billed.items() if n != 1}
    assert twice == {}, twice
    assert svc.count(status=429) <= 0.05 * svc.count(), (svc.count(status=429), svc.count())

    # A further process, on another "machine" (its own HOME), wants all of it: Redis has it.
    sent = svc.count()
    (again,) = run_workers(svc, redis_url, tmp_path / "again", [sorted(everything)], method)
    assert again["wrong"] == [] and again["sent"] == 0
    assert svc.count() == sent


# -- what Redis holds ----------------------------------------------------------------------------


def everything_in(conn: Any) -> dict[bytes, list[bytes]]:
    """Every key (SCAN, never KEYS) and the values it holds, read by its TYPE."""
    found: dict[bytes, list[bytes]] = {}
    for key in conn.scan_iter(count=500):
        kind = conn.type(key)
        if kind == b"string":
            values = [conn.get(key)]
        elif kind == b"hash":
            values = [x for pair in conn.hgetall(key).items() for x in pair]
        elif kind == b"list":
            values = conn.lrange(key, 0, -1)
        elif kind == b"set":
            values = list(conn.smembers(key))
        elif kind == b"zset":
            values = conn.zrange(key, 0, -1)
        elif kind == b"none":  # expired between SCAN and TYPE
            continue
        else:
            pytest.fail(f"unexpected {kind!r} at {key!r}")
        found[key] = [v for v in values if v is not None]
    return found


def fill(svc: FakeService, url: str) -> None:
    """Answers of every kind in Redis: single lookups, a not-found, batch results, the pace,
    claims (some released, one still held), a stored job, and marks (checked, acted on)."""
    svc.configure(rate_limit_per_minute=60000)
    with make_client(svc, cache=url) as client:
        frame = pd.DataFrame({"handle": [f"fill{i}" for i in range(30)] + ["unknown-zed"]})
        frame.lookup.enrich_profiles("handle", client=client, method="single", progress=False)
        more = pd.DataFrame({"handle": [f"batch{i}" for i in range(40)]})
        more.lookup.enrich_profiles("handle", client=client, method="batch", progress=False)
        client.parts.store.remember(StoredJob("job_kept", ("ada",), time.time()))
        client.parts.store.claim_many(["held-claim"], 60)
        checked = list(client.parts.cache.keys(["fill0", "fill1"], PEOPLE).values())
        client.parts.store.mark_checked(checked, time.time())
        client.parts.store.mark_acted(["event-key-of-fill2"])


def test_the_api_key_is_in_no_redis_key_or_value(fake_service, redis_url, redis_server):
    svc = fake_service
    fill(svc, redis_url)
    with redis_server.client() as conn:
        stored = everything_in(conn)
    assert any(b":cache:" in k for k in stored)
    assert any(k.endswith(b":pace") for k in stored)
    assert any(b":claim:" in k for k in stored)
    assert any(k.endswith(b":jobs") for k in stored)
    assert any(b":mark:checked:" in k for k in stored)
    assert any(b":mark:acted:" in k for k in stored)
    secret = svc.api_key.encode()
    for key, values in stored.items():
        assert key.startswith(b"lookup_pandas:"), key  # nothing outside the prefix
        assert secret not in key
        for value in values:
            assert secret not in value, key
    for key, values in stored.items():  # the redacted headers really are the request's
        if b":cache:" in key:
            request = json.loads(values[0])["request"]
            assert request["headers"].get("X-service-apikey") == "REDACTED"


def test_nothing_in_redis_is_a_pickle_and_answers_are_json(fake_service, redis_url, redis_server):
    fill(fake_service, redis_url)
    with redis_server.client() as conn:
        stored = everything_in(conn)
    answers = [k for k in stored if b":cache:" in k and not k.endswith(b"-redirects")]
    assert answers, sorted(stored)  # the check below must have answers to read
    for key, values in stored.items():
        for value in values:
            assert not value.startswith(b"\x80"), key  # pickle's protocol marker
    for key in answers:
        answer = json.loads(stored[key][0])
        assert answer["status_code"] == 200


class _Planted:
    """Unpickling this creates a file: proof of code run by whoever could write to Redis."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (pathlib.Path.touch, (self.marker,))


def test_a_pickle_planted_in_redis_is_never_unpickled(
    fake_service, redis_url, redis_server, tmp_path
):
    svc = fake_service
    marker = tmp_path / "pwned"
    with make_client(svc, cache=redis_url) as client:
        (key,) = client.parts.cache.keys(["ada"], PEOPLE).values()
        ns = namespace(svc.api_key, svc.base_url)
        with redis_server.client() as conn:
            conn.set(f"{key_prefix(ns)}:cache:{key}", pickle.dumps(_Planted(marker)))
        record = client.profile("ada")  # the planted value is no answer: fetched anew
        assert record is not None and record["handle"] == "ada"
    assert not marker.exists()
    assert svc.billed(PROFILE, handle="ada") == 1
    with redis_server.client() as conn:
        json.loads(conn.get(f"{key_prefix(ns)}:cache:{key}"))  # replaced by the JSON answer


def test_errors_are_not_stored_and_entries_expire_by_their_own_ttl(
    fake_service, redis_url, redis_server
):
    svc = fake_service
    svc.override(PROFILE, FailFirst(2, server_error))
    with make_client(svc, cache=redis_url, max_retries=1, expire_after=120) as client:
        with pytest.raises(lp.ServerError):
            client.profile("ada")  # two 500s: the retries ran out
        assert client.profile("ada") is not None
    with redis_server.client() as conn:
        cached = [k for k in conn.scan_iter(match="lookup_pandas:*:cache:*")]
        assert len(cached) == 1  # the answer; not the 500
        assert 0 < conn.ttl(cached[0]) <= 120 + 3600  # expire_after + requests-cache's offset


def test_a_renewed_answer_keeps_when_it_was_bought_and_its_ttl_follows(
    fake_service, redis_url, redis_server
):
    svc = fake_service
    with make_client(svc, cache=redis_url, expire_after=60) as client:
        client.profile("ada")
    week = 7 * 86400
    with make_client(svc, cache=redis_url, expire_after=week) as client:
        cache = client.parts.cache
        (key,) = client.parts.cache.keys(["ada"], PEOPLE).values()
        name = f"{key_prefix(namespace(svc.api_key, svc.base_url))}:cache:{key}"
        stored = cache.stored_answer(PROFILE, {"handle": "ada"})
        assert stored is not None and stored[0] is not None
        with redis_server.client() as conn:
            assert conn.ttl(name) <= 60 + 3600
            assert cache.renew(PROFILE, [key]) == 1
            assert week < conn.ttl(name) <= week + 3600  # the entry's TTL follows its expiry
            kept = json.loads(conn.get(name))
        assert cache.stored_answer(PROFILE, {"handle": "ada"})[1:] == (stored[1], False)
        assert kept["created_at"] == stored[1].isoformat()
        assert cache.renew(PROFILE, client.parts.cache.keys(["nobody"], PEOPLE).values()) == 0
    assert svc.count(PROFILE) == 1  # renewing sends nothing


def test_machines_asking_for_answers_stored_since_a_time_buy_each_once(fake_service, redis_url):
    """fresh_after on Redis: an older answer is bought anew once between the Clients."""
    svc = fake_service
    handles = [f"moved-{i}" for i in range(6)]
    clients = [make_client(svc, cache=redis_url) for _ in range(2)]
    try:
        for h in handles:
            clients[0].profile(h)
        since = time.time()
        start = threading.Barrier(2)

        def ask(client: lp.Client) -> list[bool]:
            start.wait(timeout=30)
            return [
                client.parts.sender.request(
                    Call(PROFILE_PATH, {"handle": h}, fresh_after=since)
                ).from_cache
                for h in handles
            ]

        with ThreadPoolExecutor(2) as pool:
            results = list(pool.map(ask, clients))
    finally:
        for c in clients:
            c.close()
    assert {h: svc.billed(PROFILE, handle=h) for h in handles} == dict.fromkeys(handles, 2)
    assert [a + b for a, b in zip(*results, strict=True)] == [1] * len(handles)


# -- a Redis that is not there, or goes away ----------------------------------------------------


def test_an_unreachable_redis_is_a_configuration_error_at_the_first_call(fake_service, caplog):
    caplog.set_level(logging.DEBUG)
    svc = fake_service
    url = f"redis://:{PASSWORD}@127.0.0.1:{free_port()}/0"  # nothing listens there
    client = make_client(svc, cache=url)  # building it connects to nothing
    try:
        assert PASSWORD not in repr(client)
        assert PASSWORD not in repr(client.settings)
        assert "redis://:***@127.0.0.1" in repr(client)
        started = time.monotonic()
        with pytest.raises(ConfigurationError) as caught:
            client.profile("ada")
        assert time.monotonic() - started < 20
        message = str(caught.value)
        assert f"redis://:***@127.0.0.1:{url.rsplit(':', 1)[1]}" in message
        assert PASSWORD not in message and PASSWORD not in caught.value.cli_message
        assert caught.value.__cause__ is None and caught.value.__suppress_context__
        assert svc.count() == 0  # nothing was sent, let alone paid for
        with pytest.raises(ConfigurationError):
            pd.DataFrame({"handle": ["ada", "grace"]}).lookup.enrich_profiles(
                "handle", client=client, progress=False
            )
        assert svc.count() == 0
    finally:
        client.close()
    assert caplog.records  # DEBUG logging was on throughout
    assert PASSWORD not in caplog.text


def test_an_unreachable_redis_from_lookup_cache_stops_the_cli_with_one_line(fake_service, tmp_path):
    svc = fake_service
    url = f"redis://:{PASSWORD}@127.0.0.1:{free_port()}/0"
    source = tmp_path / "in.csv"
    source.write_text("handle\nada\ngrace\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "lookup_pandas",
            "enrich",
            str(source),
            "-o",
            str(tmp_path / "o.csv"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=worker_env(svc, url, tmp_path / "home"),
    )
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert "redis://:***@127.0.0.1" in done.stderr
    assert "LOOKUP_CACHE" in done.stderr
    assert PASSWORD not in done.stderr + done.stdout
    assert svc.count() == 0


def test_redis_killed_mid_run_stops_the_run_with_a_clear_error(fake_service, tmp_path):
    svc = fake_service
    svc.configure(latency=0.02, rate_limit_per_minute=60000)
    handles = [f"killed{i:03d}" for i in range(400)]
    outcome: dict[str, Any] = {}
    with RedisServer.start(tmp_path / "own-redis", "--requirepass", PASSWORD) as server:
        url = f"redis://:{PASSWORD}@127.0.0.1:{server.port}/0"
        client = make_client(svc, cache=url, max_workers=4)

        def run() -> None:
            try:
                frame = pd.DataFrame({"handle": handles})
                outcome["frame"] = frame.lookup.enrich_profiles(
                    "handle", client=client, method="single", progress=False
                )
            except BaseException as exc:  # noqa: BLE001 - examined below
                outcome["error"] = exc

        worker = threading.Thread(target=run, daemon=True)
        worker.start()
        try:
            assert wait_for_count(svc, PROFILE, 40, within=60)
            server.kill()  # SIGKILL: a crash, mid-run
            worker.join(timeout=90)
            assert not worker.is_alive(), "the run hung after Redis died"
        finally:
            client.close()
    assert "frame" not in outcome  # it stopped, rather than carrying on without Redis
    error = outcome["error"]
    assert isinstance(error, ConfigurationError), repr(error)
    message = str(error)
    assert f"redis://:***@127.0.0.1:{server.port}/0" in message
    assert PASSWORD not in message
    assert error.__cause__ is None
    sent = svc.count(PROFILE)
    time.sleep(0.5)
    assert svc.count(PROFILE) == sent  # nothing more goes out once it stopped
    assert sent < len(handles)


def test_answers_paid_before_redis_died_are_there_when_it_comes_back(fake_service, tmp_path):
    # A team Redis that keeps its data (an append-only file, flushed on every write) is killed
    # mid-run and started again on the same directory: the re-run pays only for the rest.
    svc = fake_service
    svc.configure(latency=0.02, rate_limit_per_minute=60000)
    handles = [f"durable{i:03d}" for i in range(300)]
    frame = pd.DataFrame({"handle": handles})
    durable = ("--appendonly", "yes", "--appendfsync", "always")
    outcome: dict[str, Any] = {}
    with RedisServer.start(tmp_path / "redis-data", *durable) as server:
        client = make_client(svc, cache=server.url, max_workers=4)

        def run() -> None:
            try:
                frame.lookup.enrich_profiles(
                    "handle", client=client, method="single", progress=False
                )
            except BaseException as exc:  # noqa: BLE001 - examined below
                outcome["error"] = exc

        worker = threading.Thread(target=run, daemon=True)
        worker.start()
        try:
            assert wait_for_count(svc, PROFILE, 60, within=60)
            server.kill()
            worker.join(timeout=90)
            assert not worker.is_alive(), "the run hung after Redis died"
        finally:
            client.close()
    assert isinstance(outcome.get("error"), ConfigurationError), outcome
    paid_first = sum(svc.billed_handles().values())
    assert 60 <= paid_first < len(handles)

    with (
        RedisServer.start(tmp_path / "redis-data", *durable) as again,
        make_client(svc, cache=again.url) as client,
    ):
        out = frame.lookup.enrich_profiles("handle", client=client, method="single", progress=False)
    assert set(out["lookup_status"]) == {"ok"}
    billed = svc.billed_handles()
    assert set(billed) == set(handles)
    # Only an answer on its way into Redis as it died can be lost (bought again): at most one
    # per worker in flight; everything stored before is read back, not bought again.
    twice = {h: n for h, n in billed.items() if n > 1}
    assert len(twice) <= 4 and max(billed.values()) <= 2, twice
