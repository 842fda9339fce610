"""The figures a user acts on are true (issues 30, 39): the estimate's time is one the run keeps,
with fast, slow and no batch jobs, at the speed the last process saw, and when spending drops
the tier; the summary is reachable from
Python; a credit cap under batch jobs buys what it allows, and a top-up buys only the rest.

Times are compared only as the issue bounds them (half to twice the promise, plus 5 s): the
bound is wide because these machines are shared; a promise off by a factor (batch speed from a
service without batch jobs, a tier drop ignored) still fails it.
"""

from __future__ import annotations

import time

import pandas as pd
import pytest

import lookup_pandas as lp
from lookup_pandas.api.functions import enrich_with_summary
from lookup_pandas.testing import BATCH, PROFILE, FakeService

from ..cli_helpers import CliMain
from ..helpers import make_client

pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def cli_main(capsys) -> CliMain:
    return CliMain(capsys)


def _leads(tag: str, n: int) -> pd.DataFrame:
    return pd.DataFrame({"handle": [f"{tag}{i:03d}-lead" for i in range(n)]})


def _env(svc, tmp_path) -> dict[str, str]:
    """The CLI's environment: the emulator, and a cache of the test's own."""
    return {
        "LOOKUP_BASE_URL": svc.base_url,
        "LOOKUP_API_KEY": svc.api_key,
        "LOOKUP_CACHE": str(tmp_path / "c.sqlite"),
    }


def _kept(promised: float, took: float) -> bool:
    """The issue's bound: the run's time within half to twice the promise, plus 5 s."""
    return promised / 2 - 5 <= took <= 2 * promised + 5


#: The three services of issue 39: batch jobs resolving 300 items a second (the emulator's
#: default), 10 a second (as a production-like server did), and none (single calls at the limit).
SERVICES = {
    "fast-batch-jobs": {"batch_resolve_rate": 300.0},
    "slow-batch-jobs": {"batch_resolve_rate": 10.0},
    "no-batch-jobs": {"batch": False},
}


def _timed_run(client, leads: pd.DataFrame) -> tuple[lp.Estimate, float, pd.DataFrame]:
    """The estimate of a run, then the run: its estimate, its seconds and its frame."""
    est = leads.lookup.estimate_profiles("handle", client=client)
    started = time.perf_counter()
    out = leads.lookup.enrich_profiles("handle", client=client, progress=False)
    return est, time.perf_counter() - started, out


@pytest.mark.parametrize("service", list(SERVICES))
def test_the_estimates_time_is_kept_on_a_fresh_cache(fake_service, tmp_path, service):
    fake_service.configure(rate_limit_per_minute=240, **SERVICES[service])
    batch = service != "no-batch-jobs"
    cache = tmp_path / "c.sqlite"
    with make_client(fake_service, cache=cache, batch_poll_interval=1.5) as client:  # fresh
        est, took, out = _timed_run(client, _leads("eta", 100 if batch else 40))
    assert est.seconds is not None  # the tier read for the balance told the pace
    assert est.method == ("batch" if batch else "single")
    assert (out["lookup_status"] == "ok").all()
    # 100 items by batch jobs: about 6.3 s promised (at the assumed 20 a second); they take
    # under 2 s (fast) and 10.5 s (slow: 10 a second). Timed as their polls' slots, as before
    # issue 39, the promise was 2.3 s, and the slow run past its bound (9.6 s). Without batch
    # jobs, 40 calls at 228/min: about 10.5 s.
    assert _kept(est.seconds, took), (est, took)
    if not batch:
        assert est.seconds > 8  # single calls' time, never batch speed
        assert fake_service.count(BATCH, method="POST") == 1  # the run's one wasted submit


def test_the_next_process_times_batch_jobs_at_the_speed_the_last_one_saw(fake_service, tmp_path):
    # 10 items a second: the first run teaches it, a new Client on the same cache (another
    # process) promises the second run's 80 items their 8 s, not the assumed speed's 4 s
    fake_service.configure(batch_resolve_rate=10.0)
    cache = tmp_path / "c.sqlite"
    with make_client(fake_service, cache=cache, batch_poll_interval=1.5) as client:
        first, _, _ = _timed_run(client, _leads("learn", 40))
    with make_client(fake_service, cache=cache, batch_poll_interval=1.5) as client:
        est, took, _ = _timed_run(client, _leads("again", 80))
    assert est.method == first.method == "batch"
    assert est.seconds is not None and est.seconds >= 8 and took >= 8
    assert est.seconds / 2 <= took <= est.seconds * 1.5 + 1, (est, took)  # closer than the bound
    assert est.polls >= 6  # a poll every 1.5 s while it resolves


def test_the_speed_learned_is_the_services_not_another_ones(fake_service, tmp_path):
    fake_service.configure(batch_resolve_rate=10.0)
    with make_client(fake_service, cache=tmp_path / "c.sqlite", batch_poll_interval=1.5) as client:
        _timed_run(client, _leads("mine", 30))
        slow = _leads("next", 200).lookup.estimate_profiles("handle", client=client)
    cache = tmp_path / "c.sqlite"
    with FakeService() as other, make_client(other, cache=cache, batch_poll_interval=1.5) as client:
        assumed = _leads("next", 200).lookup.estimate_profiles("handle", client=client)
    assert slow.seconds is not None and assumed.seconds is not None
    assert slow.seconds > 1.5 * assumed.seconds  # 20 s at 10 a second; 10 s at the assumed 20


def test_the_estimates_time_follows_the_tier_down(fake_service, tmp_path):
    # 120 credits on a ladder whose tier below 100 is four times slower: 21 calls at the high
    # pace, then 29 at the low one. An estimate at the high pace alone promised ~3 s.
    ladder = (("Low", 0, 99, 120), ("High", 100, None, 1200))
    fake_service.configure(ladder=ladder, balance=120, tier_follows_balance=True)
    leads = _leads("drop", 50)
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        client.parts.contact.learn_pace()
        est = leads.lookup.estimate_profiles("handle", client=client, method="single")
        started = time.perf_counter()
        leads.lookup.enrich_profiles("handle", client=client, progress=False, method="single")
        took = time.perf_counter() - started
    assert est.tier_change is not None and "High" in est.tier_change
    assert est.seconds is not None and est.seconds > 12  # 29 calls at 114/min alone are 15 s
    assert _kept(est.seconds, took), (est, took)


def test_the_cli_estimate_line_promises_single_speed_without_batch_jobs(
    cli_main, fake_service, tmp_path
):
    fake_service.configure(batch=False, rate_limit_per_minute=600)
    path = tmp_path / "leads.csv"
    _leads("clieta", 30).to_csv(path, index=False)
    env = _env(fake_service, tmp_path)
    done = cli_main(env, "enrich", str(path), "-o", str(tmp_path / "out.csv"), "--no-progress")
    assert done.returncode == 0, done.stderr
    estimate = done.stderr.splitlines()[0]
    assert "30 to fetch by single" in estimate and "batch" not in estimate, estimate
    again = cli_main(env, "enrich", str(path), "-o", str(tmp_path / "out.csv"), "--no-progress")
    assert "about under" not in again.stderr


# -- the summary from Python ---------------------------------------------------------------------


def test_a_foreground_summary_is_in_the_frames_attrs(fake_service, tmp_path):
    leads = _leads("attrs", 12)
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        out = leads.lookup.enrich_profiles("handle", client=client, progress=False)
        got = lp.get_profiles(leads["handle"], client=client, progress=False)
    summary = out.lookup.summary
    assert isinstance(summary, lp.JobSummary)
    assert (summary.rows, summary.fetched, summary.credits) == (12, 12, fake_service.billed())
    assert out.attrs["lookup_summary"]["fetched"] == 12  # plain values, as parquet writes them
    assert got.lookup.summary.credits == 0 and got.lookup.summary.cached == 12
    assert leads.attrs == {}  # the caller's frame is untouched


def test_a_stopped_runs_exception_carries_what_it_did(fake_service, tmp_path):
    leads = _leads("stop", 15)
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        client.profile("someone-else")  # seen working, with a high balance
        fake_service.configure(balance=7)  # then spent elsewhere: the run meets a 402
        with pytest.raises(lp.InsufficientCreditsError) as info:
            leads.lookup.enrich_profiles("handle", client=client, progress=False, method="single")
    summary = info.value.summary
    assert isinstance(summary, lp.JobSummary)
    assert summary.credits == fake_service.billed() - 1 == 7
    assert summary.statuses["ok"] == summary.rows == summary.fetched <= 7


# -- a credit cap under batch jobs ---------------------------------------------------------------


def _drain_on_first_submit(svc, balance: float) -> None:
    """Another process spends the balance down to ``balance`` just before our first submit:
    the Client saw a high balance and lets the job start; the service's pre-check refuses it."""
    drained: list[bool] = []

    def drain(request):
        if request.method == "POST" and not drained:
            drained.append(True)
            svc.configure(balance=balance)
        return None  # then the route answers as usual

    svc.override(BATCH, drain)


def test_a_credit_cap_under_batch_buys_what_it_allows_and_a_top_up_buys_the_rest(
    fake_service, tmp_path
):
    leads = _leads("cap", 235)
    handles = leads["handle"].tolist()
    never = handles[200:205]  # opted out: never billable, in the part left for later
    fake_service.configure(batch_precheck="job", opted_out=set(never))
    _drain_on_first_submit(fake_service, 100)
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        client.profile(handles[0])  # seen working, with a high balance
        with pytest.raises(lp.InsufficientCreditsError) as info:
            leads.lookup.enrich_profiles("handle", client=client, progress=False)
        # 1 single call, then a job of the 100 items the balance allowed
        assert fake_service.billed() == 101
        assert "134 more handles" in str(info.value)  # 235 less the 101 bought
        assert info.value.summary.credits == 100
        fake_service.override(BATCH, None)
        fake_service.configure(balance=10_000)  # the top-up
        out, summary = enrich_with_summary(leads, "handle", client=client, progress=False)
    assert summary.credits == 129 == fake_service.billed() - 101  # the rest, refused excepted
    assert (summary.cached, summary.refused) == (101, 5)
    assert fake_service.billed_handles() == {h: 1 for h in handles if h not in never}
    assert out.loc[out["handle"].isin(never), "lookup_status"].eq("forbidden").all()


def test_a_credit_cap_under_batch_exits_4_on_the_command_line(cli_main, fake_service, tmp_path):
    fake_service.configure(batch_precheck="job")
    path = tmp_path / "leads.csv"
    _leads("capcli", 60).to_csv(path, index=False)
    env = _env(fake_service, tmp_path)
    _drain_on_first_submit(fake_service, 25)
    done = cli_main(env, "enrich", str(path), "-o", str(tmp_path / "out.csv"), "--no-progress")
    assert done.returncode == 4, done.stderr
    assert "Traceback" not in done.stderr
    assert fake_service.billed() == 25
    assert "35 more handles" in done.stderr
    assert fake_service.count(PROFILE) == 0


# -- every summary's credits are what the emulator billed: people and companies, batch and single


@pytest.mark.parametrize("method", ["single", "batch"])
@pytest.mark.parametrize("companies", [False, True], ids=["people", "companies"])
def test_the_cli_summary_says_what_was_billed(cli_main, fake_service, tmp_path, method, companies):
    # a company lookup costs 2 credits in the emulator (its route costs), a batch item 1
    path = tmp_path / "in.csv"
    column = "slug" if companies else "handle"
    values = [f"fig{i:02d}-{column}" for i in range(30)] + ["unknown-fig", "", "fig00-" + column]
    pd.DataFrame({column: values}).to_csv(path, index=False)
    env = _env(fake_service, tmp_path)
    args = ["enrich", str(path), "-c", column, "--method", method, "--no-progress"]
    args += ["--companies", "--prefix", "company_"] if companies else []
    spent = []
    for _ in range(2):  # a fresh run, then a cached re-run
        before = fake_service.stats()["credits"]
        done = cli_main(env, *args, "-o", str(tmp_path / "out.csv"))
        assert done.returncode == 0, done.stderr
        summary = done.stderr.strip().splitlines()[-1]
        said = float(summary.rsplit("; ", 1)[1].split(" credit")[0])
        spent.append((said, fake_service.stats()["credits"] - before))
    per_item = 1 if method == "batch" else (2 if companies else 1)
    assert spent == [(31 * per_item, 31 * per_item), (0, 0)]


def test_the_bar_counts_refused_people_apart_from_fetched_ones(fake_service, tmp_path):
    # The job view reads the bar's counts: 2 opted out of 30 are refused, not fetched, and
    # the credits are the 28 the emulator billed.
    leads = _leads("bar", 30)
    refused = set(leads["handle"][[4, 9]])
    fake_service.configure(opted_out=refused)
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        job = leads.lookup.enrich_profiles("handle", client=client, background=True)
        assert job.wait(60)
        counts = job.watch.counts
    assert (counts["fetched"], counts["refused"], counts["credits"]) == (28, 2, "28")
    assert fake_service.billed() == 28
    assert "28 fetched (1 batch job), 2 refused" in job.line()
