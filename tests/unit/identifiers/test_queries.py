"""check_listing / check_limit: what production would ignore or refuse, refused before sending."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lookup_pandas.api.listings import query_value
from lookup_pandas.errors import UsageError
from lookup_pandas.identifiers.queries import (
    MAX_LIMIT,
    MIN_TEXT,
    check_limit,
    check_listing,
    unknown_filter,
)
from lookup_pandas.service.endpoints import ENDPOINTS
from lookup_pandas.service.listings import ALUMNI, COMPANY_SEARCH, EMPLOYEES, JOB_CHANGES, SEARCH
from lookup_pandas.service.paths import EMPLOYEES_PATH, SEARCH_PATH
from lookup_pandas.testing import catalog, data
from lookup_pandas.testing import company_records as companies
from lookup_pandas.testing.data_routes import ROUTES_BY_NAME
from lookup_pandas.testing.replies import Request
from lookup_pandas.testing.state import Knobs, ServiceState


def search(**params):
    return check_listing(SEARCH, {"title": "engineer", "limit": 50, **params})


def employees(**params):
    return check_listing(EMPLOYEES, {"slug": "acme", "limit": 50, **params})


# -- the declarations ------------------------------------------------------------------------------


def test_one_declaration_per_list_endpoint():
    listings = {e.path: e.listing for e in ENDPOINTS.values() if e.listing}
    assert listings[SEARCH_PATH] is SEARCH and listings[EMPLOYEES_PATH] is EMPLOYEES
    # every list endpoint of the endpoint table, each under its own path
    assert all(e.data is list for e in ENDPOINTS.values() if e.listing)
    for path, listing in listings.items():
        assert listing.path == path
        assert len(set(listing.filters)) == len(listing.filters)
        assert set(listing.text) <= set(listing.filters) | {listing.required}
        assert set(listing.one_of) <= set(listing.filters)
        assert {f.name for f in listing.params if f.kind == "code"} <= set(listing.filters)
        assert not {"limit", "page", "cursor", "start"} & set(listing.filters)


def test_production_names_are_declared():
    """From renidly/renidly-skills data-api.md (GET /people/search, GET /companies/employees)."""
    assert {
        "title", "first_name", "last_name", "headline", "geo_city", "geo_country_code",
        "organization_slugs", "skills", "current_only", "primary_language", "is_creator",
        "is_premium", "institution_ids", "certifications", "speaks_language", "skill_count_min",
        "skill_count_max", "last_change_within_days", "last_change_type", "tenure_min_years",
        "tenure_max_years", "company_count_min", "company_count_max", "education_level",
        "degree", "field_of_study",
    } <= set(SEARCH.filters)  # fmt: skip
    assert set(EMPLOYEES.filters) == {
        "current_only", "title", "geo_country_code", "geo_city", "start_year", "start_month",
        "sort",
    }  # fmt: skip
    text = {"title", "first_name", "last_name", "headline", "summary", "geo_city"}
    assert set(SEARCH.text) == text
    assert set(EMPLOYEES.text) == {"title", "geo_city"}
    # production makes every people-search filter optional (the SDK's quick start: headline alone)
    assert SEARCH.required == "" and SEARCH.needs_filter and EMPLOYEES.required == "slug"
    # the SDK 0.3.0's, "regenerated from the Data API OpenAPI spec"
    assert {
        "follower_count_min", "company_size_min", "company_size_max", "industry",
        "experience_min_years", "function", "function_min_years", "description",
        "exclude_titles", "exclude_organization_slugs", "exclude_industries",
    } <= set(SEARCH.filters)  # fmt: skip


#: Each data store of the emulator, the listing it answers, and its positional arguments.
STORES = [
    (SEARCH, data.search_records, ()),
    (EMPLOYEES, data.employee_records, ("acme",)),
    (COMPANY_SEARCH, companies.search_companies, ()),
    (ALUMNI, catalog.alumni, ("mit",)),
    (JOB_CHANGES, catalog.job_changes, ()),
]


@pytest.mark.parametrize(("listing", "store", "args"), STORES, ids=[s[0].name for s in STORES])
def test_the_emulator_stores_take_the_declared_filters_and_no_others(listing, store, args):
    """The data stores' filters are production's names: the emulator has no list of its own."""
    every = {name: None for name in listing.filters if name != listing.required}
    assert store(*args, **every) == store(*args)  # each declared name, none of them given
    with pytest.raises(TypeError, match=f"{listing.name} has no filter 'geo_contry_code'"):
        store(*args, geo_contry_code="DE")


def test_the_emulator_routes_pass_the_declared_filters_to_the_store(monkeypatch):
    seen: dict[str, object] = {}

    def search_records(*, moved=None, events=(), **filters):
        seen.update(filters)
        return ()

    monkeypatch.setattr(data, "search_records", search_records)
    params = {"title": "engineer", "geo_city": "Berlin", "is_creator": "True", "country": "DE",
              "skill_count_min": "2", "last_change_type": "Joined", "degree": " "}  # fmt: skip
    request = Request("GET", SEARCH_PATH, tuple(params.items()), {})
    reply = ROUTES_BY_NAME["people_search"](ServiceState(Knobs()), request)
    assert reply.status == 200, reply.body
    # declared ones, parsed by their kind; "country" is not one, a blank one is not given
    assert seen == {"title": "engineer", "geo_city": "Berlin", "is_creator": True,
                    "skill_count_min": 2, "last_change_type": "joined"}  # fmt: skip


def test_the_emulator_search_store_takes_title_as_one_optional_filter():
    """Production's people search needs no title: the store answers the whole population
    without one, and reads ``title`` as any other filter."""
    assert len(data.search_records()) == data.SEARCH_POPULATION
    titled = data.search_records(title="Engineer")
    assert 0 < len(titled) < data.SEARCH_POPULATION
    assert titled == data.search_records(title=" engineer ", current_only=False)
    assert all(any("engineer" in p["title"].lower() for p in r["positions"]) for r in titled)


# -- names -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("check", "name", "suggested"),
    [
        (search, "country", "geo_country_code"),
        (search, "geo_contry_code", "geo_country_code"),
        (search, "city", "geo_city"),
        (search, "skill", "skills"),
        (search, "tenure_max", "tenure_max_years"),
        (employees, "geo_contry_code", "geo_country_code"),
        (employees, "country", "geo_country_code"),
        (employees, "start_yr", "start_year"),
    ],
)
def test_a_misspelt_name_suggests_the_closest(check, name, suggested):
    with pytest.raises(UsageError, match=f"did you mean '{suggested}'") as info:
        check(**{name: "DE"})
    assert repr(name) in str(info.value) and "Nothing was sent" in str(info.value)


def test_a_name_with_no_close_match_lists_what_is_accepted():
    with pytest.raises(UsageError) as info:
        employees(department="engineering")
    text = str(info.value)
    assert "did you mean" not in text
    assert "It takes: current_only, title, geo_country_code, geo_city" in text
    assert "client.paginate" in text  # the escape hatch for a filter newer than the list


def test_names_are_per_endpoint():
    search(summary="pandas", primary_language="en", tenure_max_years=3)
    employees(start_year=2020, start_month=4, sort="newest", current_only="false")
    with pytest.raises(UsageError, match="'summary' is not a filter of the company employees"):
        employees(summary="pandas")
    with pytest.raises(UsageError, match="'start_year' is not a filter of the people search"):
        search(start_year=2020)
    with pytest.raises(UsageError, match="'slug' is not a filter of the people search"):
        search(slug="acme")


def test_a_filter_set_to_none_is_only_name_checked():
    search(geo_city=None, first_name=None)
    with pytest.raises(UsageError, match="did you mean"):
        search(geo_cty=None)


def test_unknown_filter_message_is_one_sentence_per_part():
    assert unknown_filter(SEARCH, "country") == (
        "'country' is not a filter of the people search; did you mean 'geo_country_code'? "
        "Nothing was sent."
    )


# -- limit -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("limit", [1, 20, 50, np.int64(50)])
def test_limit_in_range(limit):
    check_limit(limit)
    search(limit=limit)


@pytest.mark.parametrize("limit", [0, -1, 51, 100000, 2.5, 50.0, "50", None, True, False])
def test_limit_out_of_range_or_not_whole(limit):
    with pytest.raises(UsageError, match=f"limit must be a whole number from 1 to {MAX_LIMIT}"):
        check_limit(limit)
    with pytest.raises(UsageError, match="limit"):
        employees(limit=limit)


@given(st.integers())
def test_limit_accepted_exactly_from_1_to_50(limit):
    try:
        check_limit(limit)
    except UsageError:
        assert not 1 <= limit <= 50
    else:
        assert 1 <= limit <= 50


# -- values ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("title", ["", "  ", "ab", "  ab  ", "x"])
def test_short_or_empty_search_title(title):
    with pytest.raises(UsageError, match=f"title needs at least {MIN_TEXT} characters"):
        search(title=title)


@pytest.mark.parametrize("title", [42, 4.5, ["engineer"]])
def test_search_title_must_be_text(title):
    with pytest.raises(UsageError, match="title must be a non-empty string"):
        search(title=title)


def test_people_search_needs_no_title_but_one_filter():
    """Production makes every filter optional (the SDK's quick start: headline alone); a query
    with none would bill page after page of everyone, so it is refused before it is sent."""
    check_listing(SEARCH, {"headline": "engineer", "limit": 50})
    check_listing(SEARCH, {"title": None, "is_creator": "true"})
    for empty in ({}, {"limit": 50}, {"title": None, "skills": None}):
        with pytest.raises(UsageError, match="needs at least one filter"):
            check_listing(SEARCH, empty)


@pytest.mark.parametrize(
    ("name", "bad", "says"),
    [
        ("is_creator", "maybe", "true or false"),
        ("current_only", 1, "true or false"),
        ("skill_count_min", -1, "whole number of at least 0"),
        ("skill_count_min", "ten", "whole number"),
        ("skill_count_min", 2.5, "whole number"),
        ("skill_count_min", True, "whole number"),
        ("last_change_within_days", 0, "at least 1"),
        ("last_change_type", "moved", "one of joined, left, title_change"),
        ("skills_match", "some", "one of any, all"),
        ("industry", " ", "non-empty string"),
        ("industry", 7, "non-empty string"),
    ],
)
def test_typed_search_filters_refuse_bad_values(name, bad, says):
    with pytest.raises(UsageError, match=says):
        search(**{name: bad})


def test_typed_search_filters_take_good_values():
    search(is_creator="TRUE", skill_count_min=0, skill_count_max="12", last_change_type="left",
           skills_match="ALL", industry="software", last_change_within_days=30)  # fmt: skip


def test_a_lowest_above_its_highest_is_refused():
    search(tenure_min_years=2, tenure_max_years=2)
    with pytest.raises(UsageError, match="tenure_min_years \\(5\\) is above tenure_max_years"):
        search(tenure_min_years=5, tenure_max_years=2)
    with pytest.raises(UsageError, match="end_year_min \\(2030\\) is above end_year_max"):
        check_listing(
            ALUMNI, {"normalized_name": "mit", "end_year_min": 2030, "end_year_max": 2020}
        )


@pytest.mark.parametrize(
    ("listing", "base", "name", "good", "bad"),
    [
        (EMPLOYEES, {"slug": "acme"}, "start_year", 2026, 2027),
        (ALUMNI, {"normalized_name": "mit"}, "end_year_max", 2036, 2037),
        (ALUMNI, {"normalized_name": "mit"}, "start_year_min", 1900, 1899),
    ],
)
def test_year_bounds_follow_this_year(listing, base, name, good, bad):
    """Production: employees' start_year 1900 to this year; alumni years to this year + 10."""
    check_listing(listing, {**base, name: good}, year=2026)
    with pytest.raises(UsageError, match=f"{name} must be a whole number from"):
        check_listing(listing, {**base, name: bad}, year=2026)


@pytest.mark.parametrize("name", ["first_name", "last_name", "headline", "summary", "geo_city"])
def test_short_search_text_filters(name):
    search(**{name: "abc"})
    search(**{name: " abc "})
    for short in ("", "ab", " a "):
        with pytest.raises(UsageError, match=f"{name} needs at least 3 characters"):
            search(**{name: short})


@pytest.mark.parametrize("name", ["title", "geo_city"])
def test_short_employee_text_filters(name):
    employees(**{name: "Rome"})
    with pytest.raises(UsageError, match=f"{name} needs at least 3 characters"):
        employees(**{name: "ab"})


def test_other_filters_have_no_length_rule():
    search(skills="go", organization_slugs="hp", current_only="true", degree="BA")
    employees(sort="newest", start_year="2020", current_only="false")


@pytest.mark.parametrize("slug", ["", "   ", None, 3])
def test_employees_slug_must_be_non_empty(slug):
    with pytest.raises(UsageError, match="slug must be a non-empty string"):
        check_listing(EMPLOYEES, {"slug": slug, "limit": 50})


def test_a_short_slug_is_fine():
    employees(slug="hp")


@pytest.mark.parametrize(
    "slug", ["ACME", " Acme ", "https://www.linkedin.com/company/Acme/?trk=x", "org_9F3a"]
)
def test_employees_slug_takes_any_company_form(slug):
    employees(slug=slug)


@pytest.mark.parametrize(
    ("slug", "reason"),
    [
        ("https://acme.com", "a URL without /company/<slug>"),
        ("https://www.linkedin.com/in/ada", "a URL without /company/<slug>"),
        ("x", "too short"),
        ("sales@acme.com", "an e-mail address"),
    ],
)
def test_employees_slug_that_is_no_company_is_refused(slug, reason):
    with pytest.raises(UsageError, match=f"is not a company slug, id or page URL: {reason}"):
        employees(slug=slug)


def test_company_filters_are_read_by_the_company_rule():
    search(organization_slugs="ACME, linkedin.com/company/hooli")
    # a list arrives as query_value sends it: joined by commas
    check_listing(JOB_CHANGES, {"organization_ids": query_value(["org_1", "acme"]), "limit": 50})
    with pytest.raises(UsageError, match="'x' is not a company"):
        search(organization_slugs="acme,x")
    with pytest.raises(UsageError, match="names no company"):
        check_listing(JOB_CHANGES, {"organization_ids": " , ", "limit": 50})
    check_listing(JOB_CHANGES, {"organization_ids": None})  # not sent: only its name checked


@pytest.mark.parametrize("code", ["DE", "de", " PT "])
def test_country_code_two_letters(code):
    search(geo_country_code=code)
    employees(geo_country_code=code)


@pytest.mark.parametrize("code", ["D", "DEU", "Germany", "D1", "", "DE,FR", "ÄÖ"])
def test_country_code_not_two_letters(code):
    for check in (search, employees):
        with pytest.raises(UsageError, match="two-letter country code"):
            check(geo_country_code=code)


def test_names_are_checked_before_values():
    with pytest.raises(UsageError, match="did you mean 'geo_country_code'"):
        search(title="", limit=0, country="DE")


def test_usage_error_is_a_value_error():
    with pytest.raises(ValueError):
        search(limit=0)


# -- the other list endpoints ------------------------------------------------------------------


def test_companies_search_needs_a_name_or_a_website():
    from lookup_pandas.service.listings import COMPANY_SEARCH

    check_listing(COMPANY_SEARCH, {"name": "acme", "limit": 50})
    check_listing(COMPANY_SEARCH, {"name": None, "website": "acme.example", "limit": 50})
    for params in ({}, {"name": None, "website": None}, {"hq_city": "Berlin"}):
        with pytest.raises(UsageError, match="the companies search needs name or website"):
            check_listing(COMPANY_SEARCH, params)
    with pytest.raises(UsageError, match="website needs at least 3 characters"):
        check_listing(COMPANY_SEARCH, {"website": "ab"})
    with pytest.raises(UsageError, match="did you mean 'hq_country_code'"):
        check_listing(COMPANY_SEARCH, {"name": "acme", "hq_country": "DE"})


def test_job_changes_need_no_parameter_and_check_their_filters():
    from lookup_pandas.service.listings import JOB_CHANGES

    check_listing(JOB_CHANGES, {})
    check_listing(JOB_CHANGES, {"limit": 50, "event_type": "joined", "days_ago": 30})
    with pytest.raises(UsageError, match="did you mean 'event_type'"):
        check_listing(JOB_CHANGES, {"event": "joined"})
    with pytest.raises(UsageError, match="title needs at least 3"):
        check_listing(JOB_CHANGES, {"title": "ct"})


def test_alumni_institutions_and_skills_require_their_name():
    from lookup_pandas.service.listings import ALUMNI, INSTITUTION_SEARCH, SKILL_SEARCH

    check_listing(ALUMNI, {"normalized_name": "mit", "degree": "msc", "sort": "newest"})
    for params in ({}, {"normalized_name": " "}, {"normalized_name": 3}):
        with pytest.raises(UsageError, match="normalized_name must be a non-empty string"):
            check_listing(ALUMNI, params)
    for listing in (INSTITUTION_SEARCH, SKILL_SEARCH):
        check_listing(listing, {"name": "data"})
        with pytest.raises(UsageError, match="name needs at least 3"):
            check_listing(listing, {"name": "da"})
        with pytest.raises(UsageError, match="'page' is not a filter"):
            check_listing(listing, {"name": "data", "page": 2})
