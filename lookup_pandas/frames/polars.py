"""pandas frames as polars frames: the converter behind ``frame="polars"`` and ``pl_df.lookup``.

>>> import polars as pl
>>> from lookup_pandas.frames.records import records_to_frame
>>> frame = to_polars(records_to_frame([{"id": "prsn_1", "handle": "ada", "skills": ["sql"]}]))
>>> frame.columns, frame.dtypes == [pl.String, pl.String, pl.List(pl.String)]
(['id', 'handle', 'skills'], True)
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..errors import ConfigurationError

if TYPE_CHECKING:
    import polars as pl

__all__ = ["INSTALL", "require_pyarrow", "to_polars"]

INSTALL = "pip install 'lookup-pandas[polars]'"


def require_pyarrow() -> Any:
    """The pyarrow module, or a ConfigurationError naming the install command.

    >>> require_pyarrow().__name__
    'pyarrow'
    """
    try:
        return importlib.import_module("pyarrow")
    except ImportError as exc:
        raise ConfigurationError(
            f"Converting to polars needs pyarrow, which is not installed: {INSTALL} "
            "(or pip install pyarrow)."
        ) from exc


def to_polars(frame: pd.DataFrame, types: Mapping[str, Any] | None = None) -> pl.DataFrame:
    """The pandas frame as a polars DataFrame: same columns, same order, the index dropped.

    Each column keeps its type: ``str`` becomes ``String``, ``Int64`` and ``int64`` become
    ``Int64``, ``boolean`` and ``bool`` become ``Boolean``, and every missing value becomes
    null. A column of lists becomes a ``List``, its type inferred from every value. A column
    without a value has its arrow type in ``types`` (by name), else ``Null``. One whose values
    share no type becomes ``Object``. The input is not modified.

    >>> import pyarrow as pa
    >>> frame = pd.DataFrame({"n": pd.array([3, None], dtype="Int64"), "x": [None, None]})
    >>> converted = to_polars(frame)
    >>> converted["n"].to_list(), str(converted["n"].dtype), str(converted["x"].dtype)
    ([3, None], 'Int64', 'Null')
    >>> to_polars(frame, {"x": pa.list_(pa.string())}).schema["x"]
    List(String)
    """
    import polars as pl  # here, not at the top: importing polars imports the polars adapter

    pa = require_pyarrow()
    known = types or {}
    return pl.DataFrame(
        [_column(str(name), col, pa, known.get(str(name))) for name, col in frame.items()]
    )


def _column(name: str, column: pd.Series, pa: Any, declared: Any) -> pl.Series:
    import polars as pl

    if column.dtype != object:
        return pl.from_pandas(column.rename(name))  # NaN -> null (nan_to_null)
    if not column.notna().any():
        # pyarrow would make an empty or all-NaN object column String or Float64.
        if declared is not None:
            nulls = pl.from_arrow(pa.nulls(len(column), declared))
            assert isinstance(nulls, pl.Series)
            return nulls.alias(name)
        return pl.Series(name, [None] * len(column), dtype=pl.Null)
    try:
        return pl.from_pandas(column.rename(name))  # pyarrow infers from every value
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        values = column.astype(object).where(column.notna(), None).tolist()
        return pl.Series(name, values, dtype=pl.Object)
