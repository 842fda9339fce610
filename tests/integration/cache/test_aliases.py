"""One person, one company, one price across runs: the cache's aliases, against the emulator.

What is tested, on a SQLite cache file and on a real Redis (``redis_fixture``): a person bought
by handle is answered by ``prsn_`` id from the cache without a call, and the other way round; a
company by slug then ``org_`` id (and URL), and the other way round; ``client.profile`` /
``client.company`` and ``get_profiles`` / ``get_companies`` each profit; a second Client on the
same file or Redis too; an estimate counts the other name as cached; the API key is in no byte
of the cache file nor any Redis key or value; an alias whose answer was bought anew for someone
else (a handle given to another person) is a miss, not the other person's record; aliases go
with the answers they lead to (``forget``, ``clear``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import lookup_pandas as lp
from lookup_pandas.cache import sqlite
from lookup_pandas.cache.requests_cache_internals import redis_answer_key
from lookup_pandas.identifiers.kinds import PEOPLE
from lookup_pandas.service.paths import COMPANY_PATH as COMPANY
from lookup_pandas.testing import PROFILE, FakeService
from lookup_pandas.testing.names import org_id, person_id
from lookup_pandas.testing.replies import Reply, Request, ok

from ..helpers import cache_reads, make_client
from ..store.test_redis import everything_in

STATUS = "lookup_status"


@pytest.fixture(params=["sqlite", "redis"])
def cache(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """Where the answers are kept: a SQLite file, or a flushed database of a real Redis."""
    if request.param == "sqlite":
        yield tmp_path / "answers.sqlite"
    else:
        yield request.getfixturevalue("redis_url")


def test_a_person_bought_by_handle_is_answered_by_id(fake_service: FakeService, cache: Any):
    ada = person_id("ada-lovelace")
    with make_client(fake_service, cache=cache) as client:
        record = client.profile("ada-lovelace")
        assert client.parts.cache.is_cached(PROFILE, {"id": ada})
        assert client.profile(ada) == record  # one call each, the second free
        assert client.profile(" https://www.linkedin.com/in/Ada-Lovelace/ ") == record
    with make_client(fake_service, cache=cache) as other:  # another Client, the same cache
        out = lp.get_profiles([ada, "ada-lovelace"], client=other, progress=False)
    assert out["id"].tolist() == [ada, ada] and out[STATUS].eq("ok").all()
    assert fake_service.count(PROFILE) == 1
    assert fake_service.billed() == 1


def test_a_person_bought_by_id_is_answered_by_handle(fake_service: FakeService, cache: Any):
    grace = person_id("grace-hopper")
    with make_client(fake_service, cache=cache) as client:
        record = client.profile(grace)
        assert record is not None and record["handle"] == "grace-hopper"
        assert client.profile("Grace-Hopper") == record
        frame = pd.DataFrame({"who": ["grace-hopper", grace, "@grace-hopper"]})
        estimate = frame.lookup.estimate_profiles("who", client=client)
        out = frame.lookup.enrich_profiles("who", client=client, progress=False, provenance=True)
    assert estimate.to_fetch == 0 and estimate.cached == 2
    assert out[STATUS].eq("ok").all() and out["profile_id"].eq(grace).all()
    assert out["lookup_source"].eq("cache").all()
    assert fake_service.count(PROFILE, handle="grace-hopper") == 0
    assert fake_service.billed() == 1


def test_a_company_is_one_company_by_slug_url_and_id(fake_service: FakeService, cache: Any):
    acme, globex = org_id("acme"), org_id("globex")
    with make_client(fake_service, cache=cache) as client:
        bought = client.company("acme")
        assert client.company(acme) == bought
        assert client.company("https://www.linkedin.com/company/ACME/") == bought
        by_id = client.company(globex)
        out = lp.get_companies(["globex", " Globex ", acme], client=client, progress=False)
    assert by_id is not None and by_id["slug"] == "globex"
    assert out["id"].tolist() == [globex, globex, acme] and out[STATUS].eq("ok").all()
    assert fake_service.count(COMPANY) == 2
    assert fake_service.billed() == 2


def test_an_alias_leads_nowhere_once_its_answer_names_someone_else(
    fake_service: FakeService, tmp_path: Path
):
    """A handle is reassigned: the answer bought anew under it names another id, so the old
    id's alias no longer leads there (and is bought, never answered with the other person)."""
    old = person_id("ada-lovelace")
    path = tmp_path / "answers.sqlite"
    with make_client(fake_service, cache=path) as client:
        client.profile("ada-lovelace")
        fake_service.override(PROFILE, _reassigned("ada-lovelace", "prsn_someoneElse"))
        anew = lp.get_profiles(["ada-lovelace"], client=client, progress=False, refresh=True)
        fake_service.override(PROFILE, None)
        assert anew["id"].tolist() == ["prsn_someoneElse"]
        assert not client.parts.cache.is_cached(PROFILE, {"id": old})
        cache = client.parts.cache
        assert cache.read_ahead(cache.keys([old], PEOPLE), PEOPLE) == {}  # a run's misses it too
        record = client.profile(old)
    assert record is not None and record["id"] == old
    assert fake_service.count(PROFILE, id=old) == 1


def test_a_run_reads_the_cache_ahead_in_one_read_through_the_aliases(
    fake_service: FakeService, cache: Any, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(sqlite, "READ_CHUNK", 2)  # SQLite: several IN (...) queries
    ada, grace = person_id("ada-lovelace"), person_id("grace-hopper")
    with make_client(fake_service, cache=cache) as client:
        client.profile("ada-lovelace")
        client.profile(grace)
        keys = client.parts.cache.keys([ada, "grace-hopper", "ada-lovelace", "x1"], PEOPLE)
        with cache_reads(client) as reads:
            answers = client.parts.cache.read_ahead(keys, PEOPLE)
    assert {value: a.data["id"] for value, a in answers.items()} == {  # type: ignore[union-attr]
        ada: ada,
        "grace-hopper": grace,
        "ada-lovelace": ada,
    }
    assert len(reads) == 4  # one read of the four keys, none one by one
    assert fake_service.count(PROFILE) == 2


def _reassigned(handle: str, new_id: str) -> Any:
    """An override of the profile route: ``handle`` now belongs to the person ``new_id``."""

    def reply(request: Request) -> Reply | None:
        if request.param("handle") != handle:
            return None  # the emulator answers
        record = {"id": new_id, "handle": handle, "first_name": "Someone", "last_name": "Else"}
        return ok(record, "Profile found")

    return reply


def test_no_alias_holds_the_key(fake_service: FakeService, tmp_path: Path, redis_url: str):
    import redis

    for cache in (tmp_path / "answers.sqlite", redis_url):
        with make_client(fake_service, cache=cache) as client:
            client.profile("ada-lovelace")
            client.company(org_id("acme"))
            assert client.profile(person_id("ada-lovelace")) is not None
            assert client.company("acme") is not None
    assert fake_service.billed() == 4  # one person and one company in each cache
    key = fake_service.api_key.encode()
    files = list(tmp_path.glob("answers.sqlite*"))
    assert files and all(key not in f.read_bytes() for f in files)
    everything = everything_in(redis.Redis.from_url(redis_url))
    assert any(b"redirects" in k for k in everything)  # the aliases are there...
    assert all(key not in k and all(key not in v for v in vs) for k, vs in everything.items())


def test_aliases_go_with_their_answers(fake_service: FakeService, cache: Any):
    ada, grace = person_id("ada-lovelace"), person_id("grace-hopper")
    with make_client(fake_service, cache=cache) as client:
        redirects = client.session.cache.redirects  # type: ignore[attr-defined]
        client.profile("ada-lovelace")
        client.profile(grace)
        assert client.parts.cache.is_cached(PROFILE, {"id": ada})
        assert len(list(redirects.keys())) == 2
        client.forget([ada])  # named by id: the answer bought by handle goes, and its alias
        assert not client.parts.cache.is_cached(PROFILE, {"handle": "ada-lovelace"})
        assert not client.parts.cache.is_cached(PROFILE, {"id": ada})
        assert len(list(redirects.keys())) == 1  # grace's stays
        client.profile(ada)
        assert client.parts.cache.is_cached(PROFILE, {"handle": "ada-lovelace"})
        client.clear()
        assert not client.parts.cache.is_cached(PROFILE, {"handle": "ada-lovelace"})
        assert list(redirects.keys()) == []
    assert fake_service.billed() == 3


def test_an_answer_renewed_by_its_alias_is_renewed_not_copied(
    fake_service: FakeService, cache: Any
):
    """``refresh="changed"`` keeps an answer by renewing its key: through an alias, the answer
    itself is renewed, and the cache still holds one answer."""
    ada = person_id("ada-lovelace")
    with make_client(fake_service, cache=cache) as client:
        client.profile("ada-lovelace")
        before = client.parts.cache.stored_at(PROFILE, {"id": ada})
        renewed = client.parts.cache.renew(PROFILE, client.parts.cache.keys([ada], PEOPLE).values())
        assert renewed == 1 and client.cache_info().entries == 1
        assert (
            client.parts.cache.stored_at(PROFILE, {"id": ada}) == before
        )  # bought then, kept longer
        assert client.profile(ada)["handle"] == "ada-lovelace"
    assert fake_service.billed() == 1


def test_prune_drops_the_aliases_of_answers_redis_let_go(fake_service: FakeService, redis_url: str):
    """Redis drops an answer when its TTL runs out; its alias goes at the next ``prune``."""
    import redis

    with make_client(fake_service, cache=redis_url) as client:
        client.profile("ada-lovelace")
        redirects = client.session.cache.redirects  # type: ignore[attr-defined]
        assert len(list(redirects.keys())) == 1
        key = client.parts.cache.keys(["ada-lovelace"], PEOPLE)["ada-lovelace"]
        answer = redis_answer_key(client.session.cache, key)  # type: ignore[attr-defined]
        assert redis.Redis.from_url(redis_url).delete(answer) == 1  # as its TTL would
        assert client.prune() == 0
        assert list(redirects.keys()) == []
