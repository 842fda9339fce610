"""lookup_pandas.frames.overview: name, headline, company, city and handle, from whatever a record
has."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lookup_pandas.frames.overview import (
    OVERVIEW_COLUMNS,
    current_position,
    full_name,
    overview,
    summary,
)
from lookup_pandas.frames.records import records_to_frame

ADA = {
    "id": "prsn_1",
    "handle": "ada",
    "first_name": "Ada",
    "last_name": "Lovelace",
    "headline": "Engineer at Acme",
    "geo": {"city": "London", "country_code": "GB"},
    "positions": [
        {"title": "Analyst", "organization": {"name": "Babbage & Co"}, "is_current": False},
        {"title": "Engineer", "organization": {"name": "Acme"}, "is_current": True},
    ],
}


def test_summary_of_a_full_record():
    assert summary(ADA) == {
        "name": "Ada Lovelace",
        "headline": "Engineer at Acme",
        "company": "Acme",
        "city": "London",
        "handle": "ada",
    }


def test_summary_of_a_record_with_only_id_and_handle_is_blank_not_an_error():
    assert summary({"id": "prsn_2", "handle": "bob"}) == {
        "name": None,
        "headline": None,
        "company": None,
        "city": None,
        "handle": "bob",
    }


@pytest.mark.parametrize(
    ("first", "last", "expected"),
    [
        ("Ada", "Lovelace", "Ada Lovelace"),
        ("Ada", None, "Ada"),
        (None, "Lovelace", "Lovelace"),
        ("  ", float("nan"), None),
        (None, None, None),
        (["Ada"], {"x": 1}, None),
    ],
)
def test_full_name_from_whatever_parts_there_are(first, last, expected):
    assert full_name(first, last) == expected


@pytest.mark.parametrize(
    ("positions", "title"),
    [
        ([{"title": "A"}, {"title": "B", "is_current": True}], "B"),
        ([{"title": "A", "is_current": False}, {"title": "B", "is_current": False}], "A"),
        (["not a position", {"title": "C"}], "C"),
    ],
)
def test_current_position_is_the_one_marked_current_else_the_first(positions, title):
    assert current_position(positions)["title"] == title


@pytest.mark.parametrize("positions", [None, [], "x", float("nan"), [1, 2], {"title": "A"}])
def test_no_current_position(positions):
    assert current_position(positions) is None


def test_overview_of_a_frame_of_records_and_of_an_enrichment():
    frame = records_to_frame([ADA, {"id": "prsn_2", "handle": "bob"}])
    out = overview(frame)
    assert list(out.columns) == list(OVERVIEW_COLUMNS)
    assert out.loc[0].tolist() == ["Ada Lovelace", "Engineer at Acme", "Acme", "London", "ada"]
    assert out.loc[1, "handle"] == "bob" and out.loc[1, ["name", "company", "city"]].isna().all()
    enriched = frame.add_prefix("profile_").set_axis(["x", "y"])
    shown = overview(enriched, prefix="profile_")
    assert shown.index.tolist() == ["x", "y"] and shown.loc["x", "company"] == "Acme"


def test_overview_of_a_frame_with_none_of_the_columns():
    out = overview(pd.DataFrame({"other": [1, 2]}, index=[5, 7]))
    assert list(out.columns) == list(OVERVIEW_COLUMNS) and out.index.tolist() == [5, 7]
    assert out.isna().all().all()
    assert all(str(t) == "str" for t in out.dtypes)


def test_overview_of_an_empty_frame():
    out = overview(records_to_frame([]))
    assert out.empty and list(out.columns) == list(OVERVIEW_COLUMNS)


FIELDS = ["first_name", "last_name", "headline", "positions", "geo"]


@settings(deadline=None)
@given(keep=st.lists(st.sampled_from(FIELDS), unique=True))
def test_any_subset_of_fields_gives_an_overview_without_error(keep):
    record = {"id": "prsn_1", "handle": "ada", **{k: ADA[k] for k in keep}}
    row = overview(records_to_frame([record])).loc[0]
    assert row["handle"] == "ada"
    assert (row["company"] == "Acme") == ("positions" in keep)
    assert (row["city"] == "London") == ("geo" in keep)
    for key, value in summary(record).items():  # the frame and the record view agree
        assert pd.isna(row[key]) if value is None else row[key] == value, key
