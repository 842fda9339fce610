"""Unit tests for lookup_pandas.api.columns: the columns a frame of looked-up records
starts with."""

from __future__ import annotations

import pandas as pd

from lookup_pandas.api.columns import looked_up
from lookup_pandas.enrichment.results import JobSummary, LookupResult
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
