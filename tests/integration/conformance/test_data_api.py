"""The Data API's lookups and lists through the SDK, as production's reference describes them.

Every record the SDK builds dumps back (``model_dump()``) to the record the emulator holds, or
to the body it sent; lists are walked as the SDK walks them (``auto_paging_iter``: cursors for
people search, companies search and employees; pages for the others); a lookup that resolves
nothing is ``None`` (production's 200 + ``success: false`` + 1010 / 1020 / 1030 / 1040).
"""

from __future__ import annotations

import pytest
import renidly

import lookup_pandas as lp
from lookup_pandas.service.endpoints import ENDPOINTS
from lookup_pandas.testing import catalog, data, names
from lookup_pandas.testing import companies as company_records


def dumps(records) -> list[dict]:
    return [r.model_dump() for r in records]


def sent(svc, endpoint: str, param: str) -> list[str | None]:
    """``param`` of every request the emulator saw on ``endpoint``, in order (None: absent)."""
    return [r.param(param) for r in svc.requests if r.path == ENDPOINTS[endpoint].path]


# -- people ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("by", ["id", "handle"])
def test_people_retrieve_by_id_and_by_handle(sdk, fake_service, by):
    ada = data.person("ada")
    person = sdk.data.people.retrieve(**{by: ada[by]})
    assert person.model_dump() == ada
    assert (person.id, person.handle) == (ada["id"], "ada")
    assert fake_service.billed(ENDPOINTS["profile"].path, **{by: ada[by]}) == 1


def test_people_search_walks_its_cursor_pages(sdk, fake_service):
    expected = list(data.search_records(title="cto", geo_country_code="DE"))
    assert len(expected) > 100  # three pages of 50
    first = sdk.data.people.search(title="cto", geo_country_code="DE", limit=50)
    assert dumps(first) == expected[:50]
    assert first.has_more and first.next_cursor
    assert dumps(first.auto_paging_iter()) == expected
    cursors = sent(fake_service, "people_search", "cursor")
    assert cursors[:2] == [None, first.next_cursor] and len(cursors) == 3 and cursors[2]
    assert sent(fake_service, "people_search", "title") == ["cto"] * 3  # the filters kept


def test_people_search_by_headline_without_a_title(sdk, fake_service):
    page = sdk.data.people.search(headline="engineer")
    assert len(page) == 20 and page.has_more
    assert all("engineer" in p.headline.lower() for p in page)
    assert sent(fake_service, "people_search", "title") == [None]


# -- companies -------------------------------------------------------------------------------------


@pytest.mark.parametrize("by", ["id", "slug"])
def test_companies_retrieve_by_id_and_by_slug(sdk, fake_service, by):
    acme = company_records.company("acme")
    assert sdk.data.companies.retrieve(**{by: acme[by]}).model_dump() == acme
    assert fake_service.billed(ENDPOINTS["company"].path, **{by: acme[by]}) == 1


def test_companies_search_walks_its_cursor_pages(sdk, fake_service):
    expected = company_records.search_companies(name="labs")
    first = sdk.data.companies.search(name="labs", limit=4)
    assert first.has_more and first.next_cursor
    assert dumps(first.auto_paging_iter()) == expected
    assert len(sent(fake_service, "companies_search", "cursor")) == 3  # 10 by 4


def test_employees_by_cursor_and_our_library_by_page(sdk, fake_service, fake_client):
    fake_service.configure(employees_style="cursor")  # the SDK pages employees by cursor
    first = sdk.data.companies.employees("acme", limit=50)
    assert first.has_more and first.next_cursor
    walked = dumps(first.auto_paging_iter())
    assert walked == data.employees("acme") and len(walked) == 137
    cursors = sent(fake_service, "employees", "cursor")
    assert cursors[:2] == [None, first.next_cursor] and len(cursors) == 3

    fake_service.configure(employees_style="page")  # the default: our library still walks it
    frame = lp.company_employees("acme", client=fake_client, progress=False)
    assert frame["handle"].tolist() == [p["handle"] for p in walked]


# -- institutions, skills, job changes -------------------------------------------------------------


def test_institutions_retrieve(sdk):
    assert sdk.data.institutions.retrieve("mit").model_dump() == catalog.institution("mit")


def test_institutions_search_walks_its_pages(sdk, fake_service):
    page = sdk.data.institutions.search("univ", limit=3)
    assert dumps(page.auto_paging_iter()) == catalog.search_institutions("univ")
    assert sent(fake_service, "institutions_search", "page") == [None, "2", "3"]


def test_institutions_alumni_walks_its_pages(sdk, fake_service):
    page = sdk.data.institutions.alumni("mit", degree="PhD", limit=50)
    expected = catalog.alumni("mit", degree="PhD")
    assert 50 < len(expected) <= 100
    assert dumps(page.auto_paging_iter()) == expected
    assert sent(fake_service, "alumni", "page") == [None, "2"]


def test_skills_retrieve(sdk):
    python = catalog.search_skills("python")[0]
    assert sdk.data.skills.retrieve(python["id"]).model_dump() == python


def test_skills_search_walks_its_pages(sdk, fake_service):
    expected = catalog.search_skills("data")
    page = sdk.data.skills.search("data", limit=1)
    assert dumps(page.auto_paging_iter()) == expected and len(expected) > 1
    assert len(sent(fake_service, "skills_search", "page")) == len(expected)


def test_job_changes_search(sdk, fake_service):
    fake_service.configure(job_change_rate=0)  # no background: the move's two events only
    fake_service.move("ada", to="globex")
    first = sdk.data.job_changes.search(days_ago=30, limit=1)
    assert dumps(first) == first.meta.body["data"]
    events = {
        (e.event_type, e.person.handle, e.organization.slug) for e in first.auto_paging_iter()
    }
    assert events == {("left", "ada", "acme"), ("joined", "ada", "globex")}
    joined = sdk.data.job_changes.search(
        event_type="joined", organization_ids=names.org_id("globex"), days_ago=1
    )
    title = data.person("ada")["positions"][0]["title"]  # kept by the move
    assert [(e.person.handle, e.title) for e in joined] == [("ada", title)]


# -- not found -------------------------------------------------------------------------------------

NOT_FOUND = {
    "people": (lambda r: r.data.people.retrieve(handle="unknown-zed"), "1010"),
    "people by id": (lambda r: r.data.people.retrieve(id=names.person_id("unknown-zed")), "1010"),
    "companies": (lambda r: r.data.companies.retrieve(slug="unknown-co"), "1020"),
    "companies by id": (lambda r: r.data.companies.retrieve(id=names.org_id("unknown-co")), "1020"),
    "skills": (lambda r: r.data.skills.retrieve(names.make_id("skl_", "no-such-skill")), "1030"),
    "institutions": (lambda r: r.data.institutions.retrieve("no-such-school"), "1040"),
}


@pytest.mark.parametrize("kind", NOT_FOUND)
def test_a_lookup_that_resolves_nothing_is_none(sdk, sdk_for, fake_service, kind):
    lookup, code = NOT_FOUND[kind]
    assert lookup(sdk) is None
    with pytest.raises(renidly.NotFoundError) as caught:
        lookup(sdk_for(fake_service, raise_on_not_found=True))
    assert (caught.value.status_code, caught.value.error_code) == (200, code)
