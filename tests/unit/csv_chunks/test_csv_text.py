"""Unit tests for lookup_pandas.csv_chunks.csv_text: CSV text split into records and rows into
parts exactly as pandas writes them (checked against ``to_csv`` itself, with hypothesis)."""

from __future__ import annotations

import os
from typing import Any

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lookup_pandas.csv_chunks.csv_text import csv_header, csv_parts, split_records

# -- CSV records and parts, as pandas writes them -------------------------------------------------

CELL = st.one_of(
    st.none(),
    st.text(alphabet=st.sampled_from(list("ab ,\"\n\r\t;é'")), max_size=6),
)


def _frame(columns: list[list[Any]]) -> pd.DataFrame:
    return pd.DataFrame({f"c{i}": pd.Series(col, dtype="str") for i, col in enumerate(columns)})


@settings(deadline=None)  # examples: the profile's, tests/conftest.py
@given(st.integers(1, 3).flatmap(lambda n: st.lists(st.lists(CELL, min_size=n, max_size=n))))
def test_csv_parts_are_the_rows_pandas_writes(rows):
    width = len(rows[0]) if rows else 1
    frame = _frame([[r[i] for r in rows] for i in range(width)])
    parts = csv_parts(frame)
    assert len(parts) == len(frame)
    # a lone empty field is written "" on its own line, and as nothing within a longer row
    lines = ['""' if width == 1 and part == "" else part for part in parts]
    assert csv_header(frame.columns) + "".join(x + os.linesep for x in lines) == frame.to_csv(
        index=False
    )


@settings(deadline=None)  # examples: the profile's, tests/conftest.py
@given(st.lists(st.tuples(CELL, CELL, CELL)))
def test_parts_joined_by_commas_are_the_row_of_the_joined_frame(rows):
    left = _frame([[r[0] for r in rows]])  # one column: the lone-field case
    right = _frame([[r[1] for r in rows], [r[2] for r in rows]])
    right.columns = ["d0", "d1"]
    joined = pd.concat([left, right], axis=1)
    lines = [a + "," + b for a, b in zip(csv_parts(left), csv_parts(right), strict=True)]
    assert csv_header(joined.columns) + "".join(x + os.linesep for x in lines) == joined.to_csv(
        index=False
    )


def test_split_records_keeps_line_breaks_inside_quoted_fields():
    assert split_records('a,"x\ny"\nb,"say ""hi"""\n', "\n") == ['a,"x\ny"', 'b,"say ""hi"""']
    assert split_records("a\r\nb\r\n", "\r\n") == ["a", "b"]
    assert split_records("", "\n") == []
    with pytest.raises(ValueError):
        split_records("a,b", "\n")  # no line end
    with pytest.raises(ValueError):
        split_records('a,"b\n', "\n")  # ends inside quotes


def test_csv_header_is_pandas_header():
    assert csv_header(["name", "a,b", 'q"']) == 'name,"a,b","q"""' + os.linesep
