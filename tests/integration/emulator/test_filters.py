"""Every declared filter of the emulator's list endpoints, over loopback: each one filters, every
record it answers satisfies the filter's rule, and a value production refuses is a 400 naming it.

The tables cover every filter each listing declares (``lookup_pandas.service.endpoints``; a test
asserts it), so a filter declared tomorrow fails here until it is given a row. The rules are
restated here from the records, apart from the emulator's code; only the job-change dates come
from :func:`lookup_pandas.testing.careers.changes`, which ``tests/unit/testing/test_careers.py``
holds to the job-change feed.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from lookup_pandas.service.listings import (
    ALUMNI,
    COMPANY_SEARCH,
    EMPLOYEES,
    INSTITUTION_SEARCH,
    JOB_CHANGES,
    SEARCH,
    SKILL_SEARCH,
    Filter,
)
from lookup_pandas.testing import catalog, data
from lookup_pandas.testing import company_records as companies
from lookup_pandas.testing.careers import changes

from .conftest import Api

Record = dict[str, Any]
#: The month the records are dated from (June 2024), as year * 12 + month - 1.
REFERENCE = 2024 * 12 + 5
TODAY = catalog.today()
#: Days from the feed's today back to the start of 2024: a window holding the population's
#: latest job changes of 2024, and none before.
SINCE_2024 = (TODAY - dt.date(2024, 1, 1)).days


@dataclass(frozen=True)
class Row:
    """A good value of filter ``name``, what every answer to it satisfies (``holds``, read on
    the whole answer), and the query it narrows (``base``; None: the listing's)."""

    name: str
    value: Any
    holds: Callable[[list[Record]], bool]
    base: Mapping[str, Any] | None = field(default=None)


def each(test: Callable[[Record], bool]) -> Callable[[list[Record]], bool]:
    return lambda records: all(test(r) for r in records)


# -- what a record shows ---------------------------------------------------------------------


def positions(r: Record) -> list[Record]:
    return r.get("positions", [])


def current(r: Record) -> Record | None:
    now = positions(r)[:1]
    return now[0] if now and now[0]["is_current"] else None


def month(date: Mapping[str, int]) -> int:
    return date["year"] * 12 + date["month"] - 1


def tenure(r: Record) -> int | None:
    now = current(r)
    return None if now is None else (REFERENCE - month(now["start_date"])) // 12


def slugs(r: Record) -> list[str]:
    return [p["organization"]["slug"] for p in positions(r)]


def current_company(r: Record) -> Record | None:
    now = current(r)
    return None if now is None else companies.company(now["organization"]["slug"])


def went_back(r: Record) -> bool:
    """An organization, another one later, then the first again (positions are newest first)."""
    seq = slugs(r)
    return any(
        seq[i] == seq[k] != seq[j]
        for i in range(len(seq))
        for j in range(i + 1, len(seq))
        for k in range(j + 1, len(seq))
    )


def engineering_years(r: Record) -> int:
    months = 0
    for p in positions(r):
        if "engineer" in p["title"].lower() or p["title"] == "CTO":
            end = REFERENCE if p["end_date"] is None else min(REFERENCE, month(p["end_date"]))
            months += end - month(p["start_date"])
    return months // 12


def latest_change(r: Record) -> tuple[str, dt.date]:
    latest = max(changes(r), key=lambda c: (c.when, c.id))
    return latest.kind, latest.when


def texts(r: Record, name: str) -> list[str]:
    return [str(x[name]).lower() for x in r.get("education", [])]


def at(r: Record, slug: str) -> Record | None:
    return next((p for p in positions(r) if p["organization"]["slug"] == slug), None)


ACME_INDUSTRY = companies.company("acme")["industry"]
MIT = catalog.institution("mit")["id"]
ACME_ID = companies.company("acme")["id"]
ALL_COMPANIES = companies.search_companies(website="example")
FOUNDED = ALL_COMPANIES[0]["founded"]
INDUSTRY = ALL_COMPANIES[0]["industry"]
ACME_START = at(data.employees("acme")[0], "acme")["start_date"]


# -- the tables: one row per declared filter ---------------------------------------------------

BASES: dict[str, dict[str, Any]] = {
    SEARCH.name: {"geo_country_code": "DE"},
    EMPLOYEES.name: {"slug": "acme", "current_only": "false"},
    COMPANY_SEARCH.name: {"website": "example"},  # every company's domain holds it
    ALUMNI.name: {"normalized_name": "mit"},
    JOB_CHANGES.name: {"days_ago": 30},
}
DESIGNERS = {"title": "designer"}

ROWS: dict[str, list[Row]] = {
    SEARCH.name: [
        Row(
            "title",
            "ENGINEER",
            each(lambda r: any("engineer" in p["title"].lower() for p in positions(r))),
        ),  # fmt: skip
        Row("first_name", "ada", each(lambda r: "ada" in r["first_name"].lower())),
        Row("last_name", "VAN", each(lambda r: "van" in r["last_name"].lower())),
        Row("headline", "at acme", each(lambda r: "at acme" in r["headline"].lower())),
        Row("summary", "pandas", each(lambda r: "pandas" in r.get("summary", "").lower())),
        Row("geo_city", "berlin", each(lambda r: r["geo"]["city"] == "Berlin"), DESIGNERS),
        Row("geo_country_code", "de", each(lambda r: r["geo"]["country_code"] == "DE"), DESIGNERS),
        Row(
            "primary_language",
            "German",
            each(lambda r: r["primary_locale"]["language"] == "de"),
            DESIGNERS,
        ),  # fmt: skip
        Row(
            "organization_slugs",
            "acme, HOOLI",
            each(lambda r: bool({"acme", "hooli"} & set(slugs(r)))),
        ),  # fmt: skip
        Row(
            "institution_ids",
            MIT,
            each(lambda r: "mit" in [e["school"]["slug"] for e in r["education"]]),
        ),  # fmt: skip
        Row(
            "certifications",
            "aws certified solutions architect",
            each(
                lambda r: (
                    "AWS Certified Solutions Architect" in [c["name"] for c in r["certifications"]]
                )
            ),
        ),  # fmt: skip
        Row(
            "certification_authority",
            "GOOGLE",
            each(lambda r: "Google" in [c["authority"] for c in r["certifications"]]),
        ),  # fmt: skip
        Row(
            "speaks_language",
            "fr",
            each(lambda r: "French" in [lang["name"] for lang in r["languages"]]),
        ),  # fmt: skip
        Row("skills", "python", each(lambda r: "python" in r["skills"])),
        Row(
            "skills_match",
            "all",
            each(lambda r: {"python", "sql"} <= set(r["skills"])),
            {**BASES[SEARCH.name], "skills": "python,sql"},
        ),  # fmt: skip
        Row("education_level", "doctorate", each(lambda r: "phd" in texts(r, "degree"))),
        Row("degree", "msc", each(lambda r: any("msc" in d for d in texts(r, "degree")))),
        Row(
            "field_of_study",
            "physics",
            each(lambda r: any("physics" in f for f in texts(r, "field_of_study"))),
        ),  # fmt: skip
        Row(
            "industry",
            ACME_INDUSTRY.upper(),
            each(lambda r: (current_company(r) or {}).get("industry") == ACME_INDUSTRY),
        ),  # fmt: skip
        Row(
            "function", "design", each(lambda r: "Designer" in (current(r) or {}).get("title", ""))
        ),
        Row(
            "description",
            "pandas",
            each(
                lambda r: any(
                    "pandas" in t.lower()
                    for t in [r["headline"], r.get("summary", "")]
                    + [p["description"] for p in r["projects"]]
                )
            ),
        ),  # fmt: skip
        Row(
            "exclude_titles",
            "engineer,manager",
            each(
                lambda r: (
                    not any(
                        w in p["title"].lower()
                        for p in positions(r)
                        for w in ("engineer", "manager")
                    )
                )
            ),
        ),  # fmt: skip
        Row("exclude_organization_slugs", "acme", each(lambda r: "acme" not in slugs(r))),
        Row(
            "exclude_industries",
            ACME_INDUSTRY,
            each(lambda r: (current_company(r) or {}).get("industry") != ACME_INDUSTRY),
        ),  # fmt: skip
        Row("is_creator", "true", each(lambda r: r["is_creator"] is True)),
        Row("is_premium", "False", each(lambda r: r["is_premium"] is False)),
        Row(
            "current_only",
            "true",
            each(lambda r: "designer" in (current(r) or {"title": ""})["title"].lower()),
            DESIGNERS,
        ),  # fmt: skip
        Row("is_boomerang", "true", each(went_back)),
        Row("skill_count_min", 5, each(lambda r: len(r["skills"]) >= 5)),
        Row("skill_count_max", 3, each(lambda r: len(r["skills"]) <= 3)),
        Row("tenure_min_years", 3, each(lambda r: (tenure(r) or 0) >= 3)),
        Row("tenure_max_years", 1, each(lambda r: tenure(r) is not None and tenure(r) <= 1)),
        Row("company_count_min", 3, each(lambda r: len(set(slugs(r))) >= 3)),
        Row("company_count_max", 1, each(lambda r: positions(r) and len(set(slugs(r))) <= 1)),
        Row("current_company_count_min", 1, each(lambda r: current(r) is not None)),
        Row("follower_count_min", 2000, each(lambda r: r["follower_count"] >= 2000)),
        Row(
            "company_size_min",
            200,
            each(lambda r: (current_company(r) or {}).get("employee_count", 0) >= 200),
        ),  # fmt: skip
        Row(
            "company_size_max",
            100,
            each(lambda r: (current_company(r) or {}).get("employee_count", 101) <= 100),
        ),  # fmt: skip
        Row(
            "experience_min_years",
            8,
            each(
                lambda r: (
                    positions(r)
                    and (REFERENCE - min(month(p["start_date"]) for p in positions(r))) // 12 >= 8
                )
            ),
        ),  # fmt: skip
        Row(
            "function_min_years",
            3,
            each(lambda r: engineering_years(r) >= 3),
            {**BASES[SEARCH.name], "function": "engineering"},
        ),  # fmt: skip
        Row(
            "last_change_within_days",
            SINCE_2024,
            each(lambda r: latest_change(r)[1] >= dt.date(2024, 1, 1)),
        ),  # fmt: skip
        Row("last_change_type", "LEFT", each(lambda r: latest_change(r)[0] == "left")),
    ],
    EMPLOYEES.name: [
        Row(
            "current_only",
            "false",  # the default is true: former employees join
            lambda rs: any(p and not p["is_current"] for p in (at(r, "acme") for r in rs)),
            {"slug": "acme"},
        ),  # fmt: skip
        Row("title", "engineer", each(lambda r: "engineer" in at(r, "acme")["title"].lower())),
        Row("geo_country_code", "DE", each(lambda r: r["geo"]["country_code"] == "DE")),
        Row("geo_city", "tokyo", each(lambda r: r["geo"]["city"] == "Tokyo")),
        Row(
            "start_year",
            ACME_START["year"],
            each(lambda r: at(r, "acme")["start_date"]["year"] == ACME_START["year"]),
        ),  # fmt: skip
        Row(
            "start_month",
            ACME_START["month"],
            each(lambda r: at(r, "acme")["start_date"]["month"] == ACME_START["month"]),
        ),  # fmt: skip
        Row(
            "sort",
            "Newest",
            lambda rs: (
                (starts := [month(at(r, "acme")["start_date"]) for r in rs if at(r, "acme")])
                == sorted(starts, reverse=True)
            ),
        ),  # fmt: skip
    ],
    COMPANY_SEARCH.name: [
        Row("name", "labs", each(lambda c: "labs" in c["name"].lower() or "labs" in c["slug"])),
        Row(
            "website",
            "https://www.blue-labs.example/about",
            each(lambda c: c["slug"] == "blue-labs"),
            {"name": "labs"},
        ),  # fmt: skip
        Row("staff_count_min", 150, each(lambda c: c["employee_count"] >= 150)),
        Row("staff_count_max", 100, each(lambda c: c["employee_count"] <= 100)),
        Row("follower_count_min", 10_000, each(lambda c: c["follower_count"] >= 10_000)),
        Row("follower_count_max", 5_000, each(lambda c: c["follower_count"] <= 5_000)),
        Row("industries", INDUSTRY.lower(), each(lambda c: c["industry"] == INDUSTRY)),
        Row(
            "industries_v2", f"{INDUSTRY},Nothing Such", each(lambda c: c["industry"] == INDUSTRY)
        ),  # fmt: skip
        Row("hq_city", "BERLIN", each(lambda c: c["hq"]["city"] == "Berlin")),
        Row("hq_country_code", "de", each(lambda c: c["hq"]["country_code"] == "DE")),
        Row("founded", FOUNDED, each(lambda c: c["founded"] == FOUNDED)),
    ],
    ALUMNI.name: [
        Row("current_only", "true", each(lambda r: r["education"]["end_year"] > 2024)),
        Row("degree", "msc", each(lambda r: r["education"]["degree"] == "MSc")),
        Row(
            "field_of_study",
            "STATISTICS",
            each(lambda r: r["education"]["field_of_study"] == "Statistics"),
        ),  # fmt: skip
        Row("geo_city", "berlin", each(lambda r: r["geo"]["city"] == "Berlin")),
        Row("geo_country_code", "DE", each(lambda r: r["geo"]["country_code"] == "DE")),
        Row("start_year_min", 2010, each(lambda r: r["education"]["start_year"] >= 2010)),
        Row("start_year_max", 2005, each(lambda r: r["education"]["start_year"] <= 2005)),
        Row("end_year_min", 2015, each(lambda r: r["education"]["end_year"] >= 2015)),
        Row("end_year_max", 2010, each(lambda r: r["education"]["end_year"] <= 2010)),
        Row(
            "sort",
            "recently_graduated",
            lambda rs: (
                (ends := [r["education"]["end_year"] for r in rs]) == sorted(ends, reverse=True)
            ),
        ),  # fmt: skip
    ],
    JOB_CHANGES.name: [
        Row("event_type", "Left", each(lambda e: e["event_type"] == "left")),
        Row("organization_ids", ACME_ID, each(lambda e: e["organization"]["slug"] == "acme")),
        Row("geo_city", "berlin", each(lambda e: e["geo"]["city"] == "Berlin")),
        Row("geo_country_code", "de", each(lambda e: e["geo"]["country_code"] == "DE")),
        Row("title", "ENGINEER", each(lambda e: "engineer" in e["title"].lower())),
        Row(
            "days_ago",
            7,
            each(lambda e: e["detected_at"] >= (TODAY - dt.timedelta(days=7)).isoformat()),
            {"organization_ids": ACME_ID},
        ),  # fmt: skip
    ],
}
LISTINGS = {listing.name: listing for listing in (SEARCH, EMPLOYEES, COMPANY_SEARCH, ALUMNI,
                                                    JOB_CHANGES)}  # fmt: skip
CASES = [(name, row) for name, rows in ROWS.items() for row in rows]


# -- over loopback -----------------------------------------------------------------------------


#: Unfiltered answers, by (path, query): the emulator's answers are deterministic, so each is
#: read once for the rows that narrow it.
_UNFILTERED: dict[tuple[str, tuple[tuple[str, str], ...]], list[Record]] = {}


def unfiltered(api: Api, path: str, base: Mapping[str, Any]) -> list[Record]:
    key = (path, tuple(sorted((k, str(v)) for k, v in base.items())))
    if key not in _UNFILTERED:
        _UNFILTERED[key] = api.walk(path, **base)
    return _UNFILTERED[key]


@pytest.mark.parametrize("listing", LISTINGS.values(), ids=lambda listing: listing.name)
def test_the_table_covers_every_declared_filter(listing):
    names = [row.name for row in ROWS[listing.name]]
    assert len(names) == len(set(names)) and set(names) == set(listing.filters)


@pytest.mark.parametrize(("name", "row"), CASES, ids=[f"{n}:{row.name}" for n, row in CASES])
def test_each_filter_narrows_the_answer_and_every_record_satisfies_it(api, name, row):
    listing = LISTINGS[name]
    base = dict(BASES[name] if row.base is None else row.base)
    assert row.name not in base
    before = unfiltered(api, listing.path, base)
    after = api.walk(listing.path, **base, **{row.name: row.value})
    assert after, f"{row.name}={row.value!r} found nothing"
    assert after != before, f"{row.name}={row.value!r} changed nothing"
    assert row.holds(after)
    assert not row.holds(before)  # the rule is one the unfiltered answer breaks


# -- what production refuses ---------------------------------------------------------------------

#: A query each listing answers, which a bad value then spoils.
VALID: dict[str, dict[str, Any]] = {
    SEARCH.name: {},
    EMPLOYEES.name: {"slug": "acme"},
    COMPANY_SEARCH.name: {"name": "labs"},
    ALUMNI.name: {"normalized_name": "mit"},
    JOB_CHANGES.name: {},
    INSTITUTION_SEARCH.name: {"name": "univ"},
    SKILL_SEARCH.name: {"name": "data"},
}
EVERY = {listing.name: listing for listing in (*LISTINGS.values(), INSTITUTION_SEARCH,
                                                 SKILL_SEARCH)}  # fmt: skip


def refused(declared: Filter) -> list[tuple[Any, str]]:
    """Values production refuses for ``declared`` and the reason the emulator gives."""
    low, high = declared.bounds(TODAY.year)
    span = f"between {low} and {high}" if high is not None else f"at least {low}"
    if declared.kind == "text":
        return [("ab", "must be at least 3 characters"), (" a  ", "must be at least 3 characters")]
    if declared.kind == "code":
        return [(v, "must be a two-letter country code") for v in ("DEU", "D1", "D")]
    if declared.kind == "bool":
        return [(v, "must be true or false") for v in ("maybe", "1", "yes")]
    if declared.kind == "choice":
        return [("nope", "must be one of " + ", ".join(declared.choices))]
    if declared.kind in ("int", "year"):
        values: list[Any] = ["soon", "2.5", (low or 0) - 1] + (
            [high + 1] if high is not None else []
        )
        return [(v, f"must be an integer {span}") for v in values]
    return []  # a keyword: anything not blank is taken (blank is not given)


BAD = [
    (name, f.name, value, reason)
    for name, listing in EVERY.items()
    for f in listing.params
    for value, reason in refused(f)
]


def test_every_typed_kind_has_bad_values():
    kinds = {f.kind for listing in EVERY.values() for f in listing.params}
    assert kinds == {"text", "word", "code", "bool", "int", "year", "choice"}
    typed = {
        (n, f.name) for n, listing in EVERY.items() for f in listing.params if f.kind != "word"
    }
    assert {(n, f) for n, f, _, _ in BAD} == typed


@pytest.mark.parametrize(("name", "filter_name", "value", "reason"), BAD,
                         ids=[f"{n}:{f}={v!r}" for n, f, v, _ in BAD])  # fmt: skip
def test_a_value_production_refuses_is_a_400_naming_the_filter(
    api, fake_service, name, filter_name, value, reason
):
    listing = EVERY[name]
    reply = api.get(listing.path, **{**VALID[name], filter_name: value})
    body = reply.json()
    assert reply.status_code == 400, body
    assert body["error_code"] == "VALIDATION_ERROR"
    assert body["errors"] == {filter_name: reason}
    assert fake_service.billed() == 0


NUMBERS = [
    (name, f)
    for name, listing in EVERY.items()
    for f in listing.params
    if f.kind in ("int", "year")
]


@pytest.mark.parametrize(("name", "declared"), NUMBERS,
                         ids=[f"{n}:{f.name}" for n, f in NUMBERS])  # fmt: skip
def test_a_number_at_its_bounds_is_taken(api, name, declared):
    """Production's bounds, inclusive: a year's top is this UTC year plus the declared years
    (employees' ``start_year`` 1900 to this year; alumni's years 1900 to this year + 10)."""
    low, high = declared.bounds(TODAY.year)
    for value in (low, high) if high is not None else (low, (low or 0) + 10_000):
        reply = api.get(EVERY[name].path, **{**VALID[name], declared.name: value})
        assert reply.status_code == 200, (declared.name, value, reply.text)
    if declared.kind == "year":
        assert high == TODAY.year + (declared.high or 0)


RANGES = [(name, low, high) for name, listing in EVERY.items() for low, high in listing.ranges]


def test_every_range_is_checked():
    assert {low for _, low, _ in RANGES} >= {
        "skill_count_min", "tenure_min_years", "company_count_min", "company_size_min",
        "staff_count_min", "follower_count_min", "start_year_min", "end_year_min",
    }  # fmt: skip


@pytest.mark.parametrize(("name", "low", "high"), RANGES, ids=[f"{n}:{lo}" for n, lo, _ in RANGES])
def test_a_lowest_above_its_highest_is_a_400_naming_the_highest(api, name, low, high):
    path, valid = EVERY[name].path, VALID[name]
    equal = api.get(path, **valid, **{low: 2001, high: 2001})
    assert equal.status_code == 200, equal.text
    reply = api.get(path, **valid, **{low: 2001, high: 2000})
    assert reply.status_code == 400
    assert reply.json()["errors"] == {high: f"must be at least {low}"}


def test_a_blank_filter_is_not_given_and_an_unknown_one_is_ignored(api):
    plain = api.get(SEARCH.path, geo_country_code="PT", limit=50).json()
    for extra in ({"title": "  "}, {"degree": ""}, {"is_creator": " "}, {"seniority": "senior"}):
        again = api.get(SEARCH.path, geo_country_code="PT", limit=50, **extra).json()
        assert again["data"] == plain["data"], extra


def test_an_education_level_production_does_not_name_finds_nobody(api):
    """Production documents no education levels: an unknown one is no error, it matches no one."""
    reply = api.get(SEARCH.path, education_level="kindergarten")
    assert reply.status_code == 200 and reply.json()["data"] == []


# -- people who moved ----------------------------------------------------------------------------


def test_a_mover_is_found_by_their_latest_change_dated_today(api, fake_service):
    """The population's own changes are all dated before mid-2024: within a day, only a
    person who moved while the emulator runs has changed jobs, their move the latest."""
    assert api.walk(SEARCH.path, last_change_within_days=1) == []
    moved = fake_service.move("person-00001", to="globex", title="Chief Data Officer")
    found = api.walk(SEARCH.path, last_change_within_days=1)
    assert [r["handle"] for r in found] == ["person-00001"] and found[0] == moved
    assert api.walk(SEARCH.path, last_change_within_days=1, last_change_type="joined") == found
    assert api.walk(SEARCH.path, last_change_within_days=1, last_change_type="left") == []
    assert moved in api.walk(SEARCH.path, organization_slugs="globex", tenure_max_years=0)
