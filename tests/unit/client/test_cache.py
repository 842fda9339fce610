"""Unit tests for lookup_pandas.client.cache: one Client's cache read without sending (is it
cached, the answer, when it was stored, the stored answer expired or not and its renewal, each
handle's key) and what it holds and removes, on a SQLite file filled through MockTransport (no
server). The admin work itself is tested in tests/unit/cache/test_admin.py."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import requests
from requests_cache.models import response as cached_response
from requests_cache.policy import expiration

import lookup_pandas as lp
from lookup_pandas.errors import NotFoundError
from lookup_pandas.identifiers.kinds import COMPANIES, PEOPLE
from lookup_pandas.service.paths import COMPANY_PATH, PROFILE_PATH
from lookup_pandas.testing import MockTransport, envelope

BASE = "http://service.test"
ADA = {"handle": "ada"}


def service(request: requests.PreparedRequest) -> tuple[Any, ...]:
    url = request.url or ""
    if "/api/panel/" in url:
        return 200, envelope({"current_tier": {"limit_per_minute": 60000}})
    value = url.rsplit("=", 1)[1]
    if value == "ghost":
        return 200, envelope(None, success=False, message="Profile not found", error_code="1010")
    return 200, envelope({"id": f"prsn_{value}", "handle": value})


@pytest.fixture
def transport() -> MockTransport:
    return MockTransport(service)


@pytest.fixture
def client(transport, tmp_path):
    with lp.Client(
        api_key="lk_test_unit", base_url=BASE, cache=tmp_path / "c.sqlite", transport=transport
    ) as client:
        yield client


# -- reading without sending ---------------------------------------------------------------------


def test_an_answer_is_cached_once_bought_and_read_back_without_sending(client, transport):
    assert (
        not client.parts.cache.is_cached(PROFILE_PATH, ADA)
        and client.parts.cache.cached(PROFILE_PATH, ADA) is None
    )
    client.profile("ada")
    sent, hits = len(transport.requests), client.stats.cache_hits
    assert client.parts.cache.is_cached(PROFILE_PATH, ADA)
    answer = client.parts.cache.cached(PROFILE_PATH, ADA)
    assert answer is not None and answer.from_cache and answer.data["id"] == "prsn_ada"
    assert len(transport.requests) == sent
    assert client.stats.cache_hits == hits + 1  # the read counts as a hit, is_cached does not


def test_a_cached_not_found_is_raised_as_the_live_answer_was(client, transport):
    assert client.profile("ghost") is None
    sent = len(transport.requests)
    with pytest.raises(NotFoundError, match="Profile not found") as caught:
        client.parts.cache.cached(PROFILE_PATH, {"handle": "ghost"})
    assert caught.value.status_code == 200  # billed, as the live answer was
    assert len(transport.requests) == sent


def test_an_answer_says_when_it_was_stored_in_utc_and_not_expired(client):
    assert client.parts.cache.stored_at(PROFILE_PATH, ADA) is None
    before = datetime.now(UTC)
    client.profile("ada")
    stored = client.parts.cache.stored_at(PROFILE_PATH, ADA)
    assert stored is not None
    when, expired = stored
    assert when.tzinfo is not None and expired is False
    assert before.replace(microsecond=0) <= when <= datetime.now(UTC)


def test_the_stored_answer_shows_expired_and_renewed_without_sending(
    client, transport, monkeypatch
):
    cache = client.parts.cache
    (key,) = client.parts.cache.keys(["ada"], PEOPLE).values()
    assert cache.stored_answer(PROFILE_PATH, ADA) is None and cache.renew(PROFILE_PATH, [key]) == 0
    client.profile("ada")
    client.profile("ghost")
    first = cache.stored_answer(PROFILE_PATH, ADA)
    assert first is not None
    env, bought, expired = first
    assert env is not None and env.from_cache and env.data["id"] == "prsn_ada"
    assert (
        bought == client.parts.cache.stored_at(PROFILE_PATH, ADA)[0] and bought.tzinfo is not None
    )
    assert expired is False

    later = cached_response.utcnow() + timedelta(days=8)  # a week's answers have expired
    monkeypatch.setattr(cached_response, "utcnow", lambda: later)
    monkeypatch.setattr(expiration, "utcnow", lambda: later)
    sent, hits = len(transport.requests), client.stats.cache_hits
    assert (
        client.parts.cache.cached(PROFILE_PATH, ADA) is None
    )  # online, an expired answer is no hit
    assert cache.stored_answer(PROFILE_PATH, ADA)[1:] == (bought, True)  # but it is stored
    assert cache.stored_answer(PROFILE_PATH, {"handle": "ghost"})[0] is None  # a not-found
    assert cache.renew(PROFILE_PATH, client.parts.cache.keys(["ada"], PEOPLE).values()) == 1
    assert cache.stored_answer(PROFILE_PATH, ADA)[1:] == (bought, False)  # bought when it was
    assert client.parts.cache.cached(PROFILE_PATH, ADA) is not None
    assert len(transport.requests) == sent
    assert client.stats.cache_hits == hits + 1  # the one read through cached(), not the others


def test_each_values_key_is_its_answers_name_per_kind(client):
    keys = client.parts.cache.keys(["ada", "grace", "ada"], PEOPLE)
    assert list(keys) == ["ada", "grace"] and keys["ada"] != keys["grace"]
    assert keys == client.parts.cache.keys(["grace", "ada"], PEOPLE)  # the same request
    companies = client.parts.cache.keys(["ada"], COMPANIES)
    assert companies["ada"] != keys["ada"]  # a slug "ada" is another answer
    client.profile("ada")
    stored = client.session.cache.responses.keys()
    assert keys["ada"] in set(stored) and keys["grace"] not in set(stored)


def test_without_a_cache_nothing_is_cached_and_no_value_has_a_key(transport):
    with lp.Client(api_key="lk_test_unit", base_url=BASE, cache=False, transport=transport) as c:
        c.profile("ada")
        assert (
            not c.parts.cache.is_cached(PROFILE_PATH, ADA)
            and c.parts.cache.cached(PROFILE_PATH, ADA) is None
        )
        assert c.parts.cache.stored_at(PROFILE_PATH, ADA) is None
        assert c.parts.cache.stored_answer(PROFILE_PATH, ADA) is None
        assert c.parts.cache.renew(PROFILE_PATH, ["any-key"]) == 0
        assert c.parts.cache.keys(["ada"], PEOPLE) == {}
        assert c.cache_info().entries == 0 and c.clear() == 0


# -- what it holds, and removing it --------------------------------------------------------------


def test_what_the_cache_holds_is_counted_and_removed_without_sending(client, transport):
    client.profile("ada")
    client.profile("grace")
    client.company("acme")
    sent = len(transport.requests)
    assert client.cache_info().entries == 3  # the credits tier is never cached
    assert client.prune() == 0  # nothing expired
    forgotten = client.forget(["ada"])
    assert forgotten.profiles == 1
    assert not client.parts.cache.is_cached(PROFILE_PATH, ADA)
    assert client.parts.cache.is_cached(PROFILE_PATH, {"handle": "grace"})
    assert client.parts.cache.is_cached(COMPANY_PATH, {"slug": "acme"})
    assert client.clear() == 2 and client.cache_info().entries == 0
    assert len(transport.requests) == sent
