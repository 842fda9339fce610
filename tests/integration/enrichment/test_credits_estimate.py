"""Credits before a job, over loopback: the estimate in credits, the balance and the tier change;
``max_credits``; a job the balance cannot pay refused before its first billable call;
``lp.balance`` / ``lp.tiers`` / ``lp.route_costs``; the CLI's estimate line and --max-credits."""

from __future__ import annotations

import pandas as pd
import pytest

from lookup_pandas.api import account
from lookup_pandas.api import functions as api
from lookup_pandas.errors import BudgetExceededError, InsufficientCreditsError
from lookup_pandas.service.credits import BALANCE_PATH, ROUTE_COSTS_PATH, TIERS_PATH
from lookup_pandas.testing import FakeService

from ..cli_helpers import CliMain, Done
from ..helpers import PROFILE, fail, make_client

pytestmark = pytest.mark.timeout(120)

SLOW_FAST = (("Slow", 0, 99, 120), ("Fast", 100, None, 1200))


def _frame(n: int, tag: str = "person") -> pd.DataFrame:
    return pd.DataFrame({"handle": [f"{tag}-{i:03d}" for i in range(n)]})


def _spent(svc: FakeService) -> float:
    return svc.knobs.balance - svc.state.balance


# -- a balance that cannot pay ---------------------------------------------------------------------


@pytest.mark.parametrize("method", ["auto", "single"])  # priced as batch items, as single calls
def test_a_balance_of_20_with_50_handles_is_refused_with_nothing_billed(
    fake_service, tmp_path, method
):
    fake_service.configure(balance=20)
    client = make_client(fake_service, cache=tmp_path / "c.sqlite")
    with client, pytest.raises(InsufficientCreditsError) as caught:
        api.enrich_profiles(_frame(50), client=client, progress=False, method=method)
    text = str(caught.value)
    assert "50 credits" in text and "balance is 20" in text
    assert "df.head(20)" in text and "max_credits" in text
    assert (caught.value.needed, caught.value.balance) == (50, 20)
    assert fake_service.billed() == 0 and _spent(fake_service) == 0
    assert fake_service.count(PROFILE) == 0  # not one billable request


def test_a_top_up_lets_the_same_client_go_on(fake_service):
    fake_service.configure(balance=20)
    with make_client(fake_service) as client:
        with pytest.raises(InsufficientCreditsError):
            api.get_profiles([f"person-{i}" for i in range(30)], client=client, progress=False)
        fake_service.configure(balance=100)  # the last balance seen (20) is stale now
        out = api.get_profiles([f"person-{i}" for i in range(30)], client=client, progress=False)
    assert (out["lookup_status"] == "ok").all()
    assert _spent(fake_service) == 30


def test_cached_answers_are_free_so_a_small_balance_pays_the_rest(fake_service, tmp_path):
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        api.enrich_profiles(_frame(8), client=client, progress=False)
    fake_service.configure(balance=2)
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:  # a new Client
        est = api.estimate_profiles(_frame(10), client=client)
        assert (est.cached, est.credits, est.balance) == (8, 2.0, 2.0)
        out = api.enrich_profiles(_frame(10), client=client, progress=False)
    assert (out["lookup_status"] == "ok").all()
    assert fake_service.state.balance == 0


def test_a_fully_cached_job_sends_nothing_even_with_no_balance(fake_service, tmp_path):
    handles = [f"person-{i}" for i in range(5)]
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        api.get_profiles(handles, client=client, progress=False)
    fake_service.configure(balance=0)
    sent = fake_service.count()
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        est = api.estimate_profiles(pd.DataFrame({"handle": handles}), client=client)
        out = api.get_profiles(handles, client=client, progress=False)
    assert (est.to_fetch, est.credits, est.balance) == (0, 0.0, None)
    assert (out["lookup_status"] == "ok").all()
    assert fake_service.count() == sent  # not even a free panel call


def test_an_unknown_balance_lets_the_job_go_on(fake_service):
    fake_service.override(BALANCE_PATH, lambda req: fail(404, f"No endpoint at {BALANCE_PATH}"))
    with make_client(fake_service) as client:
        est = api.estimate_profiles(_frame(3), client=client)
        out = api.enrich_profiles(_frame(3), client=client, progress=False, max_credits=3)
    assert est.balance is None and est.credits == 3
    assert (out["lookup_status"] == "ok").all()


# -- max_credits -----------------------------------------------------------------------------------


def test_max_credits_refuses_before_anything_billable(fake_service):
    with make_client(fake_service) as client:
        with pytest.raises(BudgetExceededError) as caught:
            api.enrich_profiles(_frame(12), client=client, progress=False, max_credits=10)
        assert "12 credits" in str(caught.value) and "max_credits=10" in str(caught.value)
        assert fake_service.count(PROFILE) == 0 and _spent(fake_service) == 0
        out = api.enrich_profiles(_frame(12), client=client, progress=False, max_credits=12)
    assert (out["lookup_status"] == "ok").all() and _spent(fake_service) == 12


def test_max_credits_counts_batch_items_at_1_each(fake_service):
    with make_client(fake_service) as client:
        est = api.estimate_profiles(_frame(40), client=client, method="batch")
        assert (est.method, est.credits) == ("batch", 40.0)
        with pytest.raises(BudgetExceededError):
            api.enrich_profiles(_frame(40), client=client, progress=False, max_credits=39)
    assert _spent(fake_service) == 0


def test_max_credits_reaches_the_accessor(fake_service):
    with make_client(fake_service) as client, pytest.raises(BudgetExceededError):
        _frame(5).lookup.enrich_profiles(client=client, progress=False, max_credits=4.5)
    assert _spent(fake_service) == 0


def test_single_calls_are_counted_at_the_profile_route_cost(fake_service):
    fake_service.configure(route_costs={PROFILE: 2})
    with make_client(fake_service) as client:
        est = api.estimate_profiles(_frame(5), client=client)
        assert (est.method, est.credits) == ("single", 10.0)
        with pytest.raises(BudgetExceededError, match="10 credits"):
            api.get_profiles(list(_frame(5)["handle"]), client=client, max_credits=9)
    assert _spent(fake_service) == 0


# -- the estimate ----------------------------------------------------------------------------------


def test_the_estimate_names_the_tier_change_before_a_run_that_crosses_a_boundary(fake_service):
    fake_service.configure(balance=130, ladder=SLOW_FAST, tier_follows_balance=True)
    with make_client(fake_service) as client:
        est = api.estimate_profiles(_frame(100), client=client, method="single")
        small = api.estimate_profiles(_frame(30), client=client, method="single")
    assert (est.credits, est.balance) == (100.0, 130.0)
    assert est.tier_change == "Fast (1200/min) -> Slow (120/min) after 31 credits"
    assert small.tier_change is None  # 100 left: still Fast
    assert _spent(fake_service) == 0 and fake_service.count(PROFILE) == 0


def test_the_estimate_reads_the_balance_fresh_and_the_public_facts_once(fake_service):
    with make_client(fake_service) as client:
        first = api.estimate_profiles(_frame(3), client=client)
        fake_service.configure(balance=777)
        second = api.estimate_profiles(_frame(3), client=client)
    assert (first.balance, second.balance) == (250_000.0, 777.0)
    assert fake_service.count(BALANCE_PATH) == 2
    assert fake_service.count(ROUTE_COSTS_PATH) == 1 and fake_service.count(TIERS_PATH) == 1
    assert fake_service.billed() == 0


# -- lp.balance, lp.tiers, lp.route_costs ----------------------------------------------------------


def test_balance_tiers_and_route_costs(fake_service):
    fake_service.configure(balance=1234)
    with make_client(fake_service) as client:
        assert account.balance(client=client) == 1234.0
        tiers = account.tiers(client=client)
        costs = account.route_costs(client=client)
        account.tiers(client=client), account.route_costs(client=client)  # kept: not read again
    assert list(tiers.columns) == [
        "name",
        "min_credits",
        "max_credits",
        "limit_per_minute",
        "credits_per_dollar",
    ]
    assert tiers["name"].iloc[0] == "Testing" and tiers["name"].iloc[-1] == "Strategic Partner"
    hobby = tiers.set_index("name").loc["Hobby"]
    assert (hobby["min_credits"], hobby["limit_per_minute"]) == (100, 30)
    assert pd.isna(tiers["max_credits"].iloc[-1])
    assert list(costs.columns) == ["route", "title", "description", "credits_cost"]
    by_route = {r.strip("/"): c for r, c in zip(costs["route"], costs["credits_cost"], strict=True)}
    assert by_route["api/data/v1/companies/company"] == 2
    assert PROFILE.strip("/") not in by_route  # 1: not listed
    assert fake_service.count(TIERS_PATH) == 1 and fake_service.count(ROUTE_COSTS_PATH) == 1
    assert fake_service.billed() == 0


# -- the command line ------------------------------------------------------------------------------


@pytest.fixture
def cli_main(capsys) -> CliMain:
    return CliMain(capsys)


def _enrich(cli_main: CliMain, svc: FakeService, tmp_path, n: int, *args: str) -> Done:
    leads = tmp_path / "leads.csv"
    _frame(n).to_csv(leads, index=False)
    env = {
        "LOOKUP_BASE_URL": svc.base_url,
        "LOOKUP_API_KEY": svc.api_key,
        "LOOKUP_CACHE": str(tmp_path / "c.sqlite"),
    }
    out = str(tmp_path / "out.csv")
    return cli_main(env, "enrich", str(leads), "-o", out, "--no-progress", *args)


def test_the_cli_estimate_line_shows_credits_balance_and_tier_change(
    cli_main, fake_service, tmp_path
):
    fake_service.configure(balance=130, ladder=SLOW_FAST, tier_follows_balance=True)
    done = _enrich(cli_main, fake_service, tmp_path, 40, "--method", "single")
    assert done.returncode == 0, done.stderr
    estimate = done.stderr.splitlines()[0]
    assert estimate.startswith("lookup-pandas: 40 rows, 40 distinct handles, 0 cached: 40 to")
    assert estimate.endswith(
        "; 40 credits, balance 130; tier Fast (1200/min) -> Slow (120/min) after 31 credits"
    )


def test_the_cli_refuses_over_max_credits_and_over_the_balance(cli_main, fake_service, tmp_path):
    done = _enrich(cli_main, fake_service, tmp_path, 6, "--max-credits", "5")
    assert done.returncode == 4  # a budget
    assert "6 credits" in done.stderr and "max_credits=5" in done.stderr
    assert "to fetch" not in done.stderr  # only the refusal
    fake_service.configure(balance=3)
    done = _enrich(cli_main, fake_service, tmp_path, 6)
    assert done.returncode == 4  # credits
    assert done.stderr.count("\n") == 1, done.stderr  # one line
    assert "InsufficientCreditsError" in done.stderr
    assert "6 credits" in done.stderr and "balance is 3" in done.stderr
    assert fake_service.count(PROFILE) == 0 and _spent(fake_service) == 0
