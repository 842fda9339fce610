"""The send chain's claim step (lookup_pandas.claims.claim_or_wait) and its wire, no server."""

from __future__ import annotations

import threading

import pytest

from lookup_pandas.claims import Claims, claim_or_wait, fresh_lookup
from lookup_pandas.pacing import Cancelled
from lookup_pandas.store import BUSY, MINE, RECHECK, MemoryStore


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
    monkeypatch.setattr("lookup_pandas.claims.pause", lambda s, cancel=None: None)


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
