"""The Data API's other lists (lookup_pandas.api.searches): rows shaped, queries refused unsent."""

from __future__ import annotations

import pytest

from lookup_pandas import UsageError
from lookup_pandas.api.searches import EVENT_COLUMNS, alumnus_row, job_changes, search_companies
from lookup_pandas.client.client import Client
from lookup_pandas.frames.records import records_to_frame
from lookup_pandas.testing.mock import MockTransport, envelope


def test_an_alumnus_is_one_row_with_the_linking_education_flattened():
    record = {"id": "prsn_1", "handle": "ada", "education": {"degree": "MSc", "end_year": 2015}}
    assert alumnus_row(record) is record  # production's shape: kept as it is
    frame = records_to_frame([alumnus_row(record)])
    assert list(frame.columns) == ["id", "handle", "education.degree", "education.end_year"]


def test_an_alumnus_sent_under_person_is_lifted():
    record = {"person": {"id": "prsn_1", "handle": "ada"}, "education": {"degree": "MSc"}}
    assert alumnus_row(record) == {"id": "prsn_1", "handle": "ada", "education": {"degree": "MSc"}}


def test_refused_before_a_client_is_even_built():
    """No key, no base URL: the query is refused first (a UsageError, not a configuration one)."""
    with pytest.raises(UsageError, match="needs name or website"):
        search_companies()
    with pytest.raises(UsageError, match="did you mean 'days_ago'"):
        job_changes(days=30)
    with pytest.raises(UsageError, match="max_records"):
        job_changes(max_records=-1)


def test_no_job_change_is_an_empty_frame_of_an_events_columns():
    """Not a person's ``id`` and ``handle``: an event has no ``handle`` (issue 32)."""

    def answer(request):
        if "/api/panel/" in request.url:
            return 200, envelope({"current_tier": {"limit_per_minute": 60000}})
        return 200, envelope([], pagination={"page": 1, "limit": 50, "has_more": False})

    client = Client(api_key="lk_test", base_url="https://api.example.com", cache=False,
                    transport=MockTransport(answer))  # fmt: skip
    frame = job_changes(days_ago=1, client=client, progress=False)
    assert frame.empty and tuple(frame.columns) == EVENT_COLUMNS and "handle" not in frame
    event = {
        "id": "jce_1",
        "event_type": "left",
        "detected_at": "2026-11-27",
        "person": {"id": "prsn_1", "handle": "ada", "first_name": "Ada"},
        "organization": {"id": "org_1", "name": "Acme", "slug": "acme"},
        "title": "CTO",
    }
    flat = list(records_to_frame([event]).columns)
    assert [c for c in flat if c in EVENT_COLUMNS] == list(EVENT_COLUMNS)
