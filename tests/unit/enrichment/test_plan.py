"""Unit tests for lookup_pandas.enrichment.plan: the enrichment's decisions, with no server and no
Client."""

from __future__ import annotations

import pickle
from dataclasses import FrozenInstanceError

import pytest

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
from lookup_pandas.identifiers.kinds import COMPANIES, PEOPLE
from lookup_pandas.store import StoredJob

ADA = Outcome(OK, {"id": "prsn_1", "handle": "ada"})
GONE = Outcome(NOT_FOUND, error="Not found", exc=NotFoundError("Not found"))


class Cache:
    """A cache as the plan sees it: handle -> stored outcome; counts what was read."""

    def __init__(self, held: dict[str, Outcome] | None = None) -> None:
        self.held = held or {}
        self.read: list[str] = []

    def __call__(self, handle: str) -> Outcome | None:
        self.read.append(handle)
        return self.held.get(handle)


def handles(n: int, prefix: str = "h") -> list[str]:
    return [f"{prefix}{i}" for i in range(n)]


def planned_for(
    distinct: list[str],
    cache: Cache | None = None,
    stored: list[StoredJob] | None = None,
    batch_supported: bool | None = None,
    **options: object,
) -> tuple[Plan, Cache]:
    cache = cache or Cache()
    out = plan(
        distinct,
        cached=cache,
        stored=stored or [],
        options=Options(**options),  # type: ignore[arg-type]
        batch_supported=batch_supported,
    )
    return out, cache


# -- the fast path: nothing read ahead -----------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "method", "supported"),
    [
        (3, "auto", None),  # too few for batch jobs
        (AUTO_THRESHOLD, "auto", True),  # at the threshold: still single calls
        (AUTO_THRESHOLD + 1, "auto", False),  # the service has no batch jobs
        (500, "single", True),
        (0, "batch", None),  # nothing to fetch at all
    ],
)
def test_the_fast_path_reads_nothing_ahead(n, method, supported):
    distinct = handles(n)
    out, cache = planned_for(distinct, Cache({"h0": ADA}), method=method, batch_supported=supported)
    assert cache.read == []  # each single call reads the cache itself
    assert out == Plan(to_fetch=tuple(distinct))
    assert not out.read_ahead and not out.check_key and not out.batch and not out.batch_run


# -- what makes the plan read the cache ahead ------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "supported", "n", "why"),
    [
        ({"max_calls": 100}, None, 5, "a budget counts what is to pay"),
        ({"errors": "raise"}, None, 5, "a cached failure raises before paying"),
        ({"method": "batch"}, None, 5, "batch jobs are for what the cache lacks"),
        ({"method": "auto"}, None, AUTO_THRESHOLD + 1, "auto, support unknown: batch"),
        ({"method": "auto"}, True, AUTO_THRESHOLD + 1, "auto, supported: batch"),
    ],
)
def test_read_ahead_when_the_plan_needs_the_cache_first(options, supported, n, why):
    distinct = handles(n)
    cache = Cache({"h0": ADA, "h1": GONE})
    out, _ = planned_for(distinct, cache, batch_supported=supported, **options)
    assert cache.read == distinct, why  # each distinct handle read once, in order
    assert out.read_ahead and out.check_key
    assert dict(out.cached) == {"h0": ADA, "h1": GONE}
    assert out.to_fetch == tuple(distinct[2:])


def test_a_client_that_has_not_seen_its_balance_reads_ahead_to_know_what_to_buy():
    # The balance is checked against what is to buy before the first billable call; a Client
    # that has seen none learns what that is from the cache first (a fully cached job then
    # sends nothing at all).
    distinct = handles(5)
    cache = Cache({"h0": ADA})
    out = plan(distinct, cached=cache, stored=[], options=Options(), batch_supported=False,
               balance_seen=False)  # fmt: skip
    assert cache.read == distinct
    assert out.read_ahead and out.cached == {"h0": ADA} and out.to_fetch == tuple(distinct[1:])
    seen = plan(distinct, cached=Cache(), stored=[], options=Options(), batch_supported=False)
    assert not seen.read_ahead  # the balance seen: the fast path


def test_errors_raise_reads_ahead_so_a_cached_failure_is_met_before_paying():
    out, cache = planned_for(["ada", "gone", "new"], Cache({"gone": GONE}), errors="raise")
    assert cache.read == ["ada", "gone", "new"]
    assert out.cached == {"gone": GONE} and out.to_fetch == ("ada", "new")
    assert not out.batch  # two to fetch: single calls


def test_nothing_cached_is_read_ahead_but_no_key_check_is_needed():
    out, _ = planned_for(handles(3), max_calls=3)
    assert out.read_ahead and not out.check_key and out.to_fetch == ("h0", "h1", "h2")


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
    out, _ = planned_for(
        distinct,
        Cache(dict.fromkeys(cached, ADA)),
        batch_supported=supported,
        max_calls=10_000,  # read ahead, so the count is of what the cache lacks
    )
    assert len(out.to_fetch) == to_fetch
    assert out.batch is batch and out.batch_run is batch


def test_auto_decides_on_what_the_cache_lacks_not_on_every_handle():
    distinct = handles(AUTO_THRESHOLD + 5)
    held = dict.fromkeys(distinct[:10], ADA)  # 15 left: below the threshold
    out, _ = planned_for(distinct, Cache(held), batch_supported=True, max_calls=100)
    assert len(out.to_fetch) == AUTO_THRESHOLD - 5 and not out.batch


def test_method_batch_submits_whatever_is_left_and_nothing_when_all_is_cached():
    out, _ = planned_for(["a", "b"], Cache({"a": ADA}), method="batch")
    assert out.batch and out.to_fetch == ("b",)
    out, _ = planned_for(["a"], Cache({"a": ADA}), method="batch")
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
    cache = Cache(dict.fromkeys(distinct, ADA))
    out, _ = planned_for(distinct, cache, refresh=True, method=method, errors="raise", max_calls=n)
    assert cache.read == [] and out.cached == {}
    assert out.to_fetch == tuple(distinct) and out.batch is batch
    assert not out.read_ahead and not out.resume


def test_refresh_counts_every_handle_against_the_budget():
    cache = Cache({"a": ADA, "b": ADA})
    with pytest.raises(BudgetExceededError) as info:
        planned_for(["a", "b", "c"], cache, refresh=True, max_calls=2)
    assert (info.value.needed, info.value.allowed) == (3, 2)
    assert cache.read == []


def test_refresh_keeps_the_stored_batch_jobs_in_view_without_resuming_them():
    job = StoredJob("job_1", ("a", "z"), 0.0)
    out, _ = planned_for(["a", "b"], stored=[job], refresh=True)
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
    cache = Cache(dict.fromkeys(distinct[:cached], ADA))
    if fits:
        out, _ = planned_for(distinct, cache, max_calls=max_calls)
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


def test_stored_batch_jobs_holding_a_handle_are_resumed_and_read_the_cache_ahead():
    held = StoredJob("job_1", ("b", "x"), 0.0)
    other = StoredJob("job_2", ("y",), 0.0)
    out, cache = planned_for(["a", "b"], Cache({"a": ADA}), stored=[held, other])
    assert cache.read == ["a", "b"]  # resuming is for what the cache lacks
    assert out.stored_batch_jobs == (held,) and out.resume
    assert out.to_fetch == ("b",) and not out.batch and out.batch_run


def test_stored_batch_jobs_holding_nothing_needed_leave_the_fast_path_alone():
    out, cache = planned_for(["a"], stored=[StoredJob("job_2", ("y",), 0.0)])
    assert cache.read == [] and out.stored_batch_jobs == () and not out.batch_run


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
    assert job_credits(50, batch=False, cost=2.0) == 100.0
    assert job_credits(50, batch=True, cost=2.0) == 50.0
    assert job_credits(0, batch=False, cost=2.0) == 0.0


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
