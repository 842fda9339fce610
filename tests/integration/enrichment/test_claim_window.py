"""Claims taken a window ahead and let go in batches: an uncontended miss costs no store
transaction of its own (the claim and its release are shared by a window of calls), and a run
that stops lets go of every claim it held.

The store's methods are wrapped on the Client's own store object (``client.parts.store``, which the
claims and the shared pace use too), counting each call: one call is one store transaction.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import pytest

import lookup_pandas as lp  # noqa: F401  registers df.lookup
from lookup_pandas.client.client import Client
from lookup_pandas.display.progress import Progress
from lookup_pandas.enrichment.plan import Options, Plan
from lookup_pandas.enrichment.run import EnrichmentRun
from lookup_pandas.enrichment.single import window_size
from lookup_pandas.http.decisions import Call
from lookup_pandas.identifiers.kinds import PEOPLE
from lookup_pandas.service.paths import PROFILE_PATH
from lookup_pandas.store import BUSY, MINE, RECHECK, namespace, store_path
from lookup_pandas.store.local import LocalStore

from ..enrich_helpers import AfterN, expected_status, interrupt_main, lead_frame
from ..helpers import PROFILE, cache_reads, make_client

pytestmark = pytest.mark.timeout(120)

COUNTED = ("claim_many", "release_many", "renew", "reserve")


@contextmanager
def store_calls(client: Client) -> Iterator[Counter[str]]:
    """Calls of the client's store methods while the block runs, by name."""
    calls: Counter[str] = Counter()
    store = client.parts.store

    def counting(name: str) -> Any:
        original = getattr(store, name)

        def counted(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return original(*args, **kwargs)

        return counted

    for name in COUNTED:
        setattr(store, name, counting(name))
    try:
        yield calls
    finally:
        for name in COUNTED:
            delattr(store, name)


def other_holder(fake_service: Any, cache: Any) -> LocalStore:
    """Another holder on the same store file (another process, as far as claims go)."""
    return LocalStore(store_path(cache), namespace(fake_service.api_key, fake_service.base_url))


def singles(client: Client, handles: list[str]) -> EnrichmentRun:
    """The run's single calls alone, without the plan's read-ahead of the cache."""
    with Progress(False) as bar, ThreadPoolExecutor(client.max_workers) as pool:
        options = Options(progress=False)
        state = EnrichmentRun(client, Plan(), options, bar=bar, pool=pool, kind=PEOPLE)
        state.run_singles(handles)
    return state


def test_200_uncontended_misses_cost_a_claim_and_a_release_per_window_not_per_miss(
    fake_service, tmp_path
):
    cache = tmp_path / "window.sqlite"
    handles = [f"window{i:03d}-lead" for i in range(200)]
    with make_client(fake_service, cache=cache, max_workers=4) as client:
        with store_calls(client) as calls:
            out = lead_frame(handles).lookup.enrich_profiles(
                "handle", client=client, progress=False, method="single"
            )
        assert client.parts.claims.held == 0
        keys = list(client.parts.cache.keys(handles, PEOPLE).values())
    windows = math.ceil(len(handles) / window_size(4))  # 25 windows of 8
    assert calls["claim_many"] == windows
    # One release per bought-flag group, when the next window is taken and at the end.
    assert calls["release_many"] <= 2 * (windows + 1)
    assert calls["claim_many"] + calls["release_many"] <= len(handles) // 2  # not one per miss
    assert out["lookup_status"].tolist() == [expected_status(h) for h in handles]
    assert fake_service.billed_handles() == dict.fromkeys(handles, 1)
    other = other_holder(fake_service, cache)
    try:  # every claim let go as bought: the next claimant reads the cache first
        assert set(other.claim_many(keys, ttl=30.0).values()) == {RECHECK}
    finally:
        other.close()


def test_a_second_run_over_cached_answers_takes_no_claim(fake_service, tmp_path):
    cache = tmp_path / "window.sqlite"
    frame = lead_frame([f"again{i:02d}-lead" for i in range(40)])
    with make_client(fake_service, cache=cache) as client:
        frame.lookup.enrich_profiles("handle", client=client, progress=False, method="single")
        with store_calls(client) as calls:
            out = frame.lookup.enrich_profiles("handle", client=client, progress=False)
    assert out["lookup_status"].tolist() == ["ok"] * 40
    assert calls["claim_many"] == calls["release_many"] == 0


def test_a_run_stopped_midway_lets_go_of_every_claim_it_held(fake_service, tmp_path):
    cache = tmp_path / "window.sqlite"
    handles = [f"stopped{i:02d}-lead" for i in range(60)]
    fake_service.configure(latency=0.02)
    trigger = AfterN(10, interrupt_main)
    fake_service.override(PROFILE, trigger)
    with make_client(fake_service, cache=cache, max_workers=4) as client:
        keys = client.parts.cache.keys(handles, PEOPLE)
        with pytest.raises(KeyboardInterrupt):
            lead_frame(handles).lookup.enrich_profiles(
                "handle", client=client, progress=False, method="single"
            )
        assert client.parts.claims.held == 0
        other = other_holder(fake_service, cache)
        try:
            states = other.claim_many(list(keys.values()), ttl=30.0)
            other.release_many(list(keys.values()), bought=False)
        finally:
            other.close()
    fake_service.override(PROFILE, None)
    bought = {h for h in handles if fake_service.billed(PROFILE, handle=h)}
    assert trigger.fired and 10 <= len(bought) < len(handles)
    assert BUSY not in states.values()  # nothing left held by the stopped run
    # Those not bought were let go as such: the next claimant buys at once, without looking.
    assert {states[keys[h]] for h in handles if h not in bought} == {MINE}
    assert {states[keys[h]] for h in bought} == {RECHECK}

    with make_client(fake_service, cache=cache) as client:
        out = lead_frame(handles).lookup.enrich_profiles(
            "handle", client=client, progress=False, method="single"
        )
    assert out["lookup_status"].tolist() == ["ok"] * len(handles)
    assert fake_service.billed_handles() == dict.fromkeys(handles, 1)


def test_a_window_claim_let_go_of_lately_reads_the_cache_first(fake_service, tmp_path):
    # Another holder just bought these (RECHECK): the held call looks again, a few times,
    # before it would buy; found, it is not bought a second time.
    cache = tmp_path / "window.sqlite"
    cached, gone = ["recheck-cached", "recheck-ada"], ["recheck-gone"]
    with make_client(fake_service, cache=cache) as client:
        for handle in cached:
            client.parts.sender.request(Call(PROFILE_PATH, {"handle": handle}))
        keys = client.parts.cache.keys(cached + gone, PEOPLE)
        other = other_holder(fake_service, cache)
        try:
            other.claim_many(list(keys.values()), ttl=30.0)
            other.release_many(list(keys.values()))  # "bought": read the cache first
            with cache_reads(client) as reads:
                state = singles(client, cached + gone)
        finally:
            other.close()
        assert client.parts.claims.held == 0
    assert {h: state.outcomes[h].status for h in cached + gone} == dict.fromkeys(
        cached + gone, "ok"
    )
    assert state.counts == {"cached": 2, "fetched": 1, "refused": 0, "failed": 0}
    assert fake_service.billed_handles() == dict.fromkeys(cached + gone, 1)
    assert reads.count(keys["recheck-gone"]) >= 2  # looked again before buying it


def test_a_window_claim_still_reads_the_cache_once_before_buying(fake_service, tmp_path):
    # Bought by another process before the window was claimed (and let go long ago): the
    # window's claim is MINE, but the call reads the cache before it sends.
    cache = tmp_path / "window.sqlite"
    with make_client(fake_service, cache=cache) as client:
        client.parts.sender.request(Call(PROFILE_PATH, {"handle": "bought-before"}))
        keys = client.parts.cache.keys(["bought-before"], PEOPLE)
        client.parts.store.release_many(list(keys.values()), bought=False)  # the claim long gone
        with store_calls(client) as calls:
            state = singles(client, ["bought-before", "not-yet-bought"])
    assert state.counts == {"cached": 1, "fetched": 1, "refused": 0, "failed": 0}
    assert fake_service.billed_handles() == {"bought-before": 1, "not-yet-bought": 1}
    assert calls["claim_many"] == 1


def test_handles_another_process_is_buying_are_waited_for_and_the_rest_bought(
    fake_service, tmp_path
):
    cache = tmp_path / "window.sqlite"
    handles = [f"shared{i:02d}-lead" for i in range(20)]
    theirs = handles[3:6]
    with make_client(fake_service, cache=cache, max_workers=2) as client:
        keys = client.parts.cache.keys(handles, PEOPLE)
        with make_client(fake_service, cache=cache) as buyer:
            held = [keys[h] for h in theirs]
            assert set(buyer.parts.claims.take(held).values()) == {MINE}

            def buy() -> None:  # bought while this run waits, then let go
                for handle in theirs:
                    buyer.parts.sender.request(Call(PROFILE_PATH, {"handle": handle}, held=MINE))
                buyer.parts.claims.release(held)

            later = threading.Timer(0.5, buy)
            later.start()
            try:
                state = singles(client, handles)
            finally:
                later.join()
        assert client.parts.claims.held == 0
    assert state.counts == {"cached": 3, "fetched": 17, "refused": 0, "failed": 0}
    assert fake_service.billed_handles() == dict.fromkeys(handles, 1)
