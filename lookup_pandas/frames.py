"""The only JSON -> DataFrame code: flattening, column order and dtypes.

Example::

    records_to_frame([{"id": "prsn_1", "handle": "ada", "geo": {"city": "Berlin"},
                       "skills": ["python"]}])
    #        id handle geo.city    skills
    # 0  prsn_1    ada   Berlin  [python]

Nested objects are flattened with "." (pandas' json_normalize convention); lists stay lists;
``id`` and ``handle`` come first, then the fields in the order the records give them. Text is
pandas' default string dtype (missing values are NaN); whole numbers with gaps become ``Int64``
and flags with gaps ``boolean``, so a missing field never turns 3 into 3.0.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

__all__ = ["FIRST_COLUMNS", "flatten", "records_to_frame", "to_csv_cells"]

FIRST_COLUMNS = ("id", "handle")


def _order(columns: Iterable[str]) -> list[str]:
    cols = list(columns)
    return [c for c in FIRST_COLUMNS if c in cols] + [c for c in cols if c not in FIRST_COLUMNS]


def flatten(record: Mapping[str, Any], sep: str = ".", _prefix: str = "") -> dict[str, Any]:
    """Nested objects become "a.b" keys (json_normalize's convention); lists are kept whole.

    Written here rather than taken from ``pd.json_normalize`` because that builds the frame
    at once, and its inference turns an integer field with gaps into floats (3 -> 3.0)
    before we can see the JSON types; pandas' own flattener is private API.
    """
    out: dict[str, Any] = {}
    for key, value in record.items():
        name = f"{_prefix}{key}"
        if isinstance(value, Mapping) and value:
            out.update(flatten(value, sep, name + sep))
        else:
            out[name] = value
    return out


_DTYPES = {"integer": ("int64", "Int64"), "boolean": ("bool", "boolean"),
           "floating": ("float64", "float64"), "mixed-integer-float": ("float64", "float64"),
           "string": ("str", "str")}


def _typed(column: pd.Series) -> pd.Series:
    """The pandas-native dtype for a column of JSON values (object when mixed or nested)."""
    kind = pd.api.types.infer_dtype(column, skipna=True)
    if kind not in _DTYPES:
        return column
    complete, with_gaps = _DTYPES[kind]
    return column.astype(with_gaps if column.isna().any() else complete)


def records_to_frame(
    records: Iterable[Mapping[str, Any]], *, index: Iterable[Any] | None = None
) -> pd.DataFrame:
    """One row per record, flattened with ".", ``id`` and ``handle`` first."""
    flat = [flatten(r) for r in records]
    if not flat:
        return pd.DataFrame({c: pd.Series(dtype="str") for c in FIRST_COLUMNS})
    raw = pd.DataFrame(flat, index=range(len(flat)), dtype=object)  # {} still makes a row
    typed = {name: _typed(raw[name]) for name in _order(raw.columns)}
    frame = pd.DataFrame(typed, index=raw.index)
    if index is not None:
        frame.index = pd.Index(list(index))
    return frame


def to_csv_cells(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy with list and dict cells as JSON text, for CSV output."""
    import json

    out = frame.copy()
    for name, col in out.items():
        if col.dtype == object and col.map(lambda v: isinstance(v, list | dict)).any():
            out[name] = col.map(
                lambda v: json.dumps(v, ensure_ascii=False) if isinstance(v, list | dict) else v
            )
    return out
