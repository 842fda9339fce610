"""Batch jobs and budgets (issue 39, items 3 and 11): what the emulator bills stays within
``max_credits`` with batch jobs, and when items left in a job's ``errors`` go to single calls
at the route's cost; a submit refused for credits is followed by smaller jobs, and the error
that ends the run says truly what was bought.

The profile route costs 2 in the budget tests, so a batch item (1) and a single call (2) differ.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from lookup_pandas.api import functions as api
from lookup_pandas.errors import BudgetExceededError, InsufficientCreditsError
from lookup_pandas.testing import BATCH, PROFILE, FakeService
from lookup_pandas.testing.replies import Request, fail
from lookup_pandas.testing.state import ROUTE_COSTS

from ..helpers import make_client

pytestmark = pytest.mark.timeout(120)

PEOPLE_40 = [f"batch-budget-{i:03d}" for i in range(40)]


def _frame(handles: list[str]) -> pd.DataFrame:
    return pd.DataFrame({"handle": handles})


def _billed(svc: FakeService) -> float:
    """Credits the emulator billed: batch items at 1, single calls at the route's cost."""
    return float(svc.stats()["credits"])


def _posts(svc: FakeService) -> list[int]:
    """The statuses the batch submits were answered, in order."""
    return [r.status for r in svc.requests if r.path == BATCH and r.method == "POST"]


def test_batch_items_are_priced_at_1_and_held(fake_service):
    fake_service.configure(route_costs={**ROUTE_COSTS, PROFILE: 2})
    with make_client(fake_service) as client:
        estimate = api.estimate_profiles(_frame(PEOPLE_40), client=client)
        assert (estimate.method, estimate.credits) == ("batch", 40)
        with pytest.raises(BudgetExceededError) as refused:
            api.enrich_profiles(_frame(PEOPLE_40), client=client, progress=False, max_credits=39)
        assert refused.value.needed == estimate.credits and _billed(fake_service) == 0
        _, summary = api.enrich_with_summary(
            _frame(PEOPLE_40), client=client, progress=False, max_credits=40
        )
    assert summary.jobs == 1 and summary.credits == _billed(fake_service) == 40


def test_items_left_in_a_jobs_errors_are_bought_singly_only_within_the_cap(fake_service, tmp_path):
    # Items that end in a job's errors go to single calls, at 2 each: priced at 1 as batch
    # items, they would take the run past max_credits=40.
    fake_service.configure(route_costs={**ROUTE_COSTS, PROFILE: 2}, batch_error_rate=0.25)
    cache = tmp_path / "c.sqlite"
    with make_client(fake_service, cache=cache) as client:
        with pytest.raises(BudgetExceededError) as stopped:
            api.enrich_profiles(_frame(PEOPLE_40), client=client, progress=False, max_credits=40)
        left = api.estimate_profiles(_frame(PEOPLE_40), client=client)
    bought = _billed(fake_service)
    errored = 40 - int(bought)
    assert 0 < errored <= 20 and left.to_fetch == errored
    exc = stopped.value
    assert exc.needed == left.credits == 2 * errored  # the refusal's figure is the estimate's
    assert exc.summary.credits == bought <= 40  # the true summary, within the cap
    assert f"{bought:g} of this job's 40 billable answers are kept" in str(exc)
    with make_client(fake_service, cache=cache) as client:  # the rest, within its own cap
        _, rest = api.enrich_with_summary(
            _frame(PEOPLE_40), client=client, progress=False, max_credits=left.credits
        )
    assert rest.credits == left.credits and _billed(fake_service) == 40 + errored


def _refuse_more_than(svc: FakeService, most: int) -> None:
    """Submits of more than ``most`` items answer 402 1080, while the balance reads high: the
    credits are being spent elsewhere at the same moment (production pre-checks the balance)."""

    def answer(req: Request):
        if req.method == "POST" and len(json.loads(req.body)["handles"]) > most:
            return fail(402, "Insufficient credits", error_code="1080")
        return None

    svc.override(BATCH, answer)


def test_a_refused_job_is_followed_by_half_of_it_until_one_is_accepted(fake_service):
    _refuse_more_than(fake_service, 40)
    handles = [f"halve-{i:03d}" for i in range(100)]
    with make_client(fake_service) as client, pytest.raises(InsufficientCreditsError) as caught:
        api.enrich_profiles(_frame(handles), client=client, progress=False)
    assert _posts(fake_service) == [402, 402, 202]  # 100, 50, then 25 accepted
    assert _billed(fake_service) == 25
    text = str(caught.value)
    assert "cannot pay for 75 more handles" in text
    assert "The 25 answers the balance allowed were bought first" in text
    assert "25 of this job's 100 billable answers are kept" in text


def test_single_calls_take_over_when_the_half_is_too_small_for_a_job(fake_service):
    _refuse_more_than(fake_service, 10)
    handles = [f"halve-{i:03d}" for i in range(100)]
    with make_client(fake_service) as client:
        _, summary = api.enrich_with_summary(_frame(handles), client=client, progress=False)
    assert _posts(fake_service) == [402, 402, 402]  # 100, 50, 25; 12 is no batch job
    assert fake_service.count(PROFILE) == 100 and summary.fetched == 100
    assert summary.credits == _billed(fake_service) == 100


def test_a_refused_job_with_nothing_bought_says_nothing_was(fake_service):
    def drained(req: Request):
        if req.method == "POST":  # spent elsewhere a moment before the submit
            with fake_service.state.lock:
                fake_service.state.balance = 0.0
        return None

    fake_service.override(BATCH, drained)
    with make_client(fake_service) as client, pytest.raises(InsufficientCreditsError) as caught:
        api.enrich_profiles(_frame(PEOPLE_40), client=client, progress=False)
    text = str(caught.value)
    assert "Nothing was bought" in text and "allowed was bought" not in text
    assert _billed(fake_service) == 0 and _posts(fake_service) == [402]
