"""records_to_frame / RecordColumns / to_csv_cells: the JSON -> DataFrame rules (flattening,
order, dtypes)."""

from __future__ import annotations

import copy
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lookup_pandas.frames.records import RecordColumns, flatten, records_to_frame, to_csv_cells


def _records():
    return [
        {
            "name": "Ada",
            "handle": "ada",
            "id": "prsn_1",
            "geo": {"city": "Berlin", "country": {"code": "DE", "name": "Germany"}},
            "skills": ["python", "pandas"],
            "positions": [{"title": "CTO"}],
            "counts": {"followers": 3},
            "flags": {"verified": True},
            "score": 1.5,
        },
        {
            "id": "prsn_2",
            "handle": "grace",
            "name": None,
            "geo": {"city": None, "country": {"code": "GB", "name": "United Kingdom"}},
            "skills": [],
            "positions": [],
            "counts": {"followers": None},
            "flags": {"verified": None},
            "score": None,
        },
        {
            "id": "prsn_3",
            "handle": "linus",
            "name": "Linus",
            "geo": {"city": "Helsinki", "country": {"code": "FI", "name": "Finland"}},
            "skills": ["c"],
            "positions": [{"title": "Maintainer"}, {"title": "Student"}],
            "counts": {"followers": 12},
            "flags": {"verified": False},
            "score": 2.0,
        },
    ]


def test_nested_objects_are_flattened_with_dots():
    frame = records_to_frame(_records())
    for col in (
        "geo.city",
        "geo.country.code",
        "geo.country.name",
        "counts.followers",
        "flags.verified",
    ):
        assert col in frame.columns
    assert "geo" not in frame.columns and "counts" not in frame.columns
    assert frame["geo.country.code"].tolist() == ["DE", "GB", "FI"]


def test_id_and_handle_come_first_then_record_order():
    frame = records_to_frame(_records())
    assert list(frame.columns[:2]) == ["id", "handle"]
    # The rest keeps the order the first record gives them.
    rest = list(frame.columns[2:])
    assert rest.index("name") < rest.index("geo.city") < rest.index("skills")


def test_handle_only_goes_first_when_no_id():
    frame = records_to_frame([{"x": 1, "handle": "ada"}])
    assert list(frame.columns) == ["handle", "x"]


def test_lists_stay_lists_in_object_columns():
    frame = records_to_frame(_records())
    assert frame["skills"].dtype == object
    assert frame["skills"].tolist() == [["python", "pandas"], [], ["c"]]
    assert frame["positions"].iloc[2] == [{"title": "Maintainer"}, {"title": "Student"}]
    assert all(isinstance(v, list) for v in frame["skills"])


def test_integers_with_gaps_are_nullable_integers_not_floats():
    frame = records_to_frame(_records())
    col = frame["counts.followers"]
    assert str(col.dtype) == "Int64"
    assert col.iloc[0] == 3 and col.iloc[2] == 12
    assert col.isna().tolist() == [False, True, False]


def test_integers_without_gaps_are_int64():
    frame = records_to_frame([{"id": "a", "n": 1}, {"id": "b", "n": 2}])
    assert str(frame["n"].dtype) == "int64"


def test_missing_key_counts_as_a_gap():
    frame = records_to_frame([{"id": "a", "n": 1}, {"id": "b"}])
    assert str(frame["n"].dtype) == "Int64"
    assert frame["n"].iloc[0] == 1 and pd.isna(frame["n"].iloc[1])


def test_flags_with_gaps_are_nullable_booleans():
    frame = records_to_frame(_records())
    col = frame["flags.verified"]
    assert str(col.dtype) == "boolean"
    assert col.iloc[0] is np.True_ or col.iloc[0] == True  # noqa: E712
    assert pd.isna(col.iloc[1])
    assert col.iloc[2] == False  # noqa: E712


def test_flags_without_gaps_are_bool():
    frame = records_to_frame([{"ok": True}, {"ok": False}])
    assert frame["ok"].dtype == bool


def test_text_is_string_dtype_with_nan_for_missing():
    frame = records_to_frame(_records())
    for col in ("id", "handle", "name", "geo.city"):
        assert pd.api.types.is_string_dtype(frame[col].dtype)
        assert frame[col].dtype != object
    assert frame["name"].tolist()[0] == "Ada"
    missing = frame["name"].iloc[1]
    assert isinstance(missing, float) and np.isnan(missing)
    assert pd.isna(frame["geo.city"].iloc[1])


def test_floats_stay_float64():
    frame = records_to_frame(_records())
    assert frame["score"].dtype == np.float64
    assert frame["score"].iloc[0] == 1.5 and frame["score"].iloc[2] == 2.0
    whole = records_to_frame([{"x": 1.0}, {"x": 2.0}])
    assert whole["x"].dtype == np.float64


def test_empty_input_gives_empty_frame_with_id_and_handle():
    for empty in ([], iter(())):
        frame = records_to_frame(empty)
        assert isinstance(frame, pd.DataFrame)
        assert len(frame) == 0
        assert list(frame.columns) == ["id", "handle"]


def test_index_keyword_sets_the_index():
    frame = records_to_frame(_records(), index=["x", "y", "x"])
    assert frame.index.tolist() == ["x", "y", "x"]
    assert frame.loc["y", "handle"] == "grace"
    default = records_to_frame(_records())
    assert default.index.equals(pd.RangeIndex(3))


def test_input_records_are_not_mutated():
    records = _records()
    before = copy.deepcopy(records)
    frame = records_to_frame(records)
    to_csv_cells(frame)
    assert records == before


def test_flatten_keeps_empty_objects_and_lists():
    assert flatten({"a": {}, "b": [], "c": {"d": {"e": 1}}}) == {"a": {}, "b": [], "c.d.e": 1}


def test_to_csv_cells_turns_lists_and_dicts_into_json_text():
    frame = records_to_frame(_records())
    frame["extra"] = [{"k": "ü"}, None, 3]
    out = to_csv_cells(frame)
    assert out["skills"].tolist() == ['["python", "pandas"]', "[]", '["c"]']
    assert json.loads(out["positions"].iloc[2]) == [{"title": "Maintainer"}, {"title": "Student"}]
    assert out["extra"].iloc[0] == '{"k": "ü"}'  # readable text, not \\u escapes
    assert out["extra"].iloc[1] is None and out["extra"].iloc[2] == 3
    # Other columns are left as they were, dtypes included.
    for col in ("id", "handle", "name", "counts.followers", "flags.verified", "score"):
        pd.testing.assert_series_equal(out[col], frame[col])
    assert out.index.equals(frame.index)


def test_to_csv_cells_does_not_mutate_the_frame():
    frame = records_to_frame(_records())
    before = frame.copy(deep=True)
    skills_before = copy.deepcopy(frame["skills"].tolist())
    out = to_csv_cells(frame)
    assert out is not frame
    pd.testing.assert_frame_equal(frame, before)
    assert frame["skills"].tolist() == skills_before
    assert isinstance(frame["skills"].iloc[0], list)


# -- properties ------------------------------------------------------------------------------

_SCALARS = st.one_of(st.none(), st.integers(-(10**6), 10**6), st.booleans(), st.text(max_size=5))
_KEYS = st.sampled_from(["id", "handle", "a", "b", "c"])
_RECORDS = st.lists(
    st.dictionaries(
        _KEYS,
        st.one_of(
            _SCALARS,
            st.dictionaries(st.sampled_from(["x", "y"]), _SCALARS, min_size=1, max_size=2),
            st.lists(st.integers(0, 9), max_size=3),
        ),
        min_size=1,
        max_size=5,
    ),
    min_size=1,
    max_size=6,
)


@settings(deadline=None)
@given(_RECORDS)
def test_one_row_per_record_and_input_untouched(records):
    before = copy.deepcopy(records)
    frame = records_to_frame(records)
    assert records == before
    assert len(frame) == len(records)
    cols = list(frame.columns)
    firsts = [c for c in ("id", "handle") if c in cols]
    assert cols[: len(firsts)] == firsts
    assert len(set(cols)) == len(cols)
    # Integers never turn into floats.
    for name, col in frame.items():
        values = [flatten(r).get(name) for r in records]
        present = [v for v in values if v is not None]
        if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
            assert str(col.dtype) in ("int64", "Int64"), (name, col.dtype)
            assert [None if pd.isna(v) else int(v) for v in col] == values


def test_records_without_fields_still_get_a_row_each():
    # "One row per record": an empty object is a record too (and index= must line up with it).
    assert len(records_to_frame([{}, {}])) == 2
    frame = records_to_frame([{"id": "a"}, {}], index=["x", "y"])
    assert frame.index.tolist() == ["x", "y"]
    assert frame["id"].iloc[0] == "a" and pd.isna(frame["id"].iloc[1])


@pytest.mark.parametrize("bad_index", [["only-one"]])
def test_index_of_the_wrong_length_is_refused(bad_index):
    with pytest.raises(ValueError):
        records_to_frame(_records(), index=bad_index)


# -- prefixed names and the person fields ------------------------------------------------------


def test_prefixed_names_never_repeat_the_prefix():
    from lookup_pandas.frames.records import prefixed_names

    assert prefixed_names(["id", "profile_url", "geo.city"], "profile_") == {
        "id": "profile_id",
        "profile_url": "profile_url",
        "geo.city": "profile_geo.city",
    }


def test_prefixed_names_prefix_again_only_to_avoid_a_collision():
    from lookup_pandas.frames.records import prefixed_names

    names = prefixed_names(["url", "profile_url"], "profile_")
    assert names == {"url": "profile_url", "profile_url": "profile_profile_url"}
    assert len(set(names.values())) == 2


def test_with_fields_of_person_fields_adds_the_documented_fields_first_and_keeps_the_rest():
    from lookup_pandas.frames.records import PERSON_FIELDS, with_fields

    frame = records_to_frame(
        [{"id": "prsn_1", "handle": "ada", "extra": 1, "geo": {"city": "Berlin"}}]
    )
    out = with_fields(frame, PERSON_FIELDS)
    assert list(out.columns) == [*PERSON_FIELDS, "extra"]
    assert out.loc[0, "geo.city"] == "Berlin" and pd.isna(out.loc[0, "first_name"])
    assert str(out["follower_count"].dtype) == "Int64"
    assert str(out["is_hiring"].dtype) == "boolean"
    assert list(frame.columns) == ["id", "handle", "extra", "geo.city"]  # input untouched


def test_with_fields_of_person_fields_of_no_records_has_typed_empty_columns():
    from lookup_pandas.frames.records import PERSON_FIELDS, with_fields

    out = with_fields(records_to_frame([]), PERSON_FIELDS)
    assert list(out.columns) == list(PERSON_FIELDS) and out.empty
    assert {c: str(t) for c, t in out.dtypes.items()} == {
        c: ("str" if t == "str" else t) for c, t in PERSON_FIELDS.items()
    }


# -- RecordColumns: records taken as they come, in any order ---------------------------------------


def test_record_columns_in_any_order_give_the_frame_of_the_records_in_rank_order():
    records = [
        {"id": "p1", "handle": "a", "x": 1},
        {"id": "p2", "y": "late", "handle": "b", "geo": {"city": "Oslo"}},
        {},
        {"handle": "d", "z": [1], "x": None},
    ]
    labels = ["a", "b", "c", "d"]
    whole = records_to_frame(records, index=labels)
    for order in ([3, 1, 0, 2], [2, 3, 0, 1], [0, 1, 2, 3]):
        columns = RecordColumns()
        for i in order:
            columns.add(labels[i], records[i], rank=i)
        assert len(columns) == 4
        frame = columns.frame().loc[labels]
        pd.testing.assert_frame_equal(frame, whole)
        assert list(frame.columns) == ["id", "handle", "x", "y", "geo.city", "z"]


def test_record_columns_share_keys_and_short_strings_of_list_fields_between_records():
    texts = [json.dumps({"id": f"p{i}", "positions": [{"title": "CTO"}]}) for i in range(2)]
    records = [json.loads(t) for t in texts]  # each with its own copies of "title" and "CTO"
    assert records[0]["positions"][0]["title"] is not records[1]["positions"][0]["title"]
    columns = RecordColumns()
    for i, record in enumerate(records):
        columns.add(i, record)
    first, second = columns.frame()["positions"]
    assert first == second == [{"title": "CTO"}]
    assert first[0]["title"] is second[0]["title"]
    ((key_1,),), ((key_2,),) = [[list(p.keys()) for p in v] for v in (first, second)]
    assert key_1 is key_2
    assert records == [json.loads(t) for t in texts]  # the input is not mutated


def test_record_columns_of_nothing_is_the_empty_frame():
    assert list(RecordColumns().frame().columns) == ["id", "handle"]
