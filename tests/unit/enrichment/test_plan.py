"""Unit tests for lookup_pandas.enrichment.plan: the enrichment's decisions, with no server and no
Client."""

from __future__ import annotations

import pickle
from dataclasses import FrozenInstanceError

import pytest

from lookup_pandas.display.facts import RefreshCounts
from lookup_pandas.enrichment.batch_plan import AUTO_THRESHOLD
from lookup_pandas.enrichment.plan import (
    Options,
    Plan,
    check_balance,
    check_budget,
    check_credits,
    check_method,
    check_options,
    check_refresh,
    job_credits,
    plan,
    stored_batch_jobs_holding,
)
from lookup_pandas.enrichment.results import NOT_FOUND, OK, Outcome
from lookup_pandas.errors import (
    BudgetExceededError,
    InsufficientCreditsError,
    NotFoundError,
    UsageError,
)
from lookup_pandas.identifiers.kinds import COMPANIES, FIND, PEOPLE, VERIFY
from lookup_pandas.service.credits import RouteCosts
from lookup_pandas.store import StoredJob

ADA = Outcome(OK, {"id": "prsn_1", "handle": "ada"})
GONE = Outcome(NOT_FOUND, error="Not found", exc=NotFoundError("Not found"))


def handles(n: int, prefix: str = "h") -> list[str]:
    return [f"{prefix}{i}" for i in range(n)]


def planned_for(
    distinct: list[str],
    cached: dict[str, Outcome] | None = None,
    stored: list[StoredJob] | None = None,
    batch_supported: bool | None = None,
    offline: bool = False,
    **options: object,
) -> Plan:
    return plan(
        distinct,
        cached=cached or {},
        stored=stored or [],
        options=Options(**options),  # type: ignore[arg-type]
        batch_supported=batch_supported,
        offline=offline,
    )


# -- every plan: what the cache holds (read ahead) is not bought ---------------------------------


@pytest.mark.parametrize(
    ("options", "supported", "n", "batch"),
    [
        ({"method": "auto"}, None, 3, False),  # too few for batch jobs
        ({"method": "auto"}, True, AUTO_THRESHOLD + 2, False),  # at the threshold, once cached
        ({"method": "single"}, True, 500, False),
        ({"max_calls": 100}, None, 5, False),  # a budget counts what is to pay
        ({"errors": "raise"}, None, 5, False),  # a cached failure raises before paying
        ({"method": "batch"}, None, 5, True),  # batch jobs are for what the cache lacks
        ({"method": "auto"}, None, AUTO_THRESHOLD + 3, True),  # auto, support unknown: batch
    ],
)
def test_every_plan_buys_only_what_the_cache_lacks(options, supported, n, batch):
    distinct = handles(n)
    out = planned_for(distinct, {"h0": ADA, "h1": GONE}, batch_supported=supported, **options)
    assert out.check_key  # answers read ahead: a key never proven is checked first
    assert dict(out.cached) == {"h0": ADA, "h1": GONE}
    assert out.to_fetch == tuple(distinct[2:]) and out.batch is batch


def test_offline_what_the_cache_lacks_is_not_cached_and_nothing_is_bought():
    out = planned_for(["a", "b"], {"a": ADA}, offline=True, max_calls=0, method="batch")
    assert dict(out.cached) == {"a": ADA} and out.not_cached == ("b",)
    assert out.to_fetch == () and not out.batch_run and not out.check_key
    for refresh in (True, "changed"):
        with pytest.raises(UsageError, match="not offline"):
            planned_for(["a"], {"a": ADA}, offline=True, refresh=refresh)


def test_a_refresh_that_read_the_feed_buys_what_it_did_not_keep_once():
    counts = RefreshCounts(checked=2, unchanged=1, moved=1)
    out = plan(["a", "b", "c"], cached={"a": ADA}, stored=[], batch_supported=None,
               options=Options(refresh="changed"), fresh_after=1.5, checked=counts)  # fmt: skip
    assert dict(out.cached) == {"a": ADA} and out.to_fetch == ("b", "c")
    assert (out.fresh_after, out.checked, out.resume) == (1.5, counts, False)
    with pytest.raises(BudgetExceededError, match="needs 2 billable calls"):
        plan(["a", "b", "c"], cached={"a": ADA}, stored=[], batch_supported=None,
             options=Options(refresh="changed", max_calls=1))  # fmt: skip


def test_errors_raise_reads_ahead_so_a_cached_failure_is_met_before_paying():
    out = planned_for(["ada", "gone", "new"], {"gone": GONE}, errors="raise")
    assert out.cached == {"gone": GONE} and out.to_fetch == ("ada", "new")
    assert not out.batch  # two to fetch: single calls


def test_nothing_cached_needs_no_key_check():
    out = planned_for(handles(3), max_calls=3)
    assert not out.check_key and out.to_fetch == ("h0", "h1", "h2")


# -- batch or single: decided on what is left to fetch --------------------------------------------


@pytest.mark.parametrize(
    ("to_fetch", "supported", "batch"),
    [
        (AUTO_THRESHOLD + 1, None, True),  # not known yet: tried (a 404 falls back)
        (AUTO_THRESHOLD + 1, True, True),
        (AUTO_THRESHOLD + 1, False, False),
        (AUTO_THRESHOLD, True, False),  # at the threshold: single calls
        (1, True, False),
    ],
)
def test_auto_uses_batch_jobs_above_the_threshold_when_the_service_may_have_them(
    to_fetch, supported, batch
):
    cached = handles(10, "c")
    distinct = cached + handles(to_fetch)
    out = planned_for(
        distinct,
        dict.fromkeys(cached, ADA),
        batch_supported=supported,
        max_calls=10_000,  # read ahead, so the count is of what the cache lacks
    )
    assert len(out.to_fetch) == to_fetch
    assert out.batch is batch and out.batch_run is batch


def test_auto_decides_on_what_the_cache_lacks_not_on_every_handle():
    distinct = handles(AUTO_THRESHOLD + 5)
    held = dict.fromkeys(distinct[:10], ADA)  # 15 left: below the threshold
    out = planned_for(distinct, held, batch_supported=True, max_calls=100)
    assert len(out.to_fetch) == AUTO_THRESHOLD - 5 and not out.batch


def test_method_batch_submits_whatever_is_left_and_nothing_when_all_is_cached():
    out = planned_for(["a", "b"], {"a": ADA}, method="batch")
    assert out.batch and out.to_fetch == ("b",)
    out = planned_for(["a"], {"a": ADA}, method="batch")
    assert not out.batch and out.to_fetch == ()


# -- refresh: every handle bought, nothing read ----------------------------------------------


@pytest.mark.parametrize(
    ("n", "method", "batch"),
    [
        (5, "auto", False),
        (AUTO_THRESHOLD + 1, "auto", True),
        (5, "batch", True),
        (50, "single", False),
    ],
)
def test_refresh_buys_every_handle_and_reads_nothing_ahead(n, method, batch):
    distinct = handles(n)
    cached = dict.fromkeys(distinct, ADA)
    out = planned_for(distinct, cached, refresh=True, method=method, errors="raise", max_calls=n)
    assert out.cached == {} and not out.check_key
    assert out.to_fetch == tuple(distinct) and out.batch is batch
    assert not out.resume


def test_refresh_counts_every_handle_against_the_budget():
    with pytest.raises(BudgetExceededError) as info:
        planned_for(["a", "b", "c"], {"a": ADA, "b": ADA}, refresh=True, max_calls=2)
    assert (info.value.needed, info.value.allowed) == (3, 2)


def test_refresh_keeps_the_stored_batch_jobs_in_view_without_resuming_them():
    job = StoredJob("job_1", ("a", "z"), 0.0)
    out = planned_for(["a", "b"], stored=[job], refresh=True)
    assert out.stored_batch_jobs == (job,) and not out.resume
    assert out.batch_run  # finish() forgets it once its inputs are cached


# -- the budget ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cached", "max_calls", "fits"),
    [
        (0, 5, True),  # five to fetch, five allowed
        (0, 4, False),
        (2, 3, True),  # cached handles cost nothing
        (2, 2, False),
        (5, 0, True),  # all cached: a budget of 0 is enough
    ],
)
def test_the_budget_counts_only_what_the_cache_lacks(cached, max_calls, fits):
    distinct = handles(5)
    cache = dict.fromkeys(distinct[:cached], ADA)
    if fits:
        out = planned_for(distinct, cache, max_calls=max_calls)
        assert len(out.to_fetch) == 5 - cached
        return
    with pytest.raises(BudgetExceededError) as info:
        planned_for(distinct, cache, max_calls=max_calls)
    assert (info.value.needed, info.value.allowed) == (5 - cached, max_calls)
    assert f"({cached} of 5 distinct handles are cached)" in str(info.value)
    assert "Nothing was sent" in str(info.value)


def test_check_budget_without_a_budget_never_refuses():
    check_budget(10**9, 0, 10**9, None)
    with pytest.raises(BudgetExceededError):
        check_budget(3, 1, 4, 2)


# -- stored batch jobs: resumed when they hold a needed handle -------------------------------------


def test_stored_batch_jobs_holding_a_handle_the_cache_lacks_are_resumed():
    held = StoredJob("job_1", ("b", "x"), 0.0)
    other = StoredJob("job_2", ("y",), 0.0)
    out = planned_for(["a", "b"], {"a": ADA}, stored=[held, other])
    assert out.stored_batch_jobs == (held,) and out.resume
    assert out.to_fetch == ("b",) and not out.batch and out.batch_run


def test_stored_batch_jobs_holding_nothing_needed_are_left_alone():
    out = planned_for(["a"], stored=[StoredJob("job_2", ("y",), 0.0)])
    assert out.stored_batch_jobs == () and not out.batch_run


def test_stored_batch_jobs_holding():
    a, b = StoredJob("a", ("x", "y"), 0.0), StoredJob("b", ("z",), 0.0)
    assert stored_batch_jobs_holding([a, b], ["y", "q"]) == [a]
    assert stored_batch_jobs_holding([a, b], []) == []
    assert stored_batch_jobs_holding([], ["x"]) == []


# -- the plan and the option checks ----------------------------------------------------------------


def test_a_plan_is_frozen():
    with pytest.raises(FrozenInstanceError):
        Plan().batch = True  # type: ignore[misc]


@pytest.mark.parametrize("method", ["auto", "batch", "single"])
def test_check_method_accepts_the_three_methods(method):
    check_method(method)


@pytest.mark.parametrize("method", ["bulk", "", "Auto"])
def test_check_method_refuses_others(method):
    with pytest.raises(UsageError, match="method must be one of"):
        check_method(method)


@pytest.mark.parametrize(
    ("errors", "max_calls"), [("ignore", None), ("raise", -1), ("coerce", 1.5), ("coerce", True)]
)
def test_check_options_refuses_bad_options(errors, max_calls):
    with pytest.raises(UsageError):
        check_options(errors, max_calls)


@pytest.mark.parametrize(("errors", "max_calls"), [("coerce", None), ("raise", 0), ("raise", 7)])
def test_check_options_accepts_good_options(errors, max_calls):
    check_options(errors, max_calls)


# -- the job's checks ------------------------------------------------------------------------------


def test_job_credits_by_route_cost_batch_items_at_one():
    costs = RouteCosts({"people/profile": 2.0})
    assert job_credits(50, batch=False, costs=costs, kind=PEOPLE) == 100.0
    assert job_credits(50, batch=True, costs=costs, kind=PEOPLE) == 50.0
    assert job_credits(0, batch=False, costs=costs, kind=PEOPLE) == 0.0


def test_email_batch_items_cost_their_single_calls_route():
    costs = RouteCosts({"emails/v1/verify": 2.0, "emails/v1/find": 3.0})
    assert job_credits(30, batch=True, costs=costs, kind=VERIFY) == 60.0
    assert job_credits(30, batch=True, costs=costs, kind=FIND) == 90.0


def test_max_credits_refuses_naming_both_numbers():
    check_credits(20, 20, 20)  # exactly: fine
    check_credits(20, 20, None)
    with pytest.raises(BudgetExceededError) as caught:
        check_credits(50, 50, 20)
    assert "50 credits" in str(caught.value) and "max_credits=20" in str(caught.value)
    assert (caught.value.needed, caught.value.allowed) == (50, 20)


def test_a_balance_that_cannot_pay_refuses_naming_both_and_how_to_go_on():
    check_balance(50, 50, None)  # unknown: go on
    check_balance(50, 50, 50)
    with pytest.raises(InsufficientCreditsError) as caught:
        check_balance(50, 50, 20)
    text = str(caught.value)
    assert "50 credits" in text and "balance is 20" in text
    assert "df.head(20)" in text and "max_credits" in text and "Top up" in text
    assert (caught.value.needed, caught.value.balance) == (50, 20)
    with pytest.raises(InsufficientCreditsError, match=r"df\.head\(10\)"):
        check_balance(100, 50, 20)  # 2 credits each: 10 rows
    with pytest.raises(InsufficientCreditsError) as nothing:
        check_balance(5, 5, 0)
    assert "df.head" not in str(nothing.value) and "max_credits" in str(nothing.value)


@pytest.mark.parametrize("bad", [-1, -0.5, float("nan"), float("inf"), True, "10"])
def test_max_credits_must_be_a_number_at_least_0(bad):
    with pytest.raises(UsageError, match="max_credits"):
        check_options("coerce", None, bad)


def test_max_credits_may_be_0_or_fractional():
    check_options("coerce", None, 0)
    check_options("coerce", None, 2.5)


def test_refresh_changed_is_for_people_also_as_a_copy_of_the_kind():
    """A Dask worker's Kind is a pickled copy of PEOPLE, not the module's object."""
    people, companies = pickle.loads(pickle.dumps(PEOPLE)), pickle.loads(pickle.dumps(COMPANIES))
    assert people is not PEOPLE
    check_refresh("changed", people)
    check_refresh(True, companies)
    with pytest.raises(UsageError, match="people"):
        check_refresh("changed", companies)
