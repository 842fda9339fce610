"""lookup_pandas.testing.lists: people search over the population, each filter a rule of the
record, every one optional; no server (the routes' table is ``tests/integration/emulator``)."""

from __future__ import annotations

import datetime as dt

import pytest

from lookup_pandas.service.listings import SEARCH
from lookup_pandas.testing import catalog, data, lists
from lookup_pandas.testing.careers import today
from lookup_pandas.testing.moves import Moves


def handles(records) -> list[str]:
    return [r["handle"] for r in records]


def test_every_declared_filter_has_a_rule_and_no_other():
    assert set(lists.RULES) == set(SEARCH.filters)


def test_no_filter_is_the_whole_population_and_title_is_one_filter_among_others():
    assert handles(data.search_records()) == handles(data.population())
    assert len(data.search_records()) == data.SEARCH_POPULATION
    headline = data.search(headline="Open to work")
    assert headline and all("open to work" in r["headline"].lower() for r in headline)
    assert data.search(title="designer", headline="Open to work") == [
        r for r in headline if any("designer" in p["title"].lower() for p in r.get("positions", ()))
    ]


def test_skills_match_any_is_the_default():
    either = data.search_records(skills="python,sql")
    assert either is data.search_records(skills="python,sql", skills_match="any")
    both = data.search_records(skills="python,sql", skills_match="all")
    assert 0 < len(both) < len(either)


def test_an_education_level_production_does_not_name_finds_nobody():
    assert data.search(education_level="kindergarten") == []
    levels = {"bachelor": {"BSc", "BA"}, "master": {"MSc", "MBA"}, "doctorate": {"PhD"}}
    for level, degrees in levels.items():
        found = data.search_records(education_level=level.upper())
        assert found and all(degrees & {e["degree"] for e in r["education"]} for r in found)
    both = data.search_records(education_level="bachelor, doctorate")
    assert len(both) > len(data.search_records(education_level="doctorate"))


def test_a_sparse_record_matches_no_filter_it_does_not_show_but_every_exclusion():
    sparse = [r for r in data.population() if data.is_sparse_person(r["handle"])]
    assert sparse
    shown = set(handles(sparse))
    for query in ({"title": "eng"}, {"geo_city": "berlin"}, {"tenure_max_years": 99},
                  {"company_count_max": 9}, {"is_boomerang": False}, {"summary": "works"},
                  {"experience_min_years": 0}, {"last_change_type": "joined"}):  # fmt: skip
        assert not shown & set(handles(data.search_records(**query))), query
    for query in ({"exclude_titles": "engineer"}, {"exclude_organization_slugs": "acme"},
                  {"exclude_industries": "retail"}):  # fmt: skip
        assert shown <= set(handles(data.search_records(**query))), query


def test_current_only_narrows_the_exclusions_to_the_current_position():
    anywhere = data.search_records(exclude_organization_slugs="acme")
    now = data.search_records(exclude_organization_slugs="acme", current_only=True)
    assert set(handles(anywhere)) < set(handles(now))
    for r in now:
        assert not (r.get("positions") and r["positions"][0]["is_current"]
                    and r["positions"][0]["organization"]["slug"] == "acme")  # fmt: skip


def test_languages_are_read_by_name_or_code():
    by_code = data.search_records(speaks_language="ja")
    assert by_code and by_code is data.search_records(speaks_language="ja")
    assert handles(by_code) == handles(data.search_records(speaks_language="JAPANESE"))
    assert handles(data.search_records(primary_language="pt")) == handles(
        data.search_records(primary_language="Portuguese")
    )


def test_a_mover_is_searched_as_they_are_now_with_their_move_as_latest_change():
    world, after = Moves().moved("person-00001", to="globex", title="Chief Data Officer",
                                 on=today())  # fmt: skip
    search = {"moved": world.records, "events": world.events}
    within_a_day = data.search_records(last_change_within_days=1, **search)
    assert handles(within_a_day) == ["person-00001"] and within_a_day[0] is after
    assert data.search_records(last_change_within_days=1) == ()  # nobody else changed jobs
    joined = data.search_records(last_change_type="joined", organization_slugs="globex", **search)
    assert "person-00001" in handles(joined)
    # a Principal Data Engineer before, of no function the titles map now
    assert "person-00001" in handles(data.search_records(function="engineering"))
    assert "person-00001" not in handles(data.search_records(function="engineering", **search))


def test_the_latest_change_is_counted_in_days_from_the_feeds_today():
    first_of_2024 = (catalog.today() - dt.date(2024, 1, 1)).days
    recent = data.search_records(last_change_within_days=first_of_2024)
    assert 0 < len(recent) < data.SEARCH_POPULATION
    wider = data.search_records(last_change_within_days=first_of_2024 + 366)
    assert set(handles(recent)) < set(handles(wider))


@pytest.mark.parametrize(
    ("filters", "message"),
    [
        ({"title": "ab"}, "title must be at least 3 characters"),
        ({"skills_match": "most"}, "skills_match must be one of any, all"),
        ({"is_boomerang": "often"}, "is_boomerang must be true or false"),
        ({"company_size_min": -5}, "company_size_min must be an integer at least 0"),
        ({"last_change_type": "promoted"}, "last_change_type must be one of joined, left"),
    ],
)
def test_the_store_refuses_what_the_route_refuses(filters, message):
    with pytest.raises(ValueError, match=message):
        data.search_records(**filters)
    with pytest.raises(TypeError, match="people search has no filter 'company'"):
        data.search(company="acme")
