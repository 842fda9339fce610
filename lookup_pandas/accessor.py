"""``df.lookup``: enrichment as a DataFrame accessor (registered when lookup_pandas is imported).

Example::

    import lookup_pandas  # noqa: F401  registers the accessor
    leads.lookup.estimate_profiles("handle")      # Estimate(rows=..., to_fetch=...)
    enriched = leads.lookup.enrich_profiles("handle", max_calls=500)

Each method is :mod:`lookup_pandas.api.functions`'s function of the same name, made by
:func:`~lookup_pandas.api.adapters.frame_method`: its signature, docstring and types are api's.
pandas-stubs types ``df.lookup`` as a column, so a type checker sees the methods' types through
the class: ``LookupAccessor(leads).enrich_profiles("handle")`` is a DataFrame, and with
``background=True`` an EnrichmentJob.
"""

from __future__ import annotations

import pandas as pd

from .api import functions as api
from .api.adapters import FrameAccessor, frame_method

__all__ = ["LookupAccessor"]


@pd.api.extensions.register_dataframe_accessor("lookup")
class LookupAccessor(FrameAccessor[pd.DataFrame]):
    """``df.lookup.enrich_profiles(...)``, ``df.lookup.enrich_companies(...)`` and their
    estimates."""

    enrich_profiles = frame_method(api.enrich_profiles)
    estimate_profiles = frame_method(api.estimate_profiles)
    enrich_companies = frame_method(api.enrich_companies)
    estimate_companies = frame_method(api.estimate_companies)
