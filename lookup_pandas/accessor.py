"""``df.lookup``: enrichment as a DataFrame accessor (registered when lookup_pandas is imported).

Example::

    import lookup_pandas  # noqa: F401  registers the accessor
    leads.lookup.estimate_profiles("handle")      # Estimate(rows=..., to_fetch=...)
    enriched = leads.lookup.enrich_profiles("handle", max_calls=500)

pandas builds a new accessor object on every ``df.lookup`` access, so it holds nothing but the
frame; all the work is in :mod:`lookup_pandas.api`.
"""

from __future__ import annotations

import pandas as pd

from . import api
from .client import Client
from .enrich import Errors, Estimate, Method

__all__ = ["LookupAccessor"]


@pd.api.extensions.register_dataframe_accessor("lookup")
class LookupAccessor:
    """``df.lookup.enrich_profiles(...)`` and ``df.lookup.estimate_profiles(...)``."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self._frame = frame

    def enrich_profiles(
        self,
        column: str = "handle",
        *,
        prefix: str = "profile_",
        errors: Errors = "coerce",
        max_calls: int | None = None,
        refresh: bool = False,
        client: Client | None = None,
        progress: bool | None = None,
        fold_case: bool = True,
        method: Method = "auto",
    ) -> pd.DataFrame:
        return api.enrich_profiles(
            self._frame,
            column,
            prefix=prefix,
            errors=errors,
            max_calls=max_calls,
            refresh=refresh,
            client=client,
            progress=progress,
            fold_case=fold_case,
            method=method,
        )

    def estimate_profiles(
        self,
        column: str = "handle",
        *,
        client: Client | None = None,
        fold_case: bool = True,
        method: Method = "auto",
    ) -> Estimate:
        return api.estimate_profiles(
            self._frame, column, client=client, fold_case=fold_case, method=method
        )

    # help(df.lookup.enrich_profiles) shows the whole documentation, written once in api.
    enrich_profiles.__doc__ = api.enrich_profiles.__doc__
    estimate_profiles.__doc__ = api.estimate_profiles.__doc__
