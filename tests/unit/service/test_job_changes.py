"""Reading production's job-change events: person, organisation, day and identity."""

from __future__ import annotations

import datetime as dt

import pytest

from lookup_pandas.service.job_changes import MAX_DAYS_AGO, days_ago, read_event

TODAY = dt.date(2026, 11, 27)


@pytest.mark.parametrize(
    ("field", "value", "day"),
    [
        ("detected_at", "2026-11-20", dt.date(2026, 11, 20)),
        ("date", "2026-11-20T23:30:00-02:00", dt.date(2026, 11, 21)),  # UTC day
        ("event_date", "2026-11-19T10:00:00Z", dt.date(2026, 11, 19)),
        ("occurred_at", 1764201600, dt.date(2025, 11, 27)),  # epoch seconds
        ("created_at", 1764201600000, dt.date(2025, 11, 27)),  # epoch milliseconds
    ],
)
def test_the_date_is_read_from_whichever_usual_name_the_event_carries(field, value, day):
    assert read_event({"id": "e1", field: value}, TODAY).day == day


@pytest.mark.parametrize("value", ["yesterday", "", None, True, {"y": 2026}])
def test_an_unreadable_date_counts_as_today(value):
    assert read_event({"id": "e1", "date": value}, TODAY).day == TODAY


def test_the_person_and_organisation_come_from_nested_or_flat_fields():
    nested = read_event(
        {"person": {"id": "prsn_1", "handle": "ada"}, "organization": {"id": "org_1"}}, TODAY
    )
    flat = read_event({"person_id": "prsn_1", "handle": "ada", "organization_id": "org_1"}, TODAY)
    assert (nested.person_id, nested.handle, nested.organization_id) == ("prsn_1", "ada", "org_1")
    assert (flat.person_id, flat.handle, flat.organization_id) == ("prsn_1", "ada", "org_1")


def test_an_event_without_id_has_a_stable_key_of_its_content():
    raw = {"person": {"handle": "ada"}, "event_type": "left", "date": "2026-11-20"}
    first, again = read_event(raw, TODAY), read_event(dict(reversed(raw.items())), TODAY)
    other = read_event({**raw, "event_type": "joined"}, TODAY)
    assert first.key == again.key != other.key
    assert read_event({**raw, "id": "jce_9"}, TODAY).key == "jce_9"


@pytest.mark.parametrize(
    ("since", "expected"),
    [(TODAY, 1), (TODAY - dt.timedelta(days=1), 1), (TODAY - dt.timedelta(days=7), 7),
     (TODAY - dt.timedelta(days=400), MAX_DAYS_AGO)],
)  # fmt: skip
def test_days_ago_reaches_the_day_of_since_within_the_feeds_bounds(since, expected):
    assert days_ago(since, TODAY) == expected
