"""Unit tests for lookup_pandas.enrichment.provenance: the three provenance columns made from
what the run recorded and what the cache says, without a cache or a server (the loopback runs
are in tests/integration/enrichment/test_provenance.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pandas as pd

from lookup_pandas.enrichment.provenance import (
    EXPIRED_COLUMN,
    FETCHED_AT_COLUMN,
    PROVENANCE_COLUMNS,
    SOURCE_COLUMN,
    arrived,
    provenance_frame,
)
from lookup_pandas.enrichment.results import ERROR, INVALID, NOT_CACHED, NOT_FOUND, OK

BOUGHT = datetime(2026, 11, 18, 9, 12, 40, tzinfo=UTC)
NOW = BOUGHT + timedelta(days=7)


class StoredAt:
    """A cache's entries as provenance reads them: handle -> (created_at, expired); counts reads."""

    def __init__(self, entries: dict[str, tuple[datetime, bool]]) -> None:
        self.entries = entries
        self.read: list[str] = []

    def __call__(self, handle: str) -> tuple[datetime, bool] | None:
        self.read.append(handle)
        return self.entries.get(handle)


def rows(frame: pd.DataFrame) -> list[tuple[object, object, object]]:
    """Each row's three cells, missing ones as None."""
    return [
        tuple(None if pd.isna(cell) else cell for cell in row)
        for row in frame[list(PROVENANCE_COLUMNS)].itertuples(index=False)
    ]


def test_each_row_says_where_its_answer_came_from_and_when_it_was_bought():
    stored = StoredAt({"ada": (BOUGHT, False), "grace": (NOW, True)})
    frame = provenance_frame(
        ["ada", None, "grace", "ada", "gone", "broken"],
        [OK, INVALID, OK, OK, NOT_FOUND, ERROR],
        {
            "ada": ("cache", None),
            "grace": ("single", NOW),
            "gone": ("batch", NOW),  # a not-found bought now, without a cache entry
            "broken": ("single", NOW),  # a failure: nothing was bought
        },
        stored,
    )
    assert rows(frame) == [
        ("cache", BOUGHT, False),  # the time it was really bought, from its cache entry
        (None, None, None),  # no handle: nothing at all
        ("single", NOW, True),  # past its keep time
        ("cache", BOUGHT, False),
        ("batch", NOW, False),  # no entry: when it arrived, and not expired
        ("single", None, None),  # its source, and no time
    ]
    assert sorted(stored.read) == ["ada", "gone", "grace"]  # once per distinct value answered


def test_a_value_the_run_has_no_source_for_has_missing_cells():
    # offline, a value the cache does not hold: not_cached, nothing sent, nothing recorded
    frame = provenance_frame(["ada"], [NOT_CACHED], {}, StoredAt({"ada": (BOUGHT, False)}))
    assert rows(frame) == [(None, None, None)]


def test_the_columns_have_their_dtypes_and_a_range_index_whatever_the_rows():
    frame = provenance_frame([None, "ada"], [INVALID, OK], {"ada": ("single", NOW)}, StoredAt({}))
    assert list(frame.columns) == [SOURCE_COLUMN, FETCHED_AT_COLUMN, EXPIRED_COLUMN]
    assert isinstance(frame[FETCHED_AT_COLUMN].dtype, pd.DatetimeTZDtype)
    assert str(frame[FETCHED_AT_COLUMN].dt.tz) == "UTC"
    assert frame[EXPIRED_COLUMN].dtype == "boolean"
    assert frame.index.equals(pd.RangeIndex(2))
    empty = provenance_frame([], [], {}, StoredAt({}))
    assert list(empty.columns) == list(PROVENANCE_COLUMNS) and len(empty) == 0


def test_an_answer_arrived_now_is_stamped_in_utc():
    before = datetime.now(UTC)
    source, when = arrived("batch")
    assert source == "batch" and when is not None and before <= when <= datetime.now(UTC)
