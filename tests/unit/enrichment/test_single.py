"""Unit tests for lookup_pandas.enrichment.single: one handle's call in an enrichment, as an
Outcome, through MockTransport (no server): a record, a billed not-found, a record the service
refuses, a failure, a rejected key that ends the job, a run stopped before the call, the cache
read first."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
import requests

import lookup_pandas as lp
from lookup_pandas.enrichment.results import ERROR, FORBIDDEN, NOT_CACHED, NOT_FOUND, OK, Outcome
from lookup_pandas.enrichment.single import (
    SingleCalls,
    cached_outcomes,
    fetch_one,
    in_cache,
    not_cached_outcome,
    window_size,
)
from lookup_pandas.errors import (
    AuthenticationError,
    NotCachedError,
    NotFoundError,
    PermissionDeniedError,
    ServerError,
)
from lookup_pandas.identifiers.kinds import COMPANIES, PEOPLE, Kind
from lookup_pandas.service.paths import COMPANY_PATH, PROFILE_PATH
from lookup_pandas.testing import MockTransport, envelope

BASE = "http://service.test"
TIER = envelope({"balance": 100, "current_tier": {"name": "t", "limit_per_minute": 60000}})
RECORDS = {"ada": {"id": "prsn_1", "handle": "ada"}, "acme": {"id": "org_1", "slug": "acme"}}


def service(request: requests.PreparedRequest) -> tuple[Any, ...]:
    """Records for ada and acme; ghost is a billed not-found, hidden opted out, broken a 500,
    revoked a rejected key."""
    url = request.url or ""
    if "/api/panel/" in url:
        return 200, TIER
    value = requests.utils.unquote(url.rsplit("=", 1)[1])
    if value in RECORDS:
        return 200, envelope(RECORDS[value])
    if value == "hidden":
        return 403, envelope(None, success=False, message="This person has opted out")
    if value == "broken":
        return 500, envelope(None, success=False, message="Internal error")
    if value == "revoked":
        return 403, envelope(None, success=False, message="API key has been revoked")
    return 200, envelope(None, success=False, message="Profile not found", error_code="1010")


@pytest.fixture
def transport() -> MockTransport:
    return MockTransport(service)


@pytest.fixture
def client(transport, tmp_path):
    with lp.Client(
        api_key="lk_test_unit",
        base_url=BASE,
        cache=tmp_path / "c.sqlite",
        transport=transport,
        max_retries=0,
    ) as client:
        yield client


def sent(transport: MockTransport, path: str = PROFILE_PATH) -> list[str]:
    """The URLs of the lookups sent (not the tier read of first contact)."""
    return [r.url or "" for r in transport.requests if path in (r.url or "")]


def calls(
    client: lp.Client,
    stop: threading.Event,
    refresh: bool = False,
    *,
    kind: Kind = PEOPLE,
    fresh_after: float | None = None,
) -> SingleCalls:
    """A run's single calls on ``client``, stopped by ``stop``."""
    return SingleCalls(client.parts.sender.request, kind, stop, refresh, fresh_after)


def test_a_runs_calls_carry_its_fixed_parts_and_each_its_own_claim():
    stop = threading.Event()
    made = SingleCalls(lambda call: None, COMPANIES, stop, refresh=True, fresh_after=1.0)
    call = made.call("acme", held=("the-key", "mine"))
    assert (call.path, dict(call.params)) == (COMPANY_PATH, {"slug": "acme"})
    assert (call.refresh, call.cancel, call.fresh_after) == (True, stop, 1.0)
    assert (call.held, call.key) == ("mine", "the-key")
    assert made.call("acme").key is None  # unheld: the call works its key out
    assert call.cache and call.paced  # a lookup is cached and paced


# -- fetch_one -----------------------------------------------------------------------------------


def test_a_record_is_fetched_once_then_read_from_the_cache(client, transport):
    stop = threading.Event()
    assert fetch_one(calls(client, stop), "ada") == (Outcome(OK, RECORDS["ada"]), False)
    assert fetch_one(calls(client, stop), "ada") == (Outcome(OK, RECORDS["ada"]), True)
    assert len(sent(transport)) == 1 and not stop.is_set()


def test_a_refresh_buys_the_answer_again(client, transport):
    stop = threading.Event()
    fetch_one(calls(client, stop), "ada")
    assert fetch_one(calls(client, stop, True), "ada") == (Outcome(OK, RECORDS["ada"]), False)
    assert len(sent(transport)) == 2


def test_an_answer_stored_before_fresh_after_is_bought_anew_then_counts(client, transport):
    stop = threading.Event()
    fetch_one(calls(client, stop), "ada")
    since = time.time()
    bought = fetch_one(calls(client, stop, fresh_after=since), "ada")
    assert bought == (Outcome(OK, RECORDS["ada"]), False) and len(sent(transport)) == 2
    assert fetch_one(calls(client, stop, fresh_after=since), "ada") == (bought[0], True)
    assert len(sent(transport)) == 2


def test_a_billed_not_found_is_an_outcome_and_counts_as_cached_the_second_time(client):
    stop = threading.Event()
    outcome, from_cache = fetch_one(calls(client, stop), "ghost")
    assert (outcome.status, outcome.error, from_cache) == (NOT_FOUND, "Profile not found", False)
    assert isinstance(outcome.exc, NotFoundError)
    again, from_cache = fetch_one(calls(client, stop), "ghost")
    assert again.status == NOT_FOUND and from_cache


def test_a_record_the_service_refuses_is_forbidden_and_never_cached(client, transport):
    stop = threading.Event()
    for _ in range(2):
        outcome, from_cache = fetch_one(calls(client, stop), "hidden")
        assert (outcome.status, from_cache) == (FORBIDDEN, False)
        assert isinstance(outcome.exc, PermissionDeniedError)
    assert len(sent(transport)) == 2 and not stop.is_set()  # the job goes on


def test_a_failure_is_an_error_outcome_and_the_job_goes_on(client):
    stop = threading.Event()
    outcome, from_cache = fetch_one(calls(client, stop), "broken")
    assert (outcome.status, from_cache) == (ERROR, False)
    assert isinstance(outcome.exc, ServerError) and outcome.error == str(outcome.exc)
    assert not stop.is_set()


def test_a_rejected_key_stops_every_other_call_and_is_raised(client):
    stop = threading.Event()
    with pytest.raises(AuthenticationError):
        fetch_one(calls(client, stop), "revoked")
    assert stop.is_set()


def test_a_call_of_a_stopped_run_sends_nothing(client, transport):
    stop = threading.Event()
    stop.set()
    assert fetch_one(calls(client, stop), "ada") is None
    assert sent(transport) == []


def test_a_company_is_looked_up_by_its_slug(client, transport):
    stop = threading.Event()
    outcome, _ = fetch_one(calls(client, stop, kind=COMPANIES), "acme")
    assert outcome == Outcome(OK, RECORDS["acme"])
    (url,) = sent(transport, COMPANY_PATH)
    assert url.endswith("slug=acme")


# -- cached_outcomes: the cache, never the network ------------------------------------------------


def stored(client, values, kind=PEOPLE):
    """cached_outcomes of ``values``, by their keys as a run works them out."""
    return cached_outcomes(client, client.parts.cache.keys(values, kind), kind)


def test_the_cache_gives_the_stored_outcome_or_none_and_sends_nothing(client, transport):
    stop = threading.Event()
    assert stored(client, ["ada"]) == {}
    fetch_one(calls(client, stop), "ada")
    fetch_one(calls(client, stop), "ghost")
    fetch_one(calls(client, stop, kind=COMPANIES), "acme")
    before = len(transport.requests)
    found = stored(client, ["ada", "ghost", "acme"])  # a person named acme: never bought
    assert list(found) == ["ada", "ghost"] and found["ada"] == Outcome(OK, RECORDS["ada"])
    gone = found["ghost"]
    assert gone.status == NOT_FOUND and gone.error == "Profile not found"
    assert stored(client, ["acme"], COMPANIES) == {"acme": Outcome(OK, RECORDS["acme"])}
    assert len(transport.requests) == before


def test_without_a_cache_nothing_is_cached(transport):
    with lp.Client(api_key="lk_test_unit", base_url=BASE, cache=False, transport=transport) as c:
        fetch_one(calls(c, threading.Event()), "ada")
        assert c.parts.cache.keys(["ada"], PEOPLE) == {}  # nothing to read
        assert stored(c, ["ada"]) == {}


def test_offline_a_value_not_in_the_cache_is_not_cached_and_raises_as_such():
    outcome = not_cached_outcome()
    assert outcome.status == NOT_CACHED and outcome.record is None
    assert outcome.error == "not in the cache, and offline: nothing was sent"
    assert isinstance(outcome.exc, NotCachedError) and outcome.exc.message == outcome.error


# -- what is in the cache after a call, and the claim window -------------------------------------


def test_an_answer_is_in_the_cache_when_found_there_bought_or_a_billed_not_found():
    billed = NotFoundError("Profile not found", status_code=200)
    unbilled = NotFoundError("Not found", status_code=404)
    assert in_cache((Outcome(OK, {"id": "prsn_1"}), False))
    assert in_cache((Outcome(NOT_FOUND, exc=billed), False))
    assert in_cache((Outcome(ERROR), True))  # read from the cache: there
    assert not in_cache((Outcome(NOT_FOUND, exc=unbilled), False))
    assert not in_cache((Outcome(FORBIDDEN), False))
    assert not in_cache((Outcome(ERROR), False))
    assert not in_cache(None)  # the run stopped first


@pytest.mark.parametrize(("workers", "window"), [(1, 8), (4, 8), (8, 8), (16, 16)])
def test_the_claim_window_is_small_but_never_below_the_workers(workers, window):
    assert window_size(workers) == window
