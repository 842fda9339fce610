"""The answers paid for: what is worth keeping (:mod:`.policy`), the SQLite and Redis backends
(:mod:`.sqlite`, :mod:`.redis`: it needs the ``[redis]`` extra), and managing them (here).

Example:
    >>> print(cache_info(CacheLocation(None)))
    cache:      off (nothing is cached)
"""

from __future__ import annotations

from .admin import cache_info, clear, forget, prune
from .opened import CacheLocation, OpenCache
from .reports import CacheInfo, Forgotten, Removed

__all__ = [
    "CacheInfo",
    "CacheLocation",
    "Forgotten",
    "OpenCache",
    "Removed",
    "cache_info",
    "clear",
    "forget",
    "prune",
]
