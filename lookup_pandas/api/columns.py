"""The columns enrichment adds, checked before anything is sent, and how each row is told.

The first enrichment of a frame adds ``lookup_status`` and ``lookup_error``. One chained after
it names its own ``prefix + "lookup_status"`` and so on, so each run's statuses say whose they
are; only the columns its prefix would overwrite are refused.

>>> import pandas as pd
>>> check_columns(pd.DataFrame({"handle": ["ada"]}), "handle", "profile_")
''
>>> people = pd.DataFrame({"company": ["acme"], "lookup_status": ["ok"], "lookup_error": [None]})
>>> own = check_columns(people, "company", "acct_")  # people enriched, then companies
>>> own, run_columns(own)[:2]
('acct_', ['acct_lookup_status', 'acct_lookup_error'])
>>> check_columns(people.assign(acct_name="Acme"), "company", "acct_")
Traceback (most recent call last):
lookup_pandas.errors.ColumnError: Enrichment would overwrite 1 existing column ('acct_name')...

Shared by the pandas functions (:mod:`lookup_pandas.api.functions`) and the polars and Dask
adapters.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

import pandas as pd

from ..enrichment.provenance import CHECKED_AT_COLUMN, PROVENANCE_COLUMNS
from ..enrichment.results import LookupResult
from ..errors import ColumnError, UsageError
from ..identifiers.kinds import Kind

__all__ = [
    "ERROR_COLUMN",
    "STATUS_COLUMN",
    "Columns",
    "HasColumns",
    "check_columns",
    "column_names",
    "column_values",
    "looked_up",
    "run_columns",
    "with_status",
]

STATUS_COLUMN, ERROR_COLUMN = "lookup_status", "lookup_error"
#: The column a lookup reads its values from, or the columns whose row is one value (a find's).
Columns = str | tuple[str, ...]
#: A run's own columns as the first enrichment of a frame names them: statuses, provenance.
_OWN_COLUMNS = (STATUS_COLUMN, ERROR_COLUMN, *PROVENANCE_COLUMNS, CHECKED_AT_COLUMN)


class HasColumns(Protocol):
    """A pandas or polars DataFrame, as far as :func:`check_columns` looks at it."""

    @property
    def columns(self) -> Iterable[Any]: ...


def run_columns(own: str = "") -> list[str]:
    """A run's status, error and provenance columns, named with ``own`` (see the module).

    >>> run_columns()[:2]
    ['lookup_status', 'lookup_error']
    """
    return [own + name for name in _OWN_COLUMNS]


def with_status(frame: pd.DataFrame, result: LookupResult, own: str = "") -> pd.DataFrame:
    """``frame`` with each row's ``lookup_status`` and ``lookup_error``, and its provenance.

    The provenance columns come when the job kept them (``provenance=True``). ``own`` is what
    :func:`check_columns` gave: the prefix of these names, ``""`` for the first enrichment.
    """
    out = frame.assign(
        **{
            own + STATUS_COLUMN: pd.Series(result.status, dtype="str"),
            own + ERROR_COLUMN: pd.Series(result.error, dtype="str"),
        }
    )
    if result.provenance is None:
        return out
    where = result.provenance.set_axis(out.index)
    return out.assign(**{own + str(name): where[name] for name in where.columns})


def check_columns(
    frame: HasColumns, column: Columns, prefix: str | None = None, provenance: bool = False
) -> str:
    """Refuse, before anything is sent, a missing ``column`` or columns enrichment would hit.

    Returns the prefix of the run's status (and provenance) columns: ``""`` when
    ``lookup_status``, ``lookup_error`` (and with ``provenance`` ``lookup_source``...) are free,
    else ``prefix``. Refused are the columns that start with ``prefix``: the run would
    overwrite them.

    >>> check_columns(pd.DataFrame({"name": ["Ada"]}), "handle")
    Traceback (most recent call last):
    lookup_pandas.errors.ColumnError: No column 'handle' in the frame...
    """
    for name in column_names(column):
        if name not in frame.columns:
            raise ColumnError(
                f"No column {name!r} in the frame; columns are {list(map(str, frame.columns))}."
            )
    if prefix is None:
        return ""
    if not isinstance(prefix, str) or not prefix:
        raise UsageError(f"prefix must be a non-empty string, not {prefix!r}.")
    clash = [c for c in frame.columns if isinstance(c, str) and c.startswith(prefix)]
    if clash:
        shown = ", ".join(map(repr, clash[:3])) + (f" and {len(clash) - 3} more" * (len(clash) > 3))
        what = (
            f"Enrichment would overwrite {len(clash)} existing column{'s' * (len(clash) > 1)} "
            f"({shown}): its new columns start with {prefix!r}."
        )
        raise ColumnError(
            f"{what} Pass another prefix= (one no column starts with), or drop those columns. "
            "Nothing was sent.",
            cli_message=f"{what} Give another --prefix (one no column of the input starts "
            "with). Nothing was sent.",
        )
    ours = run_columns() if provenance else run_columns()[:2]
    return prefix if any(c in ours for c in frame.columns) else ""


def column_names(column: Columns) -> list[str]:
    """The names of the columns a lookup reads, once each.

    >>> column_names("email"), column_names(("first", "last", "first"))
    (['email'], ['first', 'last'])
    """
    return [column] if isinstance(column, str) else list(dict.fromkeys(column))


def column_values(frame: pd.DataFrame, column: Columns) -> pd.Series:
    """The values a lookup reads from ``frame``: one column's, or for several columns one tuple
    a row (a find's first name, last name and domain).

    >>> frame = pd.DataFrame({"first": ["Jane"], "last": ["Doe"], "domain": ["acme.com"]})
    >>> column_values(frame, ("first", "last", "domain")).tolist()
    [('Jane', 'Doe', 'acme.com')]
    """
    if isinstance(column, str):
        return frame[column]
    parts = [frame[name].tolist() for name in column]
    return pd.Series(list(zip(*parts, strict=True)), index=frame.index, dtype=object)


def looked_up(result: LookupResult, kind: Kind) -> pd.DataFrame:
    """``result``'s fields, one row per input, with the value each row looked up.

    The key's column (``handle``, ``slug``) holds the value as sent (for an id, the record's).
    ``id`` holds the id sent when the record does not give one (a not-found id). A kind with no
    ids (the Email API's) has the value as sent first, in the columns it is sent as (``email``;
    ``first_name``, ``last_name``, ``domain``; ``url``), and its fields after them.
    See :mod:`lookup_pandas.api.enriched_frames` for an example.
    """
    frame = result.fields
    if not kind.endpoint.ids:
        names = list(kind.endpoint.parts or [kind.endpoint.key or ""])
        queries = [{} if h is None else kind.params(h) for h in result.handles]
        as_sent = pd.DataFrame(queries, columns=names, index=frame.index, dtype="str")
        return pd.concat([as_sent, frame.drop(columns=names, errors="ignore")], axis=1)
    key = kind.endpoint.key or "id"
    sent = [None if h is None else kind.endpoint.param_for(h) for h in result.handles]
    by_key = [v[1] if v is not None and v[0] == key else None for v in sent]
    by_id = pd.Series([v[1] if v is not None and v[0] == "id" else None for v in sent])
    if key in frame.columns and any(v is not None and v[0] != key for v in sent):
        by_key = [k if k is not None else r for k, r in zip(by_key, frame[key], strict=True)]
    frame = frame.drop(columns=key, errors="ignore")
    frame.insert(int("id" in frame.columns), key, pd.Series(by_key, dtype="str"))
    if "id" in frame.columns and by_id.notna().any():
        frame["id"] = frame["id"].where(frame["id"].notna(), by_id.astype("str"))
    return frame
