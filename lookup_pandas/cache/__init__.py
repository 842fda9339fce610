"""The answers paid for: what is worth keeping, the SQLite and Redis backends, and managing them.

The Redis backend (:mod:`.redis`) needs the ``[redis]`` extra.

Example:
    >>> print(cache_info(CacheLocation(None)))
    cache:      off (nothing is cached)
    >>> IGNORED_PARAMETERS[-2:]  # the key headers: left out of cache keys, redacted
    ('X-service-apikey', 'X-AUTHAPI-Key')
"""

from __future__ import annotations

from .admin import cache_info, clear, forget, prune
from .opened import CacheLocation, OpenCache
from .policy import (
    DATA_KEY_HEADER,
    IGNORED_PARAMETERS,
    PANEL_KEY_HEADER,
    PaidAnswersOnly,
    should_cache,
)
from .reports import CacheInfo, Forgotten, Removed
from .sqlite import PaidAnswersCache, shared_backends, sqlite_cache_file

__all__ = [
    "DATA_KEY_HEADER",
    "IGNORED_PARAMETERS",
    "PANEL_KEY_HEADER",
    "CacheInfo",
    "CacheLocation",
    "Forgotten",
    "OpenCache",
    "PaidAnswersCache",
    "PaidAnswersOnly",
    "Removed",
    "cache_info",
    "clear",
    "forget",
    "prune",
    "shared_backends",
    "should_cache",
    "sqlite_cache_file",
]
