"""The send chain's claim step (lookup_pandas.store.claims.claim_or_wait), and a call whose claim
its
caller holds (enrichment's claim window), no server."""

from __future__ import annotations

import threading
from collections import Counter

import pytest

import lookup_pandas as lp
from lookup_pandas.store import BUSY, MINE, RECHECK, MemoryStore
from lookup_pandas.store.claims import Claims, claim_or_wait, fresh_lookup
from lookup_pandas.store.pacing import Cancelled
from lookup_pandas.testing import MockTransport, envelope


class ScriptedStore(MemoryStore):
    """A store whose claims answer as scripted, recording what was released."""

    def __init__(self, *states: str) -> None:
        super().__init__()
        self.states = list(states)
        self.released: list[tuple[list[str], bool]] = []

    def claim_many(self, keys: list[str], ttl: float) -> dict[str, str]:
        return dict.fromkeys(keys, self.states.pop(0))

    def release_many(self, keys: list[str], *, bought: bool = True) -> None:
        self.released.append((keys, bought))


def looks(*answers: str | None):
    """A cache lookup answering in turn, counting its calls."""
    queue = list(answers)
    calls: list[None] = []

    def lookup() -> str | None:
        calls.append(None)
        return queue.pop(0) if queue else None

    return lookup, calls


@pytest.fixture(autouse=True)
def no_sleeping(monkeypatch):
    monkeypatch.setattr("lookup_pandas.store.claims.pause", lambda s, cancel=None: None)


def test_a_claim_of_ones_own_is_bought_without_looking():
    lookup, calls = looks("stored")
    claims = Claims(ScriptedStore(MINE))
    assert claim_or_wait(claims, "k", lookup) == ("k", None)
    assert calls == []
    claims.close()


def test_a_claim_let_go_of_lately_reads_the_cache_first():
    store = ScriptedStore(RECHECK)
    lookup, _ = looks("stored")
    assert claim_or_wait(Claims(store), "k", lookup) == (None, "stored")
    assert store.released == [(["k"], True)]  # read, not bought: let go at once


def test_a_claim_let_go_of_without_an_answer_is_bought_after_a_few_looks():
    lookup, calls = looks()
    assert claim_or_wait(Claims(ScriptedStore(RECHECK)), "k", lookup) == ("k", None)
    assert len(calls) == 5


def test_a_busy_claim_waits_and_is_counted_until_the_answer_shows():
    waiting: list[int] = []
    lookup, calls = looks(None, "stored")
    store = ScriptedStore(BUSY, BUSY)
    assert claim_or_wait(Claims(store), "k", lookup, None, waiting.append) == (None, "stored")
    assert waiting == [1, -1] and len(calls) == 2


def test_a_busy_claim_taken_over_is_bought():
    waiting: list[int] = []
    lookup, _ = looks(None)
    result = claim_or_wait(Claims(ScriptedStore(BUSY, MINE)), "k", lookup, None, waiting.append)
    assert result == ("k", None) and waiting == [1, -1]


def test_a_cancelled_wait_stops_and_is_no_longer_counted(monkeypatch):
    monkeypatch.undo()  # the real pause: a set cancel event raises at once
    stop = threading.Event()
    stop.set()
    waiting: list[int] = []
    lookup, _ = looks()
    with pytest.raises(Cancelled):
        claim_or_wait(Claims(ScriptedStore(BUSY)), "k", lookup, stop, waiting.append)
    assert waiting == [1, -1]


def test_fresh_lookup_stops_at_the_first_answer():
    lookup, calls = looks(None, None, "stored")
    assert fresh_lookup(lookup) == "stored" and len(calls) == 3


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
        original = getattr(client._parts.store, name)
        setattr(client._parts.store, name, _counting(counted, name, original))
    wire = client._parts.wire
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
    cached_client.profile_answer("ada")
    assert (counted["claim_many"], counted["release_many"]) == (1, 1)
    counted.clear()
    assert not cached_client.profile_answer("grace", held=MINE).from_cache  # a miss: bought
    assert cached_client.profile_answer("grace", held=MINE).from_cache  # read once, not bought
    assert counted == {"cached": 2}  # neither claimed nor let go: the holder does that
    sent = cached_client.session.get_adapter(BASE).count("/people/profile")
    assert sent == 2


def test_a_held_claim_still_reads_the_cache_once_unless_the_caller_just_did(cached_client):
    counted = cached_client.counted
    cached_client.profile_answer("ada", held=MINE, known_miss=True)
    assert counted == {}  # a miss the caller just read: bought at once
    assert cached_client.profile_answer("ada", held=MINE).from_cache
    assert counted == {"cached": 1}


def test_a_held_claim_let_go_of_lately_is_looked_up_afresh_before_buying(cached_client):
    counted = cached_client.counted
    env = cached_client.profile_answer("ada", held=RECHECK, known_miss=True)
    assert not env.from_cache and counted == {"cached": 5}  # looked a few times, then bought
    counted.clear()
    assert cached_client.profile_answer("ada", held=RECHECK, known_miss=True).from_cache
    assert counted == {"cached": 1}


def test_a_request_prepared_ahead_is_sent_by_its_call_once(cached_client):
    wire = cached_client._parts.wire
    prepared: list[str] = []
    session_prepare = wire.session.prepare_request

    def counting(request):
        if "handle" in request.params:  # not the tier read of first contact
            prepared.append(request.params["handle"])
        return session_prepare(request)

    wire.session.prepare_request = counting
    keys = cached_client.profile_keys(["ada", "grace"], ahead=True)
    assert prepared == ["ada", "grace"]
    for handle in ("ada", "grace"):
        cached_client.profile_answer(handle, held=MINE)
    assert prepared == ["ada", "grace"]  # the calls took the requests prepared ahead
    assert cached_client.profile_answer("ada").from_cache  # the next call prepares its own
    assert prepared == ["ada", "grace", "ada"]
    # the keys are the cache's own names for those answers
    stored = cached_client.session.cache.responses.keys()
    assert set(keys.values()) <= set(stored)
    # without ahead, nothing is kept for later
    cached_client.profile_keys(["linus"])
    cached_client.profile_answer("linus", held=MINE)
    assert prepared.count("linus") == 2
