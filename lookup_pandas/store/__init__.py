"""What processes using one key share: the pace, claims on answers being bought, batch jobs, marks.

Example:
    >>> store = open_store(None, namespace("lk_example", "https://api.example.com"))
    >>> store.claim_many(["key-of-ada"], ttl=30)
    {'key-of-ada': 'mine'}
    >>> store.remember(StoredJob("job_1", ("ada", "grace"), submitted=0.0))
    >>> store.drop_inputs(lambda h: h == "ada")
    [('job_1', ('ada',))]
"""

from __future__ import annotations

import hashlib
import importlib
import math
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from ..errors import ConfigurationError
from . import common
from .common import *  # noqa: F403  the vocabulary every store shares is the package's too

if TYPE_CHECKING:
    from ..config.settings import Settings

T = TypeVar("T")

__all__ = [
    "MemoryStore",
    "answers_namespace",
    "named_namespace",
    "namespace",
    "open_store",
    "require_redis",
    "service_namespace",
    "store_path",
]
__all__ += common.__all__


class MemoryStore:
    """The store of a Client without a cache: its own claims, jobs and marks, in memory.

    Example:
        >>> store = MemoryStore()
        >>> store.reserve(0.5), store.key_seen()
        (0.0, False)
        >>> store.mark_key_seen()
        >>> store.key_seen()
        True
        >>> store.mark_checked(["key-of-ada"], 1700000000.0)
        >>> store.checked_at(["key-of-ada", "key-of-grace"])
        {'key-of-ada': 1700000000.0}
    """

    def __init__(self, *, clock: Callable[[], float] = time.time) -> None:
        self._lock = threading.Lock()
        self._jobs: dict[str, common.StoredJob] = {}
        self._key_seen = -math.inf  # time.monotonic() when the key last worked
        self._clock = clock
        self._checked: dict[str, tuple[float, float]] = {}  # key -> (checked at, kept until)
        self._acted: dict[str, float] = {}  # event key -> kept until
        self._rates: dict[str, tuple[float, float]] = {}  # service -> (items/s, kept until)

    def reserve(self, interval: float) -> float:
        return 0.0

    def defer(self, seconds: float) -> None:
        return None

    def slow_to(self, interval: float, seconds: float = common.SHARED_SLOWDOWN_SECONDS) -> None:
        return None

    def claim_many(self, keys: list[str], ttl: float) -> dict[str, str]:
        return dict.fromkeys(keys, common.MINE)  # one Client: its enrichment dedupes its own calls

    def renew(self, keys: list[str], ttl: float) -> None:
        return None

    def release_many(self, keys: list[str], *, bought: bool = True) -> None:
        return None

    def key_seen(self) -> bool:
        return time.monotonic() - self._key_seen < common.KEY_SEEN_SECONDS

    def mark_key_seen(self) -> None:
        self._key_seen = time.monotonic()

    def checked_at(self, keys: list[str]) -> dict[str, float]:
        now = self._clock()
        with self._lock:
            found = {k: self._checked.get(k) for k in keys}
        return {k: mark[0] for k, mark in found.items() if mark is not None and mark[1] > now}

    def mark_checked(self, keys: list[str], when: float) -> None:
        now = self._clock()
        until = now + common.MARKS_KEPT_SECONDS
        with self._lock:
            _drop_stale(self._checked, lambda mark: mark[1], now)
            for key in keys:
                before = self._checked.get(key)
                self._checked[key] = (max(when, before[0]) if before else when, until)

    def acted_changes(self, keys: list[str]) -> set[str]:
        now = self._clock()
        with self._lock:
            return {k for k in keys if self._acted.get(k, -math.inf) > now}

    def mark_acted(self, keys: list[str]) -> None:
        now = self._clock()
        with self._lock:
            _drop_stale(self._acted, lambda until: until, now)
            self._acted.update(dict.fromkeys(keys, now + common.MARKS_KEPT_SECONDS))

    def resolve_rate(self, service: str) -> float | None:
        with self._lock:
            rate, until = self._rates.get(service, (0.0, -math.inf))
        return rate if until > self._clock() else None

    def keep_resolve_rate(self, service: str, rate: float) -> None:
        with self._lock:
            self._rates[service] = (rate, self._clock() + common.RESOLVE_RATE_KEPT_SECONDS)

    def remember(self, job: common.StoredJob) -> None:
        with self._lock:
            self._jobs[job.job_id] = job

    def jobs(self) -> list[common.StoredJob]:
        with self._lock:
            return sorted(self._jobs.values(), key=lambda j: j.submitted)

    def drop_job(self, job_id: str) -> None:
        with self._lock:
            self._jobs.pop(job_id, None)

    def job(self, job_id: str) -> common.StoredJob | None:
        with self._lock:
            return self._jobs.get(job_id)

    def drop_inputs(
        self, matches: Callable[[str], bool], *, every_namespace: bool = False
    ) -> list[tuple[str, tuple[str, ...]]]:
        changed = []
        with self._lock:
            for job in list(self._jobs.values()):
                kept, dropped = common.split_inputs(job.inputs, matches)
                if not dropped:
                    continue
                if kept:
                    self._jobs[job.job_id] = common.StoredJob(job.job_id, kept, job.submitted)
                else:
                    del self._jobs[job.job_id]
                changed.append((job.job_id, dropped))
        return changed

    def clear_jobs(self, *, every_namespace: bool = False) -> int:
        with self._lock:
            removed = len(self._jobs)
            self._jobs.clear()
            self._checked.clear()
            self._acted.clear()
        return removed

    def count_jobs(self, *, every_namespace: bool = False) -> int:
        with self._lock:
            return len(self._jobs)

    def close(self) -> None:
        return None


def _drop_stale(marks: dict[str, T], until: Callable[[T], float], now: float) -> None:
    """Remove the marks kept until before ``now``."""
    for key in [k for k, mark in marks.items() if until(mark) <= now]:
        del marks[key]


def namespace(api_key: str, base_url: str) -> str:
    """The name entries are filed under: a hash of the key and the base URL, never the key.

    Example:
        >>> namespace("lk_example", "https://api.example.com")
        '61d70fd691a22e770f408b0351ecb3b3'
    """
    return _digest(base_url, api_key)


def named_namespace(name: str, base_url: str) -> str:
    """The name a team's namespace is filed under: a hash of its name and the base URL.

    Example:
        >>> named_namespace("acme-sales", "https://api.example.com")
        'c96ec0eccf2a0ea3a557a7fb43c5a66d'
    """
    return _digest("named", base_url, name)


def service_namespace(base_url: str) -> str:
    """The name a service's own facts (its batch speed) are filed under: a hash of its base URL.

    Every key using the service shares them; no key goes into it.

    Example:
        >>> service_namespace("https://api.example.com") != namespace("", "https://api.example.com")
        True
    """
    return _digest("service", base_url)


def _digest(*parts: str) -> str:
    """32 hex digits of the SHA-256 of ``parts``, joined as the namespaces always were."""
    return hashlib.sha256("\x1f".join(("lookup_pandas", *parts)).encode()).hexdigest()[:32]


def answers_namespace(settings: Settings) -> str:
    """Where a Client's answers and claims are filed: its Redis URL's namespace, else its key's.

    Example:
        >>> from lookup_pandas.config.settings import Settings
        >>> settings = Settings.build(api_key="lk_example", base_url="https://api.example.com",
        ...                           cache="redis://localhost:6379/0?namespace=acme-sales")
        >>> answers_namespace(settings) == named_namespace("acme-sales", "https://api.example.com")
        True
    """
    name = settings.cache_namespace
    if name is None:
        return namespace(settings.api_key, settings.base_url)
    return named_namespace(name, settings.base_url)


def store_path(cache_path: Path) -> Path:
    """The store's file beside the cache.

    Example:
        >>> store_path(Path("leads.sqlite"))
        PosixPath('leads.store.sqlite')
    """
    return cache_path.with_name(f"{cache_path.stem}.store{cache_path.suffix or '.sqlite'}")


def open_store(cache: Path | str | None, ns: str, *, answers: str | None = None) -> common.Store:
    """The store for a cache: beside its file, in the Redis its URL names, or in memory without one.

    ``ns`` is the key's namespace. ``answers`` is the namespace of the answers and their claims in
    a Redis (:func:`answers_namespace`). It defaults to ``ns``.

    Example:
        >>> type(open_store(None, "ns")).__name__
        'MemoryStore'
        >>> type(open_store(Path("leads.sqlite"), "ns")).__name__
        'LocalStore'
    """
    if cache is None:
        return MemoryStore()
    from ..config.cache_urls import is_redis_url

    if isinstance(cache, str) and is_redis_url(cache):
        require_redis()
        from .redis import Namespaces, RedisStore

        return RedisStore(cache, Namespaces(ns, answers or ns))
    from .local import LocalStore

    return LocalStore(store_path(Path(cache)), ns)


def require_redis() -> None:
    """Raise a ConfigurationError that says how to install ``redis`` when it is missing.

    Example:
        >>> require_redis()  # redis is installed: nothing happens
    """
    try:
        importlib.import_module("redis")
    except ImportError as exc:
        if (exc.name or "").partition(".")[0] != "redis":
            raise
        raise ConfigurationError(
            "The cache is a Redis URL, but the redis package is not installed: "
            "pip install 'lookup_pandas[redis]'."
        ) from None
