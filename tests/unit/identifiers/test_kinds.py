"""The kinds the engine buys, and the batch jobs' store tags (pure)."""

from __future__ import annotations

import pandas as pd

from lookup_pandas.api.columns import looked_up
from lookup_pandas.enrichment.batch_plan import BatchPage, jobs_tagged, tagged
from lookup_pandas.enrichment.results import JobSummary, Lookup
from lookup_pandas.identifiers.kinds import COMPANIES, PEOPLE
from lookup_pandas.service.endpoints import COMPANY_PATH, PROFILE_PATH
from lookup_pandas.store import StoredJob


def test_each_kind_sends_ids_as_id_and_anything_else_as_its_key():
    assert PEOPLE.endpoint.path == PROFILE_PATH
    assert PEOPLE.params("prsn_1a2b") == {"id": "prsn_1a2b"}
    assert PEOPLE.params("ada") == {"handle": "ada"}
    assert COMPANIES.endpoint.path == COMPANY_PATH
    assert COMPANIES.params("org_9F") == {"id": "org_9F"}
    assert COMPANIES.params("acme") == {"slug": "acme"}
    assert COMPANIES.endpoint.not_found == "1020"
    assert COMPANIES.endpoint.results == "companies"


def test_invalid_errors_name_the_kind():
    assert PEOPLE.invalid_error("") == "invalid handle: empty"
    assert COMPANIES.invalid_error("") == "invalid company: empty"


def test_stored_jobs_of_one_kind_are_never_taken_for_anothers():
    people = StoredJob("j1", ("acme", "ada"), 0.0)
    companies = StoredJob("j2", tagged(["acme", "org_X"], COMPANIES.tag), 0.0)
    assert companies.inputs == ("company:acme", "company:org_X")
    assert jobs_tagged([people, companies], PEOPLE.tag) == [people]
    assert jobs_tagged([people, companies], COMPANIES.tag) == [
        StoredJob("j2", ("acme", "org_X"), 0.0)
    ]


def test_a_company_poll_reads_its_results_under_companies():
    data = {
        "status": "completed",
        "total": 2,
        "resolved": 2,
        "next_cursor": 2,
        "companies": {"acme": {"id": "org_1", "slug": "acme"}},
        "not_found": ["unknown-co"],
    }
    page = BatchPage.parse(data, "companies")
    assert page.profiles == {"acme": {"id": "org_1", "slug": "acme"}}
    assert page.not_found == ["unknown-co"]


def _lookup(handles, fields):
    summary = JobSummary(
        rows=len(handles),
        statuses={},
        cached=0,
        fetched=0,
        failed=0,
        credits=0.0,
        requests=0,
        rate_limited=0,
        retries=0,
        seconds=0.0,
    )
    return Lookup(
        handles=handles, status=[], error=[], fields=pd.DataFrame(fields), summary=summary
    )


def test_each_row_says_what_it_looked_up_ids_and_slugs_alike():
    result = _lookup(
        ["acme", "org_X", "org_Q", None],
        {
            "id": ["org_A", "org_X", None, None],
            "slug": ["acme", "xco", None, None],
            "name": ["Acme", "X Co", None, None],
        },
    )
    frame = looked_up(result, COMPANIES)
    assert list(frame.columns[:2]) == ["id", "slug"]
    assert frame["slug"].tolist()[:2] == ["acme", "xco"]  # an id's row: the record's slug
    assert pd.isna(frame["slug"][2]) and pd.isna(frame["slug"][3])
    assert frame["id"].tolist()[:3] == ["org_A", "org_X", "org_Q"]  # a not-found id is kept
    assert pd.isna(frame["id"][3])


def test_messages_name_the_values_of_each_kind():
    assert (PEOPLE.noun, PEOPLE.nouns) == ("handle", "handles")
    assert (COMPANIES.noun, COMPANIES.nouns) == ("company", "companies")
