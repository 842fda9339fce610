"""``ddf.lookup.enrich_profiles`` on a real ``distributed.LocalCluster`` (worker processes).

The cluster's workers are OS processes started by this module, with ``LOOKUP_API_KEY`` in their
environment (as a user sets it for ``dask worker``); they reach the session's emulator over
loopback and share one cache file per test (and its store: one pace, claims). What is checked:
nothing is sent while the graph is built and the key is in no byte of it; the result equals
pandas' row for row, index, order and partitions kept; each handle is paid once; at most 5% of
the answers are 429 under a rate limit; budgets and ``errors="raise"`` raise from
``compute()``; a worker without the key says so; ``refresh="changed"`` buys each mover once and
no one else (and is refused for companies before anything runs).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import cloudpickle
import dask.dataframe as dd
import pandas as pd
import pytest
from distributed import Client as DaskClient
from distributed import LocalCluster

import lookup_pandas as lp
from lookup_pandas.client.spec import ClientSpec
from lookup_pandas.identifiers import kinds
from lookup_pandas.identifiers.handles import normalise_handle
from lookup_pandas.integrations.dask import output_columns
from lookup_pandas.service.paths import EMAIL_FIND_PATH, EMAIL_REVERSE_PATH, EMAIL_VERIFY_PATH
from lookup_pandas.testing import BATCH, PROFILE, FakeService, mailboxes

from ..enrich_helpers import plain, spellings
from ..helpers import make_client
from ..refresh.world import Tally, employees, move_every, spread_leads

pytestmark = pytest.mark.timeout(300)

#: 120 people (each spelled three ways), an unknown one, and invalid values.
PEOPLE = [f"person-{i:05d}" for i in range(120)]
VALUES = [s for h in PEOPLE for s in spellings(h)[:3]] + ["unknown-dask", "", None, "N/A"] * 3


@pytest.fixture(scope="module")
def cluster(lookup_service: FakeService) -> Iterator[DaskClient]:
    """Three worker processes with the emulator's key in their environment."""
    before = os.environ.get("LOOKUP_API_KEY")
    os.environ["LOOKUP_API_KEY"] = lookup_service.api_key  # inherited by the worker processes
    try:
        with (
            LocalCluster(
                n_workers=3,
                threads_per_worker=2,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
            ) as local,
            DaskClient(local) as dask_client,
        ):
            yield dask_client
    finally:
        if before is None:
            os.environ.pop("LOOKUP_API_KEY", None)
        else:
            os.environ["LOOKUP_API_KEY"] = before


@pytest.fixture(autouse=True)
def _workers_idle_after(request: pytest.FixtureRequest) -> Iterator[None]:
    """After a test on the cluster, wait until no worker runs one of its tasks.

    A compute that raised leaves its other partitions running on the workers (a task cannot
    be stopped once started, only forgotten): their requests would reach the next test's
    emulator and be counted there.
    """
    yield
    if "cluster" not in request.fixturenames:
        return
    cluster: DaskClient = request.getfixturevalue("cluster")
    deadline = time.monotonic() + 120
    while any(cluster.run(lambda dask_worker: len(dask_worker.state.executing)).values()):
        if time.monotonic() > deadline:
            pytest.fail("the workers still run an earlier test's tasks after 120 s")
        time.sleep(0.1)


def leads(npartitions: int = 6) -> dd.DataFrame:
    frame = pd.DataFrame(
        {"lead": range(len(VALUES)), "url": VALUES},
        index=pd.RangeIndex(5000, 5000 + len(VALUES)),
    )
    return dd.from_pandas(frame, npartitions=npartitions, sort=True)


def client_on(svc: FakeService, tmp_path: Path, **kwargs: object) -> lp.Client:
    return make_client(svc, cache=tmp_path / "cache.sqlite", **kwargs)


def test_nothing_is_sent_while_the_graph_is_built_and_the_key_is_not_in_it(
    cluster: DaskClient, fake_service: FakeService, tmp_path: Path
) -> None:
    client = client_on(fake_service, tmp_path)
    out = leads().lookup.enrich_profiles("url", client=client, max_calls=1000)
    assert isinstance(out, dd.DataFrame)
    assert fake_service.count() == 0
    graph = dict(out.__dask_graph__())
    assert fake_service.api_key not in repr(graph)
    assert fake_service.api_key.encode() not in cloudpickle.dumps(graph)
    assert fake_service.count() == 0  # building and pickling the graph sent nothing


def test_equals_pandas_row_for_row_each_handle_paid_once_few_429(
    cluster: DaskClient, fake_service: FakeService, tmp_path: Path
) -> None:
    fake_service.configure(rate_limit_per_minute=1200, rate_burst=3, latency=0.01)
    client = client_on(fake_service, tmp_path)
    ddf = leads()
    out = ddf.lookup.enrich_profiles("url", client=client, method="single")
    result = out.compute()

    billed = fake_service.billed_handles()
    assert set(billed) == {*PEOPLE, "unknown-dask"}
    assert set(billed.values()) == {1}  # each handle paid once, whatever partition held it
    answered = fake_service.count(PROFILE)
    assert fake_service.rate_limited() <= 0.05 * fake_service.count()
    assert answered >= len(billed)

    # Index, order and partition boundaries are the input's.
    assert out.divisions == ddf.divisions
    assert out.map_partitions(len).compute().tolist() == ddf.map_partitions(len).compute().tolist()
    # The same frame as pandas' enrichment of the same input (read from the cache now).
    expected = ddf.compute().lookup.enrich_profiles("url", client=client)
    pd.testing.assert_frame_equal(result, expected[list(result.columns)])
    assert list(result.columns) == [
        *ddf.columns,
        *output_columns(None, "profile_", kind=kinds.PEOPLE),
    ]
    assert result["lookup_status"].value_counts().to_dict() == {
        "ok": 360,
        "invalid": 9,
        "not_found": 3,
    }


def test_default_method_uses_batch_jobs_and_pays_once(
    cluster: DaskClient, fake_service: FakeService, tmp_path: Path
) -> None:
    client = client_on(fake_service, tmp_path)
    result = leads().lookup.enrich_profiles("url", client=client).compute()
    assert fake_service.count(BATCH, method="POST") >= 1  # the fetch went through batch jobs
    assert set(fake_service.billed_handles().values()) == {1}
    ok = result[result["lookup_status"] == "ok"]
    assert len(ok) == 360
    assert (ok["profile_handle"] == ok["url"].map(normalise_handle)).all()
    before = fake_service.count()
    again = leads().lookup.enrich_profiles("url", client=client).compute()
    assert fake_service.count() == before  # a re-run reads the cache: nothing sent
    pd.testing.assert_frame_equal(again, result)


def test_max_calls_raises_from_compute_before_anything_is_sent(
    cluster: DaskClient, fake_service: FakeService, tmp_path: Path
) -> None:
    client = client_on(fake_service, tmp_path)
    out = leads().lookup.enrich_profiles("url", client=client, max_calls=100)
    with pytest.raises(lp.BudgetExceededError, match="needs 121 billable calls"):
        out.compute()
    assert fake_service.count() == 0


def test_max_credits_raises_from_compute_before_anything_billable_is_sent(
    cluster: DaskClient, fake_service: FakeService, tmp_path: Path
) -> None:
    client = client_on(fake_service, tmp_path)
    out = leads().lookup.enrich_profiles("url", client=client, max_credits=100)
    with pytest.raises(lp.BudgetExceededError, match="needs 121 credits"):
        out.compute()
    assert fake_service.stats()["credits"] == 0


def test_errors_raise_raises_from_compute(
    cluster: DaskClient, fake_service: FakeService, tmp_path: Path
) -> None:
    client = client_on(fake_service, tmp_path)
    out = leads().lookup.enrich_profiles("url", client=client, errors="raise", method="single")
    with pytest.raises(lp.NotFoundError, match="unknown-dask"):
        out.compute()


def test_explicit_fields_fix_the_columns_of_every_partition(
    cluster: DaskClient, fake_service: FakeService, tmp_path: Path
) -> None:
    client = client_on(fake_service, tmp_path)
    out = leads().lookup.enrich_profiles(
        "url", client=client, fields=["first_name", "geo.city", "geo.region", "follower_count"]
    )
    added = ["profile_first_name", "profile_geo.city", "profile_geo.region"]
    added += ["profile_follower_count", "lookup_status", "lookup_error"]
    assert list(out.columns) == ["lead", "url", *added]
    parts = [p.compute() for p in out.partitions]
    assert all(list(p.columns) == list(out.columns) for p in parts)
    assert all((p.dtypes == out._meta.dtypes).all() for p in parts)
    result = pd.concat(parts)
    assert str(result["profile_follower_count"].dtype) == "Int64"
    assert result.loc[result["lookup_status"] == "ok", "profile_geo.region"].notna().any()


def test_to_parquet_writes_the_nested_columns_and_the_computed_frame_keeps_the_summary(
    cluster: DaskClient, fake_service: FakeService, tmp_path: Path
) -> None:
    client = client_on(fake_service, tmp_path)
    out = leads().lookup.enrich_profiles("url", client=client)
    result = out.compute()
    summary = result.lookup.summary
    assert isinstance(summary, lp.JobSummary)
    assert (summary.rows, summary.fetched, summary.cached) == (121, 121, 0)  # distinct values
    assert summary.statuses == {"ok": 120, "not_found": 1, "forbidden": 0, "invalid": 0, "error": 0}
    assert summary.credits == fake_service.billed() == 121
    out.to_parquet(tmp_path / "enriched")  # runs it again: from the cache
    assert fake_service.billed() == 121
    back = pd.read_parquet(tmp_path / "enriched")
    assert back.lookup.summary is not None and back.lookup.summary.cached == 121
    assert list(back.columns) == list(result.columns) and len(back) == len(result)
    nested = ["profile_positions", "profile_education", "profile_skills"]
    nested += ["profile_certifications", "profile_languages"]
    assert all(result[name].dtype == object for name in nested)  # lists, as in pandas
    for name in result.columns:
        got, want = (plain(v) for v in back[name]), (plain(v) for v in result[name])
        assert list(got) == list(want), name
    ok = result["lookup_status"] == "ok"
    assert result.loc[ok, "profile_skills"].map(lambda v: isinstance(v, list)).all()


def test_people_then_companies_on_one_dask_frame(
    cluster: DaskClient, fake_service: FakeService, tmp_path: Path
) -> None:
    client = client_on(fake_service, tmp_path)
    people = leads(3).assign(company="acme").lookup.enrich_profiles("url", client=client)
    both = people.lookup.enrich_companies(
        "company", prefix="acct_", client=client, fields=["name", "specialties"]
    )
    assert list(both.columns[-4:]) == [
        "acct_name",
        "acct_specialties",
        "acct_lookup_status",
        "acct_lookup_error",
    ]
    result = both.compute()
    assert result["lookup_status"].value_counts().to_dict() == {
        "ok": 360,
        "invalid": 9,
        "not_found": 3,
    }
    assert set(result["acct_lookup_status"]) == {"ok"} and set(result["acct_name"]) == {"Acme"}
    summary = result.lookup.summary  # the last run's
    assert summary is not None and (summary.rows, summary.fetched) == (1, 1)
    both.to_parquet(tmp_path / "both")
    back = pd.read_parquet(tmp_path / "both")
    assert [plain(v) for v in back["acct_specialties"]] == [
        plain(v) for v in result["acct_specialties"]
    ]


def _crm(npartitions: int = 3) -> dd.DataFrame:
    """Four findable people at acme.example spelled as a CRM does (names in any case, the
    domain as a host, a URL, an address), and garbage."""
    people = mailboxes.prospects("acme.example", "full")[:4]
    rows = []
    for p in people:
        first, last, email = p["first_name"], p["last_name"], p["email"]
        rows += [(first, last, "acme.example", email), (f" {first.upper()}", last, email, email)]
        rows += [(first.lower(), last, "https://www.acme.example/about", f" {email} ")]
    rows += [("Jane", "", "acme.example", "no-at-sign"), (None, "Doe", "acme", None)]
    frame = pd.DataFrame(rows, columns=["first", "last", "website", "email"], dtype=object)
    frame.index = pd.RangeIndex(9000, 9000 + len(frame))
    return dd.from_pandas(frame, npartitions=npartitions, sort=True)


EMAIL_TWINS = [
    ("find_emails", ("first", "last", "website"), EMAIL_FIND_PATH),
    ("verify_emails", ("email",), EMAIL_VERIFY_PATH),
    ("reverse_emails", ("email",), EMAIL_REVERSE_PATH),
]


@pytest.mark.parametrize(("method", "args", "path"), EMAIL_TWINS)
def test_the_email_functions_equal_pandas_each_input_paid_once(
    cluster: DaskClient, fake_service: FakeService, tmp_path: Path, method, args, path
) -> None:
    client = client_on(fake_service, tmp_path)
    ddf = _crm()
    estimate = getattr(ddf.lookup, f"estimate_{method}")(*args, client=client)
    out = getattr(ddf.lookup, method)(*args, client=client)
    assert fake_service.count(path) == 0  # lazy
    result = out.compute()

    assert fake_service.count(path) == 4 == estimate.to_fetch  # each person once
    assert fake_service.stats()["credits"] == estimate.credits == result.lookup.summary.credits
    assert out.divisions == ddf.divisions
    assert result["lookup_status"].tolist() == ["ok"] * 12 + ["invalid"] * 2
    expected = getattr(ddf.compute().lookup, method)(*args, client=client, progress=False)
    assert fake_service.count(path) == 4  # pandas read the workers' answers from the cache
    pd.testing.assert_frame_equal(result, expected[list(result.columns)], check_dtype=False)
    again = getattr(_crm(2).lookup, method)(*args, client=client).compute()
    assert fake_service.count(path) == 4  # a re-run is free
    pd.testing.assert_frame_equal(again, result)


def test_the_email_budgets_refuse_from_compute_before_anything_is_sent(
    cluster: DaskClient, fake_service: FakeService, tmp_path: Path
) -> None:
    client = client_on(fake_service, tmp_path)
    verify = _crm().lookup.verify_emails("email", client=client, max_credits=7)
    with pytest.raises(lp.BudgetExceededError, match="8 credits"):  # 4 addresses at 2
        verify.compute()
    find = _crm().lookup.find_emails("first", "last", "website", client=client, max_calls=3)
    with pytest.raises(lp.BudgetExceededError, match="needs 4 billable calls"):
        find.compute()
    assert fake_service.stats()["credits"] == 0
    assert fake_service.count(EMAIL_VERIFY_PATH) == fake_service.count(EMAIL_FIND_PATH) == 0


def test_a_worker_without_the_key_says_so(
    cluster: DaskClient, fake_service: FakeService, tmp_path: Path
) -> None:
    client = client_on(fake_service, tmp_path)
    out = leads().lookup.enrich_profiles("url", client=client)
    # (functions by value: a bound method of os.environ would carry this process's environ)
    cluster.run(lambda: __import__("os").environ.pop("LOOKUP_API_KEY"))
    try:
        with pytest.raises(lp.ConfigurationError, match="LOOKUP_API_KEY is not set"):
            out.compute()
    finally:
        key = fake_service.api_key
        cluster.run(lambda: __import__("os").environ.__setitem__("LOOKUP_API_KEY", key))
    assert fake_service.count() == 0


def test_a_client_without_a_cache_is_refused_at_once(fake_service: FakeService) -> None:
    client = make_client(fake_service, cache=False)
    with pytest.raises(lp.ConfigurationError, match="share what they fetch through the cache"):
        leads().lookup.enrich_profiles("url", client=client)


def test_refused_columns_and_options_before_anything_runs(
    fake_service: FakeService, tmp_path: Path
) -> None:
    client = client_on(fake_service, tmp_path)
    with pytest.raises(lp.ColumnError):
        leads().lookup.enrich_profiles("nope", client=client)
    with pytest.raises(lp.UsageError):
        leads().lookup.enrich_profiles("url", client=client, fields="first_name")
    with pytest.raises(lp.UsageError):
        leads().lookup.enrich_profiles("url", client=client, method="bulk")  # type: ignore[arg-type]
    with pytest.raises(lp.UsageError, match="max_credits must be a number >= 0 or None, not -5"):
        leads().lookup.enrich_profiles("url", client=client, max_credits=-5)
    for option in ("background", "provenance"):  # pandas' and polars' (a dask frame is lazy)
        with pytest.raises(lp.UsageError, match="background= is for pandas frames and provenance="):
            leads().lookup.enrich_profiles("url", client=client, **{option: True})
    assert fake_service.count() == 0  # nothing sent (an earlier test's tasks have ended)


def test_refresh_changed_buys_each_mover_once_and_no_one_else(
    cluster: DaskClient, fake_service: FakeService, tmp_path: Path
) -> None:
    """120 leads at 12 companies, a not-found and two sparse people (no position), bought once;
    12 move. The workers' refresh, each over its partition of the distinct handles, buys each
    mover once and no one else (the not-found and the sparse are kept until they expire); its
    frame is what pandas then reads from the cache; and a second refresh right after buys no
    one."""
    svc = fake_service
    client = client_on(svc, tmp_path)
    leads = spread_leads(companies=12, each=10)
    unchecked = ["unknown-dask-lead", *employees("acme", 2, sparse=True)]
    handles = leads + unchecked
    frame = pd.DataFrame(
        {"lead": range(len(handles)), "handle": handles},
        index=pd.RangeIndex(7000, 7000 + len(handles)),
    )
    ddf = dd.from_pandas(frame, npartitions=6, sort=True)
    here = ddf.compute()  # the input as dask gives it (its text as strings)
    first = here.lookup.enrich_profiles("handle", client=client, progress=False)
    assert svc.billed_handles() == Counter(handles)
    movers = move_every(svc, leads, 10)

    before = Tally.of(svc)
    out = ddf.lookup.enrich_profiles("handle", client=client, refresh="changed")
    assert (Tally.of(svc) - before).requests == 0  # nothing sent while the graph is built
    result = out.compute()
    spent = Tally.of(svc) - before

    assert spent.billed == Counter(list(movers))  # each mover once, whatever partition held it
    assert spent.pages >= 1 and spent.credits == len(movers) + spent.pages
    assert result["lookup_status"].tolist() == first["lookup_status"].tolist()
    assert (result["lookup_status"] == "ok").sum() == len(handles) - 1  # the not-found
    assert out.divisions == ddf.divisions
    kept = ~result["handle"].isin(list(movers))
    # dask's columns are fixed (output_columns: every field, nullable dtypes); pandas' are the
    # fields the records hold, int64 where no row lacks one
    columns = [c for c in result.columns if c in first.columns]
    same = {"check_dtype": False}
    pd.testing.assert_frame_equal(result.loc[kept, columns], first.loc[kept, columns], **same)
    headlines = result.set_index("handle")["profile_headline"]
    assert {h: headlines[h] for h in movers} == {h: r["headline"] for h, r in movers.items()}
    sent = svc.count()
    expected = here.lookup.enrich_profiles("handle", client=client, progress=False)
    assert svc.count() == sent  # the refreshed answers are all in the cache
    columns = [c for c in result.columns if c in expected.columns]
    pd.testing.assert_frame_equal(result[columns], expected[columns], **same)
    assert result.drop(columns=columns).isna().all().all()  # fields no record holds

    again_before = Tally.of(svc)
    again = ddf.lookup.enrich_profiles("handle", client=client, refresh="changed").compute()
    again_spent = Tally.of(svc) - again_before
    assert again_spent.billed == Counter()  # the movers' events were acted on
    assert again_spent.credits == again_spent.pages
    pd.testing.assert_frame_equal(again, result)


def test_refresh_changed_of_companies_is_refused_before_compute(
    fake_service: FakeService, tmp_path: Path
) -> None:
    client = client_on(fake_service, tmp_path)
    accounts = dd.from_pandas(pd.DataFrame({"slug": ["acme", "globex"]}), npartitions=1)
    with pytest.raises(lp.UsageError, match="people"):
        accounts.lookup.enrich_companies("slug", client=client, refresh="changed")
    assert fake_service.count() == 0


def test_the_spec_is_what_travels(fake_service: FakeService, tmp_path: Path) -> None:
    client = client_on(fake_service, tmp_path)
    spec = ClientSpec.from_client(client)
    assert fake_service.api_key.encode() not in cloudpickle.dumps(spec)
    with pytest.raises(TypeError, match="not picklable"):
        cloudpickle.dumps(client)


@pytest.mark.parametrize(
    "code",
    [
        "import dask.dataframe as dd\nimport lookup_pandas",
        "import lookup_pandas\nimport dask.dataframe as dd",
    ],
)
def test_the_accessor_registers_whichever_is_imported_first(code: str) -> None:
    check = (
        "import pandas as pd\nassert hasattr(dd.from_pandas(pd.DataFrame({'a': [1]})), 'lookup')"
    )
    subprocess.run([sys.executable, "-c", f"{code}\n{check}"], check=True, timeout=120)


def test_importing_lookup_pandas_does_not_import_dask() -> None:
    code = "import sys, lookup_pandas\nassert 'dask' not in sys.modules, 'dask imported'"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
