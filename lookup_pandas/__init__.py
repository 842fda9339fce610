"""lookup_pandas: a billable, rate-limited people-and-companies data API in pandas and Jupyter.

Example::

    import lookup_pandas as lp

    client = lp.configure(api_key="lk_...", base_url="https://api.example.com")
    client.profile("ada-lovelace")          # cached on disk: asking again costs nothing

Importing the package registers the ``df.lookup`` accessor.
"""

from . import accessor as _accessor  # noqa: F401  registers df.lookup
from . import errors
from ._version import __version__
from .api import (
    company_employees,
    credits_tier,
    get_profiles,
    search_people,
)
from .client import Client, ClientStats, configure, default_client
from .enrich import Estimate
from .errors import (
    AuthenticationError,
    BudgetExceededError,
    ColumnError,
    ConfigurationError,
    NotFoundError,
    PaginationError,
    RateLimitError,
    RequestTimeoutError,
    ResponseError,
    ServerError,
    ServiceError,
    TransportError,
    UsageError,
    ValidationError,
)
from .views import overview
from .widgets import SearchPanel

__all__ = [
    "AuthenticationError",
    "BudgetExceededError",
    "Client",
    "ClientStats",
    "ColumnError",
    "ConfigurationError",
    "Estimate",
    "NotFoundError",
    "PaginationError",
    "RateLimitError",
    "RequestTimeoutError",
    "ResponseError",
    "SearchPanel",
    "ServerError",
    "ServiceError",
    "TransportError",
    "UsageError",
    "ValidationError",
    "__version__",
    "company_employees",
    "configure",
    "credits_tier",
    "default_client",
    "errors",
    "get_profiles",
    "overview",
    "search_people",
]


def __getattr__(name: str):  # lp.testing without importing the emulator on every import
    if name == "testing":
        import importlib

        return importlib.import_module(".testing", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
