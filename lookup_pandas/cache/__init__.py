"""The answers paid for: what is worth keeping, the SQLite and Redis backends, and managing them.

Example::

    should_cache(response)                             # the save policy (:mod:`.policy`)
    backend, entry = shared_backends().acquire(path)   # the SQLite backend (:mod:`.sqlite`)
    print(cache_info(CacheLocation.from_environment()))            # :mod:`.admin`
    forget(CacheLocation.from_environment(), ["ada-lovelace"])     # Forgotten(profiles=1, ...)

The Redis backend (:mod:`.redis`) needs the ``[redis]`` extra and is imported only when a Redis
URL is configured.
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
