"""The on-disk cache against the emulator: pay once, never keep failures, never cache the panel."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
import requests_cache.models.response as cached_response

from lookup_pandas import (
    AuthenticationError,
    RateLimitError,
    ServerError,
    ServiceError,
    ValidationError,
)
from lookup_pandas.http.decisions import Call
from lookup_pandas.service.paths import PROFILE_PATH
from lookup_pandas.testing import data

from ..helpers import (
    EMPLOYEES,
    PROFILE,
    SEARCH,
    TIER,
    FailFirst,
    data_count,
    make_client,
    rate_limited,
    server_error,
)


def ids(records):
    return [r["id"] for r in records]


def walk(client, path, params, **kwargs):
    return list(client.paginate(path, params, progress=False, **kwargs))


# -- paying once ---------------------------------------------------------------------------------


def test_second_identical_profile_call_sends_nothing(fake_service, fake_client):
    first = fake_client.profile("ada")
    before = fake_service.count()
    second = fake_client.profile("ada")

    assert second == first
    assert fake_service.count() == before
    assert fake_service.count(PROFILE, handle="ada") == 1
    assert fake_client.stats.cache_hits == 1


def test_second_identical_get_sends_nothing(fake_service, fake_client):
    params = {"slug": "acme", "limit": 7, "page": 3}
    first = fake_client.get(EMPLOYEES, params)
    second = fake_client.get(EMPLOYEES, dict(reversed(list(params.items()))))  # order-blind
    assert second == first
    assert fake_service.count(EMPLOYEES) == 1


@pytest.mark.parametrize(
    ("path", "params"),
    [
        (EMPLOYEES, {"slug": "acme", "limit": 50}),
        (SEARCH, {"title": "engineer", "limit": 50}),
    ],
)
def test_second_walk_comes_from_the_cache(fake_service, fake_client, path, params):
    first = walk(fake_client, path, params)
    calls = fake_service.count(path)
    second = walk(fake_client, path, params)

    assert ids(second) == ids(first)
    assert fake_service.count(path) == calls
    assert fake_client.stats.cache_hits == calls


def test_new_client_on_the_same_cache_file_sends_nothing(fake_service, fake_cache_path):
    with make_client(fake_service, cache=fake_cache_path) as first:
        rec = first.profile("ada")
        assert first.profile("unknown-nobody") is None
        emps = walk(first, EMPLOYEES, {"slug": "acme", "limit": 50})
        found = walk(first, SEARCH, {"title": "data", "limit": 50})
    total = fake_service.count()

    with make_client(fake_service, cache=fake_cache_path) as second:
        assert second.profile("ada") == rec
        assert second.profile("unknown-nobody") is None
        assert ids(walk(second, EMPLOYEES, {"slug": "acme", "limit": 50})) == ids(emps)
        assert ids(walk(second, SEARCH, {"title": "data", "limit": 50})) == ids(found)
        assert second.stats.sent == 0
        assert second.stats.credits_consumed == 0

    # Not even the tier request: cache hits never reach the pacer.
    assert fake_service.count() == total


@pytest.mark.parametrize("expire_after", [0, -5])
def test_a_cache_that_keeps_answers_for_no_time_stores_none(
    fake_service, fake_cache_path, expire_after
):
    with make_client(fake_service, cache=fake_cache_path, expire_after=expire_after) as client:
        first = client.profile("ada")
        second = client.profile("ada")
        assert second == first
        assert fake_service.count(PROFILE, handle="ada") == 2  # bought twice, as asked
        assert client.cache_info().entries == 0
        assert client.stats.cache_hits == 0


def test_an_expired_answer_is_bought_again(fake_service, fake_cache_path, monkeypatch):
    with make_client(fake_service, cache=fake_cache_path, expire_after=60) as client:
        client.profile("ada")
        assert client.profile("ada")["id"]
        assert fake_service.count(PROFILE, handle="ada") == 1
        later = cached_response.utcnow() + timedelta(seconds=61)
        monkeypatch.setattr(cached_response, "utcnow", lambda: later)
        client.profile("ada")
        assert fake_service.count(PROFILE, handle="ada") == 2


def test_is_cached_answers_without_sending(fake_service, fake_client):
    params = {"handle": "ada"}
    assert fake_client.parts.cache.is_cached(PROFILE, params) is False
    fake_client.profile("ada")
    assert fake_client.parts.cache.is_cached(PROFILE, params) is True
    assert fake_client.parts.cache.is_cached(PROFILE, {"handle": "grace"}) is False
    assert fake_service.count(PROFILE) == 1


def test_clients_sharing_one_cache_file_from_threads(fake_service, fake_cache_path):
    handles = [f"shared-{i}" for i in range(12)]
    clients = [make_client(fake_service, cache=fake_cache_path) for _ in range(2)]
    try:
        with ThreadPoolExecutor(4) as pool:
            list(pool.map(lambda ih: clients[ih[0] % 2].profile(ih[1]), enumerate(handles)))
    finally:
        for c in clients:
            c.close()
    # Two clients on one key may outrun the emulator's limit (429s, retried): count billing.
    assert all(fake_service.billed(PROFILE, handle=h) == 1 for h in handles)
    sent = data_count(fake_service)

    with make_client(fake_service, cache=fake_cache_path) as reader:
        assert [reader.profile(h)["handle"] for h in handles] == handles
    assert data_count(fake_service) == sent


def test_clients_asking_for_answers_stored_since_a_time_buy_each_once(
    fake_service, fake_cache_path
):
    """fresh_after: an older answer is bought anew, once between the Clients sharing the cache."""
    handles = [f"moved-{i}" for i in range(6)]
    clients = [make_client(fake_service, cache=fake_cache_path) for _ in range(2)]
    try:
        for h in handles:
            clients[0].profile(h)  # bought once, some time ago
        since = time.time()
        start = threading.Barrier(2)

        def ask(client) -> list[bool]:
            start.wait(timeout=30)
            return [
                client.parts.sender.request(
                    Call(PROFILE_PATH, {"handle": h}, fresh_after=since)
                ).from_cache
                for h in handles
            ]

        with ThreadPoolExecutor(2) as pool:
            cached = list(pool.map(ask, clients))
        again = [
            clients[1]
            .parts.sender.request(Call(PROFILE_PATH, {"handle": h}, fresh_after=since))
            .from_cache
            for h in handles
        ]
    finally:
        for c in clients:
            c.close()
    assert {h: fake_service.billed(PROFILE, handle=h) for h in handles} == dict.fromkeys(handles, 2)
    assert [a + b for a, b in zip(*cached, strict=True)] == [1] * len(handles)  # one bought it
    assert again == [True] * len(handles)  # bought since: it counts, nothing more is bought


# -- failures are never cached -------------------------------------------------------------------


def test_500_is_not_cached(fake_service, fake_cache_path):
    fake_service.override(PROFILE, FailFirst(1, server_error))
    with make_client(fake_service, cache=fake_cache_path, max_retries=0) as client:
        with pytest.raises(ServerError):
            client.profile("ada")
        assert client.profile("ada")["handle"] == "ada"
    assert fake_service.count(PROFILE) == 2


def test_429_is_not_cached(fake_service, fake_cache_path):
    fake_service.override(PROFILE, FailFirst(1, lambda: rate_limited(0)))
    with make_client(fake_service, cache=fake_cache_path, max_retries=0) as client:
        with pytest.raises(RateLimitError):
            client.profile("ada")
        assert client.profile("ada")["handle"] == "ada"
    assert fake_service.count(PROFILE) == 2


def test_403_is_not_cached(fake_service, fake_cache_path):
    good = fake_service.issue_key()
    bad = fake_service.api_key
    fake_service.revoke_key(bad)
    with make_client(
        fake_service, api_key=bad, cache=fake_cache_path, rate_limit_per_minute=6000
    ) as client:
        for _ in range(2):
            with pytest.raises(AuthenticationError):
                client.profile("ada")
    # Each call fails already at rate discovery (the tier endpoint answers 403 too, and a
    # failed discovery is tried again by the next call): each got its own 403, none cached.
    assert fake_service.count(status=403) == 2

    with make_client(fake_service, api_key=good, cache=fake_cache_path) as client:
        assert client.profile("ada")["handle"] == "ada"
    assert fake_service.count(PROFILE, status=200) == 1


def test_400_is_not_cached(fake_service, fake_client):
    for _ in range(2):
        with pytest.raises(ValidationError):
            fake_client.get(EMPLOYEES, {"slug": "acme", "limit": 0})
    assert fake_service.count(EMPLOYEES) == 2


def test_unbilled_failure_in_a_200_envelope_is_not_cached(fake_service, fake_client):
    fake_service.override(
        PROFILE,
        FailFirst(
            1,
            lambda: (200, {"success": False, "message": "Try later", "errors": None, "data": None}),
        ),
    )
    with pytest.raises(ServiceError):
        fake_client.profile("ada")
    assert fake_client.profile("ada")["handle"] == "ada"
    assert fake_service.count(PROFILE) == 2


def test_not_found_is_cached_on_disk(fake_service, fake_client, fake_cache_path):
    assert fake_client.profile("unknown-someone") is None
    with make_client(fake_service, cache=fake_cache_path) as other:
        assert other.profile("unknown-someone") is None
    assert fake_service.count(PROFILE) == 1


# -- refresh, panel, off -------------------------------------------------------------------------


def test_refresh_goes_to_the_network_and_updates_the_cache(fake_service, fake_client):
    fake_client.profile("ada")
    assert fake_client.profile("ada", refresh=True)["handle"] == "ada"
    assert fake_service.count(PROFILE, handle="ada") == 2
    fake_client.profile("ada")  # the refreshed answer is cached
    assert fake_service.count(PROFILE, handle="ada") == 2

    params = {"slug": "acme", "limit": 5}
    fake_client.get(EMPLOYEES, params)
    fake_client.get(EMPLOYEES, params, refresh=True)
    fake_client.get(EMPLOYEES, params)
    assert fake_service.count(EMPLOYEES) == 2


def test_refreshed_walk_goes_to_the_network(fake_service, fake_client):
    params = {"slug": "acme", "limit": 50}
    walk(fake_client, EMPLOYEES, params)
    walk(fake_client, EMPLOYEES, params, refresh=True)
    assert fake_service.count(EMPLOYEES) == 6


def test_credits_tier_is_never_cached(fake_service, fake_client, fake_cache_path):
    fake_client.profile("ada")  # the client has learnt its pace; only our calls count now
    before = fake_service.count(TIER)
    first = fake_client.credits_tier()
    fake_client.credits_tier()
    fake_client.get(TIER)
    assert fake_service.count(TIER) == before + 3
    assert first["balance"] == fake_service.balance

    with make_client(fake_service, cache=fake_cache_path) as other:
        other.credits_tier()
    assert fake_service.count(TIER) >= before + 4

    urls = [r.url for r in fake_client.session.cache.filter()]
    assert any(PROFILE in u for u in urls)
    assert not any("/api/panel/" in u for u in urls)


def test_cache_off(fake_service):
    with make_client(fake_service, cache=False) as client:
        assert client.profile("ada") == client.profile("ada")
        assert client.parts.cache.is_cached(PROFILE, {"handle": "ada"}) is False
        assert "off" in repr(client)
    assert fake_service.count(PROFILE, handle="ada") == 2
    assert fake_service.billed(PROFILE) == 2


def test_cache_hits_spend_no_credits(fake_service, fake_client):
    fake_client.profile("ada")
    walk(fake_client, SEARCH, {"title": "designer", "limit": 50})
    spent = fake_client.stats.credits_consumed
    billed = fake_service.billed()
    assert spent == billed

    fake_client.profile("ada")
    walk(fake_client, SEARCH, {"title": "designer", "limit": 50})
    assert fake_client.stats.credits_consumed == spent
    assert fake_service.billed() == billed
    assert data.search(title="designer")  # the walk had something to cache


@pytest.mark.parametrize("failure", ["500", "403"])
def test_failed_refresh_keeps_the_answer_already_paid_for(fake_service, fake_cache_path, failure):
    """A refresh that fails must not throw away the cached (paid) answer."""
    with make_client(
        fake_service, cache=fake_cache_path, max_retries=0, rate_limit_per_minute=6000
    ) as client:
        rec = client.profile("ada")
        if failure == "500":
            fake_service.override(PROFILE, lambda req: server_error())
            expected: type[ServiceError] = ServerError
        else:
            fake_service.rotate_key()  # the client's key is refused from now on
            expected = AuthenticationError
        with pytest.raises(expected):
            client.profile("ada", refresh=True)
        fake_service.override(PROFILE, None)

        assert client.parts.cache.is_cached(PROFILE, {"handle": "ada"})
        assert client.profile("ada") == rec
    assert fake_service.count(PROFILE, handle="ada") == 2
    assert fake_service.billed(PROFILE, handle="ada") == 1


def test_no_cache_directive_reaches_the_service(fake_service, fake_client):
    # expire_after and refresh are our cache's business; requests-cache writes them as
    # Cache-Control request headers, which a proxy on the way could act on.
    headers: list[dict] = []
    fake_service.override(PROFILE, lambda req: headers.append(dict(req.headers)) or None)
    fake_client.profile("ada")
    fake_client.profile("ada")
    fake_client.profile("ada", refresh=True)
    assert len(headers) == 2  # the first call and the refresh; the second was a cache hit
    assert all("cache-control" not in h for h in headers), headers
