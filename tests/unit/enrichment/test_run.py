"""Unit tests for lookup_pandas.enrichment.run: the run's counts, what a stopped run leaves on its
exception, and runs carried out through MockTransport (no server): the outage breaker, a key
rejected mid-run saying what is kept, ``errors="raise"``, credits from the answers' headers."""

from __future__ import annotations

import dataclasses
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests

import lookup_pandas as lp
from lookup_pandas.enrichment.batch_run import out_of_credits
from lookup_pandas.enrichment.lookup import lookup_values
from lookup_pandas.enrichment.plan import Options, Plan
from lookup_pandas.enrichment.results import ERROR, FORBIDDEN, NOT_FOUND, OK, JobSummary, Outcome
from lookup_pandas.enrichment.run import (
    EnrichmentRun,
    fetched_as,
)
from lookup_pandas.errors import (
    AuthenticationError,
    InsufficientCreditsError,
    NotFoundError,
    ServerError,
)
from lookup_pandas.identifiers.kinds import COMPANIES, PEOPLE
from lookup_pandas.service.paths import PROFILE_PATH
from lookup_pandas.testing import MockTransport, envelope

BASE = "http://service.test"

#: The runs' one pool, of client_on's one worker, as ``lookup_values`` makes it.
POOL = ThreadPoolExecutor(1, "test-run")
TIER = envelope({"balance": 1000, "current_tier": {"name": "t", "limit_per_minute": 60000}})


def client_on(profile, **kwargs: Any) -> lp.Client:
    """A Client (one worker, no retries, no cache) whose profile answers come from ``profile``
    (given the handle); the other panel routes are missing, so each call costs one credit."""

    def handler(request: requests.PreparedRequest) -> tuple[Any, ...]:
        url = request.url or ""
        if "/credits/tier/k/" in url:
            return 200, TIER
        if "/api/panel/" in url:
            return 404, envelope(None, success=False, message="Not found")
        return profile(requests.utils.unquote(url.rsplit("=", 1)[1]))

    options = {"cache": False, "max_retries": 0, "max_workers": 1, **kwargs}
    return lp.Client(
        api_key="lk_test_unit", base_url=BASE, transport=MockTransport(handler), **options
    )


def found(handle: str) -> tuple[Any, ...]:
    return 200, envelope({"id": f"prsn_{handle}", "handle": handle}), {"X-Credits-Consumed": "1"}


def down(handle: str) -> tuple[Any, ...]:
    return 503, envelope(None, success=False, message="Service unavailable")


def profiles_sent(client: lp.Client) -> list[str]:
    adapter = client.session.get_adapter(BASE)
    assert isinstance(adapter, MockTransport)
    urls = [r.url or "" for r in adapter.requests if PROFILE_PATH in (r.url or "")]
    return [requests.utils.unquote(u.rsplit("=", 1)[1]) for u in urls]


HANDLES = [f"person-{i}" for i in range(8)]


# -- how answers are counted ---------------------------------------------------------------------


def test_refused_answers_are_counted_apart_from_fetched_ones():
    assert [fetched_as(Outcome(s)) for s in (OK, NOT_FOUND, FORBIDDEN, ERROR)] == [
        "fetched",
        "fetched",
        "refused",
        "failed",
    ]
    summary = JobSummary(
        rows=3, statuses={"ok": 2, "forbidden": 1}, cached=0, fetched=2, failed=0, credits=2,
        requests=3, rate_limited=0, retries=0, seconds=0.1, refused=1,
    )  # fmt: skip
    assert "2 fetched, 1 refused, 0 failed" in str(summary)
    assert "refused" not in str(dataclasses.replace(summary, refused=0))


class Bar:
    """A progress bar that remembers what it was told."""

    def __init__(self) -> None:
        self.done = 0
        self.shown: dict[str, Any] = {}

    def update(self, n: int = 1, **postfix: Any) -> None:
        self.done += n
        self.shown = postfix


def test_each_recorded_answer_is_counted_shown_and_kept_with_its_source():
    with client_on(found) as client:
        bar = Bar()
        options = Options(progress=False, provenance=True)
        state = EnrichmentRun(client, Plan(), options, bar=bar, pool=POOL, kind=PEOPLE)
        state.keep("ada", Outcome(OK, {"id": "prsn_ada"}), "cached")
        state.keep("grace", Outcome(NOT_FOUND, error="Not found"), "fetched", "batch")
        state.keep("linus", Outcome(ERROR, error="boom"), "failed")
    assert state.counts == {"cached": 1, "fetched": 1, "refused": 0, "failed": 1}
    assert bar.done == 3
    assert bar.shown == {"fetched": 1, "credits": "0", "cached": 1, "failed": 1}
    assert state.sources is not None and state.sources["ada"] == ("cache", None)
    assert [state.sources[h][0] for h in ("grace", "linus")] == ["batch", "single"]
    assert state.outcomes["ada"].record == {"id": "prsn_ada"}


def test_in_raise_mode_the_first_answer_that_is_not_ok_is_raised_naming_its_value():
    with client_on(found) as client:
        options = Options(progress=False, errors="raise")
        state = EnrichmentRun(client, Plan(), options, kind=COMPANIES, pool=POOL)
        state.keep("acme", Outcome(OK, {"id": "org_1"}), "fetched")
        with pytest.raises(NotFoundError, match=r"Gone \(company 'ghost-co'\)"):
            state.keep("ghost-co", Outcome(NOT_FOUND, error="Gone"), "fetched")


# -- what a stopped run leaves -------------------------------------------------------------------


def test_the_caller_holds_a_stopped_runs_state_and_nothing_of_it_rides_on_the_exception():
    def revoked_after_two(handle: str) -> tuple[Any, ...]:
        if handle in HANDLES[:2]:
            return found(handle)
        return 403, envelope(None, success=False, message="API key has been revoked")

    with client_on(revoked_after_two) as client:
        plan = Plan(to_fetch=tuple(HANDLES))
        state = EnrichmentRun(client, plan, Options(progress=False), pool=POOL, kind=PEOPLE)
        with pytest.raises(AuthenticationError) as caught:
            state.run()
    assert state.counts["fetched"] == 2 and set(state.outcomes) == set(HANDLES[:2])
    # the state holds the Client, which must not travel with the exception (Dask pickles it)
    assert not any(isinstance(v, EnrichmentRun) for v in vars(caught.value).values())


def test_a_batch_run_out_of_credits_says_how_many_values_it_could_not_pay_for():
    refusal = InsufficientCreditsError("Insufficient credits", status_code=402, url="http://x/")
    exc = out_of_credits(["a", "b"], refusal, PEOPLE)
    assert exc.message == (  # nothing bought: it says so (issue 39, item 11)
        "The balance cannot pay for 2 more handles: the service refused a batch job of them "
        "(Insufficient credits). Nothing was bought"
    )
    some = out_of_credits(["a", "b"], refusal, PEOPLE, bought=25)
    assert some.message.endswith(". The 25 answers the balance allowed were bought first")
    assert out_of_credits(["a"], refusal, PEOPLE, bought=1).message.endswith(
        "1 answer the balance allowed was bought first"
    )
    assert (exc.needed, exc.status_code, exc.url) == (2.0, 402, "http://x/")
    one = out_of_credits(["acme"], None, COMPANIES)
    assert one.message.startswith("The balance cannot pay for 1 more company: the service")
    assert one.status_code is None


# -- runs through MockTransport ------------------------------------------------------------------


def test_a_run_counts_the_credits_its_answers_consumed():
    with client_on(found) as client:
        result = lookup_values(
            HANDLES[:3],
            client=client,
            options=Options(progress=False, method="single"),
            kind=PEOPLE,
        )
    assert result.summary.credits == 3.0 and result.summary.fetched == 3


def test_so_many_failures_in_a_row_stop_the_run_as_an_outage():
    with client_on(down) as client:  # one worker: the breaker trips after max(3, 1) failures
        with pytest.raises(ServerError) as caught:
            lookup_values(
                HANDLES,
                client=client,
                options=Options(progress=False, method="single"),
                kind=PEOPLE,
            )
        sent = len(profiles_sent(client))
    assert 3 <= sent < len(HANDLES)  # stopped early: the calls in flight land, no more are sent
    message = caught.value.message
    assert message.startswith("Stopped: 3 handles in a row failed after every retry")
    assert f"The service at {BASE} looks down or unreachable" in message
    assert "the 0 answers fetched are cached" in message


def test_an_answer_between_failures_resets_the_breaker():
    failed = Outcome(ERROR, error="down", exc=ServerError("down", status_code=503))
    with client_on(found) as client:  # one worker: the breaker trips after 3 in a row
        state = EnrichmentRun(
            client, Plan(), Options(progress=False), bar=Bar(), pool=POOL, kind=PEOPLE
        )
        for i, outcome in enumerate([failed, failed, Outcome(OK, {}), failed, failed]):
            state.keep(f"h{i}", outcome, fetched_as(outcome))
        state.keep("refused", Outcome(FORBIDDEN, error="opted out"), "refused")  # resets too
        state.keep("h5", failed, "failed")
        state.keep("h6", failed, "failed")
        with pytest.raises(ServerError, match="Stopped: 3 handles in a row"):
            state.keep("h7", failed, "failed")
    assert state.counts["failed"] == 7


def test_a_key_rejected_mid_run_says_what_is_kept_and_stops_sending():
    def revoked_after_two(handle: str) -> tuple[Any, ...]:
        if handle in HANDLES[:2]:
            return found(handle)
        return 403, envelope(None, success=False, message="API key has been revoked")

    with client_on(revoked_after_two) as client:
        with pytest.raises(AuthenticationError) as caught:
            lookup_values(
                HANDLES,
                client=client,
                options=Options(progress=False, method="single"),
                kind=PEOPLE,
            )
        assert profiles_sent(client) == HANDLES[:3]  # one worker: nothing after the rejection
    assert caught.value.hint is not None
    assert caught.value.hint.endswith(
        "2 of this job's 8 billable answers are kept in the cache; after fixing the key, "
        "a re-run buys only the other 6"
    )
    summary = getattr(caught.value, "summary", None)  # what the run did up to there
    assert isinstance(summary, JobSummary)
    assert summary.statuses["ok"] == summary.fetched == summary.rows <= 2  # the rows answered
