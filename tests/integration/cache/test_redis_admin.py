"""Cache management on ``cache="redis://..."``: forget, prune, clear and info in a real Redis.

A real ``redis-server`` (``redis_fixture``: skipped without the binary, failed instead when
``LOOKUP_REQUIRE_REDIS=1``) and the emulator. What is checked: after ``forget`` no key or value
in the whole database (SCAN, then GET / HGETALL by type, each cached body decoded from the
serializer's base64) holds the person's name, headline, id or handle, while the same scan
finds them before; everyone else stays cached and their next lookup is billed again; stored
jobs lose the handle; prune drops what expired (Redis keeps an entry an hour past its expiry);
info reports entries, expired, memory, oldest and newest; clear removes the answers, jobs and
claims; the CLI acts on the key's namespace when LOOKUP_API_KEY and LOOKUP_BASE_URL are set,
else on every namespace.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from typing import Any

import pytest

from lookup_pandas.identifiers.kinds import PEOPLE
from lookup_pandas.store import StoredJob, namespace
from lookup_pandas.store.redis_connection import key_prefix

from ..helpers import PROFILE, make_client
from ..store.test_redis import everything_in
from .test_admin import (
    EMPLOYED,
    SEARCHED,
    SINGLES,
    STATUS,
    enrich,
    fill,
    lead_frame,
    needles,
    wait_until,
)

pytestmark = pytest.mark.timeout(180)

CLI = [sys.executable, "-m", "lookup_pandas"]


def redis_text(conn: Any) -> bytes:
    """Every key and value in the database, each cached answer's body decoded too
    (requests-cache's JSON serializer keeps it base64-encoded)."""
    parts: list[bytes] = []
    for key, values in everything_in(conn).items():
        parts.append(key)
        for value in values:
            parts.append(value)
            try:
                doc = json.loads(value)
            except ValueError:
                continue
            if isinstance(doc, dict) and isinstance(doc.get("_content"), str):
                parts.append(base64.b64decode(doc["_content"]))
    return b"\n".join(parts)


def held(conn: Any, wanted: list[str]) -> list[str]:
    text = redis_text(conn)
    return [w for w in wanted if w.encode() in text]


def test_forget_leaves_no_key_or_value_holding_them(fake_service, redis_url, redis_server):
    svc = fake_service
    wanted = needles(SEARCHED) + needles(EMPLOYED)
    with make_client(svc, cache=redis_url) as client:
        job_id = fill(svc, client)
        with redis_server.client() as conn:
            assert held(conn, wanted) == wanted  # the scan finds all of it
        sent = svc.count(PROFILE)

        result = client.forget([SEARCHED, f"https://www.example.com/in/{EMPLOYED}"])
        assert result.matched == (SEARCHED, EMPLOYED)
        assert (result.profiles, result.jobs, result.complete) == (2, 1, True)
        assert result.pages >= 2
        with redis_server.client() as conn:
            assert held(conn, wanted) == []

        rest = [h for h in SINGLES if h != SEARCHED]
        assert (enrich(lead_frame(rest), client, method="single")[STATUS] == "ok").all()
        assert svc.count(PROFILE) == sent  # the others are still cached
        (stored,) = client.parts.store.jobs()
        assert stored.job_id == job_id and EMPLOYED not in stored.inputs
        billed = svc.billed(PROFILE, handle=EMPLOYED)
        assert client.profile(EMPLOYED)["handle"] == EMPLOYED
        assert svc.billed(PROFILE, handle=EMPLOYED) == billed + 1


def test_prune_info_and_clear_on_redis(fake_service, redis_url, redis_server):
    svc = fake_service
    brief = [f"person-{i:05d}" for i in range(900, 903)]
    lasting = [f"person-{i:05d}" for i in range(910, 914)]
    with make_client(svc, cache=redis_url, expire_after=1) as client:
        enrich(lead_frame(brief), client, method="single")
    with make_client(svc, cache=redis_url) as client:
        enrich(lead_frame(lasting), client, method="single")
        client.parts.store.remember(StoredJob("job_kept", ("ada",), 1.0))
        client.parts.store.claim_many(["a-claim"], 60)
        client.parts.store.mark_checked(
            list(client.parts.cache.keys(lasting, PEOPLE).values()), 1.0
        )
        client.parts.store.mark_acted(["an-event-acted-on"])
        assert wait_until(lambda: client.cache_info().expired == 3)
        info = client.cache_info()
        assert (info.entries, info.expired, info.jobs) == (7, 3, 1)
        assert info.location == redis_url
        assert info.oldest is not None and info.newest is not None
        assert info.oldest <= info.newest
        assert isinstance(info.bytes, int) and info.bytes > 0  # MEMORY USAGE, summed

        assert client.prune() == 3
        after = client.cache_info()
        assert (after.entries, after.expired) == (4, 0)
        sent = svc.count(PROFILE)
        enrich(lead_frame(lasting), client, method="single")
        assert svc.count(PROFILE) == sent

        assert client.clear() == 4
        empty = client.cache_info()
        assert (empty.entries, empty.jobs, empty.oldest, empty.newest) == (0, 0, None, None)
        with redis_server.client() as conn:
            keys = list(conn.scan_iter())
        ns = key_prefix(namespace(svc.api_key, svc.base_url))
        # no answer, job, claim, refresh mark or redirect is left: the pace, the mark that the
        # key (hashed into the namespace) worked, and the one that answers were stored here (a
        # clear is chosen: no machine is warned of an emptied Redis after it, issue 42)
        held, seen, pace = (f"{ns}:{k}".encode() for k in ("answers-held", "key-seen", "pace"))
        assert sorted(keys) == [held, seen, pace]


def test_the_cli_acts_on_the_keys_namespace_or_on_every_one(fake_service, redis_url, redis_server):
    svc = fake_service
    other_key = svc.issue_key()
    for key in (svc.api_key, other_key):
        with make_client(svc, api_key=key, cache=redis_url) as client:
            client.profile(SEARCHED)
            client.profile("person-00001")

    def cli(*args: str, key: str | None = None) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("LOOKUP_")}
        env["LOOKUP_CACHE"] = redis_url
        if key is not None:
            env.update(LOOKUP_API_KEY=key, LOOKUP_BASE_URL=svc.base_url)
        return subprocess.run(
            [*CLI, "cache", *args], capture_output=True, text=True, timeout=120, env=env
        )

    def cached(key: str) -> list[bool]:
        with make_client(svc, api_key=key, cache=redis_url) as client:
            return [
                client.parts.cache.is_cached(PROFILE, {"handle": h})
                for h in (SEARCHED, "person-00001")
            ]

    info = cli("info")
    assert info.returncode == 0, info.stderr
    assert "answers:    4" in info.stdout and "namespace:  every one" in info.stdout
    mine = namespace(svc.api_key, svc.base_url)
    info = cli("info", key=svc.api_key)
    assert "answers:    2" in info.stdout and f"namespace:  {mine}" in info.stdout

    done = cli("forget", SEARCHED, key=svc.api_key)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        f"forgot 1 handle in {redis_url}: removed 1 profile answer, 0 pages, 0 batch jobs "
        f"(namespace {mine} of LOOKUP_API_KEY and LOOKUP_BASE_URL)"
    )
    assert cached(svc.api_key) == [False, True]
    assert cached(other_key) == [True, True]  # another key's namespace: untouched

    done = cli("forget", SEARCHED)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("(every namespace)")
    assert cached(other_key) == [False, True]
    with redis_server.client() as conn:
        assert held(conn, needles(SEARCHED)) == []

    done = cli("clear", "--yes")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        f"removed 2 answers and 0 batch jobs from {redis_url} (every namespace)"
    )
    assert cached(svc.api_key) == cached(other_key) == [False, False]
