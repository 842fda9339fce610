"""lookup_pandas.testing.filters: a filter's value parsed by its declared kind, and the stores'
reading of a whole query; no server."""

from __future__ import annotations

import pytest

from lookup_pandas.service.listings import ALUMNI, EMPLOYEES, SEARCH, Filter
from lookup_pandas.testing.filters import read

YEAR = 2026


def declared(listing, name: str) -> Filter:
    found = listing.filter(name)
    assert found is not None
    return found


@pytest.mark.parametrize(
    ("listing", "name", "value", "expected"),
    [
        (SEARCH, "title", " Engineer ", " Engineer "),  # text: as given
        (SEARCH, "title", "abc", "abc"),
        (SEARCH, "skills", "Python, SQL", "Python, SQL"),  # word: as given
        (SEARCH, "skills", "go", "go"),  # no length rule
        (SEARCH, "geo_country_code", " de ", "de"),
        (SEARCH, "is_creator", "TRUE", True),
        (SEARCH, "is_creator", " false ", False),
        (SEARCH, "is_creator", False, False),
        (SEARCH, "skill_count_min", "0", 0),
        (SEARCH, "skill_count_min", " 12 ", 12),
        (SEARCH, "skill_count_min", 7, 7),
        (SEARCH, "last_change_within_days", "100000", 100000),  # no top
        (SEARCH, "skills_match", " ALL", "all"),
        (SEARCH, "last_change_type", "Title_Change", "title_change"),
        (EMPLOYEES, "start_year", "1900", 1900),
        (EMPLOYEES, "start_year", str(YEAR), YEAR),  # this year: the top
        (EMPLOYEES, "start_month", "12", 12),
        (ALUMNI, "end_year_max", str(YEAR + 10), YEAR + 10),  # this year + 10
    ],
)
def test_a_value_production_takes_is_parsed_by_its_kind(listing, name, value, expected):
    assert declared(listing, name).parse(value, YEAR) == expected


@pytest.mark.parametrize(
    ("listing", "name", "value", "reason"),
    [
        (SEARCH, "title", "ab", "must be at least 3 characters"),
        (SEARCH, "title", "  ab  ", "must be at least 3 characters"),
        (SEARCH, "geo_country_code", "DEU", "must be a two-letter country code"),
        (SEARCH, "geo_country_code", "D1", "must be a two-letter country code"),
        (SEARCH, "geo_country_code", "ÄÖ", "must be a two-letter country code"),
        (SEARCH, "is_creator", "yes", "must be true or false"),
        (SEARCH, "is_creator", 1, "must be true or false"),
        (SEARCH, "skill_count_min", "-1", "must be an integer at least 0"),
        (SEARCH, "skill_count_min", "2.5", "must be an integer at least 0"),
        (SEARCH, "skill_count_min", 2.0, "must be an integer at least 0"),
        (SEARCH, "skill_count_min", True, "must be an integer at least 0"),
        (SEARCH, "skill_count_min", "many", "must be an integer at least 0"),
        (SEARCH, "last_change_within_days", "0", "must be an integer at least 1"),
        (SEARCH, "skills_match", "most", "must be one of any, all"),
        (EMPLOYEES, "start_year", "1899", "must be an integer between 1900 and 2026"),
        (EMPLOYEES, "start_year", str(YEAR + 1), "must be an integer between 1900 and 2026"),
        (EMPLOYEES, "start_month", "13", "must be an integer between 1 and 12"),
        (EMPLOYEES, "sort", "alphabetical", "must be one of newest, oldest, recently_left"),
        (ALUMNI, "end_year_max", str(YEAR + 11), "must be an integer between 1900 and 2036"),
    ],
)
def test_a_value_production_refuses_is_a_value_error_with_the_reason(listing, name, value, reason):
    with pytest.raises(ValueError) as info:
        declared(listing, name).parse(value, YEAR)
    assert str(info.value) == reason


def test_every_declared_kind_is_parsed():
    kinds = {f.kind for listing in (SEARCH, EMPLOYEES, ALUMNI) for f in listing.params}
    assert kinds == {"text", "word", "code", "bool", "int", "year", "choice"}


def test_a_store_reads_a_query_in_lower_case_words_and_typed_values():
    got = read(
        {"title": " Data Engineer ", "skills": ["SQL", " ", "Python"], "geo_country_code": "DE",
         "is_creator": "TRUE", "skill_count_min": "2", "last_change_type": "Joined",
         "organization_slugs": "acme, HOOLI,", "degree": " ", "headline": None},
        SEARCH,
        YEAR,
    )  # fmt: skip
    assert got == {
        "title": "data engineer",
        "skills": ("sql", "python"),
        "geo_country_code": "de",
        "is_creator": True,
        "skill_count_min": 2,
        "last_change_type": "joined",
        "organization_slugs": ("acme", "hooli"),
    }
    assert read({"skills": [" ", ""]}, SEARCH, YEAR) == {}  # no word at all: not given


def test_a_store_refuses_a_bad_value_naming_the_filter_and_an_unknown_name():
    with pytest.raises(ValueError, match="^tenure_min_years must be an integer at least 0$"):
        read({"tenure_min_years": "-3"}, SEARCH, YEAR)
    with pytest.raises(TypeError, match="people search has no filter 'country'"):
        read({"country": "DE"}, SEARCH, YEAR)
