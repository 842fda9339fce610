"""``pl_df.lookup``: profile enrichment on polars DataFrames; the pandas -> polars converter.

Example::

    import polars as pl
    import lookup_pandas            # before or after polars: either order registers pl_df.lookup

    leads = pl.read_csv("leads.csv")
    leads.lookup.estimate_profiles("handle")        # Estimate(rows=..., to_fetch=...): free
    enriched = leads.lookup.enrich_profiles("handle", max_calls=500)
    enriched.filter(pl.col("lookup_status") == "ok").select("handle", "profile_geo.city")

    lp.search_people("engineer", frame="polars")    # the listing functions convert with to_polars

Each method is pandas' (:mod:`lookup_pandas.api.functions`, the same keywords and engine) on the
column's
values, its added columns converted with :func:`to_polars`: the same requests, column names
(nested objects flattened with ".": ``profile_geo.city``) and values as a pandas run. Text is
``String``, whole numbers ``Int64``, flags ``Boolean``, lists ``List`` (``List(Struct)`` for
``positions``), missing values null; a column no row has a value for is ``Null``. pyarrow is
needed (a ConfigurationError naming the extra before anything is sent).

Imported by :mod:`lookup_pandas.integrations` the moment polars is, and by nothing else.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import polars as pl

from ..api import functions as api
from ..api.adapters import FrameAccessor, arguments, delegates_to, frame_method
from ..enrichment.results import Estimate
from ..errors import UsageError
from ..frames.polars import require_pyarrow, to_polars

__all__ = [
    "LookupNamespace",
    "enrich_companies",
    "enrich_profiles",
    "estimate_companies",
    "estimate_profiles",
    "require_pyarrow",
    "to_polars",
]


@delegates_to(api.enrich_profiles)
def enrich_profiles(frame: pl.DataFrame, *args: Any, **options: Any) -> pl.DataFrame:
    """On a polars DataFrame: a new polars DataFrame, the input columns untouched (values,
    dtypes, order), missing values null (dtypes: :mod:`lookup_pandas.integrations.polars`).

    Example: ``pl.DataFrame({"handle": ["ada", None]}).lookup.enrich_profiles("handle")``
    """
    return _enriched(api.enrich_profiles, frame, *args, **options)


@delegates_to(api.enrich_companies)
def enrich_companies(frame: pl.DataFrame, *args: Any, **options: Any) -> pl.DataFrame:
    """On a polars DataFrame: a new polars DataFrame, as ``enrich_profiles`` there.

    Example: ``pl.DataFrame({"slug": ["acme", None]}).lookup.enrich_companies("slug")``
    """
    return _enriched(api.enrich_companies, frame, *args, **options)


def _enriched(enrich: Any, frame: pl.DataFrame, *args: Any, **options: Any) -> pl.DataFrame:
    """``enrich`` (api's) on the column's values, its added columns converted to polars."""
    given = arguments(enrich, frame, *args, **options)
    if given["background"]:
        raise UsageError(
            "background=True is for pandas frames: run frame.to_pandas() through it, or "
            "lookup_pandas.integrations.polars.to_polars(job.result()) afterwards."
        )
    api.check_columns(frame, given["column"], given["prefix"], given["provenance"])
    require_pyarrow()  # before anything is paid for
    enriched = enrich(_values(frame, given["column"]), *args, **options)
    added = to_polars(enriched.iloc[:, 1:])  # the column itself stays polars'
    return pl.concat([frame, added], how="horizontal")


@delegates_to(api.estimate_profiles)
def estimate_profiles(frame: pl.DataFrame, *args: Any, **options: Any) -> Estimate:
    """On a polars DataFrame: the same Estimate.

    Example: ``pl.DataFrame({"handle": ["ada"]}).lookup.estimate_profiles("handle").to_fetch``
    """
    return _estimated(api.estimate_profiles, frame, *args, **options)


@delegates_to(api.estimate_companies)
def estimate_companies(frame: pl.DataFrame, *args: Any, **options: Any) -> Estimate:
    """On a polars DataFrame: the same Estimate.

    Example: ``pl.DataFrame({"slug": ["acme"]}).lookup.estimate_companies("slug").to_fetch``
    """
    return _estimated(api.estimate_companies, frame, *args, **options)


def _estimated(estimate: Any, frame: pl.DataFrame, *args: Any, **options: Any) -> Estimate:
    """``estimate`` (api's) on the column's values."""
    column = arguments(estimate, frame, *args, **options)["column"]
    api.check_columns(frame, column)
    result: Estimate = estimate(_values(frame, column), *args, **options)
    return result


def _values(frame: pl.DataFrame, column: str) -> pd.DataFrame:
    """The column as a one-column pandas frame, its values unchanged (null -> None)."""
    return pd.DataFrame({column: pd.Series(frame.get_column(column).to_list(), dtype=object)})


@pl.api.register_dataframe_namespace("lookup")
class LookupNamespace(FrameAccessor[pl.DataFrame]):
    """``pl_df.lookup.enrich_profiles(...)`` and ``pl_df.lookup.estimate_profiles(...)``."""

    enrich_profiles = frame_method(enrich_profiles)
    estimate_profiles = frame_method(estimate_profiles)
    enrich_companies = frame_method(enrich_companies)
    estimate_companies = frame_method(estimate_companies)
