"""Adapters for other frame libraries: ``ddf.lookup`` on dask, ``pl_df.lookup`` on polars.

Example::

    import lookup_pandas            # before or after dask / polars: either order works
    import polars as pl
    pl.DataFrame({"handle": ["ada"]}).lookup.enrich_profiles("handle")

Each adapter is a thin layer over the same enrichment engine
(:mod:`lookup_pandas.enrichment.values`).
Neither library is imported by ``import lookup_pandas``: a post-import hook (wrapt's) registers
the namespace the moment the library itself is imported, or at once if it already is. A
library that is not installed is never imported and costs nothing.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType

import wrapt

__all__ = ["register_when_imported"]

#: the library module whose import registers the adapter -> the adapter module
ADAPTERS = {
    "polars": "lookup_pandas.integrations.polars",
    "dask.dataframe": "lookup_pandas.integrations.dask",
}


def _register(adapter: str) -> Callable[[ModuleType], None]:
    def hook(_module: ModuleType) -> None:
        importlib.import_module(adapter)  # importing the adapter registers its namespace

    return hook


def register_when_imported() -> None:
    """Register each adapter when (or, if already, now that) its library is imported."""
    for library, adapter in ADAPTERS.items():
        wrapt.register_post_import_hook(_register(adapter), library)
