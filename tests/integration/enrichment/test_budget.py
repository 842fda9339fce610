"""A budget holds on every path (issue 39, item 3): ``max_credits`` and ``max_calls`` bound what
the emulator bills, whatever the run does, and a refusal's figure is the estimate's.

The profile route costs 2 here, so a batch item (1) and a single call (2) differ:

1. single calls (``method="single"``);
2. ``method="auto"`` on a service without batch jobs (its route costs leave the batch route
   out): priced, and refused, as the single calls the run makes;
3. ``method="auto"`` on a service whose route costs list the batch route but which refuses a
   submit (404): the fallback to single calls stops before it would pass the cap, with the true
   summary, and its figure is what an estimate says then;
4. ``refresh="changed"`` and ``refresh=True`` on that service;
5. the command line's ``--max-credits`` (exit 4), companies (2 credits each) on both services.

Batch jobs, and items left in a job's ``errors``: tests/integration/batch/test_budget.py.
"""

from __future__ import annotations

import pandas as pd
import pytest

from lookup_pandas.api import functions as api
from lookup_pandas.errors import BudgetExceededError
from lookup_pandas.testing import BATCH, COMPANIES_BATCH, FakeService
from lookup_pandas.testing.replies import fail
from lookup_pandas.testing.state import ROUTE_COSTS

from ..cli_helpers import CliMain
from ..helpers import PROFILE, make_client
from ..refresh.world import CHANGED, employees

pytestmark = pytest.mark.timeout(120)

PEOPLE_40 = [f"budget-{i:03d}" for i in range(40)]


def _billed(svc: FakeService) -> float:
    """Credits the emulator billed since the test began."""
    return float(svc.stats()["credits"])


def _profile_costs_2(svc: FakeService, **knobs: object) -> None:
    svc.configure(route_costs={**ROUTE_COSTS, PROFILE: 2}, **knobs)


def _submits_refused(svc: FakeService, path: str = BATCH) -> None:
    """Its route costs list the batch route, yet a submit answers 404 (a service without batch
    jobs whose costs list them, or one that turned them off: a 404 is how a service says so)."""
    svc.override(path, lambda req: fail(404, "Not found") if req.method == "POST" else None)


def _frame(handles: list[str]) -> pd.DataFrame:
    return pd.DataFrame({"handle": handles})


def _estimate(svc: FakeService, handles: list[str], **kwargs: object) -> float:
    with make_client(svc) as client:
        return api.estimate_profiles(_frame(handles), client=client, **kwargs).credits


@pytest.mark.parametrize(
    ("method", "knobs"),
    [("single", {}), ("auto", {"batch": False})],
    ids=["single", "auto-without-batch-jobs"],
)
def test_single_calls_are_priced_at_the_route_cost_and_held(fake_service, method, knobs):
    _profile_costs_2(fake_service, **knobs)
    estimate = _estimate(fake_service, PEOPLE_40, method=method)
    assert estimate == 80
    with make_client(fake_service) as client, pytest.raises(BudgetExceededError) as refused:
        api.enrich_profiles(
            _frame(PEOPLE_40), client=client, progress=False, method=method, max_credits=50
        )
    assert refused.value.needed == estimate  # the refusal's figure is the estimate's
    assert "80 credits" in str(refused.value) and _billed(fake_service) == 0
    with make_client(fake_service) as client:
        _, summary = api.enrich_with_summary(
            _frame(PEOPLE_40), client=client, progress=False, method=method, max_credits=80
        )
    assert summary.credits == _billed(fake_service) == 80  # at the cap, not past it


def test_a_fallback_from_batch_stops_before_it_spends_past_the_cap(fake_service):
    _profile_costs_2(fake_service)
    _submits_refused(fake_service)
    assert _estimate(fake_service, PEOPLE_40) == 40  # the costs list batch jobs: 1 an item
    with make_client(fake_service) as client:
        with pytest.raises(BudgetExceededError) as stopped:
            api.enrich_profiles(_frame(PEOPLE_40), client=client, progress=False, max_credits=50)
        # the submit told: an estimate now prices the single calls, as the refusal does
        now = api.estimate_profiles(_frame(PEOPLE_40), client=client).credits
    exc = stopped.value
    assert _billed(fake_service) == 0 and fake_service.count(PROFILE) == 0
    assert exc.needed == now == 80 and exc.allowed == 50
    assert exc.summary.credits == 0 and exc.summary.fetched == 0  # the true summary
    assert "80 credits (2 each)" in str(exc) and "None was sent" in str(exc)
    with make_client(fake_service) as client:  # a cap the single calls fit: it runs
        _, summary = api.enrich_with_summary(
            _frame(PEOPLE_40), client=client, progress=False, max_credits=80
        )
    assert summary.credits == _billed(fake_service) == 80


def test_max_calls_holds_through_a_fallback(fake_service):
    _submits_refused(fake_service)
    with make_client(fake_service) as client:
        with pytest.raises(BudgetExceededError) as refused:
            api.enrich_profiles(_frame(PEOPLE_40), client=client, progress=False, max_calls=39)
        assert refused.value.needed == 40 and fake_service.billed() == 0
        out = api.enrich_profiles(_frame(PEOPLE_40), client=client, progress=False, max_calls=40)
    assert (out["lookup_status"] != "error").all()
    assert fake_service.billed() == 40  # every one by a single call, after the 404


def test_a_refresh_of_what_changed_holds_the_cap_through_a_fallback(fake_service, tmp_path):
    leads = employees("acme", 30)
    cache = tmp_path / "c.sqlite"
    with make_client(fake_service, cache=cache) as client:
        api.enrich_profiles(_frame(leads), client=client, progress=False)
    for handle in leads[:25]:  # more than a batch job's threshold move
        fake_service.move(handle, to="globex")
    _profile_costs_2(fake_service)
    _submits_refused(fake_service)
    start = _billed(fake_service)
    with make_client(fake_service, cache=cache) as client:
        est = api.estimate_profiles(_frame(leads), client=client, refresh=CHANGED)
        assert est.refresh is not None
        most = est.refresh.most
        with pytest.raises(BudgetExceededError) as refused:
            api.enrich_profiles(
                _frame(leads), client=client, progress=False, refresh=CHANGED, max_credits=most - 1
            )
        assert refused.value.needed == most and _billed(fake_service) == start
        _, summary = api.enrich_with_summary(
            _frame(leads), client=client, progress=False, refresh=CHANGED, max_credits=most
        )
    spent = _billed(fake_service) - start
    assert summary.credits == spent <= most
    assert spent >= 25 * 2  # the movers, bought by single calls at 2 after the 404


def test_a_refresh_of_everything_holds_the_cap_through_a_fallback(fake_service, tmp_path):
    # refresh=True buys cached answers anew: the fallback prices them too. (Right after the
    # first run, the batch run leaves just-bought values to single calls, and the submit of any
    # left answers 404: the single calls either way.)
    cache = tmp_path / "c.sqlite"
    with make_client(fake_service, cache=cache) as client:
        api.enrich_profiles(_frame(PEOPLE_40), client=client, progress=False)
    _profile_costs_2(fake_service)
    _submits_refused(fake_service)
    start = _billed(fake_service)
    with make_client(fake_service, cache=cache) as client:
        with pytest.raises(BudgetExceededError) as stopped:
            api.enrich_profiles(
                _frame(PEOPLE_40), client=client, progress=False, refresh=True, max_credits=50
            )
        singly = api.estimate_profiles(
            _frame(PEOPLE_40), client=client, refresh=True, method="single"
        ).credits
    assert stopped.value.needed == singly == 80  # the price of the calls it fell back to
    assert _billed(fake_service) == start


# -- the command line ------------------------------------------------------------------------------


@pytest.fixture
def cli_main(capsys) -> CliMain:
    return CliMain(capsys)


@pytest.mark.parametrize("service", ["without-batch-jobs", "submit-refused"])
def test_the_cli_max_credits_holds_for_companies(cli_main, fake_service, tmp_path, service):
    # 30 companies at 2 credits each: it spent 60 under --max-credits 40, and exited 0
    if service == "without-batch-jobs":
        fake_service.configure(batch=False)
    else:
        _submits_refused(fake_service, COMPANIES_BATCH)
    accounts = tmp_path / "accounts.csv"
    pd.DataFrame({"slug": [f"budget-co-{i:02d}" for i in range(30)]}).to_csv(accounts, index=False)
    env = {
        "LOOKUP_BASE_URL": fake_service.base_url,
        "LOOKUP_API_KEY": fake_service.api_key,
        "LOOKUP_CACHE": str(tmp_path / "c.sqlite"),
    }
    args = ("enrich", str(accounts), "--companies", "-o", str(tmp_path / "out.csv"))
    done = cli_main(env, *args, "--no-progress", "--max-credits", "40")
    assert done.returncode == 4, done.stderr  # a budget
    assert _billed(fake_service) == 0
    assert "60 credits" in done.stderr and "40" in done.stderr
    done = cli_main(env, *args, "--no-progress", "--max-credits", "60")
    assert done.returncode == 0, done.stderr
    assert _billed(fake_service) == 60
