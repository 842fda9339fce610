"""The Data API's other lists (lookup_pandas.api.searches): rows shaped, queries refused unsent."""

from __future__ import annotations

import pytest

from lookup_pandas import UsageError
from lookup_pandas.api.searches import alumnus_row, job_changes, search_companies
from lookup_pandas.frames.records import records_to_frame


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
