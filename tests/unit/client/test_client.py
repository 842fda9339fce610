"""The Client's decisions, driven through MockTransport: no socket, no emulator.

Rate discovery (once, under a lock, retried after a failure), retries and their counts,
cancellation, stats and the one-lookup request path, each from the requests the transport saw.
"""

from __future__ import annotations

import pickle
import threading
import time

import pytest
import requests

import lookup_pandas as lp
from lookup_pandas.config.settings import RATE_SAFETY_MARGIN, SAFE_DEFAULT_RATE_PER_MINUTE
from lookup_pandas.http.decisions import Call
from lookup_pandas.identifiers.kinds import PEOPLE
from lookup_pandas.service.paths import PROFILE_PATH
from lookup_pandas.store.pacing import Cancelled
from lookup_pandas.testing import MockTransport, envelope

BASE = "http://service.test"
FAST_TIER = envelope({"balance": 100, "current_tier": {"name": "t", "limit_per_minute": 60000}})


def person(request: requests.PreparedRequest) -> dict:
    handle = request.url.split("handle=", 1)[1]
    return {"id": f"prsn_{handle}", "handle": handle}


def service(tier=FAST_TIER, *, profile=None):
    """A handler: the tier as given (a body, or a callable of the request), profiles found."""

    def handler(request):
        if "/api/panel/" in request.url:
            return tier(request) if callable(tier) else (200, tier)
        if request.url.endswith("/api/data/v1/health"):
            return 200, envelope({"status": "ok"})
        if profile is not None:
            return profile(request)
        return (
            200,
            envelope(person(request)),
            {"X-Credits-Consumed": "1", "X-Credits-Balance": "99"},
        )

    return handler


def client_on(handler, **kwargs) -> lp.Client:
    opts = {"cache": False, "backoff_base": 0.001, "backoff_max": 0.002}
    opts.update(kwargs)
    return lp.Client(
        api_key="lk_test_unit", base_url=BASE, transport=MockTransport(handler), **opts
    )


# -- discovery ---------------------------------------------------------------------------------


def test_the_pace_is_learned_once_before_the_first_paced_send():
    with client_on(service()) as client:
        transport = client.session.get_adapter(BASE)
        assert transport.count() == 0  # lazy: nothing at construction
        for h in ("ada", "bob", "cid"):
            client.profile(h)
        assert transport.count("/api/panel/") == 1 and transport.count("/people/profile") == 3
        urls = [r.url for r in transport.requests]
        assert "/api/panel/" in urls[0]  # before the first paced send
        assert client.rate_limit_per_minute == pytest.approx(60000 * RATE_SAFETY_MARGIN)


def test_reading_the_tier_teaches_the_pace_without_a_second_request():
    with client_on(service()) as client:
        assert client.credits_tier()["balance"] == 100
        client.profile("ada")
        assert client.session.get_adapter(BASE).count("/api/panel/") == 1


def test_an_unmetered_tier_is_unpaced_and_a_ceiling_of_ones_own_applies():
    unmetered = envelope({"current_tier": {"name": "u", "limit_per_minute": None}})
    with client_on(service(unmetered)) as client:
        client.profile("ada")
        assert client.rate_limit_per_minute is None
    with client_on(service(unmetered), rate_limit_per_minute=600) as client:
        client.profile("ada")
        assert client.rate_limit_per_minute == 600


def test_an_unreadable_tier_gives_the_cheapest_pace():
    with client_on(service(lambda r: (503, envelope(success=False))), max_retries=0) as client:
        client.credits_tier  # noqa: B018
        assert client.profile("ada")["handle"] == "ada"
        assert client.rate_limit_per_minute == SAFE_DEFAULT_RATE_PER_MINUTE


def test_a_rejected_key_at_discovery_raises_and_the_next_call_tries_again():
    state = {"key_ok": False}

    def tier(request):
        if not state["key_ok"]:
            return 403, envelope(success=False, message="Invalid API key")
        return 200, FAST_TIER

    with client_on(service(tier)) as client:
        transport = client.session.get_adapter(BASE)
        for _ in range(2):
            with pytest.raises(lp.AuthenticationError):
                client.profile("ada")
        assert transport.count("/people/profile") == 0  # nothing paced was sent
        state["key_ok"] = True
        assert client.profile("ada")["handle"] == "ada"
        assert transport.count("/api/panel/") == 3


def test_many_threads_learn_the_pace_once_and_none_sends_before_it_is_known():
    order: list[str] = []
    lock = threading.Lock()

    def tier(request):
        time.sleep(0.2)  # a slow tier answer: the other threads must wait for it
        with lock:
            order.append("tier")
        return 200, FAST_TIER

    def profile(request):
        with lock:
            order.append("profile")
        return 200, envelope(person(request))

    with client_on(service(tier, profile=profile)) as client:
        start = threading.Barrier(8)
        errors: list[BaseException] = []

        def worker(i):
            start.wait()
            try:
                client.profile(f"person-{i}")
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=30)
    assert errors == []
    assert order[0] == "tier" and order.count("tier") == 1 and order.count("profile") == 8


# -- retries, cancellation and stats ------------------------------------------------------------


def test_transient_failures_are_retried_and_counted():
    calls = {"n": 0}

    def flaky(request):
        calls["n"] += 1
        if calls["n"] <= 2:
            return 503, envelope(success=False, message="busy", error_code="1072")
        return 200, envelope(person(request)), {"X-Credits-Consumed": "1"}

    with client_on(service(profile=flaky)) as client:
        assert client.profile("ada")["handle"] == "ada"
        stats = client.stats
    assert (stats.sent, stats.retries, stats.credits_consumed) == (4, 2, 1)  # tier + 3 tries


def test_a_connection_failure_after_contact_is_retried_then_raised():
    def down(request):
        raise requests.ConnectionError("connection reset by peer")

    with client_on(service(profile=down), max_retries=2) as client:
        with pytest.raises(lp.TransportError):
            client.profile("ada")
        assert client.session.get_adapter(BASE).count("/people/profile") == 3


def test_a_set_cancel_event_sends_nothing():
    with client_on(service()) as client:
        stop = threading.Event()
        stop.set()
        with pytest.raises(Cancelled):
            client.parts.sender.request(Call(PROFILE_PATH, {"handle": "ada"}, cancel=stop))
        assert client.session.get_adapter(BASE).count() == 0


def test_a_cancel_during_back_off_ends_the_call_without_another_send():
    stop = threading.Event()

    def busy(request):
        stop.set()  # the job stops while this call is answered 503
        return 503, envelope(success=False, message="busy")

    # A one-hour back-off: had the cancel not ended it, this test would hang until pytest's
    # timeout fails it (no wall-clock assertion needed).
    with client_on(service(profile=busy), backoff_base=3600, backoff_max=3600) as client:
        with pytest.raises(Cancelled):
            client.parts.sender.request(Call(PROFILE_PATH, {"handle": "ada"}, cancel=stop))
        assert client.session.get_adapter(BASE).count("/people/profile") == 1


def test_stats_count_credits_and_the_balance():
    with client_on(service()) as client:
        client.profile("ada")
        client.profile("bob")
        stats = client.stats
    assert stats.sent == 3 and stats.credits_consumed == 2 and stats.credits_balance == 99


def test_a_cached_answer_is_read_with_one_lookup_and_sends_nothing(tmp_path):
    with client_on(service(), cache=tmp_path / "c.sqlite") as client:
        transport = client.session.get_adapter(BASE)
        first = client.parts.sender.request(Call(PROFILE_PATH, {"handle": "ada"}))
        second = client.parts.sender.request(Call(PROFILE_PATH, {"handle": "ada"}))
        assert (first.from_cache, second.from_cache) == (False, True)
        assert transport.count("/people/profile") == 1
        assert client.stats.cache_hits == 1


def test_a_429_on_the_panel_endpoint_waits_its_retry_after_before_the_retry(monkeypatch):
    # The panel endpoint takes no pacing slot, so deferring the pacer alone would send the
    # retry at once (and spend every attempt within milliseconds): it must wait itself.
    answers = iter(
        [
            (429, envelope(None, success=False, message="slow down"), {"Retry-After": "1"}),
            (200, FAST_TIER),
        ]
    )
    waited: list[float] = []
    monkeypatch.setattr("lookup_pandas.http.sending.pause", lambda s, cancel=None: waited.append(s))
    with client_on(lambda request: next(answers), retry_after_max=5) as client:
        client.credits_tier()
        assert client.stats.rate_limited == 1
    assert waited == [1.0]


# -- the façade: each call is its room's, checked as it was ---------------------------------------


def test_paginate_checks_its_keywords_when_iterated_and_sends_nothing():
    with client_on(service()) as client:
        records = client.paginate("/api/data/v1/people/search", style="sideways")
        with pytest.raises(ValueError, match="style"):
            next(records)
        with pytest.raises(lp.errors.UsageError, match="max_records"):
            next(client.paginate("/api/data/v1/people/search", max_records=-1))
        assert client.session.get_adapter(BASE).count() == 0


def test_the_cache_fronts_answer_without_a_cache_and_send_nothing():
    with client_on(service()) as client:
        assert (
            client.parts.cache.is_cached("/api/data/v1/people/profile", {"handle": "ada"}) is False
        )
        assert client.parts.cache.cached("/api/data/v1/people/profile", {"handle": "ada"}) is None
        assert client.parts.cache.keys(["ada"], PEOPLE) == {}
        assert client.cache_info().entries == 0 and client.prune() == 0 and client.clear() == 0
        assert client.session.get_adapter(BASE).count() == 0


def test_a_client_is_not_picklable_and_says_what_to_pickle_instead():
    with client_on(service()) as client, pytest.raises(TypeError, match="ClientSpec.from_client"):
        pickle.dumps(client)
