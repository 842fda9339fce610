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

from ..api import emails
from ..api import functions as api
from ..api.adapters import FrameAccessor, arguments, delegates_to, frame_method
from ..api.columns import Columns, check_columns, column_names, run_columns
from ..enrichment.results import Estimate
from ..errors import UsageError
from ..frames.arrow import nested_types
from ..frames.polars import require_pyarrow, to_polars

__all__ = [
    "LookupNamespace",
    "enrich_companies",
    "enrich_profiles",
    "estimate_companies",
    "estimate_find_emails",
    "estimate_profiles",
    "estimate_reverse_emails",
    "estimate_verify_emails",
    "find_emails",
    "require_pyarrow",
    "reverse_emails",
    "to_polars",
    "verify_emails",
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


@delegates_to(emails.find_emails)
def find_emails(frame: pl.DataFrame, *args: Any, **options: Any) -> pl.DataFrame:
    """On a polars DataFrame: a new polars DataFrame, as ``enrich_profiles`` there.

    Example: ``pl_leads.lookup.find_emails("first", "last", "website")``
    """
    return _enriched(emails.find_emails, frame, *args, **options)


@delegates_to(emails.verify_emails)
def verify_emails(frame: pl.DataFrame, *args: Any, **options: Any) -> pl.DataFrame:
    """On a polars DataFrame: a new polars DataFrame, as ``enrich_profiles`` there.

    Example: ``pl.DataFrame({"email": ["jane@acme.com"]}).lookup.verify_emails("email")``
    """
    return _enriched(emails.verify_emails, frame, *args, **options)


@delegates_to(emails.reverse_emails)
def reverse_emails(frame: pl.DataFrame, *args: Any, **options: Any) -> pl.DataFrame:
    """On a polars DataFrame: a new polars DataFrame, as ``enrich_profiles`` there.

    Example: ``pl.DataFrame({"email": ["jane@acme.com"]}).lookup.reverse_emails("email")``
    """
    return _enriched(emails.reverse_emails, frame, *args, **options)


def _enriched(enrich: Any, frame: pl.DataFrame, *args: Any, **options: Any) -> pl.DataFrame:
    """``enrich`` (api's) on the column's values, its added columns converted to polars."""
    given = arguments(enrich, frame, *args, **options)
    if given.get("background"):
        raise UsageError(
            "background=True is for pandas frames: run frame.to_pandas() through it, or "
            "lookup_pandas.integrations.polars.to_polars(job.result()) afterwards."
        )
    prefix = given["prefix"]
    columns = emails.read_columns(given)
    own = check_columns(frame, columns, prefix, given["provenance"])
    require_pyarrow()  # before anything is paid for
    values = _values(frame, columns)
    enriched = enrich(values, *args, **options)
    # the columns read stay polars'; a later enrichment's statuses are named by its prefix
    names = dict(zip(run_columns(), run_columns(own), strict=True))
    added = enriched.iloc[:, values.shape[1] :].rename(columns=names)
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


@delegates_to(emails.estimate_find_emails)
def estimate_find_emails(frame: pl.DataFrame, *args: Any, **options: Any) -> Estimate:
    """On a polars DataFrame: the same Estimate.

    Example: ``pl_leads.lookup.estimate_find_emails("first", "last", "website").credits``
    """
    return _estimated(emails.estimate_find_emails, frame, *args, **options)


@delegates_to(emails.estimate_verify_emails)
def estimate_verify_emails(frame: pl.DataFrame, *args: Any, **options: Any) -> Estimate:
    """On a polars DataFrame: the same Estimate.

    Example: ``pl_leads.lookup.estimate_verify_emails("email").credits``
    """
    return _estimated(emails.estimate_verify_emails, frame, *args, **options)


@delegates_to(emails.estimate_reverse_emails)
def estimate_reverse_emails(frame: pl.DataFrame, *args: Any, **options: Any) -> Estimate:
    """On a polars DataFrame: the same Estimate.

    Example: ``pl_leads.lookup.estimate_reverse_emails("email").credits``
    """
    return _estimated(emails.estimate_reverse_emails, frame, *args, **options)


def _estimated(estimate: Any, frame: pl.DataFrame, *args: Any, **options: Any) -> Estimate:
    """``estimate`` (api's) on the column's values."""
    columns = emails.read_columns(arguments(estimate, frame, *args, **options))
    check_columns(frame, columns)
    result: Estimate = estimate(_values(frame, columns), *args, **options)
    return result


def _values(frame: pl.DataFrame, columns: Columns) -> pd.DataFrame:
    """The columns read as a pandas frame, their values unchanged (null becomes None)."""
    return pd.DataFrame(
        {
            name: pd.Series(frame.get_column(name).to_list(), dtype=object)
            for name in column_names(columns)
        }
    )


@pl.api.register_dataframe_namespace("lookup")
class LookupNamespace(FrameAccessor[pl.DataFrame]):
    """``pl_df.lookup.enrich_profiles(...)``, ``pl_df.lookup.verify_emails(...)``... and their
    estimates: the pandas accessor's methods."""

    enrich_profiles = frame_method(enrich_profiles)
    estimate_profiles = frame_method(estimate_profiles)
    enrich_companies = frame_method(enrich_companies)
    estimate_companies = frame_method(estimate_companies)
    find_emails = frame_method(find_emails)
    estimate_find_emails = frame_method(estimate_find_emails)
    verify_emails = frame_method(verify_emails)
    estimate_verify_emails = frame_method(estimate_verify_emails)
    reverse_emails = frame_method(reverse_emails)
    estimate_reverse_emails = frame_method(estimate_reverse_emails)
