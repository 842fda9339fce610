"""The only JSON -> DataFrame code: flattening, column order and dtypes.

>>> records_to_frame([{"id": "prsn_1", "handle": "ada", "geo": {"city": "Berlin"},
...                    "skills": ["python"]}])
       id handle geo.city    skills
0  prsn_1    ada   Berlin  [python]
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

__all__ = [
    "COMPANY_FIELDS",
    "FIND_FIELDS",
    "FIND_PROFILE_FIELDS",
    "REVERSE_FIELDS",
    "VERIFY_FIELDS",
    "FIRST_COLUMNS",
    "PERSON_FIELDS",
    "RecordColumns",
    "flatten",
    "prefixed_names",
    "records_to_frame",
    "to_csv_cells",
    "with_nullable_dtypes",
    "with_fields",
]

FIRST_COLUMNS = ("id", "handle")

#: The person record's fields as production documents them, flattened, with the dtype a column
#: has when no row holds the field. Enrichment and get_profiles always have these columns, in
#: this order, then any other field the records carry. Only ``id`` and ``handle`` are promised
#: on every record: any other column may be empty.
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

#: The company record's fields (production's firmographics), as PERSON_FIELDS is for people.
#: Company enrichment and ``get_companies`` always have these columns. ``funding`` (when known)
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


#: A work email found (``/api/emails/v1/find``): the answer's ``email`` is named ``address``, so
#: with the prefix ``email_`` the columns read ``email_address``, ``email_found``...
FIND_FIELDS: dict[str, str] = {
    "address": "str",  # "" when none was found
    "found": "boolean",
    "confidence": "str",  # high | low
    "catch_all": "boolean",
}
#: A work email found from a profile (``/find/linkedin``): FIND_FIELDS and whom it resolved.
FIND_PROFILE_FIELDS: dict[str, str] = {
    **FIND_FIELDS,
    "first_name": "str",
    "last_name": "str",
    "domain": "str",
    "company": "str",
    "url": "str",
}
#: An address verified (``/verify``): ``address`` is the one checked.
VERIFY_FIELDS: dict[str, str] = {
    "address": "str",
    "deliverable": "boolean",
    #: mailbox_accepts, mailbox_rejected, catch_all, risky, invalid_syntax, disposable, relay,
    #: no_mx
    "reason": "str",
    "catch_all": "boolean",
    "mx_hosts": "object",
}
#: The person and company behind an address (``/reverse``), flattened as profiles are: every
#: other field of ``person`` and ``current_company`` follows these.
REVERSE_FIELDS: dict[str, str] = {
    "address": "str",
    "found": "boolean",
    "confidence": "str",  # high | medium | low | none
    "person.full_name": "str",
    "person.title": "str",
    "person.headline": "str",
    "person.profile_url": "str",
    "person.location": "str",
    "current_company.name": "str",
    "current_company.slug": "str",
    "current_company.website": "str",
}


def _order(columns: Iterable[str]) -> list[str]:
    cols = list(columns)
    return [c for c in FIRST_COLUMNS if c in cols] + [c for c in cols if c not in FIRST_COLUMNS]


def flatten(record: Mapping[str, Any], sep: str = ".", _prefix: str = "") -> dict[str, Any]:
    """Nested objects become "a.b" keys, as in ``pd.json_normalize``. Lists are kept whole.

    >>> flatten({"id": "p1", "geo": {"city": "Berlin", "country_code": "DE"}, "skills": ["sql"]})
    {'id': 'p1', 'geo.city': 'Berlin', 'geo.country_code': 'DE', 'skills': ['sql']}
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

    Then come the fields in the order the records give them. Text is pandas' default string
    dtype. Whole numbers with gaps are ``Int64`` and flags with gaps ``boolean``, so a missing
    field never turns 3 into 3.0.

    Args:
        index: the row labels (a ValueError when the lengths differ).

    >>> frame = records_to_frame([{"handle": "ada", "id": "p1", "n": 3}, {"id": "p2", "ok": True}])
    >>> frame
       id handle     n    ok
    0  p1    ada     3  <NA>
    1  p2    NaN  <NA>  True
    >>> frame["n"].dtype, frame["ok"].dtype
    (Int64Dtype(), BooleanDtype)
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

    The columns come in ``rank`` order, whatever order the records are added in. Short strings
    and the keys inside list fields are shared between records. Input records are not mutated.

    >>> columns = RecordColumns()
    >>> columns.add("bob", {"id": "p2", "n": 1}, rank=1)
    >>> columns.add("ada", {"id": "p1", "handle": "ada"}, rank=0)
    >>> columns.frame()
         id handle     n
    bob  p2    NaN     1
    ada  p1    ada  <NA>
    """

    def __init__(self) -> None:
        self.labels: list[Any] = []
        self._columns: dict[str, list[Any]] = {}
        self._shapes: dict[tuple[str, ...], int] = {}  # the fields of a record -> lowest rank
        self._memo: dict[str, str] = {}

    def __len__(self) -> int:
        return len(self.labels)

    def add(self, label: Any, record: Mapping[str, Any], rank: int | None = None) -> None:
        """Take one record, its row labelled ``label``.

        Args:
            rank: its place in input order (default: after every record added so far).
        """
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
        """The records as a frame, as :func:`records_to_frame` gives it.

        Each column is let go of as it is typed, so the records are not held twice.
        """
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
    """A new frame with whole numbers as ``Int64`` and flags as ``boolean``, ready for gaps.

    >>> frame = with_nullable_dtypes(records_to_frame([{"id": "p", "n": 3}]))
    >>> frame.reindex([0, 1])["n"].tolist()  # not 3.0, NaN
    [3, <NA>]
    """
    changes = {c: _NULLABLE[str(t)] for c, t in frame.dtypes.items() if str(t) in _NULLABLE}
    return frame.astype(changes) if changes else frame.copy(deep=False)  # copy-on-write


def with_fields(frame: pd.DataFrame, fields: Mapping[str, str]) -> pd.DataFrame:
    """A new frame with every column of ``fields`` (name: dtype, empty where absent), those first.

    >>> frame = records_to_frame([{"id": "o1", "x": 1}])
    >>> with_fields(frame, {"id": "str", "slug": "str"}).columns.tolist()
    ['id', 'slug', 'x']
    """
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

    A field that starts with the prefix keeps its name, unless another field takes that name.

    >>> prefixed_names(["id", "profile_url"], "profile_")
    {'id': 'profile_id', 'profile_url': 'profile_url'}
    >>> prefixed_names(["url", "profile_url"], "profile_")
    {'url': 'profile_url', 'profile_url': 'profile_profile_url'}
    """
    cols = list(columns)
    taken = {prefix + c for c in cols if not c.startswith(prefix)}
    return {c: c if c.startswith(prefix) and c not in taken else prefix + c for c in cols}


def to_csv_cells(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy with list and dict cells as JSON text, for CSV output.

    >>> to_csv_cells(pd.DataFrame({"skills": [["sql", "python"]]}))["skills"][0]
    '["sql", "python"]'
    """
    import json

    out = frame.copy()
    for name, col in out.items():
        if col.dtype == object and col.map(lambda v: isinstance(v, list | dict)).any():
            out[name] = col.map(
                lambda v: json.dumps(v, ensure_ascii=False) if isinstance(v, list | dict) else v
            )
    return out
