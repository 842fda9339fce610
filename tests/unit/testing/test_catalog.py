"""lookup_pandas.testing.catalog's job-change feed: the background at every organisation, counted
lazily, windowed by ``days_ago`` from a given day, filtered, newest first; no server."""

from __future__ import annotations

import datetime as dt
from collections import Counter

import pytest

from lookup_pandas.testing import catalog, data
from lookup_pandas.testing.names import org_id

ON = dt.date(2026, 11, 27)  # the feed's "today" in these tests (the routes use the clock's)


def feed(on: dt.date = ON, **filters):
    return catalog.job_feed(filters, on=on)


def _ids(*slugs: str) -> str:
    return ",".join(org_id(s) for s in slugs)


def test_every_type_in_every_week_at_an_ordinary_company():
    for slug in ("acme", "cyberdyne"):  # 137 and 201 employees
        for back in range(0, 60, 3):
            on = ON - dt.timedelta(days=back)
            week = feed(on, organization_ids=_ids(slug), days_ago=7)
            assert {e["event_type"] for e in week} == set(catalog.EVENT_TYPES), (slug, on)
            assert 3 <= len(week) <= 11  # a few a week: 3 per 1,000 employees a day


def test_the_background_is_proportional_to_the_head_count():
    year = {s: len(feed(organization_ids=_ids(s), days_ago=365)) for s in ("hooli", "acme")}
    for slug, n in year.items():
        expected = catalog.JOB_CHANGE_RATE * data.head_count(slug) / 1000 * 366
        assert abs(n - expected) <= 1, (slug, n, expected)
    assert year["hooli"] > 8 * year["acme"]  # 1,234 employees and 137
    quiet = catalog.job_feed({"organization_ids": _ids("acme"), "days_ago": 365}, rate=0, on=ON)
    assert quiet[:] == []


def test_one_rate_for_one_organisation_makes_a_giant_feed_without_building_it():
    giant = catalog.job_feed({"organization_ids": _ids("hooli", "acme"), "days_ago": 365},
                             rates={"hooli": 1000}, on=ON)  # fmt: skip
    assert len(giant) >= 365 * 1234  # every event counted, none built
    assert giant.listed == 0
    page = giant[:50]
    assert [e["detected_at"] for e in page] == [ON.isoformat()] * 50
    assert giant.listed < 2 * 1234 < len(giant) / 100  # one day listed, 50 events built
    later = giant[200_000:200_050]
    assert len(later) == 50 and later[0]["detected_at"] < ON.isoformat()
    today = Counter(e["organization"]["slug"] for e in giant[:1300])
    assert today["hooli"] >= 1000 and today["acme"] <= 1  # acme keeps its default rate


def test_pages_of_the_feed_are_the_feed_newest_first():
    whole = feed(organization_ids=_ids("acme", "hooli", "globex"), days_ago=120)
    events = list(whole)
    assert len(events) == len(whole) > 300
    assert [whole[i] for i in (0, 17, -1)] == [events[0], events[17], events[-1]]
    pages = [e for start in range(0, len(whole), 50) for e in whole[start : start + 50]]
    assert pages == events
    keys = [(e["detected_at"], e["id"]) for e in events]
    assert keys == sorted(keys, reverse=True) and len(set(keys)) == len(keys)
    assert whole[1:9:3] == events[1:9:3]
    with pytest.raises(IndexError):
        whole[len(whole)]


def test_filters_are_counted_as_they_are_built():
    cases = [
        {"event_type": "joined"},
        {"event_type": "title_change", "title": "engineer"},
        {"geo_city": "Berlin", "geo_country_code": "de"},
        {"title": "cto"},
    ]
    for filters in cases:
        found = feed(organization_ids=_ids("hooli", "acme"), days_ago=90, **filters)
        events = list(found)
        assert len(found) == len(events) > 0, filters
        if "event_type" in filters:
            assert {e["event_type"] for e in events} == {filters["event_type"]}
        if "title" in filters:
            assert all(filters["title"] in e["title"].lower() for e in events)
        if "geo_city" in filters:
            assert {tuple(e["geo"].values()) for e in events} == {("Berlin", "DE")}
    changed = feed(organization_ids=_ids("acme"), event_type="title_change", days_ago=60)
    assert all(e["previous_title"] != e["title"] for e in changed)


def test_organization_ids_and_days_ago_select_the_events():
    week = feed(organization_ids=_ids("acme", "globex"), days_ago=7)
    assert {e["organization"]["slug"] for e in week} <= {"acme", "globex"}
    assert min(e["detected_at"] for e in week) >= (ON - dt.timedelta(days=7)).isoformat()
    assert max(e["detected_at"] for e in week) <= ON.isoformat()
    month = feed(organization_ids=_ids("acme", "globex"), days_ago=30)
    assert {e["id"] for e in week} < {e["id"] for e in month}
    # ids that name no company, or one that does not exist, find nothing and refuse nothing
    assert len(feed(organization_ids="org_1,org_zz!," + org_id("unknown-co"))) == 0


def test_background_people_are_in_no_lead_list_and_named_like_people():
    for e in feed(organization_ids=_ids("acme"), days_ago=30):
        handle = e["person"]["handle"]
        assert handle.startswith("bg-acme-")
        person = data.person(handle)
        assert e["person"]["id"] == person["id"]
        assert e["person"]["first_name"] == person["first_name"]
        assert e["organization"] == {"id": org_id("acme"), "name": "Acme", "slug": "acme"}


def test_the_population_keeps_its_own_events_before_the_reference_date():
    unwindowed = feed(organization_ids=_ids("acme"))
    own = [e for e in unwindowed if not e["person"]["handle"].startswith("bg-")]
    assert own and all(e["detected_at"] <= catalog.REFERENCE_DATE.isoformat() for e in own)
    year = feed(organization_ids=_ids("acme"), days_ago=365)
    assert all(e["person"]["handle"].startswith("bg-") for e in year)
    assert len(unwindowed) == len(year) + len(own)


def test_the_world_feed_and_the_issues_example():
    """With no organisation asked: the organisations people work at (issue 32: a ``joined``
    within 30 days used to find none)."""
    month = catalog.job_changes(event_type="joined", days_ago=30)
    assert month and {e["organization"]["slug"] for e in month} <= set(catalog.WORLD)
    assert catalog.today() > catalog.REFERENCE_DATE + dt.timedelta(days=365)
    assert all(e["detected_at"] <= catalog.today().isoformat() for e in month)
