"""Issue 24, item 4: companies, institutions, alumni, skills and job changes as DataFrames, over
loopback, each list read page by page to the emulator's exact total.

The emulator's totals come from its own data store (``testing.catalog``, ``testing.companies``):
what the routes page through. Misspelt filters are refused with nothing sent.
"""

from __future__ import annotations

import pandas as pd
import pytest

from lookup_pandas import UsageError
from lookup_pandas.api.searches import (
    EVENT_COLUMNS,
    institution_alumni,
    job_changes,
    search_companies,
    search_institutions,
    search_skills,
)
from lookup_pandas.service.endpoints import ENDPOINTS
from lookup_pandas.testing import catalog
from lookup_pandas.testing import company_records as companies

QUIET = {"progress": False}


def path(name: str) -> str:
    return ENDPOINTS[name].path


@pytest.fixture
def client(fake_service, fake_client):
    fake_service.configure(rate_burst=10_000)
    return fake_client


# -- every page, to the exact total ----------------------------------------------------------------


def test_companies_search_reads_every_cursor_page(fake_service, client):
    expected = [c["id"] for c in companies.search_companies(name="labs")]
    assert len(expected) > 3  # more than one page at limit=3
    found = search_companies("labs", limit=3, client=client, **QUIET)
    assert found["id"].tolist() == expected
    assert fake_service.count(path("companies_search")) == -(-len(expected) // 3)
    assert {"slug", "name", "hq.city"} <= set(found.columns)
    assert found.columns[0] == "id"


def test_companies_search_by_website_alone(client):
    slug = companies.search_companies(name="labs")[0]["slug"]
    website = companies.company(slug)["website"]
    found = search_companies(website=website, client=client, **QUIET)
    assert slug in found["slug"].tolist()


def test_institutions_search_reads_every_page(fake_service, client):
    expected = [i["id"] for i in catalog.search_institutions("uni")]
    found = search_institutions("uni", limit=2, client=client, **QUIET)
    assert found["id"].tolist() == expected
    assert fake_service.count(path("institutions_search")) == -(-len(expected) // 2)
    assert {"name", "normalized_name"} <= set(found.columns)


def test_alumni_are_a_person_and_their_education_in_one_row(fake_service, client):
    expected = catalog.alumni("mit")
    found = institution_alumni("mit", client=client, **QUIET)
    assert len(found) == len(expected) > 50  # several pages of 50
    assert found["handle"].tolist() == [r["handle"] for r in expected]
    assert fake_service.count(path("alumni")) == -(-len(expected) // 50)
    assert list(found.columns[:2]) == ["id", "handle"]
    assert (found["education.school.slug"] == "mit").all()
    assert found["education.degree"].tolist() == [r["education"]["degree"] for r in expected]


def test_alumni_filters_are_production_s(client):
    expected = catalog.alumni("mit", degree="msc", sort="recently_graduated", end_year_min=2010)
    found = institution_alumni(
        "mit", degree="msc", sort="recently_graduated", end_year_min=2010, client=client, **QUIET
    )
    assert found["handle"].tolist() == [r["handle"] for r in expected]
    assert 0 < len(found) < len(catalog.alumni("mit"))


def test_skills_search(fake_service, client):
    expected = catalog.search_skills("data")
    found = search_skills("data", limit=1, client=client, **QUIET)
    assert found[["id", "name", "normalized_name"]].to_dict("records") == expected
    assert fake_service.count(path("skills_search")) == len(expected)


def test_every_job_change_with_no_filter_at_all(fake_service, client):
    expected = catalog.job_changes()
    found = job_changes(client=client, **QUIET)
    assert len(found) == len(expected) > 1000
    assert found["id"].tolist() == [e["id"] for e in expected]
    assert fake_service.count(path("job_changes")) == -(-len(expected) // 50)


def test_job_changes_flatten_person_and_organization(client):
    expected = catalog.job_changes(event_type="left", geo_country_code="DE")
    found = job_changes(event_type="left", geo_country_code="DE", client=client, **QUIET)
    assert len(found) == len(expected) > 0
    for column in ("person.handle", "person.id", "organization.slug", "organization.id"):
        assert column in found.columns
    assert found["person.handle"].tolist() == [e["person"]["handle"] for e in expected]
    assert (found["event_type"] == "left").all()


def test_job_changes_for_some_organizations_as_a_list(client):
    orgs = [companies.company(s)["id"] for s in ("acme", "globex")]
    found = job_changes(organization_ids=orgs, client=client, **QUIET)
    assert len(found) == len(catalog.job_changes(organization_ids=",".join(orgs))) > 0
    assert set(found["organization.id"]) <= set(orgs)


def test_no_job_change_is_an_empty_frame_with_an_events_columns(client):
    empty = job_changes(title="zzzqqq", days_ago=30, client=client, **QUIET)
    assert empty.empty and tuple(empty.columns) == EVENT_COLUMNS
    some = job_changes(days_ago=30, max_records=20, client=client, **QUIET)
    assert [c for c in some.columns if c in EVENT_COLUMNS] == list(EVENT_COLUMNS)
    assert "handle" not in some and "handle" not in empty


def test_every_type_of_job_change_within_thirty_days(client):
    """Issue 32: a ``joined`` within 30 days used to find none (every one was older)."""
    for kind in ("joined", "left", "title_change"):
        found = job_changes(event_type=kind, days_ago=30, max_records=5, client=client, **QUIET)
        assert len(found) == 5 and (found["event_type"] == kind).all()


def test_max_records_stops_without_another_page(fake_service, client):
    found = job_changes(max_records=60, limit=50, client=client, **QUIET)
    assert len(found) == 60
    assert fake_service.count(path("job_changes")) == 2


def test_an_empty_answer_is_an_empty_frame(client):
    assert search_skills("zzzzqqq", client=client, **QUIET).empty


def test_a_pandas_frame_and_no_frame_keyword(client):
    found = search_skills("data", client=client, **QUIET)
    assert isinstance(found, pd.DataFrame) and len(found) == len(catalog.search_skills("data"))
    with pytest.raises(TypeError):
        search_skills("data", frame="polars", client=client)  # type: ignore[call-arg]


# -- refused before anything is sent ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "suggested"),
    [
        (lambda c: search_companies("labs", hq_country="DE", client=c), "hq_country_code"),
        (lambda c: search_companies("labs", staff_count_mn=5, client=c), "staff_count_min"),
        (lambda c: institution_alumni("mit", degre="msc", client=c), "degree"),
        (lambda c: institution_alumni("mit", end_year=2010, client=c), "end_year_min"),
        (lambda c: job_changes(event="joined", client=c), "event_type"),
        (lambda c: job_changes(organization_id="org_1", client=c), "organization_ids"),
    ],
)
def test_a_misspelt_filter_sends_nothing(fake_service, client, call, suggested):
    with pytest.raises(UsageError, match=f"did you mean '{suggested}'"):
        call(client)
    assert fake_service.count() == 0 and fake_service.billed() == 0


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda c: search_companies(client=c), "needs name or website"),
        (lambda c: search_companies(hq_city="Berlin", client=c), "needs name or website"),
        (lambda c: search_companies("ab", client=c), "name needs at least 3 characters"),
        (lambda c: search_companies(website="a.", client=c), "website needs at least 3"),
        (lambda c: search_institutions("un", client=c), "name needs at least 3"),
        (lambda c: search_skills("", client=c), "name needs at least 3"),
        (lambda c: institution_alumni("  ", client=c), "normalized_name must be a non-empty"),
        (lambda c: institution_alumni("mit", geo_city="X", client=c), "geo_city needs at least"),
        (lambda c: job_changes(geo_country_code="DEU", client=c), "two-letter country code"),
        (lambda c: job_changes(limit=51, client=c), "limit must be a whole number from 1 to 50"),
    ],
)
def test_what_production_would_refuse_is_refused_here(fake_service, client, call, message):
    with pytest.raises(UsageError, match=message):
        call(client)
    assert fake_service.count() == 0


def test_a_listing_frame_is_new_each_time_and_cached(fake_service, client):
    first = search_institutions("uni", client=client, **QUIET)
    sent = fake_service.count()
    again = search_institutions("uni", client=client, **QUIET)
    pd.testing.assert_frame_equal(first, again)
    assert fake_service.count() == sent  # the cache answered: nothing billed twice
