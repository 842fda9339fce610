"""Every filter the SDK declares (its ``types.params`` TypedDicts, paging keys aside) is taken by
the emulator with a good value of its type: no 400, and the request carried it; a bad value is
the SDK's ``InvalidRequestError`` whose ``field_errors`` name the filter.

The values below cover each TypedDict exactly (``test_every_sdk_filter_has_a_good_value``): a
filter a new SDK adds fails that test until it is given a value here.
"""

from __future__ import annotations

from typing import get_type_hints

import pytest
import renidly
from renidly.types.params import (
    CompaniesEmployeesParams,
    CompaniesSearchParams,
    InstitutionsAlumniParams,
    JobChangesSearchParams,
    PeopleSearchParams,
)

from lookup_pandas.service.endpoints import ENDPOINTS
from lookup_pandas.testing import catalog, names

PAGING = {"cursor", "limit", "page"}

PEOPLE = {
    "first_name": "Ada",
    "last_name": "Lovelace",
    "headline": "engineer",
    "summary": "python",
    "geo_city": "Berlin",
    "geo_country_code": "DE",
    "is_creator": True,
    "is_premium": True,
    "primary_language": "en",
    "skills": "python,sql",
    "skills_match": "any",
    "organization_slugs": "acme,globex",
    "current_only": True,
    "title": "engineer",
    "institution_ids": catalog.institution("mit")["id"],
    "certifications": "Professional Scrum Master I",
    "certification_authority": "Scrum.org",
    "last_change_within_days": 90,
    "last_change_type": "joined",
    "tenure_min_years": 1,
    "tenure_max_years": 10,
    "company_count_min": 1,
    "company_count_max": 5,
    "current_company_count_min": 1,
    "is_boomerang": True,
    "education_level": "master",
    "degree": "MSc",
    "field_of_study": "Computer Science",
    "skill_count_min": 1,
    "skill_count_max": 20,
    "speaks_language": "en",
    "follower_count_min": 100,
    "company_size_min": 10,
    "company_size_max": 5000,
    "industry": "Software Development",
    "experience_min_years": 2,
    "function": "Engineering",
    "function_min_years": 1,
    "description": "data platform",
    "exclude_titles": "intern",
    "exclude_organization_slugs": "initech",
    "exclude_industries": "Gambling",
}
COMPANIES = {
    "name": "acme",
    "website": "acme.example",
    "staff_count_min": 10,
    "staff_count_max": 5000,
    "follower_count_min": 100,
    "follower_count_max": 100_000,
    "industries": "IT Services and IT Consulting",
    "industries_v2": "software-development",
    "hq_city": "Berlin",
    "hq_country_code": "DE",
    "founded": 2011,
}
EMPLOYEES = {
    "current_only": True,
    "title": "engineer",
    "geo_country_code": "DE",
    "geo_city": "Berlin",
    "start_year": 2020,
    "start_month": 6,
    "sort": "newest",
}
ALUMNI = {
    "current_only": True,
    "degree": "MSc",
    "field_of_study": "Computer Science",
    "start_year_min": 2000,
    "start_year_max": 2020,
    "end_year_min": 2004,
    "end_year_max": 2024,
    "geo_country_code": "DE",
    "geo_city": "Berlin",
    "sort": "newest",
}
JOB_CHANGES = {
    "event_type": "joined",
    "organization_ids": names.org_id("acme"),
    "geo_city": "Berlin",
    "geo_country_code": "DE",
    "title": "engineer",
    "days_ago": 30,
}

#: SDK method -> (its TypedDict, the endpoint, the good values, a call taking the filters).
#: People search adds a headline (a lone flag such as ``current_only`` only scopes other
#: filters); companies search needs ``name`` or ``website``.
LISTS = {
    "people.search": (
        PeopleSearchParams,
        "people_search",
        PEOPLE,
        lambda r, **kw: r.data.people.search(**{"headline": "engineer", **kw}),
    ),
    "companies.search": (
        CompaniesSearchParams,
        "companies_search",
        COMPANIES,
        lambda r, **kw: r.data.companies.search(**{"name": "acme", **kw}),
    ),
    "companies.employees": (
        CompaniesEmployeesParams,
        "employees",
        EMPLOYEES,
        lambda r, **kw: r.data.companies.employees("acme", **kw),
    ),
    "institutions.alumni": (
        InstitutionsAlumniParams,
        "alumni",
        ALUMNI,
        lambda r, **kw: r.data.institutions.alumni("mit", **kw),
    ),
    "job_changes.search": (
        JobChangesSearchParams,
        "job_changes",
        JOB_CHANGES,
        lambda r, **kw: r.data.job_changes.search(**kw),
    ),
}


def wire(value: object) -> str:
    """A value as the SDK's httpx writes it in the query."""
    return str(value).lower() if isinstance(value, bool) else str(value)


@pytest.mark.parametrize("method", LISTS)
def test_every_sdk_filter_has_a_good_value(method):
    params, _, values, _ = LISTS[method]
    hints = get_type_hints(params)
    assert set(values) == set(hints) - PAGING
    assert {k: type(v) for k, v in values.items()} == {k: hints[k] for k in values}


@pytest.mark.parametrize(
    "method, name", [(m, name) for m, spec in LISTS.items() for name in spec[2]]
)
def test_each_filter_is_taken(sdk, fake_service, method, name):
    _, endpoint, values, call = LISTS[method]
    page = call(sdk, **{name: values[name]})
    assert page.meta.status_code == 200
    asked = {name: wire(values[name])}
    assert fake_service.count(ENDPOINTS[endpoint].path, status=200, **asked) == 1


@pytest.mark.parametrize("method", LISTS)
def test_all_filters_at_once(sdk, fake_service, method):
    _, endpoint, values, call = LISTS[method]
    assert call(sdk, **values).meta.status_code == 200
    assert fake_service.count(ENDPOINTS[endpoint].path, status=200) == 1


BAD = [
    ("people.search", "is_creator", "maybe"),
    ("people.search", "skill_count_min", -1),
    ("people.search", "skill_count_min", "ten"),
    ("people.search", "last_change_type", "moved"),
    ("people.search", "skills_match", "some"),
    ("companies.search", "staff_count_min", -5),
    ("companies.search", "founded", "long ago"),
    ("companies.employees", "sort", "alphabetical"),
    ("companies.employees", "start_month", 13),
    ("institutions.alumni", "end_year_max", 1800),
    ("job_changes.search", "days_ago", 0),
    ("job_changes.search", "event_type", "promoted"),
]


@pytest.mark.parametrize("method, name, value", BAD)
def test_a_bad_value_is_an_invalid_request_naming_it(sdk, fake_service, method, name, value):
    call = LISTS[method][3]
    with pytest.raises(renidly.InvalidRequestError) as caught:
        call(sdk, **{name: value})
    assert caught.value.status_code == 400 and name in caught.value.field_errors
    assert fake_service.billed() == 0
