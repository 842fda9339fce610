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

import math
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

__all__ = [
    "COMPANY_FIELDS",
    "FIRST_COLUMNS",
    "PERSON_FIELDS",
    "RecordColumns",
    "flatten",
    "prefixed_names",
    "records_to_frame",
    "to_csv_cells",
    "with_nullable_dtypes",
    "with_fields",
    "with_person_fields",
]

FIRST_COLUMNS = ("id", "handle")

#: The person record's fields as production documents them, flattened, with the dtype a column
#: has when no row holds the field. Enrichment and get_profiles always have these columns (in
#: this order, then any other field the records carry), so a run whose rows are all invalid,
#: not found or missing a field has the same columns as any other. Only ``id`` and ``handle``
#: are promised on every record: any other column may be empty.
PERSON_FIELDS: dict[str, str] = {
    "id": "str",
    "handle": "str",
    "first_name": "str",
    "last_name": "str",
    "headline": "str",
    "summary": "str",
    "positions": "object",
    "education": "object",
    "skills": "object",
    "certifications": "object",
    "languages": "object",
    "geo.city": "str",
    "geo.country_code": "str",
    "follower_count": "Int64",
    "connection_count": "Int64",
    "is_creator": "boolean",
    "is_premium": "boolean",
    "is_open_to_work": "boolean",
    "is_hiring": "boolean",
}

#: The company record's fields (production's firmographics), as PERSON_FIELDS is for people:
#: company enrichment and ``get_companies`` always have these columns. ``funding`` (when known)
#: and anything else the records carry follow them.
COMPANY_FIELDS: dict[str, str] = {
    "id": "str",
    "slug": "str",
    "name": "str",
    "url": "str",
    "logo_url": "str",
    "description": "str",
    "tagline": "str",
    "industry": "str",
    "employee_count": "Int64",
    "employee_count_range": "str",
    "hq.city": "str",
    "hq.country_code": "str",
    "locations": "object",
    "founded": "Int64",
    "specialties": "object",
    "follower_count": "Int64",
}


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
        name = key if not _prefix and type(key) is str else f"{_prefix}{key}"
        if isinstance(value, Mapping) and value:
            out.update(flatten(value, sep, name + sep))
        else:
            out[name] = value
    return out


_DTYPES = {
    "integer": ("int64", "Int64"),
    "boolean": ("bool", "boolean"),
    "floating": ("float64", "float64"),
    "mixed-integer-float": ("float64", "float64"),
    "string": ("str", "str"),
}


def _typed(column: pd.Series) -> pd.Series:
    """The pandas-native dtype for a column of JSON values (object when mixed or nested)."""
    kind = pd.api.types.infer_dtype(column, skipna=True)
    if kind not in _DTYPES:
        return column
    complete, with_gaps = _DTYPES[kind]
    dtype: Any = with_gaps if column.isna().any() else complete
    typed: pd.Series = column.astype(dtype)
    return typed


def records_to_frame(
    records: Iterable[Mapping[str, Any]], *, index: Iterable[Any] | None = None
) -> pd.DataFrame:
    """One row per record, flattened with ".", ``id`` and ``handle`` first.

    Example: ``records_to_frame([{"id": "p1", "geo": {"city": "Berlin"}}]).columns`` ->
    ``["id", "geo.city"]``; ``index``: the row labels (ValueError when the lengths differ).
    """
    columns = RecordColumns()
    for rank, record in enumerate(records):
        columns.add(rank, record)
    frame = columns.frame()
    if index is not None:
        frame.index = pd.Index(list(index))
    return frame


#: What a record without a field holds in that field's column (as ``pd.DataFrame(records)``).
_MISSING = math.nan
#: Strings up to this long are shared between records (names, cities, titles, dates...).
_SHARED_LEN = 64


class RecordColumns:
    """Records kept column by column as they come: each flattened at once, its dict let go.

    Example::

        columns = RecordColumns()
        columns.add("ada", {"id": "p1", "handle": "ada", "skills": ["sql"]})
        columns.frame()    # one row, labelled "ada", as records_to_frame gives

    The column order is the order ``records_to_frame`` gives the records sorted by ``rank``
    (fields first seen first), whatever order they are added in. Short strings, and the keys of
    objects inside list fields, are shared between records (JSON decoding gives every record
    its own copies), which halves what the records hold. Input records are not mutated.
    """

    def __init__(self) -> None:
        self.labels: list[Any] = []
        self._columns: dict[str, list[Any]] = {}
        self._shapes: dict[tuple[str, ...], int] = {}  # the fields of a record -> lowest rank
        self._memo: dict[str, str] = {}

    def __len__(self) -> int:
        return len(self.labels)

    def add(self, label: Any, record: Mapping[str, Any], rank: int | None = None) -> None:
        """Take one record, its row labelled ``label``; ``rank``: its place in input order
        (default: after every record added so far)."""
        n = len(self.labels)
        rank = n if rank is None else rank
        flat = flatten(record)
        shape = tuple(flat)
        if rank < self._shapes.get(shape, rank + 1):
            self._shapes[shape] = rank
        columns, memo = self._columns, self._memo
        for name, value in flat.items():
            column = columns.get(name)
            if column is None:
                column = columns[name] = [_MISSING] * n
            if type(value) is str:
                column.append(memo.setdefault(value, value) if len(value) <= _SHARED_LEN else value)
            elif type(value) is list and value:
                column.append(_shared(value, memo))
            else:
                column.append(value)
        if len(flat) < len(columns):
            for column in columns.values():
                if len(column) == n:  # a field this record lacks
                    column.append(_MISSING)
        self.labels.append(label)

    def frame(self) -> pd.DataFrame:
        """The records as a frame (see records_to_frame); the columns are let go of as they
        are typed, so the records are not held twice."""
        if not self.labels:
            return pd.DataFrame({c: pd.Series(dtype="str") for c in FIRST_COLUMNS})
        # Fields first seen first, in rank order: the shapes by their lowest rank.
        names: dict[str, None] = {}
        for shape in sorted(self._shapes, key=self._shapes.__getitem__):
            names.update(dict.fromkeys(shape))
        rows = pd.RangeIndex(len(self.labels))
        typed: dict[str, pd.Series] = {}
        for name in _order(names):
            typed[name] = _typed(pd.Series(self._columns.pop(name), index=rows, dtype=object))
        self._shapes.clear()
        self._memo.clear()
        frame = pd.DataFrame(typed, index=rows)
        frame.index = pd.Index(self.labels)
        return frame


def _shared(value: list[Any] | dict[str, Any], memo: dict[str, str]) -> Any:
    """``value`` rebuilt with its keys and short strings taken from ``memo`` (added there)."""
    get = memo.setdefault
    pairs = value.items() if type(value) is dict else enumerate(value)
    out: dict[Any, Any] = {}
    for key, item in pairs:
        kind = type(item)
        if kind is str:
            if len(item) <= _SHARED_LEN:
                item = get(item, item)
        elif kind is dict or kind is list:
            item = _shared(item, memo)
        out[get(key, key) if type(key) is str else key] = item
    return out if type(value) is dict else list(out.values())


#: The dtype that can hold a gap, for each dtype that cannot (a gap would turn 3 into 3.0).
_NULLABLE = {"int64": "Int64", "bool": "boolean"}


def with_nullable_dtypes(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with whole numbers as ``Int64`` and flags as ``boolean``: ready for rows
    without a record, which a reindex fills with missing values.

    Example: ``with_nullable_dtypes(records_to_frame([{"id": "p", "n": 3}])).reindex([0, 1])``
    has ``n`` = ``3, <NA>`` (``Int64``), not ``3.0, NaN``. Other columns are unchanged;
    returns a new frame.
    """
    changes = {c: _NULLABLE[str(t)] for c, t in frame.dtypes.items() if str(t) in _NULLABLE}
    return frame.astype(changes) if changes else frame.copy(deep=False)  # copy-on-write


def with_person_fields(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every PERSON_FIELDS column (empty where absent), those first.

    Example: ``with_person_fields(records_to_frame([]))`` has columns ``id, handle, first_name,
    ..., is_hiring``, all empty. Returns a new frame.
    """
    return with_fields(frame, PERSON_FIELDS)


def with_fields(frame: pd.DataFrame, fields: Mapping[str, str]) -> pd.DataFrame:
    """``frame`` with every column of ``fields`` (name -> dtype; empty where absent), those
    first. Example: ``with_fields(records_to_frame([]), COMPANY_FIELDS)``."""
    missing = {
        name: pd.Series(
            pd.NA if dtype in ("Int64", "boolean") else math.nan, index=frame.index, dtype=dtype
        )
        for name, dtype in fields.items()
        if name not in frame.columns
    }
    out = frame.assign(**missing) if missing else frame.copy(deep=False)  # copy-on-write
    rest = [c for c in frame.columns if c not in fields]
    return out[[*fields, *rest]]


def prefixed_names(columns: Iterable[str], prefix: str) -> dict[str, str]:
    """The output name of each field: ``prefix + field``, but never the prefix twice.

    Example: ``prefixed_names(["id", "profile_url"], "profile_")`` ->
    ``{"id": "profile_id", "profile_url": "profile_url"}``. A field that already starts with
    the prefix keeps its name, unless another field takes that name once prefixed
    (``url`` -> ``profile_url``); then it is prefixed as usual (``profile_profile_url``).
    """
    cols = list(columns)
    taken = {prefix + c for c in cols if not c.startswith(prefix)}
    return {c: c if c.startswith(prefix) and c not in taken else prefix + c for c in cols}


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
