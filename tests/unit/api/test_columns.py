"""Unit tests for lookup_pandas.api.columns: the columns a frame of looked-up records
starts with."""

from __future__ import annotations

import pandas as pd
import pytest

from lookup_pandas.api.columns import check_columns, column_values, looked_up
from lookup_pandas.enrichment.results import JobSummary, LookupResult
from lookup_pandas.errors import ColumnError
from lookup_pandas.identifiers.kinds import COMPANIES


def _lookup(handles, fields):
    summary = JobSummary(
        rows=len(handles),
        statuses={},
        cached=0,
        fetched=0,
        failed=0,
        credits=0.0,
        requests=0,
        rate_limited=0,
        retries=0,
        seconds=0.0,
    )
    return LookupResult(
        handles=handles, status=[], error=[], fields=pd.DataFrame(fields), summary=summary
    )


def test_each_row_says_what_it_looked_up_ids_and_slugs_alike():
    result = _lookup(
        ["acme", "org_X", "org_Q", None],
        {
            "id": ["org_A", "org_X", None, None],
            "slug": ["acme", "xco", None, None],
            "name": ["Acme", "X Co", None, None],
        },
    )
    frame = looked_up(result, COMPANIES)
    assert list(frame.columns[:2]) == ["id", "slug"]
    assert frame["slug"].tolist()[:2] == ["acme", "xco"]  # an id's row: the record's slug
    assert pd.isna(frame["slug"][2]) and pd.isna(frame["slug"][3])
    assert frame["id"].tolist()[:3] == ["org_A", "org_X", "org_Q"]  # a not-found id is kept
    assert pd.isna(frame["id"][3])


def test_a_find_s_three_columns_are_read_as_one_value_a_row_keeping_the_index():
    leads = pd.DataFrame(
        {"first": ["Jane", None], "last": ["Doe", "Roe"], "domain": ["acme.com", "x.io"]},
        index=[10, 20],
    )
    values = column_values(leads, ("first", "last", "domain"))
    assert values.index.tolist() == [10, 20]
    first, second = values.tolist()
    assert first == ("Jane", "Doe", "acme.com")
    assert pd.isna(second[0]) and second[1:] == ("Roe", "x.io")  # a gap as the column holds it
    assert column_values(leads, "last").equals(leads["last"])


def test_every_column_a_lookup_reads_must_be_there():
    leads = pd.DataFrame({"first": ["Jane"], "last": ["Doe"]})
    with pytest.raises(ColumnError, match="No column 'domain'"):
        check_columns(leads, ("first", "last", "domain"), "email_")
