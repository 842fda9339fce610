"""Unit tests for lookup_pandas.csv_chunks.json_records: the columns and dtypes one frame of all the
records would have, read a record at a time."""

from __future__ import annotations

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from lookup_pandas.csv_chunks.json_records import ColumnKinds
from lookup_pandas.frames.records import flatten, records_to_frame, with_nullable_dtypes

# -- column kinds ----------------------------------------------------------------------------

#: JSON values of every type, so that one column holds whole numbers in one slice and fractions,
#: flags, text, lists or objects in another.
JSON_VALUES = st.one_of(
    st.none(),
    st.integers(-(2**60), 2**60),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.text(alphabet=st.sampled_from(list('a1 ,"\n.')), max_size=4),
    st.lists(st.integers(0, 3), max_size=2),
    st.just({}),
    st.fixed_dictionaries({"city": st.sampled_from(["x", "y,z"])}),
)
FIELD_NAMES = st.sampled_from(["n", "m", "follower_count", "is_hiring", "skills", "geo", "x.y"])
RECORD_FIELDS = st.dictionaries(FIELD_NAMES, JSON_VALUES, max_size=4)


def test_column_kinds_follow_the_first_value_of_each_type_in_record_order():
    kinds = ColumnKinds()
    for flat in ({"id": "p1", "n": 3, "x": None}, {"n": 3.5, "b": True}, {"b": None, "s": "t"}):
        kinds.add(flat)
    assert kinds.columns == ["id", "n", "x", "b", "s"]
    assert kinds.dtypes() == {"id": "str", "n": "float64", "b": "boolean", "s": "str"}
    assert ColumnKinds().dtypes() == {}


@settings(deadline=None)  # examples: the profile's, tests/conftest.py
@given(st.lists(RECORD_FIELDS, min_size=1, max_size=8))
def test_column_kinds_give_the_dtypes_of_one_frame_of_all_the_records(fields):
    flats = [flatten({"id": f"p{i}", **f}) for i, f in enumerate(fields)]
    kinds = ColumnKinds()
    for flat in flats:
        kinds.add(flat)
    whole = with_nullable_dtypes(records_to_frame(flats))
    assert kinds.columns == list(pd.DataFrame(flats).columns)
    held = [c for c in whole.columns if whole[c].notna().any()]
    assert kinds.dtypes() == {c: whole[c].dtype for c in held}
