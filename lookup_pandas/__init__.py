"""lookup_pandas: a billable, rate-limited people-and-companies data API in pandas and Jupyter.

Example::

    import lookup_pandas as lp

    client = lp.configure(api_key="lk_...", base_url="https://api.example.com")
    client.profile("ada-lovelace")          # cached on disk: asking again costs nothing

Importing the package registers the ``df.lookup`` accessor, and ``ddf.lookup`` / ``pl_df.lookup``
as soon as dask.dataframe / polars is imported (see :mod:`lookup_pandas.integrations`).
"""

import logging as _logging
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

from . import accessor as _accessor  # noqa: F401  registers df.lookup
from . import errors
from ._version import __version__
from .api.account import balance, credits_tier, route_costs, tiers
from .api.emails import email_prospects, get_email_owners, get_email_verdicts, get_work_emails
from .api.functions import get_companies, get_profiles
from .api.listings import company_employees, search_people
from .api.searches import (
    institution_alumni,
    job_changes,
    search_companies,
    search_institutions,
    search_skills,
)
from .client.client import Client, ClientStats, configure, default_client
from .enrichment.background import EnrichmentJob
from .enrichment.results import Estimate, JobSummary
from .errors import *  # noqa: F403  the exception tree: errors.__all__ names it
from .frames.overview import overview
from .integrations import register_when_imported as _register_when_imported

_register_when_imported()

# The package's loggers (lookup_pandas.*) stay silent until the application configures
# logging, as a library's should: docs/logging.md names them.
_logging.getLogger(__name__).addHandler(_logging.NullHandler())

if _TYPE_CHECKING:  # for type checkers and IDEs; at run time they load on first use
    from . import spark as spark
    from . import testing as testing
    from .widgets.panel import SearchPanel as SearchPanel

__all__ = [
    "Client",
    "ClientStats",
    "EnrichmentJob",
    "Estimate",
    "JobSummary",
    "SearchPanel",
    "__version__",
    "balance",
    "company_employees",
    "configure",
    "credits_tier",
    "default_client",
    "email_prospects",
    "errors",
    "get_companies",
    "get_email_owners",
    "get_email_verdicts",
    "get_profiles",
    "get_work_emails",
    "institution_alumni",
    "job_changes",
    "overview",
    "route_costs",
    "search_companies",
    "search_institutions",
    "search_people",
    "search_skills",
    "tiers",
]
__all__ += errors.__all__  # the exception tree, listed once: in errors.py


#: Names loaded on first use: ipywidgets, the emulator and pyspark cost more to import than the
#: rest of the package, and a script or a Dask worker needs none of them.
_LAZY = {
    "SearchPanel": (".widgets.panel", "SearchPanel"),
    "testing": (".testing", None),
    "spark": (".spark", None),
}


def __getattr__(name: str) -> _Any:
    """``lp.SearchPanel``, ``lp.testing`` and ``lp.spark``, imported when first asked for."""
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    module_name, attribute = _LAZY[name]
    module = importlib.import_module(module_name, __name__)
    value = getattr(module, attribute) if attribute else module
    globals()[name] = value  # the next access is a plain attribute
    return value


def __dir__() -> list[str]:
    """The public names, ``testing``, and ``spark`` where pyspark is installed: ``dir(lp)`` and tab
    completion show what can be used, not the package's modules (importing loads them as
    attributes too). ``help(lp)`` and ``inspect.getmembers(lp)`` read every name listed here."""
    return sorted({*__all__, *(name for name in _LAZY if name != "spark" or _has_pyspark())})


def _has_pyspark() -> bool:
    """Whether ``import pyspark`` can find it (nothing is imported)."""
    import importlib.util

    try:
        return importlib.util.find_spec("pyspark") is not None
    except (ImportError, ValueError):  # a finder refusing it; a module without a spec
        return False
