"""Companies through the same engine as people, against the emulator over loopback.

What is tested: ``client.company`` (a slug as ``slug=``, an ``org_`` id as ``id=``, either one
answered from the cache once the other was bought, a billed not-found as None, cached);
``enrich_companies`` over duplicates, case variants, company page URLs and blanks buys each
distinct company once at the route's cost (2 in the emulator) and a re-run buys nothing; 300
companies go through batch jobs with no single call, each result cached as the single answer;
``estimate_companies``; ``get_companies``; polars and Dask.
"""

from __future__ import annotations

import time

import dask
import dask.dataframe as dd
import pandas as pd
import pytest

import lookup_pandas as lp  # noqa: F401  registers df.lookup
from lookup_pandas.api import functions as api
from lookup_pandas.enrichment.batch_plan import tagged
from lookup_pandas.identifiers.kinds import COMPANIES
from lookup_pandas.service.paths import COMPANY_BATCH_PATH, COMPANY_PATH
from lookup_pandas.store import StoredJob
from lookup_pandas.testing import names

STATUS, ERROR = "lookup_status", "lookup_error"

ACCOUNTS = [
    "acme",
    "ACME",
    " https://www.linkedin.com/company/acme/ ",
    "linkedin.com/company/Globex",
    "globex",
    "",
    None,
    "unknown-co",
    "Unknown-Co",
    "https://acme.com",
]


def accounts() -> pd.DataFrame:
    return pd.DataFrame({"account": range(len(ACCOUNTS)), "slug": ACCOUNTS})


def test_company_by_slug_and_by_id(fake_service, fake_client):
    record = fake_client.company("https://www.linkedin.com/company/Acme/")
    assert record is not None and record["slug"] == "acme"
    assert fake_service.count(COMPANY_PATH, slug="acme") == 1
    org_id = record["id"]
    assert org_id.startswith("org_")

    by_id = fake_client.company(org_id)  # the record names its id: a cache hit, not bought
    assert by_id == record
    assert fake_client.company("acme") == record  # a cache hit
    assert fake_service.count(COMPANY_PATH) == 1

    globex = fake_client.company(names.org_id("globex"))
    assert globex is not None and globex["slug"] == "globex"
    assert fake_service.count(COMPANY_PATH, id=names.org_id("globex")) == 1  # sent as id=
    assert fake_client.company("globex") == globex  # and its slug a cache hit
    assert fake_service.count(COMPANY_PATH) == 2


def test_a_company_not_found_is_none_billed_once_and_cached(fake_service, fake_client):
    assert fake_client.company("unknown-co") is None
    assert fake_client.company("UNKNOWN-CO") is None
    assert fake_service.count(COMPANY_PATH, slug="unknown-co") == 1
    assert fake_service.billed(COMPANY_PATH) == 1


def test_enrich_companies_buys_each_distinct_company_once_at_the_routes_cost(
    fake_service, fake_client
):
    frame = accounts()
    before = frame.copy()

    out = frame.lookup.enrich_companies("slug", client=fake_client, progress=False)

    pd.testing.assert_frame_equal(frame, before)  # the input is not modified
    assert list(out.columns[:2]) == ["account", "slug"]
    assert out.index.equals(frame.index)
    assert out[STATUS].tolist() == ["ok"] * 5 + ["invalid"] * 2 + ["not_found"] * 2 + ["invalid"]
    assert out[ERROR][5] == "invalid company: empty"
    assert out[ERROR][6] == "invalid company: missing"
    assert out[ERROR][9] == "invalid company: a URL without /company/<slug>"
    assert out["company_slug"][:3].tolist() == ["acme"] * 3
    assert out["company_slug"][3:5].tolist() == ["globex"] * 2
    assert out["company_id"][0].startswith("org_")
    assert out["company_name"].notna()[:5].all()
    for slug in ("acme", "globex", "unknown-co"):
        assert fake_service.count(COMPANY_PATH, slug=slug) == 1
    assert fake_service.count(COMPANY_PATH) == 3
    assert fake_client.stats.credits_consumed == 3 * 2  # the company route costs 2

    sent = fake_service.count()
    again = frame.lookup.enrich_companies("slug", client=fake_client, progress=False)
    assert fake_service.count(COMPANY_PATH) == 3  # a re-run buys nothing
    assert fake_client.stats.credits_consumed == 6
    assert fake_service.count() - sent <= 1  # at most a free key check
    pd.testing.assert_frame_equal(again, out)


def test_estimate_companies_counts_what_is_to_buy_at_the_routes_cost(fake_service, fake_client):
    frame = accounts()
    est = frame.lookup.estimate_companies("slug", client=fake_client, method="single")
    assert (est.rows, est.valid, est.unique, est.cached, est.to_fetch) == (10, 7, 3, 0, 3)
    assert est.credits == 6
    assert fake_service.billed() == 0

    frame.lookup.enrich_companies("slug", client=fake_client, progress=False, method="single")
    after = frame.lookup.estimate_companies("slug", client=fake_client)
    assert (after.cached, after.to_fetch, after.method) == (3, 0, "none")


def test_max_calls_refuses_before_anything_is_sent(fake_service, fake_client):
    with pytest.raises(lp.BudgetExceededError, match=r"distinct companies are cached"):
        accounts().lookup.enrich_companies("slug", client=fake_client, max_calls=2)
    assert fake_service.billed() == 0


def test_300_companies_go_through_batch_jobs_with_no_single_call(fake_service, fake_client):
    slugs = [f"batchco-{i:03d}" for i in range(300)]
    unknown = [f"unknown-batchco-{i}" for i in range(5)]
    frame = pd.DataFrame({"slug": slugs + unknown})
    est = frame.lookup.estimate_companies("slug", client=fake_client)
    assert (est.method, est.to_fetch, est.credits) == ("batch", 305, 305)  # items: 1 each

    out = frame.lookup.enrich_companies("slug", client=fake_client, progress=False)

    assert fake_service.count(COMPANY_PATH) == 0
    assert fake_service.count(COMPANY_BATCH_PATH, method="POST") == 1
    assert out[STATUS].tolist() == ["ok"] * 300 + ["not_found"] * 5
    assert out["company_slug"].tolist()[:300] == slugs
    jobs = list(fake_service.batch_jobs.values())
    assert sorted(i for job in jobs for i in job) == sorted(slugs + unknown)
    assert fake_client.company("unknown-batchco-0") is None  # the billed 1020, cached

    # every result is cached as the single answer: free afterwards
    cached = fake_client.company("batchco-007")
    assert cached is not None and cached["id"] == out["company_id"][7]
    assert fake_service.count(COMPANY_PATH) == 0
    assert frame.lookup.estimate_companies("slug", client=fake_client).to_fetch == 0


def test_get_companies_one_row_per_value(fake_service, fake_client):
    out = api.get_companies(["acme", "ACME", "", "unknown-co"], client=fake_client, progress=False)
    assert out[STATUS].tolist() == ["ok", "ok", "invalid", "not_found"]
    assert out["slug"].tolist()[:2] == ["acme", "acme"]
    assert out["slug"][3] == "unknown-co"
    assert fake_service.count(COMPANY_PATH) == 2
    one = api.get_companies("https://www.linkedin.com/company/globex/", client=fake_client)
    assert one["slug"].tolist() == ["globex"]
    with pytest.raises(lp.UsageError):
        api.get_companies("   ", client=fake_client)


def test_polars_namespace_enriches_companies(fake_service, fake_client):
    import polars as pl  # a dev dependency, as pyarrow: never skipped

    frame = pl.DataFrame({"slug": ["acme", "Acme", None]})
    out = frame.lookup.enrich_companies("slug", client=fake_client, progress=False)
    assert out["lookup_status"].to_list() == ["ok", "ok", "invalid"]
    assert out["slug"].to_list() == ["acme", "Acme", None]  # the input column untouched
    assert fake_service.count(COMPANY_PATH) == 1
    assert frame.lookup.estimate_companies("slug", client=fake_client).to_fetch == 0


def test_dask_accessor_enriches_companies(fake_service, fake_client, monkeypatch):
    monkeypatch.setenv("LOOKUP_API_KEY", fake_service.api_key)
    frame = pd.DataFrame({"slug": ["acme", "ACME", "globex", "", "unknown-co"] * 2})
    ddf = dd.from_pandas(frame, npartitions=3)
    lazy = ddf.lookup.enrich_companies("slug", client=fake_client, fields=["id", "slug", "name"])
    assert fake_service.count() == 0
    with dask.config.set(scheduler="synchronous"):
        out = lazy.compute()
    assert out["lookup_status"].tolist() == ["ok", "ok", "ok", "invalid", "not_found"] * 2
    assert list(out.columns) == ["slug", "company_id", "company_slug", "company_name",
                                 STATUS, ERROR]  # fmt: skip
    assert fake_service.count(COMPANY_PATH) == 3
    pandas_out = api.enrich_companies(frame, client=fake_client, progress=False)
    assert pandas_out["company_name"].tolist() == out["company_name"].tolist()


def test_a_stored_company_job_is_resumed_and_never_taken_for_a_people_job(
    fake_service, fake_client
):
    slugs = [f"resumeco-{i:02d}" for i in range(25)]
    job_id = fake_client.parts.batch.submit(COMPANIES, slugs, None)  # a run stopped right after
    fake_client.parts.store.remember(StoredJob(job_id, tagged(slugs, COMPANIES.tag), time.time()))

    people = pd.DataFrame({"handle": slugs}).lookup.enrich_profiles(
        "handle", client=fake_client, progress=False, method="single"
    )
    assert people[STATUS].eq("ok").all()  # bought as people: the company job is not theirs

    out = pd.DataFrame({"slug": slugs}).lookup.enrich_companies(
        "slug", client=fake_client, progress=False
    )
    assert out[STATUS].eq("ok").all()
    assert fake_service.count(COMPANY_BATCH_PATH, method="POST") == 1  # polled, not bought again
    assert fake_service.count(COMPANY_PATH) == 0
    assert fake_client.parts.store.jobs() == []  # collected, then forgotten
