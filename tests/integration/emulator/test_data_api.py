"""The emulator's whole Data API over loopback, spoken to with plain ``requests``.

People by id, companies (lookup, search, batch), institutions and alumni, skills and job
changes: each route answers as production's reference describes it, from the one endpoint
table (``lookup_pandas.service.endpoints.ENDPOINTS``).
"""

from __future__ import annotations

import datetime as dt
import time

import pytest
import renidly
import requests

from lookup_pandas.service.endpoints import ENDPOINTS
from lookup_pandas.testing import catalog, data, names
from lookup_pandas.testing import company_records as companies

from .conftest import Api

PROFILE = ENDPOINTS["profile"].path
PEOPLE_SEARCH = ENDPOINTS["people_search"].path
EMPLOYEES = ENDPOINTS["employees"].path
PEOPLE_BATCH = ENDPOINTS["people_batch"].path
COMPANY = ENDPOINTS["company"].path
COMPANY_SEARCH = ENDPOINTS["companies_search"].path
COMPANY_BATCH = ENDPOINTS["companies_batch"].path
INSTITUTION = ENDPOINTS["institution"].path
INSTITUTION_SEARCH = ENDPOINTS["institutions_search"].path
ALUMNI = ENDPOINTS["alumni"].path
SKILL = ENDPOINTS["skill"].path
SKILL_SEARCH = ENDPOINTS["skills_search"].path
JOB_CHANGES = ENDPOINTS["job_changes"].path

COMPANY_FIELDS = {
    "id", "name", "slug", "url", "website", "logo_url", "description", "tagline", "industry",
    "employee_count", "employee_count_range", "hq", "locations", "founded", "specialties",
    "follower_count",
}  # fmt: skip


def every_page(api: Api, path: str, **params) -> tuple[list[dict], int]:
    """Every record of a list, page by page as its pagination says; and the pages read."""
    records: list[dict] = []
    pages = 0
    while True:
        body = api.get(path, **params).json()
        assert body["success"] is True, body
        records += body["data"]
        pages += 1
        pagination = body["pagination"]
        if not pagination["has_more"]:
            return records, pages
        if "next_cursor" in pagination:
            params["cursor"] = pagination["next_cursor"]
        else:
            assert set(pagination) == {"page", "limit", "has_more"}
            assert pagination["page"] == params.get("page", 1)
            params["page"] = pagination["page"] + 1


def not_found(reply: requests.Response, code: str) -> None:
    body = reply.json()
    assert reply.status_code == 200
    assert body["success"] is False and body["error_code"] == code and body["data"] is None


def collect(api: Api, path: str, job_id: str) -> dict:
    """A batch job's results, walked by ``after`` until it completes (bounded)."""
    merged: dict = {"not_found": [], "results": {}}
    after, deadline = 0, time.monotonic() + 10
    while time.monotonic() < deadline:
        page = api.data(path, job_id=job_id, after=after)
        merged["results"].update(page.get("companies", page.get("profiles", {})))
        merged["not_found"] += page["not_found"]
        merged["keys"] = set(page) - {"status", "total", "resolved", "errors", "next_cursor"}
        if page["status"] == "completed" and page["next_cursor"] == after:
            return merged
        if page["next_cursor"] == after:
            time.sleep(0.02)
        after = page["next_cursor"]
    raise AssertionError("the job did not complete within 10 s")


# -- people by id --------------------------------------------------------------------------------


def test_a_person_by_id_is_the_same_person_as_by_handle_everywhere(api, fake_service):
    ada = api.data(PROFILE, handle="ada")
    assert api.data(PROFILE, id=ada["id"]) == ada == data.person("ada")
    assert data.person_by_id(ada["id"]) == ada
    assert api.data(PROFILE, handle="ADA")["id"] == ada["id"]  # handles are case-insensitive
    for listed in api.data(PEOPLE_SEARCH, title="engineer", limit=5):
        assert api.data(PROFILE, id=listed["id"])["handle"] == listed["handle"]
    employee = api.data(EMPLOYEES, slug="acme", limit=1)[0]
    assert api.data(PROFILE, id=employee["id"]) == employee
    assert fake_service.billed_handles()[ada["id"]] == 1  # billed under what it was asked by


@pytest.mark.parametrize("value", ["prsn_unknownx", "prsn_", "prsn_ZZ", "prsn_!!", "org_mfsgc"])
def test_an_id_of_no_one_is_a_billed_1010(api, fake_service, value):
    not_found(api.get(PROFILE, id=value), "1010")
    assert fake_service.billed(PROFILE, id=value) == 1
    not_found(api.get(PROFILE, id=names.person_id("unknown-ada")), "1010")


def test_people_batch_resolves_ids_keyed_by_the_exact_input(api, fake_service):
    fake_service.configure(batch_resolve_rate=0)  # everything resolves at once
    ids = [data.person("grace")["id"], "prsn_nobody"]
    reply = api.post(PEOPLE_BATCH, {"ids": ids, "handles": ["ada"], "enrich_live": False})
    assert reply.status_code == 202
    done = collect(api, PEOPLE_BATCH, reply.json()["data"]["job_id"])
    assert set(done["results"]) == {ids[0], "ada"} and done["keys"] == {"not_found", "profiles"}
    assert done["results"][ids[0]] == data.person("grace")
    assert done["not_found"] == ["prsn_nobody"]
    assert fake_service.billed(PEOPLE_BATCH, id=ids[0]) == 1
    assert fake_service.billed_handles() == {"ada": 1, ids[0]: 1, "prsn_nobody": 1}


# -- companies -----------------------------------------------------------------------------------


def test_a_company_by_slug_and_by_id_is_one_production_shaped_record(api, fake_service):
    acme = api.data(COMPANY, slug="acme")
    assert COMPANY_FIELDS <= set(acme) <= COMPANY_FIELDS | {"funding"}
    assert acme["id"].startswith("org_") and acme["slug"] == "acme" and acme["name"] == "Acme"
    assert api.data(COMPANY, id=acme["id"]) == acme == api.data(COMPANY, slug="Acme")
    assert set(acme["hq"]) == {"city", "country_code"} and acme["locations"][0]["is_hq"]
    assert acme["employee_count"] == 137 == len(data.employees("acme"))
    assert acme["employee_count_range"] == "51-200"
    reply = api.get(COMPANY, slug="globex")
    assert reply.headers["X-Credits-Consumed"] == "2"  # the route's cost
    funded = [c for c in companies.company_population() if "funding" in c]
    assert 0 < len(funded) < len(companies.company_population())  # funding only when known


def test_companies_people_work_at_agree_with_their_records(api):
    for person in api.data(EMPLOYEES, slug="hooli", limit=20):
        for position in person.get("positions", ()):
            org = position["organization"]
            record = api.data(COMPANY, id=org["id"])
            assert (record["name"], record["slug"], record["url"]) == (
                org["name"], org["slug"], org["url"],
            )  # fmt: skip


MISSING_COMPANIES = [
    {"slug": "unknown-co"},
    {"slug": "no-such-inc"},
    {"id": "org_zz"},
    {"id": names.org_id("unknown-co")},
]


@pytest.mark.parametrize("params", MISSING_COMPANIES)
def test_a_company_that_does_not_exist_is_1020_billed_at_the_route_cost(api, fake_service, params):
    reply = api.get(COMPANY, **params)
    not_found(reply, "1020")
    assert reply.headers["X-Credits-Consumed"] == "2"
    assert fake_service.billed(COMPANY, **params) == 1


def test_a_company_lookup_without_slug_or_id_is_400(api):
    reply = api.get(COMPANY)
    assert reply.status_code == 400 and reply.json()["errors"] == {"slug": "is required"}


def test_sparse_records_thin_companies_to_id_and_slug(api, fake_service):
    fake_service.configure(sparse_records=True)
    listed = api.data(COMPANY_SEARCH, name="labs", limit=50)
    assert listed and all({"id", "slug"} <= set(c) for c in listed)
    assert any(not set(c) >= COMPANY_FIELDS for c in listed)
    assert all(set(api.data(COMPANY, slug=c["slug"])) == set(c) for c in listed[:5])  # stable
    sparse = [c["slug"] for c in companies.company_population() if "description" not in c]
    assert sparse and all(companies.is_sparse_company(s) for s in sparse)


def test_company_search_reads_every_page_to_the_exact_total(api, fake_service):
    expected = companies.search_companies(name="labs")
    assert len(expected) > 3
    records, pages = every_page(api, COMPANY_SEARCH, name="Labs", limit=3)
    assert [r["slug"] for r in records] == [r["slug"] for r in expected]
    assert pages == -(-len(expected) // 3)
    assert fake_service.billed(COMPANY_SEARCH) == pages  # each page billed once


def test_company_search_filters(api):
    by_country = api.data(COMPANY_SEARCH, name="systems", hq_country_code="de", limit=50)
    assert by_country == companies.search_companies(name="systems", hq_country_code="de")
    assert all(c["hq"]["country_code"] == "DE" for c in by_country)
    big = api.data(COMPANY_SEARCH, name="labs", staff_count_min=150, limit=50)
    assert big and all(c["employee_count"] >= 150 for c in big)
    assert len(big) < len(companies.search_companies(name="labs"))
    site = api.data(COMPANY_SEARCH, website="https://www.blue-labs.example/about")
    assert [c["slug"] for c in site] == ["blue-labs"]
    industry = companies.company("blue-labs")["industry"]
    same = api.data(COMPANY_SEARCH, name="blue", industries=industry.upper(), limit=50)
    assert same and all(c["industry"] == industry for c in same)


@pytest.mark.parametrize(
    ("params", "field"),
    [({}, "name"), ({"name": "ab"}, "name"), ({"website": "x."}, "website"),
     ({"name": "labs", "staff_count_min": "-1"}, "staff_count_min"),
     ({"name": "labs", "founded": "year"}, "founded")],
)  # fmt: skip
def test_company_search_refuses_what_production_refuses(api, fake_service, params, field):
    reply = api.get(COMPANY_SEARCH, **params)
    assert reply.status_code == 400 and field in reply.json()["errors"]
    assert fake_service.billed() == 0


def test_company_batch_resolves_slugs_and_ids_under_companies(api, fake_service):
    fake_service.configure(batch_resolve_rate=0)
    globex = companies.company("globex")
    body = {"ids": [globex["id"], "org_nothing"], "handles": ["Acme", "unknown-co"]}
    reply = api.post(COMPANY_BATCH, body)
    assert reply.status_code == 202
    done = collect(api, COMPANY_BATCH, reply.json()["data"]["job_id"])
    assert done["keys"] == {"not_found", "companies"}
    assert done["results"] == {globex["id"]: globex, "Acme": companies.company("acme")}
    assert sorted(done["not_found"]) == ["org_nothing", "unknown-co"]
    assert fake_service.billed(COMPANY_BATCH) == 4  # each item 1 as it resolves, not the cost 2
    assert fake_service.billed(COMPANY_BATCH, slug="Acme") == 1
    assert fake_service.billed_handles() == {}  # companies are not people


def test_a_job_is_tracked_on_its_own_batch_path_only(api, fake_service):
    job = api.post(PEOPLE_BATCH, {"handles": ["ada"]}).json()["data"]["job_id"]
    assert api.get(COMPANY_BATCH, job_id=job).status_code == 404
    assert api.get(PEOPLE_BATCH, job_id=job).status_code == 200
    fake_service.configure(batch=False)
    assert api.post(COMPANY_BATCH, {"handles": ["acme"]}).status_code == 404


# -- institutions and alumni -------------------------------------------------------------------


def test_institution_lookup_and_search(api, fake_service):
    eth = api.data(INSTITUTION, normalized_name="eth-zurich")
    assert set(eth) == {"id", "name", "normalized_name", "url"}
    assert eth["id"].startswith("inst_") and eth["name"] == "ETH Zurich"
    reply = api.get(INSTITUTION, normalized_name="no-such-school")
    not_found(reply, "1040")  # production's institution not-found, billed as the others
    assert reply.headers["X-Credits-Consumed"] == "1"
    assert fake_service.billed(INSTITUTION) == 2
    found, pages = every_page(api, INSTITUTION_SEARCH, name="univ", limit=2)
    assert found == catalog.search_institutions("univ") and pages == -(-len(found) // 2)
    assert "eth-zurich" not in {i["normalized_name"] for i in found}
    assert api.get(INSTITUTION_SEARCH, name="un").status_code == 400


def test_the_official_sdk_reads_an_unknown_institution_as_not_found(fake_service):
    key = fake_service.api_key
    config = renidly.RenidlyConfig(
        base_url=fake_service.base_url, max_retries=0, default_headers={"X-service-apikey": key}
    )
    with renidly.Renidly(key, config=config) as client:
        assert client.data.institutions.retrieve("eth-zurich").name == "ETH Zurich"
        assert client.data.institutions.retrieve("no-such-school") is None  # 1040: not found
    assert fake_service.billed(INSTITUTION) == 2


def test_alumni_carry_the_education_that_links_them(api, fake_service):
    alumni, pages = every_page(api, ALUMNI, normalized_name="mit", limit=50)
    assert len(alumni) == len(catalog.alumni("mit")) > 50 and pages > 1
    for record in alumni:
        assert record["education"]["school"]["slug"] == "mit"
        assert record["id"] == data.person(record["handle"])["id"]
    empty = api.get(ALUMNI, normalized_name="stanford-university").json()
    assert empty["data"] == [] and empty["pagination"] == {
        "page": 1,
        "limit": 20,
        "has_more": False,
    }
    unknown = api.get(ALUMNI, normalized_name="no-such-school")
    not_found(unknown, "1040")
    assert fake_service.billed(ALUMNI, normalized_name="no-such-school") == 1


def test_alumni_filters_and_sorts(api):
    masters = api.data(ALUMNI, normalized_name="mit", degree="msc", geo_country_code="de", limit=50)
    assert masters and all(
        r["education"]["degree"] == "MSc" and r["geo"]["country_code"] == "DE" for r in masters
    )
    window = api.data(ALUMNI, normalized_name="mit", end_year_min=2010, end_year_max=2015, limit=50)
    assert window and all(2010 <= r["education"]["end_year"] <= 2015 for r in window)
    latest = api.data(ALUMNI, normalized_name="mit", sort="recently_graduated", limit=50)
    ended = [r["education"]["end_year"] for r in latest]
    assert ended == sorted(ended, reverse=True) and ended[0] == max(
        r["education"]["end_year"] for r in catalog.alumni("mit")
    )
    field = api.data(ALUMNI, normalized_name="mit", field_of_study="statistics", limit=50)
    assert field and all(r["education"]["field_of_study"] == "Statistics" for r in field)
    bad = api.get(ALUMNI, normalized_name="mit", start_year_min=2010, start_year_max=2000)
    assert bad.status_code == 400 and "start_year_max" in bad.json()["errors"]
    assert api.get(ALUMNI, normalized_name="mit", sort="best").status_code == 400


def test_alumni_pages_through_the_client(fake_client):
    """The client's paginator detects the page-based style from the pagination block."""
    rows = list(fake_client.paginate(ALUMNI, {"normalized_name": "tu-munich", "limit": 7}))
    assert [r["handle"] for r in rows] == [r["handle"] for r in catalog.alumni("tu-munich")]


# -- skills --------------------------------------------------------------------------------------


def test_skills_by_id_and_search_are_free(api, fake_service):
    found, _ = every_page(api, SKILL_SEARCH, name="data", limit=1)
    assert {s["normalized_name"] for s in found} == {"data analysis", "data visualization"}
    python = api.data(SKILL_SEARCH, name="python")[0]
    assert api.data(SKILL, id=python["id"]) == python == {
        "id": python["id"], "name": "Python", "normalized_name": "python",
    }  # fmt: skip
    reply = api.get(SKILL, id="skl_nothing")
    not_found(reply, "1030")
    assert reply.headers["X-Credits-Consumed"] == "0"
    assert api.get(SKILL).status_code == 400
    assert fake_service.stats()["credits"] == 0


# -- job changes ---------------------------------------------------------------------------------


def test_job_changes_are_production_shaped_events(api):
    events, pages = every_page(api, JOB_CHANGES, days_ago=14, limit=50)
    assert events == catalog.job_changes(days_ago=14) and pages >= 1
    since = (catalog.today() - dt.timedelta(days=14)).isoformat()
    assert events and all(since <= e["detected_at"] <= catalog.today().isoformat() for e in events)
    for event in api.data(JOB_CHANGES, limit=50):
        assert event["event_type"] in ("joined", "left", "title_change")
        assert set(event["person"]) == {"id", "handle", "first_name", "last_name", "headline"}
        assert set(event["organization"]) == {"id", "name", "slug"}
        assert ("previous_title" in event) == (event["event_type"] == "title_change")
        assert data.person(event["person"]["handle"])["id"] == event["person"]["id"]


def test_job_change_filters(api):
    acme, globex = (companies.company(s)["id"] for s in ("acme", "globex"))
    joined = api.data(JOB_CHANGES, event_type="joined", organization_ids=f"{acme},{globex}",
                      limit=50)  # fmt: skip
    assert joined and all(
        e["event_type"] == "joined" and e["organization"]["slug"] in ("acme", "globex")
        for e in joined
    )
    changed = api.data(JOB_CHANGES, event_type="title_change", title="engineer", limit=50)
    assert changed and all(
        "engineer" in e["title"].lower() and e["previous_title"] for e in changed
    )
    berlin = api.data(JOB_CHANGES, geo_city="berlin", geo_country_code="DE", limit=50)
    assert berlin and all(e["geo"] == {"city": "Berlin", "country_code": "DE"} for e in berlin)
    recent = catalog.job_changes(days_ago=30)
    assert 0 < len(recent) < len(catalog.job_changes(days_ago=365))
    refused = [
        ({"days_ago": 0}, "days_ago"),
        ({"days_ago": 366}, "days_ago"),
        ({"event_type": "promoted"}, "event_type"),
        ({"title": "ab"}, "title"),
    ]
    for params, field in refused:
        reply = api.get(JOB_CHANGES, **params)
        assert reply.status_code == 400 and field in reply.json()["errors"]


def test_job_change_pages_carry_no_total_and_are_billed_like_any_listing(api, fake_service):
    acme = companies.company("acme")["id"]
    events, pages = every_page(api, JOB_CHANGES, organization_ids=acme, days_ago=365, limit=20)
    assert pages > 3 and len(events) > 60  # every_page checks {page, limit, has_more}
    assert fake_service.billed(JOB_CHANGES) == pages
    assert fake_service.stats()["credits"] == pages  # 1 a page: the route costs no more
    last = api.get(JOB_CHANGES, organization_ids=acme, days_ago=365, limit=20, page=pages + 1)
    assert last.json()["data"] == [] and last.json()["pagination"]["has_more"] is False


def test_every_type_of_job_change_within_a_week_at_an_ordinary_company(api):
    for slug in ("acme", "cyberdyne"):
        week = api.data(JOB_CHANGES, organization_ids=companies.company(slug)["id"], days_ago=7,
                        limit=50)  # fmt: skip
        assert {e["event_type"] for e in week} == set(catalog.EVENT_TYPES), slug
    for kind in catalog.EVENT_TYPES:
        assert api.data(JOB_CHANGES, event_type=kind, days_ago=30, limit=1), kind


def test_a_giant_companys_feed_holds_hundreds_of_events_a_day(api, fake_service):
    fake_service.configure(job_change_rates={"hooli": 500})  # 617 a day at its 1,234
    hooli = companies.company("hooli")["id"]
    first = api.get(JOB_CHANGES, organization_ids=hooli, days_ago=365, limit=50).json()
    assert first["pagination"] == {"page": 1, "limit": 50, "has_more": True}
    today = catalog.today().isoformat()
    assert {e["detected_at"] for e in first["data"]} == {today}
    events, pages = every_page(api, JOB_CHANGES, organization_ids=hooli, days_ago=1, limit=50)
    assert sum(e["detected_at"] == today for e in events) >= 300 and len(events) >= 600
    assert fake_service.billed(JOB_CHANGES) == pages + 1
