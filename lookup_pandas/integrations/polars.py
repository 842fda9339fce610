"""``pl_df.lookup``: enrichment on polars DataFrames, through pandas' functions.

The requests, column names and values are those of a pandas run. Text is ``String``, whole
numbers ``Int64``, flags ``Boolean``, lists ``List`` (a nested field no record holds has
its type from :mod:`lookup_pandas.frames.arrow`), missing values null. pyarrow is needed.

Example:
    >>> import lookup_pandas as lp
    >>> from lookup_pandas.testing import MockTransport, people_service
    >>> ada = {"id": "prsn_1", "handle": "ada", "geo": {"city": "Oslo"}}
    >>> answer = people_service(ada, limit_per_minute=600, balance=100)
    >>> client = lp.Client(api_key="lk_example", base_url="http://service.test", cache=False,
    ...                    transport=MockTransport(answer))
    >>> leads = pl.DataFrame({"handle": ["ada", None]})
    >>> enriched = leads.lookup.enrich_profiles("handle", client=client, progress=False)
    >>> enriched.select("handle", "profile_geo.city", "lookup_status").rows()
    [('ada', 'Oslo', 'ok'), (None, None, 'invalid')]
    >>> enriched.schema["profile_follower_count"]
    Int64
    >>> client.close()
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import polars as pl

from ..api import functions as api
from ..api.adapters import FrameAccessor, arguments, delegates_to, frame_method
from ..api.columns import check_columns, run_columns
from ..enrichment.results import Estimate
from ..errors import UsageError
from ..frames.arrow import nested_types
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
    """On a polars DataFrame: a new polars DataFrame, the input columns untouched.

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
    prefix = given["prefix"]
    own = check_columns(frame, given["column"], prefix, given["provenance"])
    require_pyarrow()  # before anything is paid for
    enriched = enrich(_values(frame, given["column"]), *args, **options)
    # the column itself stays polars'; a later enrichment's statuses are named by its prefix
    names = dict(zip(run_columns(), run_columns(own), strict=True))
    added = enriched.iloc[:, 1:].rename(columns=names)
    typed = to_polars(added, nested_types(None, prefix))
    return pl.concat([frame, typed], how="horizontal")


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
    check_columns(frame, column)
    result: Estimate = estimate(_values(frame, column), *args, **options)
    return result


def _values(frame: pl.DataFrame, column: str) -> pd.DataFrame:
    """The column as a one-column pandas frame, its values unchanged (null becomes None)."""
    return pd.DataFrame({column: pd.Series(frame.get_column(column).to_list(), dtype=object)})


@pl.api.register_dataframe_namespace("lookup")
class LookupNamespace(FrameAccessor[pl.DataFrame]):
    """``pl_df.lookup.enrich_profiles(...)`` and ``pl_df.lookup.estimate_profiles(...)``."""

    enrich_profiles = frame_method(enrich_profiles)
    estimate_profiles = frame_method(estimate_profiles)
    enrich_companies = frame_method(enrich_companies)
    estimate_companies = frame_method(estimate_companies)
