"""Adapters for other frame libraries: ``ddf.lookup`` on dask, ``pl_df.lookup`` on polars.

Each registers itself when its library is imported, before or after ``lookup_pandas``.

Example:
    >>> import lookup_pandas
    >>> import polars as pl
    >>> hasattr(pl.DataFrame({"handle": ["ada"]}), "lookup")
    True
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
    """Register each adapter when its library is imported, or now if it already is.

    Example: ``register_when_imported()``, once, from ``lookup_pandas/__init__.py``
    """
    for library, adapter in ADAPTERS.items():
        wrapt.register_post_import_hook(_register(adapter), library)
