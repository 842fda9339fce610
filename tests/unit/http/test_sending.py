"""Unit tests for lookup_pandas.http.sending, through MockTransport, no server: a call whose claim
its caller holds (enrichment's claim window); a call that counts only an answer stored since a
time (``fresh_after``); the Wire's stored answer, expired or not, and its renewal; the cache
key, requests-cache's own, worked out once per request."""

from __future__ import annotations

import time
from collections import Counter
from datetime import timedelta

import pytest
import requests_cache
from requests_cache.models import response as cached_response
from requests_cache.policy import expiration

import lookup_pandas as lp
from lookup_pandas.cache.policy import IGNORED_PARAMETERS
from lookup_pandas.http.decisions import Call
from lookup_pandas.identifiers.kinds import PEOPLE
from lookup_pandas.service import answers
from lookup_pandas.service.paths import PROFILE_PATH, TIER_PATH
from lookup_pandas.store import MINE, RECHECK
from lookup_pandas.testing import MockTransport, envelope

# -- a call whose claim its caller holds (enrichment's claim window) ------------------------------

BASE = "http://service.test"


def _profiles(request):
    if "/api/panel/" in request.url:
        return 200, envelope({"balance": 9, "current_tier": {"limit_per_minute": 60000}})
    handle = request.url.split("handle=", 1)[1]
    return 200, envelope({"id": f"prsn_{handle}", "handle": handle})


@pytest.fixture
def cached_client(tmp_path):
    """A Client on a cache file whose store counts claims and releases, and whose wire counts
    cache lookups (``client.counted``)."""
    client = lp.Client(
        api_key="lk_test_unit",
        base_url=BASE,
        transport=MockTransport(_profiles),
        cache=tmp_path / "c.sqlite",
    )
    counted: Counter[str] = Counter()
    for name in ("claim_many", "release_many"):
        original = getattr(client.parts.store, name)
        setattr(client.parts.store, name, _counting(counted, name, original))
    wire = client.parts.wire
    wire.cached = _counting(counted, "cached", wire.cached)  # type: ignore[method-assign]
    client.counted = counted  # type: ignore[attr-defined]
    yield client
    client.close()


def _counting(counted: Counter[str], name: str, original):
    def call(*args, **kwargs):
        counted[name] += 1
        return original(*args, **kwargs)

    return call


def test_a_call_claims_and_lets_go_itself_unless_its_claim_is_held(cached_client):
    counted = cached_client.counted
    cached_client.parts.sender.request(Call(PROFILE_PATH, {"handle": "ada"}))
    assert (counted["claim_many"], counted["release_many"]) == (1, 1)
    counted.clear()
    assert not cached_client.parts.sender.request(
        Call(PROFILE_PATH, {"handle": "grace"}, held=MINE)
    ).from_cache  # a miss: bought
    assert cached_client.parts.sender.request(
        Call(PROFILE_PATH, {"handle": "grace"}, held=MINE)
    ).from_cache  # read once, not bought
    assert counted == {"cached": 2}  # neither claimed nor let go: the holder does that
    sent = cached_client.session.get_adapter(BASE).count("/people/profile")
    assert sent == 2


def test_a_held_claim_still_reads_the_cache_once_before_buying(cached_client):
    # another process may have bought it since the run read the cache ahead
    counted = cached_client.counted
    assert not cached_client.parts.sender.request(
        Call(PROFILE_PATH, {"handle": "ada"}, held=MINE)
    ).from_cache
    assert counted == {"cached": 1}  # read once, missed: bought
    assert cached_client.parts.sender.request(
        Call(PROFILE_PATH, {"handle": "ada"}, held=MINE)
    ).from_cache
    assert counted == {"cached": 2}


def test_a_held_claim_let_go_of_lately_is_looked_up_afresh_before_buying(cached_client):
    counted = cached_client.counted
    env = cached_client.parts.sender.request(Call(PROFILE_PATH, {"handle": "ada"}, held=RECHECK))
    assert not env.from_cache and counted == {"cached": 5}  # looked a few times, then bought
    counted.clear()
    assert cached_client.parts.sender.request(
        Call(PROFILE_PATH, {"handle": "ada"}, held=RECHECK)
    ).from_cache
    assert counted == {"cached": 1}


def test_the_keys_of_a_run_are_the_caches_own_names_for_its_answers(cached_client):
    keys = cached_client.parts.cache.keys(["ada", "grace"], PEOPLE)
    for handle in ("ada", "grace"):
        cached_client.parts.sender.request(Call(PROFILE_PATH, {"handle": handle}, held=MINE))
    stored = cached_client.session.cache.responses.keys()
    assert set(keys.values()) <= set(stored)
    wire = cached_client.parts.wire  # the key each call claims and stores by
    assert keys["ada"] == wire.cache_key(wire.prepare(PROFILE_PATH, {"handle": "ada"}))


# -- fresh_after: only an answer stored since a time counts ---------------------------------------


def sent(client: lp.Client, handle: str) -> int:
    """Lookups of ``handle`` the transport answered."""
    return client.session.get_adapter(BASE).count(f"/people/profile?handle={handle}")


def test_an_answer_stored_before_fresh_after_is_bought_anew_once_then_read(cached_client):
    counted = cached_client.counted
    cached_client.parts.sender.request(Call(PROFILE_PATH, {"handle": "ada"}))
    since = time.time()
    counted.clear()
    env = cached_client.parts.sender.request(
        Call(PROFILE_PATH, {"handle": "ada"}, fresh_after=since)
    )
    assert not env.from_cache and sent(cached_client, "ada") == 2  # the older one: bought anew
    assert (counted["claim_many"], counted["release_many"]) == (1, 1)  # claimed, as a miss is
    again = cached_client.parts.sender.request(
        Call(PROFILE_PATH, {"handle": "ada"}, fresh_after=since)
    )
    assert again.from_cache and sent(cached_client, "ada") == 2  # stored since: it counts
    assert cached_client.parts.sender.request(
        Call(PROFILE_PATH, {"handle": "ada"})
    ).from_cache  # and for every other call


def test_an_answer_from_the_cache_proves_no_contact_and_no_key(cached_client, tmp_path):
    cached_client.parts.sender.request(Call(PROFILE_PATH, {"handle": "ada"}))
    assert cached_client.parts.contact.contacted and cached_client.parts.contact.key_proven
    with lp.Client(
        api_key="lk_test_unit",
        base_url=BASE,
        transport=MockTransport(_profiles),
        cache=tmp_path / "c.sqlite",
        offline=True,  # nothing sent: the key is not checked either
    ) as other:
        env = other.parts.sender.request(Call(PROFILE_PATH, {"handle": "ada"}))
        assert env.from_cache
        assert not other.parts.contact.contacted and not other.parts.contact.key_proven


def test_an_answer_bought_since_by_another_client_counts(cached_client, tmp_path):
    cached_client.parts.sender.request(Call(PROFILE_PATH, {"handle": "ada"}))
    since = time.time()
    with lp.Client(
        api_key="lk_test_unit",
        base_url=BASE,
        transport=MockTransport(_profiles),
        cache=tmp_path / "c.sqlite",
    ) as other:
        other.parts.sender.request(
            Call(PROFILE_PATH, {"handle": "ada"}, refresh=True)
        )  # bought again, by another process
    env = cached_client.parts.sender.request(
        Call(PROFILE_PATH, {"handle": "ada"}, fresh_after=since)
    )
    assert env.from_cache and sent(cached_client, "ada") == 1


def test_a_claim_let_go_of_lately_with_only_an_older_answer_is_bought_after_a_few_looks(
    cached_client,
):
    cached_client.parts.sender.request(Call(PROFILE_PATH, {"handle": "ada"}))
    counted = cached_client.counted
    counted.clear()
    since = time.time()
    env = cached_client.parts.sender.request(
        Call(PROFILE_PATH, {"handle": "ada"}, held=RECHECK, fresh_after=since)
    )
    assert not env.from_cache and counted == {"cached": 5}  # the older answer never counted
    assert sent(cached_client, "ada") == 2


def test_fresh_after_offline_sends_nothing_and_says_why(tmp_path):
    transport = MockTransport(_profiles)
    with (
        lp.Client(
            api_key="lk_test_unit",
            base_url=BASE,
            transport=transport,
            cache=tmp_path / "c.sqlite",
            offline=True,
        ) as client,
        pytest.raises(lp.UsageError, match="fresh_after"),
    ):
        client.parts.sender.request(Call(PROFILE_PATH, {"handle": "ada"}, fresh_after=time.time()))
    assert transport.requests == []


# -- the Wire: the stored answer, expired or not, and its renewal ----------------------------------


@pytest.fixture
def eight_days_on(monkeypatch):
    """Move requests-cache's clock eight days on, when called: a week's answers have expired."""

    def move():
        moved = cached_response.utcnow() + timedelta(days=8)
        monkeypatch.setattr(cached_response, "utcnow", lambda: moved)
        monkeypatch.setattr(expiration, "utcnow", lambda: moved)
        return moved

    return move


def test_the_stored_answer_is_read_expired_or_not_online_too(cached_client, eight_days_on):
    wire = cached_client.parts.wire
    key = wire.cache_key(wire.prepare(PROFILE_PATH, {"handle": "ada"}))
    assert wire.stored(PROFILE_PATH, key) is None
    cached_client.parts.sender.request(Call(PROFILE_PATH, {"handle": "ada"}))
    fresh = wire.stored(PROFILE_PATH, key)
    assert fresh is not None and not fresh.is_expired
    eight_days_on()
    assert wire.cached(PROFILE_PATH, key) is None  # a lookup misses it
    stored = wire.stored(PROFILE_PATH, key)
    assert stored is not None and stored.is_expired and stored.status_code == 200
    assert not cached_client.settings.offline


def test_renewing_keeps_when_it_was_bought_and_moves_the_expiry(cached_client, eight_days_on):
    wire = cached_client.parts.wire
    cached_client.parts.sender.request(Call(PROFILE_PATH, {"handle": "ada"}))
    key = wire.cache_key(wire.prepare(PROFILE_PATH, {"handle": "ada"}))
    later = eight_days_on()
    before = wire.stored(PROFILE_PATH, key)
    assert before is not None and before.is_expired
    assert wire.renew(PROFILE_PATH, [key]) == 1
    after = wire.stored(PROFILE_PATH, key)
    assert after is not None and not after.is_expired
    assert after.created_at == before.created_at  # still says when it was bought
    assert after.expires == later + cached_client.settings.expire_after
    assert after.content == before.content
    assert wire.cached(PROFILE_PATH, key) is not None  # a lookup finds it again
    assert sent(cached_client, "ada") == 1  # nothing sent


def test_renewing_nothing_stored_is_false(cached_client):
    wire = cached_client.parts.wire
    key = wire.cache_key(wire.prepare(PROFILE_PATH, {"handle": "nobody"}))
    assert wire.renew(PROFILE_PATH, [key]) == 0
    assert wire.stored(PROFILE_PATH, key) is None
    tier = wire.prepare(TIER_PATH, None)
    assert wire.renew(TIER_PATH, [wire.cache_key(tier)]) == 0  # the panel is never stored


# -- the cache key: requests-cache's own, worked out once per request -----------------------------


def test_the_key_is_requests_caches_own_so_existing_caches_keep_their_answers(cached_client):
    wire = cached_client.parts.wire
    many = [{"handle": h} for h in ("ada", "grace-hopper", "ümlaut", "a b")] + [None]
    expected = [
        requests_cache.create_key(
            wire.prepare(PROFILE_PATH, params),
            ignored_parameters=IGNORED_PARAMETERS,
            serializer=wire.session.cache.responses.serializer,
        )
        for params in many
    ]
    assert [wire.cache_key(wire.prepare(PROFILE_PATH, p)) for p in many] == expected
    assert wire.cache_keys(PROFILE_PATH, many) == expected  # many at once, the same keys
    assert len(set(expected)) == len(expected)
    cached_client.parts.sender.request(Call(PROFILE_PATH, {"handle": "ada"}))
    assert expected[0] in set(wire.session.cache.responses.keys())  # stored under it


def test_a_miss_works_its_key_out_once_for_the_lookup_the_claim_and_the_store(cached_client):
    wire = cached_client.parts.wire
    cache = wire.session.cache
    made: list[str] = []
    create, expected = cache.create_key, wire.cache_keys(PROFILE_PATH, [{"handle": "ada"}])

    def counting(request, **kwargs):
        key = create(request, **kwargs)
        if "handle=" in (request.url or ""):
            made.append(key)
        return key

    cache.create_key = counting
    assert not cached_client.parts.sender.request(
        Call(PROFILE_PATH, {"handle": "ada"})
    ).from_cache  # looked up, claimed, stored
    assert len(made) == 1 and cached_client.counted["cached"] == 1  # the aliases: the id's
    assert made == expected
    assert cached_client.counted["claim_many"] == 1 and made[0] in cache.responses


def test_a_fresh_answer_is_decoded_once_and_its_reading_is_what_the_cache_keeps(
    cached_client, monkeypatch
):
    decoded: list[int] = []
    parse = answers.parse_envelope

    def counting(status, headers, content, **kwargs):
        if kwargs.get("url") == PROFILE_PATH:
            decoded.append(status)
        return parse(status, headers, content, **kwargs)

    monkeypatch.setattr(answers, "parse_envelope", counting)
    assert cached_client.profile("ada")["id"] == "prsn_ada"  # read, kept, and its alias made
    assert decoded == [200]
    assert cached_client.profile("ada")["id"] == "prsn_ada"  # the stored answer, read
    assert decoded == [200, 200] and sent(cached_client, "ada") == 1


def test_a_call_given_its_key_works_none_out(cached_client, keys_made):
    wire = cached_client.parts.wire
    cache = wire.session.cache
    (key,) = wire.cache_keys(PROFILE_PATH, [{"handle": "ada"}])  # read ahead, say
    made = keys_made(cached_client)
    env = cached_client.parts.sender.request(Call(PROFILE_PATH, {"handle": "ada"}, key=key))
    assert not env.from_cache and key in cache.responses  # looked up, claimed, stored under it
    assert [url for url in made if "handle=" in url] == []  # only the alias's (the id's)
    assert cached_client.parts.sender.request(Call(PROFILE_PATH, {"handle": "ada"})).from_cache
