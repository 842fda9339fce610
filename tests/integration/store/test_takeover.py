"""A claim whose holder is gone (a process of this machine that no longer runs) is taken over at
once, on the file store and on Redis alike, and as RECHECK: the taker reads the cache before it
buys, since the holder may have stored the answer just before it died (issue 42, items 3-4).

The dead holder is a holder name of this machine with a pid above Linux's largest (as
``holder_gone``'s doctest), its claim forged with a ttl of 600 s: a run that waited for it would
outlast the test's bounded timeout, so finishing at all shows it did not wait.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import lookup_pandas as lp
from lookup_pandas.identifiers.kinds import PEOPLE
from lookup_pandas.store import BUSY, RECHECK, Store, namespace, open_store

from ..helpers import make_client

pytestmark = pytest.mark.timeout(120)

DEAD = f"{socket.gethostname()}|{2**22 + 1}|1|dead-run"
#: Long enough that a run waiting on the dead holder's claim would outlast the timeout.
LONG_TTL = 600.0


@pytest.fixture(params=["sqlite", "redis"])
def cache(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """The cache URL or file: the store beside a SQLite file, or in a real Redis."""
    if request.param == "redis":
        return request.getfixturevalue("redis_url")
    return tmp_path / "takeover.sqlite"


def store_of(svc: Any, cache: Any) -> Store:
    """Another store object on the Client's store (another process, as far as claims go)."""
    return open_store(cache, namespace(svc.api_key, svc.base_url))


def forge_dead_claims(svc: Any, cache: Any, keys: list[str]) -> None:
    """Live claims on ``keys`` held by a process of this machine that no longer runs."""
    dead = store_of(svc, cache)
    dead._holder = DEAD  # type: ignore[attr-defined]  # its name on its claims
    try:
        assert set(dead.claim_many(keys, ttl=LONG_TTL).values()) <= {"mine", RECHECK}
    finally:
        dead.close()


def enrich(client: lp.Client, handles: list[str], method: str) -> pd.DataFrame:
    frame = pd.DataFrame({"handle": handles})
    return frame.lookup.enrich_profiles("handle", client=client, method=method, progress=False)


@pytest.mark.parametrize("method", ["single", "batch"])
def test_a_dead_runs_claims_are_taken_over_at_once(fake_service, cache, method):
    svc = fake_service
    handles = [f"orphan{i:02d}" for i in range(6)]
    with make_client(svc, cache=cache) as client:
        client.parts.claims.ttl = LONG_TTL
        keys = list(client.parts.cache.keys(handles, PEOPLE).values())
        forge_dead_claims(svc, cache, keys)
        out = enrich(client, handles, method)
    assert set(out["lookup_status"]) == {"ok"}
    assert svc.billed_handles() == dict.fromkeys(handles, 1)
    other = store_of(svc, cache)
    try:  # every claim let go as bought by the taker: the next claimant reads the cache first
        assert set(other.claim_many(keys, ttl=30.0).values()) == {RECHECK}
    finally:
        other.close()


def test_a_claim_of_a_live_holder_is_still_waited_for(fake_service, cache):
    svc = fake_service
    live = store_of(svc, cache)
    try:
        with make_client(svc, cache=cache) as client:
            (key,) = client.parts.cache.keys(["busy-ada"], PEOPLE).values()
        live.claim_many([key], ttl=LONG_TTL)
        other = store_of(svc, cache)
        try:
            assert other.claim_many([key], ttl=30.0) == {key: BUSY}
        finally:
            other.close()
    finally:
        live.release_many([key], bought=False)
        live.close()


@pytest.mark.parametrize("method", ["single", "batch"])
def test_an_answer_the_dead_holder_stored_is_read_not_bought_again(fake_service, cache, method):
    # The survivor's plan read the cache before the dead holder's last answer landed; its claim
    # is then taken over as RECHECK, so the survivor reads the cache again before buying.
    svc = fake_service
    handles = ["stored-by-the-dead", "never-stored"]
    with make_client(svc, cache=cache) as survivor:
        keys = survivor.parts.cache.keys(handles, PEOPLE)
        store = survivor.parts.store
        claim_many: Callable[..., dict[str, str]] = store.claim_many

        def after_the_dead_holder_stored(asked: list[str], ttl: float) -> dict[str, str]:
            if keys[handles[0]] in asked and not stored:
                stored.append(1)
                with make_client(svc, cache=cache) as dead:  # it stores the answer...
                    dead.profile(handles[0])
                forge_dead_claims(svc, cache, [keys[handles[0]]])  # ...and dies holding it
            return claim_many(asked, ttl)

        stored: list[int] = []
        store.claim_many = after_the_dead_holder_stored  # type: ignore[method-assign]
        try:
            out = enrich(survivor, handles, method)
        finally:
            del store.claim_many
    assert stored == [1]
    assert set(out["lookup_status"]) == {"ok"}
    assert svc.billed_handles() == dict.fromkeys(handles, 1)  # the dead holder's: not twice
