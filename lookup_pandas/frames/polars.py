"""pandas frames as polars frames: the converter behind ``frame="polars"`` and ``pl_df.lookup``.

Example::

    to_polars(records_to_frame([{"id": "prsn_1", "handle": "ada", "skills": ["sql"]}]))
    # shape: (1, 3)  id: str, handle: str, skills: list[str]

Used by :mod:`lookup_pandas.api.listings` and :mod:`lookup_pandas.integrations.polars`; it imports
polars, so it is imported only where polars is wanted.
"""

from __future__ import annotations

import importlib
from typing import Any

import pandas as pd
import polars as pl

from ..errors import ConfigurationError

__all__ = ["INSTALL", "require_pyarrow", "to_polars"]

INSTALL = "pip install 'lookup-pandas[polars]'"


def require_pyarrow() -> Any:
    """The pyarrow module, or a ConfigurationError naming the install command.

    Example: ``require_pyarrow()`` before anything is sent, so a run never pays for answers
    it then cannot convert.
    """
    try:
        return importlib.import_module("pyarrow")
    except ImportError as exc:
        raise ConfigurationError(
            f"Converting to polars needs pyarrow, which is not installed: {INSTALL} "
            "(or pip install pyarrow)."
        ) from exc


def to_polars(frame: pd.DataFrame) -> pl.DataFrame:
    """The pandas frame as a polars DataFrame: same columns, same order, the index dropped.

    Example::

        to_polars(records_to_frame([{"id": "prsn_1", "handle": "ada",
                                     "skills": ["sql"], "follower_count": 3}]))
        # shape: (1, 4)  id: str, handle: str, skills: list[str], follower_count: i64

    The frames of :mod:`lookup_pandas.frames.records` convert column by column: ``str`` ->
    ``String``,
    ``Int64`` / ``int64`` -> ``Int64``, ``boolean`` / ``bool`` -> ``Boolean``, ``float64`` ->
    ``Float64``, every missing value (NaN, pd.NA, None) -> null; an object column of lists ->
    ``List``, its type inferred from every value (lists of objects -> ``List(Struct)`` with
    every key any element has); an object column without a value -> ``Null``; one whose values
    share no type -> ``Object``. The input is not modified.
    """
    pa = require_pyarrow()
    return pl.DataFrame([_column(str(name), col, pa) for name, col in frame.items()])


def _column(name: str, column: pd.Series, pa: Any) -> pl.Series:
    if column.dtype != object:
        return pl.from_pandas(column.rename(name))  # NaN -> null (nan_to_null)
    if not column.notna().any():
        # pyarrow would make an empty or all-NaN object column String or Float64.
        return pl.Series(name, [None] * len(column), dtype=pl.Null)
    try:
        return pl.from_pandas(column.rename(name))  # pyarrow infers from every value
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        values = column.astype(object).where(column.notna(), None).tolist()
        return pl.Series(name, values, dtype=pl.Object)
