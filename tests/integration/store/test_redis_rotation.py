"""A rotated key keeps what was paid for on Redis, when the cache URL names the team's namespace.

A real ``redis-server`` (``redis_fixture``; ``LOOKUP_REQUIRE_REDIS=1`` fails instead of
skipping) and the emulator, whose ``rotate_key`` makes a new key and refuses the old one. What
is checked: after a rotation the new key, naming the same namespace, buys nothing and sends no
lookup, and its output equals the first; naming the namespace for the first time keeps what
the key had already bought; without a name every key (and so every workspace) keeps its own,
and two names stay apart; the pace and the batch jobs stay the key's while cache management
reaches the jobs of every key that used the name; no key is in any Redis key or value; the
CLI shows and acts on the named namespace with only ``LOOKUP_BASE_URL``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pandas as pd
import pytest

import lookup_pandas as lp
from lookup_pandas.identifiers.kinds import PEOPLE
from lookup_pandas.store import named_namespace, namespace
from lookup_pandas.store.redis_connection import key_prefix
from lookup_pandas.testing import BATCH, FakeService

from ..cache.test_admin import enrich, lead_frame, store_job
from ..helpers import PROFILE, make_client
from .test_redis import everything_in

pytestmark = pytest.mark.timeout(180)

CLI = [sys.executable, "-m", "lookup_pandas"]
NAME = "acme-sales"
HANDLES = [f"person-{i:05d}" for i in range(400, 430)] + ["unknown-rotation"]


def named(url: str, name: str = NAME) -> str:
    return f"{url}?namespace={name}"


def lookups(svc: FakeService, key: str) -> int:
    """Requests ``key`` made that could buy a person: single lookups and batch jobs."""
    return svc.count(PROFILE, key=key) + svc.count(BATCH, key=key)


def answers_in(conn: Any, ns: str) -> int:
    return sum(1 for _ in conn.scan_iter(match=f"{key_prefix(ns)}:cache:*", count=1000))


@pytest.mark.parametrize("method", ["single", "batch"])
def test_after_a_rotation_the_new_key_buys_nothing_again(fake_service, redis_url, method):
    svc = fake_service
    cache, old = named(redis_url), svc.api_key
    with make_client(svc, cache=cache) as client:
        first = enrich(lead_frame(HANDLES), client, method=method)
    assert svc.billed(key=old) == len(HANDLES)  # the not-found is billed too

    new = svc.rotate_key()
    with make_client(svc, api_key=new, cache=cache) as client:
        second = enrich(lead_frame(HANDLES), client, method=method)

    assert svc.billed(key=new) == 0
    assert lookups(svc, new) == 0  # no profile request, no batch job
    pd.testing.assert_frame_equal(second, first)
    refused = make_client(svc, api_key=old, cache=False, max_retries=0)
    with refused, pytest.raises(lp.AuthenticationError):  # the old key really is rotated out
        refused.profile("person-00431")


def test_naming_the_namespace_keeps_what_the_key_had_already_bought(
    fake_service, redis_url, redis_server
):
    svc = fake_service
    old = svc.api_key
    with make_client(svc, cache=redis_url) as client:  # a team's Redis as it was: no name
        first = enrich(lead_frame(HANDLES), client, method="single")
    bought = svc.billed(key=old)
    sent = lookups(svc, old)

    with make_client(svc, cache=named(redis_url)) as client:  # the one step: name it
        again = enrich(lead_frame(HANDLES), client, method="single")
    assert (svc.billed(key=old), lookups(svc, old)) == (bought, sent)
    pd.testing.assert_frame_equal(again, first)

    new = svc.rotate_key()
    with make_client(svc, api_key=new, cache=named(redis_url)) as client:
        after = enrich(lead_frame(HANDLES), client, method="single")
    assert (svc.billed(key=new), lookups(svc, new)) == (0, 0)
    pd.testing.assert_frame_equal(after, first)

    team = named_namespace(NAME, svc.base_url)
    old_ns, new_ns = namespace(old, svc.base_url), namespace(new, svc.base_url)
    with redis_server.client() as conn:
        assert answers_in(conn, old_ns) == 0  # moved, each once, into the named namespace
        assert answers_in(conn, team) == len(HANDLES)
        assert conn.smembers(f"{key_prefix(team)}:keys") == {old_ns.encode(), new_ns.encode()}


def test_without_a_name_each_key_keeps_its_own_and_two_names_stay_apart(fake_service, redis_url):
    svc = fake_service
    other_workspace = svc.wrong_workspace_key  # a genuine key, of another workspace
    colleague = svc.issue_key()  # another key of this workspace

    def cached(key: str, cache: str, handle: str) -> bool:
        with make_client(svc, api_key=key, cache=cache) as client:
            return client.parts.cache.is_cached(PROFILE, {"handle": handle})  # sends nothing

    with make_client(svc, cache=redis_url) as client:
        client.profile("person-00500")
    assert cached(svc.api_key, redis_url, "person-00500")
    assert not cached(colleague, redis_url, "person-00500")  # as before: per key
    assert not cached(other_workspace, redis_url, "person-00500")

    with make_client(svc, cache=named(redis_url, "team-x")) as client:
        client.profile("person-00501")
    assert cached(colleague, named(redis_url, "team-x"), "person-00501")
    assert cached(colleague, named(redis_url, "team-x"), "person-00500")  # adopted with the key
    assert not cached(colleague, named(redis_url, "team-y"), "person-00501")
    assert not cached(other_workspace, redis_url, "person-00501")


def test_the_pace_and_jobs_stay_the_keys_and_management_reaches_every_keys_jobs(
    fake_service, redis_url, redis_server
):
    svc = fake_service
    cache, old = named(redis_url), svc.api_key
    with make_client(svc, cache=cache) as client:
        enrich(lead_frame(HANDLES[:5]), client, method="single")
        job_id = store_job(svc, client, ("person-00600", "person-00601"))  # not collected
    new = svc.rotate_key()
    with make_client(svc, api_key=new, cache=cache) as client:
        assert client.parts.store.jobs() == []  # a job is polled with the key that submitted it
        enrich(lead_frame(HANDLES[5:8]), client, method="single")
        assert client.cache_info().jobs == 1  # the old key's, still stored
        forgotten = client.forget(["person-00600"])
        assert forgotten.jobs == 1
        client.parts.store.mark_checked(
            list(client.parts.cache.keys(HANDLES[5:8], PEOPLE).values()), 1.0
        )
        client.parts.store.mark_acted(["an-event-acted-on"])
        with redis_server.client() as conn:
            stored = everything_in(conn)
        assert client.clear() == 8
        assert client.cache_info().jobs == 0

    team = key_prefix(named_namespace(NAME, svc.base_url)).encode()
    old_ns, new_ns = (key_prefix(namespace(k, svc.base_url)).encode() for k in (old, new))
    assert job_id.encode() in stored[old_ns + b":jobs"]  # under the key that submitted it
    assert sorted(k for k in stored if k.endswith(b":pace")) == [
        ns + b":pace" for ns in sorted([old_ns, new_ns])
    ]
    shared = [k for k in stored if b":claim:" in k or b":cache:" in k or b":mark:" in k]
    assert any(b":claim:" in k for k in shared) and any(b":cache:" in k for k in shared)
    assert any(b":mark:checked:" in k for k in shared) and any(b":mark:acted:" in k for k in shared)
    assert all(k.startswith(team + b":") for k in shared)  # answers, claims, marks: the team's
    for secret in (old.encode(), new.encode()):
        for key, values in stored.items():
            assert secret not in key
            assert not any(secret in value for value in values), key


def test_the_cli_shows_and_acts_on_the_named_namespace_without_a_key(fake_service, redis_url):
    svc = fake_service
    with make_client(svc, cache=named(redis_url)) as client:
        client.profile("person-00700")
    new = svc.rotate_key()
    with make_client(svc, api_key=new, cache=named(redis_url)) as client:
        client.profile("person-00701")
    with make_client(svc, api_key=new, cache=redis_url) as client:  # another namespace
        client.profile("person-00700")

    def cli(*args: str, base_url: bool = True) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("LOOKUP_")}
        env["LOOKUP_CACHE"] = named(redis_url)
        if base_url:
            env["LOOKUP_BASE_URL"] = svc.base_url
        return subprocess.run(
            [*CLI, "cache", *args], capture_output=True, text=True, timeout=120, env=env
        )

    info = cli("info")
    assert info.returncode == 0, info.stderr
    team = named_namespace(NAME, svc.base_url)
    assert "answers:    2\n" in info.stdout
    assert f"namespace:  {NAME} (named in LOOKUP_CACHE; its keys: lookup_pandas:{team}:*)" in (
        info.stdout
    )
    refused = cli("info", base_url=False)
    assert refused.returncode == 2
    assert refused.stdout == "" and len(refused.stderr.strip().splitlines()) == 1
    assert "LOOKUP_BASE_URL" in refused.stderr

    done = cli("forget", "person-00700")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith(f"(namespace {NAME} named in LOOKUP_CACHE)")
    with make_client(svc, api_key=new, cache=named(redis_url)) as client:
        assert not client.parts.cache.is_cached(PROFILE, {"handle": "person-00700"})
        assert client.parts.cache.is_cached(PROFILE, {"handle": "person-00701"})
    with make_client(svc, api_key=new, cache=redis_url) as client:
        assert client.parts.cache.is_cached(
            PROFILE, {"handle": "person-00700"}
        )  # another namespace's
