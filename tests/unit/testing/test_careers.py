"""lookup_pandas.testing.careers: what a record shows of a career (tenure, companies, function, the
latest job change), dated as the job-change feed dates the population's events; no server."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from typing import Any

import pytest

from lookup_pandas.testing import catalog, data
from lookup_pandas.testing import company_records as companies
from lookup_pandas.testing.careers import Career, changes, function_of
from lookup_pandas.testing.moves import Moves
from lookup_pandas.testing.vocab import FUNCTIONS, REFERENCE_DATE, SENIORITY, TITLES

ON = dt.date(2026, 11, 27)


def position(slug: str, start: tuple[int, int], end: tuple[int, int] | None = None,
             title: str = "Software Engineer") -> dict[str, Any]:  # fmt: skip
    return {
        "title": title,
        "organization": {"id": f"org_{slug}", "name": slug.title(), "slug": slug, "url": ""},
        "start_date": {"year": start[0], "month": start[1]},
        "end_date": None if end is None else {"year": end[0], "month": end[1]},
        "is_current": end is None,
    }


def career(*positions: dict[str, Any], **fields: Any) -> Career:
    return Career({"handle": "someone", "positions": list(positions), **fields})


def test_every_title_has_a_function_whatever_its_seniority():
    assert set(FUNCTIONS) == set(TITLES)
    for title in TITLES:
        for seniority in SENIORITY:
            assert function_of(seniority + title) == FUNCTIONS[title]
    assert function_of("Senior Machine Learning Engineer") == "engineering"
    assert function_of("Engineering Manager") == "engineering"
    assert function_of("Chief Data Officer") is None


def test_years_are_whole_years_up_to_the_reference_month():
    c = career(
        position("acme", (2021, 7)),  # June 2024 is 35 months later: 2 years
        position("globex", (2018, 6), (2021, 6), title="Designer"),
        position("acme", (2015, 6), (2018, 1), title="Junior Software Engineer"),
    )
    assert c.tenure_years == 2
    assert c.experience_years == 9  # from June 2015
    assert c.function == "engineering"
    assert c.function_years == 5  # 35 + 31 months as an engineer: the designer's do not count
    assert (c.company_count, c.current_company_count) == (2, 1)
    assert c.is_boomerang is True  # acme, globex, acme
    assert c.company == "acme"
    assert c.industry == companies.company("acme")["industry"]
    assert c.company_size == data.head_count("acme") == 137


def test_a_boomerang_went_back_after_another_organization():
    promoted = career(position("acme", (2022, 1)), position("acme", (2019, 1), (2021, 12)))
    assert promoted.is_boomerang is False and promoted.company_count == 1
    moved_on = career(position("globex", (2022, 1)), position("acme", (2019, 1), (2021, 12)))
    assert moved_on.is_boomerang is False
    back = career(
        position("acme", (2023, 1)),
        position("acme", (2022, 1), (2022, 12)),
        position("hooli", (2020, 1), (2021, 12)),
        position("acme", (2019, 1), (2019, 12)),
    )
    assert back.is_boomerang is True and back.company_count == 2


def test_between_jobs_and_without_positions():
    between = career(position("acme", (2020, 1), (2024, 3)))
    assert (between.tenure_years, between.function, between.company) == (None, None, None)
    assert (between.industry, between.company_size, between.function_years) == (None, None, None)
    assert between.current_company_count == 0 and between.experience_years == 4
    assert between.latest_change is not None and between.latest_change[0] == "left"
    sparse = Career({"handle": "x"})
    readings = ("tenure_years", "experience_years", "company_count", "current_company_count",
                "is_boomerang", "function", "function_years", "industry", "company_size",
                "latest_change")  # fmt: skip
    assert all(getattr(sparse, name) is None for name in readings)


def test_a_position_begun_after_the_reference_date_counts_no_years():
    moved = career(position("globex", (2026, 11)), position("acme", (2020, 6), (2026, 11)))
    assert moved.tenure_years == 0 and moved.function_years == 4


def test_the_population_shows_every_kind_of_career():
    careers = [Career(r) for r in data.population()]
    assert {c.is_boomerang for c in careers} == {True, False, None}
    assert 0.02 < sum(c.is_boomerang is True for c in careers) / len(careers) < 0.3
    assert {c.latest_change[0] for c in careers if c.latest_change} == set(catalog.EVENT_TYPES)
    assert {c.function for c in careers} == {*FUNCTIONS.values(), None}
    assert {c.current_company_count for c in careers} == {0, 1, None}


def test_changes_are_the_population_events_of_the_job_change_feed():
    """The feed (no background, every day) lists each person's changes of the two years before
    the reference date, dated and identified as :func:`changes` dates them."""
    feed = catalog.job_feed({}, rate=0, on=ON)
    listed: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for e in feed:
        listed[e["person"]["handle"]].append(e)
    earliest = (REFERENCE_DATE - dt.timedelta(days=730)).isoformat()
    for rec in data.population()[:300]:
        mine = sorted(((c.when.isoformat(), c.id, c.kind) for c in changes(rec)), reverse=True)
        recent = [m for m in mine if m[0] >= earliest]
        theirs = [(e["detected_at"], e["id"], e["event_type"]) for e in listed[rec["handle"]]]
        assert theirs == recent
        latest = Career(rec).latest_change
        if recent:  # the newest event the feed lists of them is their latest change
            assert latest == (recent[0][2], dt.date.fromisoformat(recent[0][0]))


def test_a_movers_latest_change_is_their_move():
    world, after = Moves().moved("person-00001", to="globex", on=ON)
    latest = Career(after, world.events).latest_change
    assert latest == ("joined", ON)  # the day's left at the old company comes before it
    world, again = world.moved("person-00001", to="globex", title="CTO", on=ON)
    assert Career(again, world.events).latest_change == ("title_change", ON)
    others = Career(data.person("person-00002"), world.events)
    assert others.latest_change == Career(data.person("person-00002")).latest_change


@pytest.mark.parametrize("handle", ["ada", "person-00000", "acme-former-00000"])
def test_changes_follow_the_positions(handle):
    rec = data.person(handle)
    kinds = [c.kind for c in changes(rec)]
    assert kinds.count("joined") == len(rec["positions"])
    assert kinds.count("left") == sum(not p["is_current"] for p in rec["positions"])
    assert all(c.when <= REFERENCE_DATE for c in changes(rec))
