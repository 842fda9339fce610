"""One person, one company, one price within a run, against the emulator's billing counts.

What is tested: a column naming people by handle, profile URL and ``prsn_`` id buys each person
once (the names first, then only the ids their records did not name), without a cache too, by
single calls and by batch jobs; each row gets its record, its status and its provenance (an id
answered by its handle's record has that record's source); companies by slug, URL and ``org_``
id likewise, at the route's cost; a re-run on the same cache buys nothing; and the 100-row list
naming 40 people and 20 companies in every form bills 40 people and 20 companies.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import pytest

import lookup_pandas as lp  # noqa: F401  registers df.lookup
from lookup_pandas.service.paths import COMPANY_PATH
from lookup_pandas.testing import BATCH, PROFILE, FakeService
from lookup_pandas.testing.names import org_id, person_id

from ..helpers import make_client

STATUS = "lookup_status"


def person_forms(handle: str) -> list[str]:
    """The ways a lead list names one person."""
    pid = person_id(handle)
    return [
        handle,
        f"https://www.linkedin.com/in/{handle.title()}/",
        pid,
        f"  {handle.upper()} ",
        f"linkedin.com/in/{handle}?trk=x",
        f" {pid}",
    ]


def company_forms(slug: str) -> list[str]:
    """The ways an account list names one company."""
    cid = org_id(slug)
    return [
        slug,
        f"https://www.linkedin.com/company/{slug.upper()}/",
        cid,
        f"  {slug.title()} ",
        f"linkedin.com/company/{slug}/about",
        f"{cid} ",
    ]


def spelled(names: list[str], forms: Callable[[str], list[str]], rows: int) -> list[str]:
    """``rows`` values naming each of ``names`` in turn, the forms of a name taken in turn."""
    out = []
    for row in range(rows):
        choices = forms(names[row % len(names)])
        out.append(choices[(row // len(names) + row % len(names)) % len(choices)])
    return out


@pytest.mark.parametrize("cache", [False, "sqlite"])
def test_a_mixed_column_buys_each_person_once(fake_service: FakeService, tmp_path, cache):
    where = tmp_path / "c.sqlite" if cache == "sqlite" else False
    ada, grace = person_id("ada-lovelace"), person_id("grace-hopper")
    values = [ada, "grace-hopper", "https://www.linkedin.com/in/Ada-Lovelace/", grace, ada, ""]
    frame = pd.DataFrame({"who": values}, index=list("abcdef"))
    with make_client(fake_service, cache=where) as client:
        out = frame.lookup.enrich_profiles("who", client=client, progress=False, provenance=True)
    assert out[STATUS].tolist() == ["ok"] * 5 + ["invalid"]
    assert out["profile_id"][:5].tolist() == [ada, grace, ada, grace, ada]
    assert out["profile_handle"][:5].tolist() == ["ada-lovelace", "grace-hopper"] * 2 + [
        "ada-lovelace"
    ]
    # the ids' rows carry the source and time of the record their handle bought
    assert out["lookup_source"][:5].tolist() == ["single"] * 5
    assert out.loc["a", "lookup_fetched_at"] == out.loc["c", "lookup_fetched_at"]
    assert fake_service.count(PROFILE, id=ada) == fake_service.count(PROFILE, id=grace) == 0
    assert fake_service.billed(PROFILE) == 2
    assert out.lookup.summary.fetched == 2


def test_a_mixed_column_in_batch_jobs_buys_each_person_once(fake_service: FakeService, tmp_path):
    handles = [f"onepr{i:03d}" for i in range(30)]
    lone = person_id("onepr-lone")  # named by id alone
    values = [person_id(h) for h in handles] + [h.upper() for h in handles] + [lone]
    frame = pd.DataFrame({"who": values})
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        out = frame.lookup.enrich_profiles("who", client=client, progress=False)
        again = frame.lookup.enrich_profiles("who", client=client, progress=False)
    assert out[STATUS].eq("ok").all()
    assert out["profile_handle"].tolist() == handles * 2 + ["onepr-lone"]
    # the handles' job, then one of the one id no record named
    assert fake_service.count(BATCH, method="POST") == 2
    first, second = fake_service.batch_jobs.values()
    assert sorted(first) == handles and list(second) == [lone]
    assert sum(fake_service.billed_handles().values()) == 31
    assert fake_service.count(PROFILE) == 0
    pd.testing.assert_frame_equal(again, out)


def test_a_mixed_column_buys_each_company_once(fake_service: FakeService, tmp_path):
    values = ["acme", org_id("acme"), "https://www.linkedin.com/company/GLOBEX/", org_id("globex")]
    frame = pd.DataFrame({"account": values})
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        out = frame.lookup.enrich_companies("account", client=client, progress=False)
        summary = out.lookup.summary
        later = pd.DataFrame({"account": [org_id("acme"), "Globex"]})
        again = later.lookup.enrich_companies("account", client=client, progress=False)
    assert out[STATUS].eq("ok").all()
    assert out["company_slug"].tolist() == ["acme", "acme", "globex", "globex"]
    assert fake_service.billed(COMPANY_PATH) == 2
    assert fake_service.count(COMPANY_PATH, id=org_id("acme")) == 0
    assert summary.credits == fake_service.stats()["credits"] == 4.0  # the route costs 2
    assert again[STATUS].eq("ok").all() and again.lookup.summary.fetched == 0


@pytest.mark.parametrize("method", ["auto", "single"])
def test_the_hundred_row_list_bills_each_person_and_company_once(
    fake_service: FakeService, tmp_path, method
):
    """The figure of the issue's note: 40 people and 20 companies in every form, 100 rows."""
    people = [f"lead-person-{i:02d}" for i in range(40)]
    companies = [f"lead-co-{i:02d}" for i in range(20)]
    leads = pd.DataFrame(
        {
            "person": spelled(people, person_forms, 100),
            "company": spelled(companies, company_forms, 100),
        }
    )
    assert leads["person"].nunique() > 80 and leads["company"].nunique() > 50  # every form
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        persons = leads[["person"]].lookup.enrich_profiles(
            "person", client=client, progress=False, method=method
        )
        people_credits = fake_service.stats()["credits"]
        accounts = leads[["company"]].lookup.enrich_companies(
            "company", client=client, progress=False, method=method
        )
        company_credits = fake_service.stats()["credits"] - people_credits
    assert persons[STATUS].eq("ok").all() and accounts[STATUS].eq("ok").all()
    assert persons["profile_handle"].nunique() == 40
    assert accounts["company_slug"].nunique() == 20
    people_billed = persons.lookup.summary
    company_billed = accounts.lookup.summary
    print(
        f"\n100 rows, method={method}: people {people_credits:g} credits for 40 "
        f"({people_billed.jobs} batch jobs),"
        f" companies {company_credits:g} credits for 20 ({company_billed.jobs} batch jobs)"
    )
    billed = fake_service.billed_handles()
    assert len(billed) == 40 and set(billed.values()) == {1}  # each person billed once
    if method == "single":  # the profile route costs 1, the company route 2
        assert fake_service.billed(COMPANY_PATH) == 20
        assert (people_credits, company_credits) == (40, 40)
    else:  # batch items: 1 credit each
        assert (people_credits, company_credits) == (40, 20)
