"""Unit tests for lookup_pandas.frames.polars: to_polars, the pandas -> polars converter."""

from __future__ import annotations

import math
import sys

import pandas as pd
import polars as pl
import pytest

from lookup_pandas import ConfigurationError
from lookup_pandas.frames.polars import to_polars
from lookup_pandas.frames.records import PERSON_FIELDS, records_to_frame, with_fields
from lookup_pandas.testing import data


def plain(value):
    """A cell as plain Python, for comparing pandas and polars: every missing value is None;
    a dict loses the keys whose value is missing (a polars struct has every key of its type,
    null where an element lacked it)."""
    if isinstance(value, dict):
        return {k: p for k, v in value.items() if (p := plain(v)) is not None}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return None
    return value.item() if hasattr(value, "item") else value  # numpy scalars


def pandas_cells(frame: pd.DataFrame) -> dict[str, list]:
    return {str(c): [plain(v) for v in frame[c].tolist()] for c in frame.columns}


def polars_cells(frame: pl.DataFrame) -> dict[str, list]:
    return {c: [plain(v) for v in frame[c].to_list()] for c in frame.columns}


# -- dtypes and missing values -----------------------------------------------------------------


def test_pandas_native_dtypes_become_their_polars_dtype_with_nulls():
    frame = pd.DataFrame(
        {
            "text": pd.Series(["a", math.nan, None], dtype="str"),
            "count": pd.Series([1, pd.NA, 3], dtype="Int64"),
            "flag": pd.Series([True, pd.NA, False], dtype="boolean"),
            "whole": pd.Series([1, 2, 3], dtype="int64"),
            "bit": pd.Series([True, False, True], dtype="bool"),
            "real": pd.Series([1.5, math.nan, 2.0], dtype="float64"),
        }
    )
    out = to_polars(frame)
    assert out.schema == pl.Schema(
        {
            "text": pl.String,
            "count": pl.Int64,
            "flag": pl.Boolean,
            "whole": pl.Int64,
            "bit": pl.Boolean,
            "real": pl.Float64,
        }
    )
    assert out["text"].to_list() == ["a", None, None]  # null, never "nan"
    assert out["count"].to_list() == [1, None, 3]
    assert out["flag"].to_list() == [True, None, False]
    assert out["real"].to_list() == [1.5, None, 2.0]
    assert out["real"].is_nan().sum() == 0 and out["real"].null_count() == 1


def test_lists_stay_lists_and_missing_lists_are_null():
    frame = pd.DataFrame(
        {"skills": pd.Series([["sql", "go"], math.nan, [], None, pd.NA], dtype=object)}
    )
    out = to_polars(frame)
    assert out.schema["skills"] == pl.List(pl.String)
    assert out["skills"].to_list() == [["sql", "go"], None, [], None, None]


def test_list_of_objects_keeps_every_key_seen_anywhere():
    # polars' own constructor infers from the first 100 values and would drop "slug" and "url"
    early = [{"title": "Engineer", "organization": {"id": "org_1"}}]
    late = [
        {"title": "CTO", "organization": {"id": "org_2", "slug": "acme"}, "url": "u"},
        {"title": "Advisor", "end_date": None},
    ]
    frame = pd.DataFrame({"positions": pd.Series([early] * 300 + [late, math.nan], dtype=object)})
    out = to_polars(frame)
    dtype = out.schema["positions"]
    assert isinstance(dtype, pl.List)
    inner = dtype.inner
    assert isinstance(inner, pl.Struct)
    assert {f.name for f in inner.fields} == {"title", "organization", "url", "end_date"}
    assert out["positions"][300].to_list() == [
        {
            "title": "CTO",
            "organization": {"id": "org_2", "slug": "acme"},
            "url": "u",
            "end_date": None,
        },
        {"title": "Advisor", "organization": None, "url": None, "end_date": None},
    ]
    assert out["positions"][301] is None
    assert polars_cells(out) == pandas_cells(frame)


def test_a_column_without_values_is_null_typed():
    frame = pd.DataFrame(
        {
            "positions": pd.Series([math.nan, math.nan], dtype=object),
            "skills": pd.Series([None, pd.NA], dtype=object),
        }
    )
    out = to_polars(frame)
    assert out.schema == pl.Schema({"positions": pl.Null, "skills": pl.Null})
    assert out.height == 2 and out["positions"].null_count() == 2


def test_values_without_a_common_type_are_kept_as_objects():
    frame = pd.DataFrame({"mixed": pd.Series([1, "one", math.nan, [1]], dtype=object)})
    out = to_polars(frame)
    assert out.schema["mixed"] == pl.Object
    assert out["mixed"].to_list() == [1, "one", None, [1]]  # not coerced to "1"


def test_the_index_is_dropped_and_the_input_left_alone():
    frame = records_to_frame(
        [{"id": "prsn_1", "handle": "ada", "skills": ["sql"]}, {"id": "prsn_2", "handle": "bo"}],
        index=["x", "y"],
    )
    before = frame.copy(deep=True)
    out = to_polars(frame)
    pd.testing.assert_frame_equal(frame, before)
    assert out.columns == ["id", "handle", "skills"]
    assert out.height == 2
    assert out["skills"].to_list() == [["sql"], None]


def test_an_empty_person_frame_keeps_its_columns_and_types():
    out = to_polars(with_fields(records_to_frame([]), PERSON_FIELDS))
    assert out.height == 0
    assert out.columns == list(PERSON_FIELDS)
    expected = {"str": pl.String, "Int64": pl.Int64, "boolean": pl.Boolean, "object": pl.Null}
    assert out.schema == pl.Schema({k: expected[t] for k, t in PERSON_FIELDS.items()})


def test_emulator_records_convert_value_for_value():
    handles = ["ada", "grace-hopper", "person-00009", "zed-q", "linus-t"]
    records = [data.person(h) for h in handles]
    records.append(data.thin(data.person("sparse-one")))  # different keys, as production may send
    frame = records_to_frame(records)
    out = to_polars(frame)
    assert out.columns == list(frame.columns)
    assert polars_cells(out) == pandas_cells(frame)
    assert out.schema["id"] == pl.String and out.schema["follower_count"] == pl.Int64
    assert out.schema["is_creator"] == pl.Boolean and out.schema["geo.city"] == pl.String
    positions = out.schema["positions"]
    assert isinstance(positions, pl.List) and isinstance(positions.inner, pl.Struct)
    for name, dtype in out.schema.items():
        if dtype == pl.String:
            assert "nan" not in out[name].to_list(), name


def test_without_pyarrow_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(ConfigurationError, match=r"lookup-pandas\[polars\]"):
        to_polars(records_to_frame([{"id": "prsn_1", "handle": "ada"}]))
