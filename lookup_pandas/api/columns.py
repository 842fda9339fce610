"""The columns enrichment adds, checked before anything is sent, and how each row is told.

>>> import pandas as pd
>>> check_columns(pd.DataFrame({"handle": ["ada"], "lookup_status": ["ok"]}), "handle", "p_")
Traceback (most recent call last):
lookup_pandas.errors.ColumnError: Enrichment would overwrite 1 existing column ('lookup_status')...

Shared by the pandas functions (:mod:`lookup_pandas.api.functions`) and the polars and Dask
adapters.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

import pandas as pd

from ..enrichment.provenance import PROVENANCE_COLUMNS
from ..enrichment.results import Lookup
from ..errors import ColumnError, UsageError
from ..identifiers.kinds import Kind

__all__ = [
    "ERROR_COLUMN",
    "STATUS_COLUMN",
    "HasColumns",
    "check_columns",
    "looked_up",
    "with_status",
]

STATUS_COLUMN, ERROR_COLUMN = "lookup_status", "lookup_error"


class HasColumns(Protocol):
    """A pandas or polars DataFrame, as far as :func:`check_columns` looks at it."""

    @property
    def columns(self) -> Iterable[Any]: ...


def with_status(frame: pd.DataFrame, result: Lookup) -> pd.DataFrame:
    """``frame`` with each row's ``lookup_status`` and ``lookup_error``, and its provenance.

    The provenance columns come when the job kept them (``provenance=True``).
    """
    out = frame.assign(
        **{
            STATUS_COLUMN: pd.Series(result.status, dtype="str"),
            ERROR_COLUMN: pd.Series(result.error, dtype="str"),
        }
    )
    if result.provenance is None:
        return out
    where = result.provenance.set_axis(out.index)
    return out.assign(**{name: where[name] for name in where.columns})


def check_columns(
    frame: HasColumns, column: str, prefix: str | None = None, provenance: bool = False
) -> None:
    """Refuse, before anything is sent, a missing ``column`` or columns enrichment would hit.

    Those are the ``prefix``'s, ``lookup_status``, ``lookup_error``, and with ``provenance``
    ``lookup_source``...

    >>> check_columns(pd.DataFrame({"name": ["Ada"]}), "handle")
    Traceback (most recent call last):
    lookup_pandas.errors.ColumnError: No column 'handle' in the frame...
    """
    if column not in frame.columns:
        raise ColumnError(
            f"No column {column!r} in the frame; columns are {list(map(str, frame.columns))}."
        )
    if prefix is None:
        return
    if not isinstance(prefix, str) or not prefix:
        raise UsageError(f"prefix must be a non-empty string, not {prefix!r}.")
    ours = (STATUS_COLUMN, ERROR_COLUMN, *(PROVENANCE_COLUMNS if provenance else ()))
    clash = [c for c in frame.columns if c in ours or (isinstance(c, str) and c.startswith(prefix))]
    if clash:
        shown = ", ".join(map(repr, clash[:3])) + (f" and {len(clash) - 3} more" * (len(clash) > 3))
        what = (
            f"Enrichment would overwrite {len(clash)} existing column{'s' * (len(clash) > 1)} "
            f"({shown}): its new columns start with {prefix!r}, plus {STATUS_COLUMN!r} and "
            f"{ERROR_COLUMN!r}."
        )
        raise ColumnError(
            f"{what} Pass another prefix=, or drop or rename those columns. Nothing was sent.",
            cli_message=f"{what} Give another --prefix, or use another input. Nothing was sent.",
        )


def looked_up(result: Lookup, kind: Kind) -> pd.DataFrame:
    """``result``'s fields, one row per input, with the value each row looked up.

    The key's column (``handle``, ``slug``) holds the value as sent (for an id, the record's).
    ``id`` holds the id sent when the record does not give one (a not-found id).
    See :mod:`lookup_pandas.api.enriched_frames` for an example.
    """
    frame = result.fields
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
