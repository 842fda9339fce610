"""lookup_pandas.testing.replies.parse_query: a list route's one parse of its query, read from the
endpoint's declaration; no server."""

from __future__ import annotations

import datetime as dt

import pytest

from lookup_pandas.service.listings import ALUMNI, COMPANY_SEARCH, EMPLOYEES, SEARCH, Listing
from lookup_pandas.testing.replies import BadRequest, Request, parse_query


def query(listing: Listing, year: int | None = None, **params: str):
    return parse_query(Request("GET", listing.path, tuple(params.items()), {}), listing, year=year)


def refusal(listing: Listing, year: int | None = None, **params: str) -> dict[str, str]:
    with pytest.raises(BadRequest) as info:
        query(listing, year, **params)
    return info.value.errors


def test_the_declared_filters_given_are_parsed_and_the_rest_ignored():
    got = query(
        SEARCH,
        title="engineer",
        is_premium="False",
        tenure_max_years="4",
        last_change_type="LEFT",
        skills="python,sql",
        headline="  ",  # blank: not given
        country="DE",  # no such filter: ignored, as production ignores it
        limit="20",  # paging is not a filter
    )
    assert got == {
        "title": "engineer",
        "is_premium": False,
        "tenure_max_years": 4,
        "last_change_type": "left",
        "skills": "python,sql",
    }
    assert query(SEARCH) == {}  # no filter at all is a query too


def test_the_first_refused_filter_is_named_with_its_reason():
    assert refusal(SEARCH, first_name="Al") == {"first_name": "must be at least 3 characters"}
    assert refusal(SEARCH, is_boomerang="sometimes") == {"is_boomerang": "must be true or false"}
    assert refusal(EMPLOYEES, geo_country_code="Germany") == {
        "geo_country_code": "must be a two-letter country code"
    }
    assert refusal(COMPANY_SEARCH, name="labs", founded="1799") == {
        "founded": f"must be an integer between 1800 and {dt.datetime.now(dt.UTC).year}"
    }


def test_a_years_top_is_this_utc_year_plus_the_declared_years():
    this_year = dt.datetime.now(dt.UTC).year
    assert query(EMPLOYEES, start_year=str(this_year)) == {"start_year": this_year}
    assert refusal(EMPLOYEES, start_year=str(this_year + 1)) == {
        "start_year": f"must be an integer between 1900 and {this_year}"
    }
    assert query(ALUMNI, end_year_max=str(this_year + 10)) == {"end_year_max": this_year + 10}
    assert set(refusal(ALUMNI, end_year_max=str(this_year + 11))) == {"end_year_max"}
    assert query(ALUMNI, 2030, start_year_min="2040") == {"start_year_min": 2040}


@pytest.mark.parametrize(("listing", "low", "high"), [
    (SEARCH, "skill_count_min", "skill_count_max"),
    (SEARCH, "tenure_min_years", "tenure_max_years"),
    (SEARCH, "company_count_min", "company_count_max"),
    (SEARCH, "company_size_min", "company_size_max"),
    (COMPANY_SEARCH, "staff_count_min", "staff_count_max"),
    (COMPANY_SEARCH, "follower_count_min", "follower_count_max"),
    (ALUMNI, "start_year_min", "start_year_max"),
    (ALUMNI, "end_year_min", "end_year_max"),
])  # fmt: skip
def test_a_lowest_above_its_highest_is_refused_naming_the_highest(listing, low, high):
    assert (low, high) in listing.ranges
    assert query(listing, **{low: "2000", high: "2000"}) == {low: 2000, high: 2000}
    assert query(listing, **{low: "2001"}) == {low: 2001}  # one side alone: no pair to compare
    assert refusal(listing, **{low: "2001", high: "2000"}) == {high: f"must be at least {low}"}
