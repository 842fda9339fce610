"""lookup_pandas: a billable, rate-limited people-and-companies data API in pandas and Jupyter.

Example::

    import lookup_pandas as lp

    client = lp.configure(api_key="lk_...", base_url="https://api.example.com")
    client.profile("ada-lovelace")          # cached on disk: asking again costs nothing

Importing the package registers the ``df.lookup`` accessor.
"""

from . import errors
from ._version import __version__
from .client import Client, ClientStats, configure, default_client
from .errors import (
    AuthenticationError,
    BudgetExceededError,
    ConfigurationError,
    NotFoundError,
    PaginationError,
    RateLimitError,
    RequestTimeoutError,
    ResponseError,
    ServerError,
    ServiceError,
    TransportError,
    ValidationError,
)

__all__ = [
    "AuthenticationError",
    "BudgetExceededError",
    "Client",
    "ClientStats",
    "ConfigurationError",
    "NotFoundError",
    "PaginationError",
    "RateLimitError",
    "RequestTimeoutError",
    "ResponseError",
    "ServerError",
    "ServiceError",
    "TransportError",
    "ValidationError",
    "__version__",
    "configure",
    "default_client",
    "errors",
]


def __getattr__(name: str):  # lp.testing without importing the emulator on every import
    if name == "testing":
        import importlib

        return importlib.import_module(".testing", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
